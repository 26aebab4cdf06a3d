#!/bin/bash
# options_sources.sh MPIEXEC CUBECG DIR: every refused option or environment variable names its
# source; an --options-file that is not a regular file (a fifo) is refused at once, not read.
set -u
mpiexec=$1 cubecg=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*"; exit 1; }
small="--nx 5 --ny 5 --nz 5 --quiet"
# expect CODE PATTERN -- COMMAND...: COMMAND exits CODE and its first stderr line matches PATTERN
expect() {
  local code=$1 pattern=$2
  shift 3
  "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  [ "$got" = "$code" ] || { cat "$dir/err"; fail "exit $got, not $code: $*"; }
  [ -z "$pattern" ] || head -n 1 "$dir/err" | grep -qE -- "$pattern" ||
    { cat "$dir/err"; fail "no '$pattern': $*"; }
  echo "ok: $*"
}
mkfifo "$dir/fifo" || fail "mkfifo"
# a reader would block for ever on a fifo without a writer: refused before opening it
expect 2 "--options-file $dir/fifo: not a regular file" -- \
  timeout 60 "$mpiexec" -n 1 "$cubecg" $small --options-file "$dir/fifo"
expect 2 "^cubecg: error on rank 0: invalid argument: CUBECG_OPTIONS: --options-file $dir/none: No such file" -- \
  env CUBECG_OPTIONS="--options-file $dir/none" "$mpiexec" -n 1 "$cubecg" $small
printf '# comment\n--nx 5\n--sstep 3\n' >"$dir/opts.txt"
expect 2 "--sstep 3 applies to --solver sstep .got pcg. .options file $dir/opts.txt:3." -- \
  "$mpiexec" -n 1 "$cubecg" --quiet --options-file "$dir/opts.txt"
expect 2 "--pipeline-depth 3 applies to --solver plcg .got pcg. .CUBECG_OPTIONS." -- \
  env CUBECG_OPTIONS="--pipeline-depth 3" "$mpiexec" -n 1 "$cubecg" $small
expect 2 "--tol 2 must be in .0, 1. .CUBECG_OPTIONS." -- \
  env CUBECG_OPTIONS="--tol 2" "$mpiexec" -n 1 "$cubecg" $small
expect 0 "" -- env OMP_NUM_THREADS= "$mpiexec" -n 1 "$cubecg" $small
expect 2 "CUBECG_SIGNAL_CHECK_EVERY=abc: expected an integer" -- \
  env CUBECG_SIGNAL_CHECK_EVERY=abc "$mpiexec" -n 1 "$cubecg" $small
expect 2 "CUBECG_IO_INJECT='garbage': 'garbage' is not one of" -- \
  env CUBECG_IO_INJECT=garbage "$mpiexec" -n 1 "$cubecg" $small
expect 2 "CUBECG_IO_INJECT='kill-during-write:x'" -- \
  env CUBECG_IO_INJECT=kill-during-write:x "$mpiexec" -n 1 "$cubecg" $small
expect 0 "" -- env CUBECG_IO_INJECT=enospc-after=4096,enospc-rank=1 "$mpiexec" -n 1 "$cubecg" $small
echo PASS
