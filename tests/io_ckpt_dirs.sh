#!/bin/sh
# io_ckpt_dirs.sh MPIEXEC CUBECG DIR: checkpoint directories of other runs (issue 9, item 5).
#  1. the same command twice: both runs succeed (the 2nd replaces ckpt.20, the latest, atomically;
#     it used to abort with "ckpt.20 exists and is the latest checkpoint"), and latest restarts;
#  2. another problem (--E 2) into the directory: refused before the solve, exit 2, naming the
#     directory and the value; the old checkpoints are untouched;
#  3. the same with --checkpoint-overwrite: runs, and the directory then holds the E = 2 problem.
set -u
mpiexec=$1 cubecg=$2 dir=$3
rm -rf "$dir"
run="$mpiexec -n 2 $cubecg --nx 10 --ny 9 --nz 8 --quiet"
ckpt="--checkpoint posix --checkpoint-dir $dir --checkpoint-every 20"
fail() { echo "FAIL: $*"; exit 1; }
for i in 1 2; do
  $run $ckpt 2>"$dir.err" || { cat "$dir.err"; fail "run $i of the same command"; }
  echo "run $i: ok, latest $(cat "$dir/latest")"
done
[ "$(cat "$dir/latest")" = ckpt.20 ] || fail "latest is $(cat "$dir/latest"), expected ckpt.20"
ls -d "$dir"/ckpt.*.tmp >/dev/null 2>&1 && fail "temporary left behind"
$run --restart "$dir" 2>"$dir.err" || { cat "$dir.err"; fail "restart after the second run"; }
crc_before=$(cat "$dir/ckpt.20/manifest.json")
$run $ckpt --E 2 2>"$dir.err"
code=$?
echo "other problem: exit $code: $(head -n 1 "$dir.err")"
[ "$code" -eq 2 ] || fail "another problem's run: exit $code, expected 2"
grep -qF -- "--checkpoint-dir $dir holds checkpoints of another problem" "$dir.err" || fail "message does not name the directory"
grep -qF -- "--E 2 differs from the checkpoint's E = 1" "$dir.err" || fail "message does not name the value"
[ "$crc_before" = "$(cat "$dir/ckpt.20/manifest.json")" ] || fail "the refused run changed the checkpoint"
$run $ckpt --E 2 --checkpoint-overwrite 2>"$dir.err" || { cat "$dir.err"; fail "--checkpoint-overwrite"; }
$run --restart "$dir" --E 2 2>"$dir.err" || { cat "$dir.err"; fail "restart of the overwritten E = 2 problem"; }
$run --restart "$dir" 2>"$dir.err" && fail "the E = 1 problem restarted from the E = 2 checkpoint"
rm -f "$dir.err"
echo "PASS"
