#!/usr/bin/env bash
# test_slurm_batch.sh REPO BUILD WORK: the batch path against a real Slurm (tests/mpi/slurm_cluster.sh:
# a one-node cluster of this machine started here and stopped at the end), not a dry run:
#   1. submit-study.sh end to end: the run job (srun --mpi=pmi2), then its afterok analysis job
#   2. a time limit with --signal: the run stops on SIGTERM and leaves its partial report
#   3. a failed run (checks that cannot pass) fails its job
#   4. scontrol requeue of a checkpointing job: the requeued job continues from the last checkpoint
#   5. the benchmark steps (cubecg-iobench, cubecg-bench) launched by srun, as the runs are
# Exit 77 (ctest skip) with the reason when slurm-wlm or munge is missing or does not start.
set -u
repo=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cluster=$work/cluster
line=$(bash "$repo/tests/mpi/slurm_cluster.sh" "$cluster" start)
code=$?
echo "$line"
((code == 0)) || exit "$code"
export "${line?}"
trap 'bash "$repo/tests/mpi/slurm_cluster.sh" "$cluster" stop' EXIT
# the batch scripts run from Slurm's spool: CUBECG_REPO tells them where the repository is
export CUBECG_REPO=$repo CUBECG_BUILD=$build CUBECG_RESULTS=$work/results
failures=0
check()
{
  if eval "$2"; then echo "PASS $1"; else
    echo "FAIL $1 ($2)"
    failures=$((failures + 1))
  fi
}
# field JOB KEY: a field of scontrol show job (JobState, ExitCode, Restarts, ...)
field()
{
  scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}
# wait_done JOB SECONDS: until the job has left PENDING/RUNNING (or the time is up)
wait_done()
{
  local i state
  for ((i = 0; i < $2; i++)); do
    state=$(field "$1" JobState)
    case "$state" in PENDING | RUNNING | CONFIGURING | COMPLETING | REQUEUED | SUSPENDED) sleep 1 ;; *) return 0 ;; esac
  done
  echo "job $1 still $state after $2 s"
  scancel "$1"
  return 1
}

# 1. the study: one run job and the analysis job that waits for it (afterok)
out=$(bash "$repo/jobs/slurm/submit-study.sh" --preset ci --nodes 1 --repeat 1 --progress off \
  --layouts flat --sweep study --time 00:10:00 2>&1)
echo "$out"
run_job=$(sed -n 's/^submitted job \([0-9]*\):.*/\1/p' <<<"$out")
analysis_job=$(sed -n 's/^submitted analysis job \([0-9]*\).*/\1/p' <<<"$out")
check "study: run job and analysis job submitted" "[[ -n '$run_job' && -n '$analysis_job' ]]"
check "study: the analysis depends on the run (afterok)" \
  "scontrol show job '$analysis_job' | grep -q 'Dependency=afterok:$run_job'"
wait_done "$run_job" 400
wait_done "$analysis_job" 400
check "study: run job COMPLETED" "[[ $(field "$run_job" JobState) == COMPLETED ]]"
check "study: analysis job COMPLETED" "[[ $(field "$analysis_job" JobState) == COMPLETED ]]"
report=$(ls "$work"/results/study/*/*progress-off*.json 2>/dev/null | head -1)
check "study: a report launched by srun" \
  "python3 -c \"import json,sys; r=json.load(open('$report')); sys.exit(not (r['mpi']['launched_by']=='srun' and r['checks']['passed']))\""
check "study: the analysis wrote its tables" "ls '$work'/results/study/tables.md >/dev/null 2>&1"

# 2. a time limit of one minute, SIGTERM 55 s before it: the run stops after its current iteration
# and its report says interrupted (the job fails: a run did not finish). Every reduction takes
# >= 0.2 s (--inject-reduction-latency), so the solve outlasts the limit on any machine.
jid=$(env CUBECG_PRESET=32x32x32 CUBECG_LATENCIES=200000 CUBECG_LAYOUTS=flat CUBECG_PROGRESS=off \
  CUBECG_SOLVER=pcg CUBECG_REDUCTION=ar CUBECG_TOL=1e-12 CUBECG_SWEEP=signal CUBECG_LAUNCHER=srun \
  sbatch --parsable -N 1 --time 1 --signal TERM@55 --output "$work/signal-%j.out" \
  "$repo/jobs/slurm/strong-scaling.sbatch")
wait_done "$jid" 200
report=$(ls "$work"/results/signal/*/*.json 2>/dev/null | head -1)
check "signal: a partial report" "[[ -s '$report' ]]"
check "signal: the report says interrupted by SIGTERM" \
  "python3 -c \"import json,sys; r=json.load(open('$report')); sys.exit(not (r['interrupted'] and r['signal']=='SIGTERM'))\""
check "signal: the job failed (a run was cut short)" "[[ $(field "$jid" JobState) == FAILED ]]"

