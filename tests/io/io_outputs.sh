#!/bin/bash
# io_outputs.sh MPIEXEC CUBECG PYTHON NP CASE DIR: outputs that cannot hang or mislead.
#   fifo       --report to a FIFO nobody reads: refused at once (exit 2, no hang); with a reader:
#              the report arrives through it
#   symlink    --report to a symlink: written through (the link stays, its target holds the
#              report); a dangling link and a name too long for its temporary refused before the
#              work (exit 2)
#   xdmf       --export-solution 'x&y<z': the .xmf is well-formed XML naming the .h5
#   solverall  --solver all with one variant broken down (CUBECG_KRYLOV_INJECT=nan@5:cgcg): the
#              others still run, the report records the breakdown, exit 1 (the worst)
#   restart    --restart DIR without --nx/--ny/--nz takes the problem from the manifest; a
#              directory without a checkpoint is refused (exit 2) naming what is missing
#   silent     nothing silent: a bad OMP_NUM_THREADS named by cubecg, checkpoint and gas options
#              without effect refused, a missing --gas-ssd-dir refused and never created (exit 2)
set -u
mpiexec=$1 cubecg=$2 python=$3 np=$4 case=$5 dir=$6
export OMP_NUM_THREADS=1
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() { echo "io_outputs.sh $case np$np: FAIL: $*"; [ -f "$dir/err" ] && cat "$dir/err"; exit 1; }
run="$mpiexec -n $np $cubecg --nx 8 --ny 7 --nz 6 --quiet"
expect() { # CODE PATTERN -- COMMAND...
  local want=$1 pattern=$2
  shift 3
  "$@" >"$dir/out" 2>"$dir/err"
  local code=$?
  [ "$code" -eq "$want" ] || fail "exit $code, expected $want: $*"
  [ -z "$pattern" ] || grep -qE -- "$pattern" "$dir/err" || fail "no stderr line matching '$pattern'"
}
json() { "$python" -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

case $case in
fifo)
  mkfifo "$dir/fifo"
  expect 2 "--report $dir/fifo: a FIFO that nobody reads" -- timeout 60 $run --report "$dir/fifo"
  cat "$dir/fifo" >"$dir/got.json" &
  reader=$!
  expect 0 "" -- timeout 60 $run --report "$dir/fifo"
  wait $reader
  [ "$(json "$dir/got.json" "r['checks']['verification']")" = PASSED ] || fail "no report through the FIFO"
  ;;
symlink)
  echo old >"$dir/target.json" && ln -s target.json "$dir/link.json"
  expect 0 "" -- $run --report "$dir/link.json"
  [ -L "$dir/link.json" ] || fail "the symlink was replaced by a file"
  [ "$(json "$dir/target.json" "r['kind']")" = run ] || fail "the link's target does not hold the report"
  ln -s missing.json "$dir/dangling.json"
  expect 2 "--report $dir/dangling.json: a symbolic link to a missing file" -- $run --report "$dir/dangling.json"
  long=$dir/$(printf 'r%.0s' $(seq 250)).json
  expect 2 "--report .*: too long" -- $run --report "$long"
  ;;
xdmf)
  expect 0 "" -- $run --export-solution "$dir/x&y<z"
  "$python" - "$dir/x&y<z.xmf" <<'PY' || fail "the XDMF file is not well-formed or names another file"
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.argv[1])
items = [n.firstChild.data for n in doc.getElementsByTagName("DataItem") if n.getAttribute("Format") == "HDF"]
assert items and all(i.startswith("x&y<z.h5:/") for i in items), items
PY
  ;;
solverall)
  CUBECG_KRYLOV_INJECT=nan@5:cgcg expect 1 "numerical error: cgcg .*NaN" -- $run --solver all --reduction ar --report "$dir/r.json"
  # every variant of the registry ran (each has ar); only cgcg broke down, the others converged
  got=$(json "$dir/r.json" "[s['solver'] for s in r['solves']] == [v['name'] for v in r['available']['variants']] and all(s['converged'] == (s['solver'] != 'cgcg') and ('NaN' in s['failure']) == (s['solver'] == 'cgcg') for s in r['solves']), r['in_progress'], r['checks']['passed']")
  [ "$got" = "(True, False, False)" ] || fail "report: $got"
  ;;
restart)
  $run --checkpoint posix --checkpoint-dir "$dir/ck" --checkpoint-every 10 --E 2 --solver cgcg >"$dir/out" 2>"$dir/err" ||
    fail "writing the checkpoint"
  expect 0 "" -- "$mpiexec" -n "$np" "$cubecg" --quiet --restart "$dir/ck" --report "$dir/r.json"
  got=$(json "$dir/r.json" "(r['problem']['nx'], r['problem']['ny'], r['problem']['nz'], float(r['parameters']['E']), r['solves'][0]['solver'], r['solves'][0]['start_iteration'] > 0)")
  [ "$got" = "(8, 7, 6, 2.0, 'cgcg', True)" ] || fail "the restart did not take the manifest's problem: $got"
  expect 2 "--nx 9 differs from the checkpoint's nx = 8 .*: refusing to restart" -- "$mpiexec" -n "$np" "$cubecg" --quiet --restart "$dir/ck" --nx 9
  mkdir -p "$dir/empty"
  expect 2 "--restart $dir/empty: no checkpoint in $dir/empty" -- "$mpiexec" -n "$np" "$cubecg" --quiet --restart "$dir/empty"
  ;;
silent)
  for v in abc 0 -1; do
    OMP_NUM_THREADS=$v expect 2 "cubecg: error on rank 0: .*OMP_NUM_THREADS=$v: expected a positive integer" -- $run
  done
  expect 2 "--checkpoint-every has no effect without --checkpoint" -- $run --checkpoint-every 5
  expect 2 "--checkpoint-keep has no effect without --checkpoint" -- $run --checkpoint-keep 3
  expect 2 "--gas-page has no effect without --checkpoint gas" -- $run --gas-page 64k
  expect 2 "--gas-ssd-dir has no effect without --checkpoint gas" -- $run --checkpoint posix \
    --checkpoint-dir "$dir/ck" --gas-ssd-dir "$dir"
  expect 2 "--gas-ssd-dir $dir/missing/x: No such file or directory \(it is not created" -- \
    $run --checkpoint gas --checkpoint-dir "$dir/ck" --gas-ssd-dir "$dir/missing/x"
  [ ! -e "$dir/missing" ] && [ ! -e "$dir/ck" ] || fail "a refused run created directories"
  ;;
*) fail "unknown case" ;;
esac
echo "io_outputs.sh $case np$np: PASS"
