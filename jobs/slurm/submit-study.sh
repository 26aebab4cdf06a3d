#!/bin/bash
# submit-study.sh: the whole strong-scaling / progress-thread study in one command. Submits
# strong-scaling.sbatch once per node count (sbatch -N n), each running every variant x reduction
# (cubecg --solver all --reduction all) x progress setting x progress-thread placement x layout,
# CUBECG_REPEAT times, then one analysis job (analyze.sbatch: cubecg-analyze on the sweep folder)
# with --dependency=afterok on all of them.
#
#   jobs/slurm/submit-study.sh --preset NAME --nodes 2,4,8 [--repeat 3] [--progress off,poll,on]
#       [--placements inherit,free,smt] [--reserve none|per-rank|N] [--reserve-at last|first|both]
#       [--layouts hybrid,flat] [--solver all|LIST] [--reduction all|ar|iar] [--launcher srun|mpiexec]
#       [--time 01:00:00] [--sweep NAME] [--results DIR] [--dry-run] [-- extra sbatch options,
#       e.g. -p normal -A myproject]
#
# --placements: where the progress thread runs when progress is on (one run each, never merged;
# Table 6): inherit (its rank's cores), auto, free (reserved cores), compute, smt (CUBECG_SMT_INDEX-th
# hardware thread of the rank's first core), list:a,b,... (its commas kept: list:17,35,free is two
# placements). --solver: all (one process solves with every variant) or a list of variants
# (pipecg,gropp: one run each). --dry-run prints every sbatch line and every launch line each job
# would run (CPU numbers from hwloc: set CUBECG_HWLOC_INPUT and CUBECG_CORES_PER_NODE to the
# compute nodes' when dry-running elsewhere).

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/cubecg-jobs.sh
source "$repo/jobs/lib/cubecg-jobs.sh"
preset="" nodes_list="" repeat=3 progress=off,poll,on placements=inherit reserve=none reserve_at=last
layouts=hybrid,flat solver=all reduction=all launcher=srun time_limit=01:00:00 sweep="" results=${CUBECG_RESULTS:-$repo/results}
dry=${CUBECG_DRY_RUN:-0}
extra=()

usage()
{
  # the comment block under the first line, up to the first line that is not a comment
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
}
need() # need OPTION VALUE...: the option has a value
{
  (($# >= 2)) || {
    echo "submit-study.sh: $1 needs a value (see --help)" >&2
    exit 2
  }
}

# the options that take a value, each with the variable it sets
declare -A takes=([--preset]=preset [--nodes]=nodes_list [--repeat]=repeat [--progress]=progress
  [--placements]=placements [--reserve]=reserve [--reserve-at]=reserve_at [--layouts]=layouts
  [--solver]=solver [--reduction]=reduction [--launcher]=launcher [--time]=time_limit
  [--sweep]=sweep [--results]=results)
while (($#)); do
  if [[ -n $1 && -n ${takes[$1]+set} ]]; then
    need "$@"
    printf -v "${takes[$1]}" '%s' "$2"
    shift 2
    continue
  fi
  case "$1" in
  --dry-run) dry=1 && shift && continue ;;
  -h | --help) usage && exit 0 ;;
  --) shift && extra=("$@") && break ;;
  *) echo "submit-study.sh: unknown option '$1' (see --help)" >&2 && exit 2 ;;
  esac
done

# --- validate everything before submitting anything ---------------------------------------------
[[ -n $preset ]] || { echo "submit-study.sh: --preset NAME is required (see --help)" >&2; exit 2; }
cc_preset_mesh "$preset" >/dev/null || exit 2
[[ -n $nodes_list ]] || { echo "submit-study.sh: --nodes LIST is required, e.g. --nodes 2,4,8" >&2; exit 2; }
nodes=()
for n in ${nodes_list//,/ }; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "submit-study.sh: bad node count '$n' in --nodes" >&2; exit 2; }
  # two jobs of one node count would write the same reports
  [[ " ${nodes[*]} " != *" $n "* ]] || { echo "submit-study.sh: node count $n appears twice in --nodes $nodes_list (its jobs would write the same reports)" >&2; exit 2; }
  nodes+=("$n")
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "submit-study.sh: --repeat '$repeat' (a positive integer)" >&2; exit 2; }
case "$launcher" in srun | mpiexec) ;; *) echo "submit-study.sh: --launcher '$launcher' (srun or mpiexec)" >&2 && exit 2 ;; esac
progress_env=()
[[ -n $placements ]] || { echo "submit-study.sh: --placements '' (inherit, auto, free, compute, smt or list:CPU,...)" >&2; exit 2; }
for p in ${progress//,/ }; do
  case "$p" in
  off | poll) progress_env+=("$p") ;;
  on) while read -r pin; do
    cc_check_pin "$pin" || exit 2
    progress_env+=("on:$pin")
  done < <(cc_split_pins "$placements") ;;
  *) echo "submit-study.sh: --progress entry '$p' (off, poll or on)" >&2 && exit 2 ;;
  esac
