#!/bin/bash
# submit-sweep.sh: submits strong-scaling.sbatch once per node count (sbatch -N n), so that one
# sweep (fixed mesh, growing node count) lands in results/<sweep>/<preset>-N<n>-<jobid>/.
# Settings for the job itself travel in the environment (CUBECG_*; see jobs/README.md).
#
#   jobs/slurm/submit-sweep.sh --preset medium --nodes 2,4,8,16,32 [--time 00:30:00]
#       [--sweep NAME] [--repeat N] [--dry-run] [-- extra sbatch options, e.g. -p normal -A myproject]
# (the whole study with an analysis job: submit-study.sh)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
preset=${CUBECG_PRESET:-ci}
nodes_list=2,4,8
time_limit=01:00:00
dry=${CUBECG_DRY_RUN:-0}
sweep=""
repeat=${CUBECG_REPEAT:-1}
extra=()

usage()
{
  sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while (($#)); do
  case "$1" in
  --preset) preset=$2; shift 2 ;;
  --nodes) nodes_list=$2; shift 2 ;;
  --time) time_limit=$2; shift 2 ;;
  --sweep) sweep=$2; shift 2 ;;
  --repeat) repeat=${2:-}; shift 2 || shift ;;
  --dry-run) dry=1; shift ;;
  -h | --help) usage; exit 0 ;;
  --) shift; extra=("$@"); break ;;
  *) echo "submit-sweep.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "submit-sweep.sh: --repeat '$repeat' (a positive integer)" >&2; exit 2; }
[[ -n $sweep ]] || sweep=strong-$preset-$(date +%Y%m%d-%H%M%S)

for n in ${nodes_list//,/ }; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "submit-sweep.sh: bad node count '$n'" >&2; exit 2; }
  cmd=(sbatch -N "$n" --job-name "cubecg-$preset-N$n" --time "$time_limit"
    --output "$repo/results/$sweep/slurm-%j.out"
    --export "ALL,CUBECG_REPO=$repo,CUBECG_PRESET=$preset,CUBECG_SWEEP=$sweep,CUBECG_REPEAT=$repeat"
    "${extra[@]}" "$here/strong-scaling.sbatch")
  if [[ $dry == 1 ]]; then
    echo "${cmd[*]}"
    # what that job would launch (as if it got $n nodes)
    CUBECG_REPO=$repo CUBECG_PRESET=$preset CUBECG_SWEEP=$sweep CUBECG_REPEAT=$repeat CUBECG_NODES=$n CUBECG_DRY_RUN=1 \
      "$here/strong-scaling.sbatch" | sed 's/^/    /'
  else
    mkdir -p "$repo/results/$sweep"
    "${cmd[@]}"
  fi
done
echo "sweep $sweep: when the jobs finish, run  PYTHONPATH=$repo/jobs python3 -m cubecg_analysis.cli $repo/results/$sweep"
