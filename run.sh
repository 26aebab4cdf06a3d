#!/usr/bin/env bash
# run.sh [--no-sweep] [cubecg options...]: install what is missing, build, run the default job
# (GeoFEM/Cube 32^3 nodes, 2 ranks x 1 thread, every CG variant x reduction) with a summary on stdout
# and a JSON report, then the quick local sweep (jobs/run-local.sh --quick) and its figures.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sweep=1
case "${1:-}" in
-h | --help)
  # usage only: no set-up, no build
  sed -n '2,4s/^# \{0,1\}//p' "$0"
  echo "cubecg options: build/src/cubecg --help (after a build)"
  exit 0
  ;;
--no-sweep) sweep=0; shift ;;
esac
"$here/setup.sh"
"$here/build.sh" release
out="$here/results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
ranks=$(( $(nproc) >= 2 ? 2 : 1 ))
echo "== default job: mpiexec.mpich -n $ranks cubecg --nx 32 --ny 32 --nz 32 --solver all --reduction all $*"
OMP_NUM_THREADS=1 mpiexec.mpich -n "$ranks" "$here/build/src/cubecg" --nx 32 --ny 32 --nz 32 \
  --solver all --reduction all --report "$out/default.json" "$@"
echo "== open first: $out/default.summary.txt (the summary above, saved; README.md \"First run\" explains its columns)"
if [ "$sweep" = 1 ]; then
  echo "== quick strong-scaling sweep and figures (jobs/run-local.sh --quick)"
  "$here/jobs/run-local.sh" --quick --out "$out/sweep"
fi
echo "== results in $out: default.summary.txt first, then default.json (the report)$([ "$sweep" = 1 ] && echo " and sweep/ (tables.md, figures)")"
