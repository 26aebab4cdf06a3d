#!/usr/bin/env bash
# error_output_20_runs.sh MPIEXEC CUBECG DIR: a failure every rank agrees on (restart of a 2-rank
# per-rank-file checkpoint on 3 ranks) is reported by rank 0 on stderr every time (20 runs), exit 1,
# and the job ends with MPI_Finalize, not MPI_Abort (output was once lost 1 run in 40).
set -u
mpiexec=$1 cubecg=$2 dir=$3
export OMP_NUM_THREADS=1
rm -rf "$dir"
"$mpiexec" -n 2 "$cubecg" --nx 6 --ny 6 --nz 6 --checkpoint posix --checkpoint-dir "$dir" \
  --checkpoint-every 5 --quiet || { echo "FAIL: writing the checkpoint"; exit 1; }
for i in $(seq 1 20); do
  out=$("$mpiexec" -n 3 "$cubecg" --nx 6 --ny 6 --nz 6 --restart "$dir" 2>&1 >/dev/null)
  code=$?
  [ "$code" -eq 1 ] || { echo "FAIL run $i: exit $code"; echo "$out"; exit 1; }
  [ -n "$out" ] || { echo "FAIL run $i: stderr empty"; exit 1; }
  echo "$out" | head -n 1 | grep -q "written by 2 ranks" || { echo "FAIL run $i: $out"; exit 1; }
  [ "$(echo "$out" | wc -l)" -eq 1 ] || { echo "FAIL run $i: not one line (MPI_Abort?):"; echo "$out"; exit 1; }
done
echo "PASS: 20 of 20 runs printed the agreed message once and finalized"
