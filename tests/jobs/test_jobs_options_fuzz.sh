#!/bin/bash
# test_jobs_options_fuzz.sh REPO WORKDIR: the job scripts validate their options as strictly as the
# driver. The cases named in the docs first (run-local.sh --mesh 0, --out without a value,
# submit-study.sh --nodes 4,2,2, each refused with exit 2 and one line naming the script), then a
# small deterministic fuzz (RANDOM seeded): option words from each script's list mixed with bad
# values (empty, 0, -1, 2x, abc, a repeated list, another option as the value, a missing value at
# the end). Every dry run must end with 0 or 2, never in a bash error ("unbound variable", "syntax
# error", "integer expression"), and a refusal says in one line which script refused.
set -u
repo=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
export CUBECG_MPIEXEC=true CUBECG_MAX_CORES=2 CUBECG_RESULTS=$work/results CUBECG_BUILD=$work/nobuild
export CUBECG_HWLOC_INPUT="core:4 pu:1" CUBECG_CORES_PER_NODE=4
fail=0
check() # check WANT(0|2|any) SCRIPT ARGS...
{
  local want=$1 script=$2
  shift 2
  bash "$repo/jobs/$script" "$@" >"$work/out" 2>"$work/err"
  local rc=$? name=${script##*/} bad=""
  [[ $rc == 0 || $rc == 2 ]] || bad="exit $rc"
  [[ $want == any || $rc == "$want" ]] || bad="exit $rc, expected $want"
  grep -qE "unbound variable|syntax error|integer expression|command not found|bad substitution" "$work/err" &&
    bad="a bash error: $(head -n 1 "$work/err")"
  if ((rc == 2)) && [[ -z $bad ]]; then
    grep -qE "^(${name%.sh}|$name|cubecg-jobs)" "$work/err" || bad="the refusal does not name $name: $(head -n 1 "$work/err")"
  fi
  if [[ -n $bad ]]; then
    echo "FAIL $script $*: $bad"
    fail=1
  fi
}

# the named cases
check 2 run-local.sh --mesh 0 --dry-run
check 2 run-local.sh --dry-run --out
check 2 run-local.sh --out --dry-run
check 2 run-local.sh --ckpt-mesh 1x8x8 --dry-run
check 2 run-local.sh --repeat 2x --dry-run
check 2 slurm/submit-study.sh --preset ci --nodes 4,2,2 --dry-run
check 0 slurm/submit-study.sh --preset ci --nodes 1,2 --dry-run
check 0 run-local.sh --quick --dry-run --no-analyze --out "$work/ok"

# the fuzz
RANDOM=26
values=("" 0 -1 2x abc 1 2 "4,2,2" "1,1" "--dry-run" "24x24" "8x8x8" ci quick)
local_opts=(--repeat --out --mesh --ckpt-mesh --emulate-nodes --quick --oversubscribe --force)
study_opts=(--preset --nodes --repeat --progress --placements --reserve --layouts --launcher --time)
runs=0
for ((i = 0; i < 20; i++)); do
  args=(--dry-run)
  for ((k = 0; k < 1 + RANDOM % 3; k++)); do
    args+=("${local_opts[RANDOM % ${#local_opts[@]}]}")
    ((RANDOM % 4)) && args+=("${values[RANDOM % ${#values[@]}]}")
  done
  args+=(--out "$work/fuzz$i")
  check any run-local.sh "${args[@]}"
  args=(--dry-run --preset ci --nodes 2)
  for ((k = 0; k < 1 + RANDOM % 3; k++)); do
    args+=("${study_opts[RANDOM % ${#study_opts[@]}]}")
    ((RANDOM % 4)) && args+=("${values[RANDOM % ${#values[@]}]}")
  done
  check any slurm/submit-study.sh "${args[@]}"
  runs=$((runs + 2))
done
echo "$runs fuzzed dry runs"
((fail == 0)) && echo PASS
exit $fail
