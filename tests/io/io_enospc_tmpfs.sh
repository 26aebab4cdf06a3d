#!/bin/sh
# io_enospc_tmpfs.sh MPIEXEC NP CUBECG BACKEND DIR: a checkpointed run on a real full file system
# (a 1500 KiB tmpfs mounted on DIR: room for two checkpoints of the 20^3 problem, not three) must
# fail with ENOSPC on every rank within the time limit (no deadlock), and the previous
# checkpoint must restart and converge. Exit 77 (ctest SKIP_RETURN_CODE) when mount is not
# permitted (not root, a container without CAP_SYS_ADMIN).
set -u
mpiexec=$1 np=$2 cubecg=$3 backend=$4 dir=$5
log=$dir.log
mkdir -p "$dir" || exit 1
umount "$dir" 2>/dev/null
if ! mount -t tmpfs -o size=1500k tmpfs "$dir" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs on $dir (needs root or CAP_SYS_ADMIN); the injected ENOSPC tests still run"
  exit 77
fi
trap 'umount "$dir" 2>/dev/null' EXIT
mesh="--nx 20 --ny 20 --nz 20"
timeout 150 "$mpiexec" -n "$np" "$cubecg" $mesh --checkpoint "$backend" --checkpoint-dir "$dir/c" \
  --checkpoint-every 10 --io-fallback --quiet >"$log" 2>&1
code=$?
echo "write run: exit $code"
grep -v '^  \[' "$log" | head -n 4
[ "$code" -ne 124 ] || { echo "FAIL: the run hung on the full file system (killed by timeout)"; exit 1; }
[ "$code" -ne 0 ] || { echo "FAIL: the file system never filled up (test sized wrongly?)"; exit 1; }
# libgfortran may swallow the error of a buffered WRITE: the fortran backend then detects the short
# file itself ("device full or file size limit?")
grep -qE "No space left on device|device full" "$log" || { echo "FAIL: no ENOSPC message"; exit 1; }
[ -f "$dir/c/latest" ] || { echo "FAIL: no committed checkpoint left"; exit 1; }
latest=$(cat "$dir/c/latest")
echo "latest: $latest"
[ -f "$dir/c/$latest/manifest.json" ] || { echo "FAIL: latest names a missing checkpoint"; exit 1; }
if ls -d "$dir"/c/ckpt.*.tmp >/dev/null 2>&1; then echo "note: temporary left (removed by the next run)"; fi
timeout 150 "$mpiexec" -n "$np" "$cubecg" $mesh --restart "$dir/c" --io-fallback --quiet >"$log" 2>&1
code=$?
echo "restart from $latest: exit $code"
[ "$code" -eq 0 ] || { cat "$log"; echo "FAIL: restart from the previous checkpoint"; exit 1; }
echo "PASS"