done
for lay in ${layouts//,/ }; do
  case "$lay" in hybrid | flat) ;; *) echo "submit-study.sh: --layouts entry '$lay' (hybrid, flat)" >&2 && exit 2 ;; esac
done
# the variants cubecg's registry has (the analysis package's copy, checked equal by ctest)
known=$(PYTHONPATH=$repo/jobs python3 -c 'from cubecg_analysis.variants import BUILTIN
print(" ".join(v["name"] for v in BUILTIN))')
solvers=()
for v in ${solver//,/ }; do
  [[ " $known all " == *" $v "* ]] || { echo "submit-study.sh: --solver entry '$v' (all or of: ${known// /,})" >&2; exit 2; }
  [[ $v != all || $solver == all ]] || { echo "submit-study.sh: --solver $solver: 'all' cannot be combined with other variants" >&2; exit 2; }
  [[ " ${solvers[*]} " != *" $v "* ]] || { echo "submit-study.sh: --solver $solver names $v twice" >&2; exit 2; }
  solvers+=("$v")
done
((${#solvers[@]})) || { echo "submit-study.sh: --solver '' (all or a list of variants)" >&2; exit 2; }
case "$reduction" in ar | iar | all) ;; *) echo "submit-study.sh: --reduction '$reduction' (ar, iar or all)" >&2 && exit 2 ;; esac
[[ -n $sweep ]] || sweep=study-$preset-$(date +%Y%m%d-%H%M%S)
dir=$results/$sweep

# settings travel in the environment of sbatch (--export=ALL): no comma parsing of values
settings=(CUBECG_REPO="$repo" CUBECG_PRESET="$preset" CUBECG_SWEEP="$sweep" CUBECG_RESULTS="$results"
  CUBECG_REPEAT="$repeat" CUBECG_PROGRESS="${progress_env[*]}" CUBECG_RESERVE="$reserve"
  CUBECG_RESERVE_AT="$reserve_at" CUBECG_LAYOUTS="${layouts//,/ }" CUBECG_LAUNCHER="$launcher"
  CUBECG_SOLVER="${solvers[*]}" CUBECG_REDUCTION="$reduction")

echo "cubecg study $sweep: preset $preset, nodes ${nodes[*]}, $repeat repeat(s), progress [${progress_env[*]}]," \
  "layouts [${layouts//,/ }], launcher $launcher -> $dir"
[[ $dry == 1 ]] || mkdir -p "$dir"
jobids=()
i=0
for n in "${nodes[@]}"; do
  i=$((i + 1))
  cmd=(env "${settings[@]}" sbatch --parsable -N "$n" --job-name "cubecg-$preset-N$n" --time "$time_limit"
    --output "$dir/slurm-%j.out" --export ALL "${extra[@]}" "$here/strong-scaling.sbatch")
  if [[ $dry == 1 ]]; then
    cc_quote "${cmd[@]}" && echo
    echo "   # -> job DRYRUN-$i; it would launch (as if given $n node(s)):"
    # what that job would launch, indented
    env "${settings[@]}" CUBECG_NODES="$n" CUBECG_DRY_RUN=1 "$here/strong-scaling.sbatch" | sed 's/^/    /'
    jobids+=("DRYRUN-$i")
  else
    jid=$("${cmd[@]}")
    jid=${jid%%;*} # --parsable: "jobid[;cluster]"
    [[ $jid =~ ^[0-9]+$ ]] || { echo "submit-study.sh: sbatch returned '$jid', not a job id" >&2; exit 1; }
    echo "submitted job $jid: $n node(s)"
    jobids+=("$jid")
  fi
done

dep=afterok:$(cc_join : "${jobids[@]}")
acmd=(env CUBECG_REPO="$repo" CUBECG_ANALYZE_DIR="$dir" sbatch --parsable --dependency="$dep"
  --job-name "cubecg-$preset-analyze" --time 00:30:00 --output "$dir/analyze-%j.out" --export ALL
  "${extra[@]}" "$here/analyze.sbatch")
if [[ $dry == 1 ]]; then
  cc_quote "${acmd[@]}" && echo
  echo "   # -> it would run:"
  CUBECG_REPO=$repo CUBECG_ANALYZE_DIR=$dir CUBECG_DRY_RUN=1 "$here/analyze.sbatch" | sed 's/^/    /'
  echo "cubecg study $sweep: ${#nodes[@]} run job(s) + 1 analysis job (dry run, nothing submitted)"
else
  jid=$("${acmd[@]}")
  echo "submitted analysis job ${jid%%;*} ($dep): figures and tables in $dir"
fi
