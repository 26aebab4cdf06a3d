#!/bin/bash
# report_kept_after_sigkill.sh: the report is rewritten after each solve: a job killed with SIGKILL (no chance
# to clean up, like Slurm after the grace time) during its second solve leaves a report holding
# the first solve, marked in progress.
#   report_kept_after_sigkill.sh MPIEXEC CUBECG PYTHON OUTDIR
set -u
mpiexec=$1 cubecg=$2 python=$3 out=$4
rm -rf "$out" && mkdir -p "$out" || exit 1
export OMP_NUM_THREADS=1
fail() { echo "report_kept_after_sigkill.sh: FAIL: $*" >&2; cat "$out/run.txt" >&2; exit 1; }
"$mpiexec" -n 2 "$cubecg" --nx 24 --ny 24 --nz 24 --solver all --reduction ar --monitor 1 \
  --report "$out/r.json" >"$out/run.txt" 2>&1 &
pid=$!
for _ in $(seq 1200); do
  grep -q "cgcg-ar .*|r|/|b|" "$out/run.txt" 2>/dev/null && break # inside solve 2
  kill -0 $pid 2>/dev/null || fail "cubecg ended before solve 2"
  sleep 0.05
done
grep -q "cgcg-ar .*|r|/|b|" "$out/run.txt" || fail "solve 2 not reached in 60 s"
# SIGKILL the ranks (mpiexec then ends): nothing can be written any more
ranks=$(pgrep -f "^$cubecg " -P "$(pgrep -d, -P $pid)")
[[ -n $ranks ]] || fail "no rank processes found"
kill -KILL $ranks
wait $pid
cat "$out/run.txt"
"$python" - "$out/r.json" <<'PY' || fail "report check"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["in_progress"] is True and r["interrupted"] is False, r
assert len(r["solves"]) == 1, r["solves"]
s = r["solves"][0]
assert s["solver"] == "pcg" and s["converged"] and not s["interrupted"], s
print("report_kept_after_sigkill.sh: report after SIGKILL holds the finished pcg solve (%d iterations)" % s["iterations"])
PY
echo "report_kept_after_sigkill.sh: PASS"
