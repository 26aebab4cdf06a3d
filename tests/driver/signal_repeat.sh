#!/bin/bash
# signal_repeat.sh LAUNCHER CUBECG PYTHON OUTDIR TARGET RUNS: RUNS short 2-rank runs, each stopped
# by SIGTERM; every one must end as a stop request: the ranks' INTERRUPTED line, the report marked
# interrupted, the checkpoint directory's lock removed, exit 4 (Hydra's own status may be 0 when
# it is signalled itself).
#   LAUNCHER  mpiexec (Hydra: LAUNCHER -n 2) or an srun command line (srun --mpi=pmi2 ... -n 2)
#   TARGET    launcher  SIGTERM to the launcher once the solve runs (Hydra and srun forward it)
#             ranks     SIGTERM to every rank, twice 0.2 s apart, once the solve runs (a repeat
#                       within the window is one request, as a launcher's forwarded copy is)
#             early     SIGTERM to every rank 0.3 s after the ranks exist: in MPI_Init, the options'
#                       probes or while the lock is taken (stopped at the first stage boundary)
#             scancel   (srun) scancel --signal=TERM of the ranks' job step, once the solve runs:
#                       slurmstepd delivers it to the tasks, as at a time limit. A SIGTERM to srun
#                       itself is no stop request: srun kills the step at once ("forcing job
#                       termination"; docs/user-guide.md, signals)
set -u
launcher=$1 cubecg=$2 python=$3 out=$4 target=$5 runs=$6
rm -rf "$out" && mkdir -p "$out" || exit 1
export OMP_NUM_THREADS=1
failures=0
fail() {
  echo "signal_repeat.sh: FAIL run $run ($target): $*" >&2
  sed 's/^/    /' "$dir/run.txt" >&2
  failures=$((failures + 1))
}
# the rank processes of this run: the cubecg processes (not the launcher: ^) of its report
ranks_of() { pgrep -f -- "^$cubecg .*--report $1( |$)"; }
# wait (up to 60 s) until grep -q "$2" matches the run's output; 1 if the run ended first
wait_for() {
  for _ in $(seq 600); do
    grep -q -- "$2" "$dir/run.txt" 2>/dev/null && return 0
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

for run in $(seq "$runs"); do
  dir=$out/run$run
  mkdir -p "$dir"
  report=$dir/r.json
  # no convergence (tol 1e-30): only the signal stops it; a checkpoint directory, so a lock is held
  # shellcheck disable=SC2086 # the launcher is a command line
  $launcher -n 2 "$cubecg" --nx 10 --ny 10 --nz 10 --precond none --tol 1e-30 --maxit 1000000 \
    --monitor 20 --checkpoint posix --checkpoint-dir "$dir/ck" --checkpoint-every 1000000 \
    --report "$report" >"$dir/run.txt" 2>&1 &
  pid=$!
  if [[ $target == early ]]; then
    for _ in $(seq 300); do
      [[ $(ranks_of "$report" | wc -l) -ge 2 ]] && break
      sleep 0.02
    done
    sleep 0.3
  else
    wait_for $pid "|r|/|b|" || { wait $pid; fail "no monitor line before the run ended"; continue; }
  fi
  ranks=$(ranks_of "$report" | tr '\n' ' ')
  case $target in
  launcher) kill -TERM $pid ;;
  ranks)
    # shellcheck disable=SC2086
    kill -TERM $ranks 2>/dev/null
    sleep 0.2
    # shellcheck disable=SC2086
    kill -TERM $ranks 2>/dev/null
    ;;
  scancel)
    step=$(tr '\0' '\n' <"/proc/${ranks%% *}/environ" | sed -n 's/^SLURM_STEP_ID=//p')
    job=$(tr '\0' '\n' <"/proc/${ranks%% *}/environ" | sed -n 's/^SLURM_JOB_ID=//p')
    scancel --signal=TERM "$job.$step"
    ;;
  early)
    [[ -n $ranks ]] || { kill -KILL $pid; wait $pid; fail "no rank process within 6 s"; continue; }
    # shellcheck disable=SC2086
    kill -TERM $ranks
    ;;
  esac
  wait $pid # a run that ignores the signal is ended by the ctest TIMEOUT
  code=$?
  # Hydra signalled itself may exit 0 before its ranks' 4 (docs/user-guide.md, exit codes)
  [[ $code == 4 || ($code == 0 && $target == launcher && $launcher != srun*) ]] ||
    { fail "exit code $code, expected 4"; continue; }
  grep -q "INTERRUPTED by SIGTERM: the run stopped early (exit code 4)" "$dir/run.txt" ||
    { fail "no INTERRUPTED line"; continue; }
  [[ ! -e $dir/ck/cubecg.lock ]] || { fail "the lock $dir/ck/cubecg.lock was left"; continue; }
  "$python" - "$report" <<'PY' || { fail "report check"; continue; }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["interrupted"] is True and r["signal"] == "SIGTERM" and r["in_progress"] is False, r
assert all(s["interrupted"] for s in r["solves"]) and len(r["solves"]) <= 1, r["solves"]
PY
  echo "signal_repeat.sh: run $run: exit $code, $(grep -o 'SIGTERM received: .*' "$dir/run.txt")"
done
echo "signal_repeat.sh: $((runs - failures)) passed, $failures failed ($target, $runs runs)"
((failures == 0))
