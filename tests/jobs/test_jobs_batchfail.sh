#!/bin/bash
# test_jobs_batchfail.sh REPO CUBECG WORKDIR: jobs/slurm/strong-scaling.sbatch run locally (as a
# batch job runs it) fails visibly: a cubecg run refused for a bad option makes the script exit
# non-zero, names the run with cubecg's real exit code, and its summary line counts the failure;
# the same setting with good options exits 0 with a report (tiny 8^3 mesh, 2 ranks, seconds).
set -u
repo=$1 cubecg=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail=0
build=$(cd "$(dirname "$cubecg")/.." && pwd) # the sbatch script finds CUBECG_BUILD/src/cubecg
sb=$repo/jobs/slurm/strong-scaling.sbatch
cores=$(hwloc-calc --number-of core all)
((cores >= 2)) || cores=1
export CUBECG_REPO=$repo CUBECG_BUILD=$build CUBECG_RESULTS=$work/results CUBECG_PRESET=8x8x8 CUBECG_NODES=1 \
  CUBECG_CORES_PER_NODE=$cores CUBECG_LAYOUTS=flat CUBECG_PROGRESS=off CUBECG_LAUNCHER=mpiexec \
  CUBECG_MPIEXEC=mpiexec.mpich CUBECG_RUN_NAME=job
unset SLURM_JOB_ID

# 1) a bad option: cubecg exits 2, the job must fail and say so
CUBECG_OPTS="--no-such-option 1" bash "$sb" >"$work/bad.out" 2>"$work/bad.err"
rc=$?
if [[ $rc != 0 ]] && grep -q "FAILED (exit 2), see " "$work/bad.err" &&
  grep -q "cubecg strong scaling: 1 run(s), 1 failed" "$work/bad.out" && grep -q "^cubecg strong scaling: FAILED: " "$work/bad.err"; then
  echo "ok   bad option: job exit $rc, $(grep -o '[^ ]* FAILED (exit 2)' "$work/bad.err"), summary '1 run(s), 1 failed'"
else
  echo "FAIL bad option: job exit $rc (want non-zero with a FAILED line and a summary)"
  cat "$work/bad.out" "$work/bad.err"
  fail=1
fi
grep -q "no-such-option" "$work"/results/strong-8x8x8/job/*.log 2>/dev/null ||
  { echo "FAIL the run's log does not show cubecg's refusal"; fail=1; }

# 2) the same job with good options: exit 0, 0 failed, one report
rm -rf "$work/results"
bash "$sb" >"$work/good.out" 2>"$work/good.err"
rc=$?
if [[ $rc == 0 ]] && grep -q "cubecg strong scaling: 1 run(s), 0 failed" "$work/good.out" &&
  compgen -G "$work/results/strong-8x8x8/job/*.json" >/dev/null; then
  echo "ok   good options: job exit 0, summary '1 run(s), 0 failed', report written"
else
  echo "FAIL good options: job exit $rc"
  cat "$work/good.out" "$work/good.err" "$work"/results/strong-8x8x8/job/*.log
  fail=1
fi
exit $fail
