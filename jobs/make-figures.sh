#!/bin/bash
# make-figures.sh: regenerates the figures the README shows (docs/figures/) from a fresh --quick
# local run: jobs/run-local.sh --quick, then cubecg-analyze and cubecg-model into docs/figures (replacing
# the previous figures there on purpose: --force). The reports stay in results/<timestamp>-quick/.
# Every setting runs 3 times (run-local.sh --repeat 3, or CUBECG_FIGURE_REPEAT; a --repeat N given
# here wins): the figures show medians with min-max bars, and an overhead below the run-to-run
# spread is drawn as "within noise". run-info.txt records the load average at start and end.
#   jobs/make-figures.sh [--out DIR] [run-local.sh options...]
# A bad option (run-local.sh exits 2) stops it before any figure is touched.

set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
out=$repo/results/$(date +%Y%m%d-%H%M%S)-quick
args=()
repeat=(--repeat "${CUBECG_FIGURE_REPEAT:-3}")
while (($#)); do
  case "$1" in
  -h | --help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" && exit 0 ;;
  --out)
    (($# >= 2)) || { echo "make-figures.sh: --out needs a value" >&2; exit 2; }
    out=$2
    shift 2
    ;;
  --repeat) repeat=() && args+=("$1"); shift ;;
  *) args+=("$1"); shift ;;
  esac
done
figs=$repo/docs/figures
rc=0
"$here/run-local.sh" --quick "${repeat[@]}" --out "$out" "${args[@]}" || rc=$?
# 2: refused before running (bad option, no build): nothing to draw
((rc != 2)) || exit 2
# a dry run printed the runs and wrote no report: nothing to draw either
[[ " ${args[*]} " != *" --dry-run "* && ${CUBECG_DRY_RUN:-0} != 1 ]] || exit "$rc"
((rc == 0)) || echo "make-figures.sh: run-local.sh reported failures (above); figures from the reports that exist" >&2
mkdir -p "$figs"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" # the package beside this script
python3 -m cubecg_analysis.cli --force --figdir "$figs" "$out" >/dev/null
python3 -m cubecg_analysis.model.cli --force --figdir "$figs" "$out" >/dev/null
cp "$out/run-info.txt" "$figs/run-info.txt"
echo "make-figures.sh: figures, tables.md and model.md in $figs (reports: $out)"
