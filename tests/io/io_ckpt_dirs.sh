#!/bin/sh
# io_ckpt_dirs.sh MPIEXEC CUBECG DIR: checkpoint directories of other runs.
#  1. the same command twice: the second is refused (exit 2) naming --restart DIR, since the
#     directory holds this problem's newer checkpoints, and changes nothing; latest restarts;
#  2. another problem (--E 2) into the directory: refused before the solve, exit 2, naming the
#     directory and the value; the old checkpoints are untouched;
#  3. the same with --checkpoint-overwrite: runs, and the directory then holds the E = 2 problem.
set -u
mpiexec=$1 cubecg=$2 dir=$3
rm -rf "$dir"
run="$mpiexec -n 2 $cubecg --nx 10 --ny 9 --nz 8 --quiet"
ckpt="--checkpoint posix --checkpoint-dir $dir --checkpoint-every 20"
fail() { echo "FAIL: $*"; exit 1; }
$run $ckpt 2>"$dir.err" || { cat "$dir.err"; fail "run 1 of the same command"; }
echo "run 1: ok, latest $(cat "$dir/latest")"
[ "$(cat "$dir/latest")" = ckpt.20 ] || fail "latest is $(cat "$dir/latest"), expected ckpt.20"
first=$(cat "$dir/ckpt.20/manifest.json")
$run $ckpt 2>"$dir.err"
code=$?
echo "run 2: exit $code: $(head -n 1 "$dir.err")"
[ "$code" -eq 2 ] || fail "the same command again: exit $code, expected 2"
grep -qF -- "continue it with --restart $dir" "$dir.err" || fail "the refusal does not name --restart $dir"
[ "$first" = "$(cat "$dir/ckpt.20/manifest.json")" ] || fail "the refused run changed ckpt.20"
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
$run --restart "$dir" --E 1 2>"$dir.err" && fail "the E = 1 problem restarted from the E = 2 checkpoint"
rm -f "$dir.err"
echo "PASS"