# 3. a run whose checks cannot pass (analytic tolerance 1e-300) fails its job
jid=$(env CUBECG_LAYOUTS=flat CUBECG_PROGRESS=off CUBECG_SOLVER=pcg CUBECG_REDUCTION=ar \
  CUBECG_OPTS="--analytic-tol 1e-300" CUBECG_SWEEP=failed CUBECG_LAUNCHER=srun \
  sbatch --parsable -N 1 --time 5 --output "$work/failed-%j.out" "$repo/jobs/slurm/strong-scaling.sbatch")
wait_done "$jid" 200
check "failed run: the job FAILED" "[[ $(field "$jid" JobState) == FAILED ]]"
check "failed run: the job's exit code is not 0" "[[ $(field "$jid" ExitCode) != 0:0 ]]"
report=$(ls "$work"/results/failed/*/*.json 2>/dev/null | head -1)
check "failed run: its report says the checks failed" \
  "python3 -c \"import json,sys; r=json.load(open('$report')); sys.exit(r['checks']['passed'])\""
check "failed run: the job names the failed run" "grep -q 'FAILED: ' '$work'/failed-$jid.out"

# 4. requeue as soon as the checkpointing run has written a checkpoint (Slurm requeues a running or
# a finished batch job alike): the requeued job continues from the last checkpoint
jid=$(env CUBECG_PRESET=40x40x40 CUBECG_LAYOUTS=flat CUBECG_PROGRESS=' ' CUBECG_CHECKPOINT=posix \
  CUBECG_CHECKPOINT_EVERY=5 CUBECG_TOL=1e-10 CUBECG_SWEEP=requeue CUBECG_LAUNCHER=srun \
  sbatch --parsable -N 1 --time 10 --output "$work/requeue-%j.out" --open-mode append \
  "$repo/jobs/slurm/strong-scaling.sbatch")
ckpt=$work/results/requeue
for ((i = 0; i < 200; i++)); do
  [[ -n $(find "$ckpt" -name latest 2>/dev/null) ]] && break
  sleep 1
done
check "requeue: a checkpoint before the requeue" "[[ -n \$(find '$ckpt' -name latest) ]]"
scontrol requeue "$jid"
sleep 2
wait_done "$jid" 400
report=$(ls "$ckpt"/*/*.json 2>/dev/null | head -1)
check "requeue: the job restarted once and COMPLETED" \
  "[[ $(field "$jid" Restarts) -ge 1 && $(field "$jid" JobState) == COMPLETED ]]"
check "requeue: the requeued run continued from the last checkpoint" \
  "python3 -c \"import json,sys; r=json.load(open('$report')); s=r['solves'][0]; sys.exit(not (s['start_iteration']>0 and r['checks']['passed']))\""
check "requeue: the job said so" "grep -q 'continues from' '$work'/requeue-$jid.out"

# 5. the benchmark steps of strong-scaling.sbatch (cubecg-iobench on every core, cubecg-bench on one
# node) launched by srun through the job library's launch function, as the runs are: their logs
# show the srun line, their reports are written, the job COMPLETED
jid=$(env CUBECG_LAYOUTS=flat CUBECG_PROGRESS=' ' CUBECG_IOBENCH=64k CUBECG_IOBENCH_BACKENDS=posix \
  CUBECG_IOBENCH_REPEAT=2 CUBECG_KERNELS=1 CUBECG_KERNELS_REPEAT=2 \
  CUBECG_KERNELS_OPTS="--nx 16 --ny 16 --nz 16 --allow-cached" CUBECG_SWEEP=bench CUBECG_LAUNCHER=srun \
  sbatch --parsable -N 1 --time 10 --output "$work/bench-%j.out" "$repo/jobs/slurm/strong-scaling.sbatch")
wait_done "$jid" 400
bench=$work/results/bench
check "bench steps: the job COMPLETED" "[[ $(field "$jid" JobState) == COMPLETED ]]"
for step in iobench:cubecg-iobench kernels:cubecg-bench; do
  log=$(ls "$bench"/*/"${step%:*}".log 2>/dev/null | head -1)
  check "bench steps: ${step#*:} launched by srun (--mpi=pmi2, one rank per core)" \
    "head -1 '$log' 2>/dev/null | grep -qE '^\\+ env OMP_NUM_THREADS=1 srun --nodes 1 --ntasks [0-9]+ --ntasks-per-node [0-9]+ --cpus-per-task 1 --cpu-bind=mask_cpu:[^ ]+ --mpi=pmi2 [^ ]*/${step#*:} '"
done
check "bench steps: the iobench and kernels reports" \
  "python3 -c \"import glob,json,sys; k=[json.load(open(f)).get('kind') for f in sorted(glob.glob('$bench/*/*.json'))]; sys.exit(not ('iobench' in k and 'kernels' in k))\""

echo "slurm batch path: $failures failure(s)"
((failures == 0))
