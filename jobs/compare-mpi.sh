#!/bin/bash
# compare-mpi.sh: the default job (32^3 nodes, 2 ranks x 1 thread, Alg.1 with MPI_Allreduce) under
# each MPI library built here, back to back and interleaved (MPICH, Open MPI, Intel MPI, MPICH, ...),
# then the median time per iteration of each and its ratio to MPICH's. A benchmark, not a test:
# run it on an idle machine (the load average is printed beside the figures).
#
#   jobs/compare-mpi.sh [--repeat N] [--mesh N] [--bind cores|none] [--out DIR] [-- extra cubecg options]
#
# Builds: build/ (MPICH, preset release), build-openmpi/ and build-intel-mpi/ (presets openmpi and
# intel-mpi); a build that is missing is left out with a line saying so. Each library's environment
# comes from ./setup.sh --mpi NAME --print-env. CUBECG_COMPARE_ENV_<mpi> adds settings to one library
# (e.g. CUBECG_COMPARE_ENV_intel="I_MPI_WAIT_MODE=1"); the table names them. --bind: each rank on a
# core of its own, the library's way (default), or none pinned (jobs/lib/cubecg-jobs.sh cc_mpi_launch).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib/cubecg-jobs.sh
source "$here/lib/cubecg-jobs.sh"
repeat=5 mesh=32 out="" extra=() bind=cores
while (($#)); do
  case "$1" in
  --repeat) repeat=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
  --mesh) mesh=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
  --out) out=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
  --bind) bind=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
  --) shift; extra=("$@"); break ;;
  -h | --help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "compare-mpi.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "compare-mpi.sh: --repeat '$repeat' (a positive integer)" >&2; exit 2; }
[[ $mesh =~ ^[1-9][0-9]*$ ]] || { echo "compare-mpi.sh: --mesh '$mesh' (nodes per direction)" >&2; exit 2; }
[[ $bind == cores || $bind == none ]] || { echo "compare-mpi.sh: --bind '$bind' (cores or none)" >&2; exit 2; }
out=${out:-$repo/results/compare-mpi-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

libs=()
declare -A build=([mpich]=build [openmpi]=build-openmpi [intel]=build-intel-mpi)
for mpi in mpich openmpi intel; do
  if [[ -x $repo/${build[$mpi]}/src/cubecg ]]; then
    libs+=("$mpi")
  else
    echo "compare-mpi.sh: $mpi left out: ${build[$mpi]}/src/cubecg not built (./build.sh <its preset>)"
  fi
done
((${#libs[@]})) || { echo "compare-mpi.sh: no build found" >&2; exit 2; }

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), ranks bound: $bind, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((rep = 1; rep <= repeat; rep++)); do
  for mpi in "${libs[@]}"; do
    mapfile -t envs < <("$repo/setup.sh" --mpi "$mpi" --print-env)
    launcher=$(printf '%s\n' "${envs[@]}" | sed -n 's/^CUBECG_MPIEXEC=//p')
    settings_var=CUBECG_COMPARE_ENV_$mpi
    # shellcheck disable=SC2206
    settings=(${!settings_var:-})
    # 2 ranks on one node, pinned the library's way (cc_mpi_launch)
    CC_MPI=$mpi CC_MPIEXEC=$launcher CC_BIND=$bind cc_mpi_launch 2 2 1
    env "${envs[@]}" "${CC_LAUNCH_ENV[@]}" "${settings[@]}" OMP_NUM_THREADS=1 "${CC_LAUNCH[@]}" \
      "$repo/${build[$mpi]}/src/cubecg" --nx "$mesh" --ny "$mesh" --nz "$mesh" --solver pcg \
      --reduction ar --quiet --report "$out/${mpi}_rep$rep.json" "${extra[@]}"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "${libs[@]}" <<'EOF'
import json, os, statistics, sys
out, libs = sys.argv[1], sys.argv[2:]
median = {}
for mpi in libs:
    times, iters = [], set()
    for name in sorted(os.listdir(out)):
        if name.startswith(mpi + "_rep") and name.endswith(".json"):
            s = json.load(open(os.path.join(out, name)))["solves"][0]
            times.append(1e3 * s["time_per_iter_s"] if "time_per_iter_s" in s
                         else 1e3 * s["time_s"] / s["iterations"])
            iters.add(s["iterations"])
    median[mpi] = statistics.median(times)
    settings = os.environ.get("CUBECG_COMPARE_ENV_" + mpi, "")
    print(f"{mpi:8s} median {median[mpi]:.3f} ms/iter (min {min(times):.3f}, max {max(times):.3f},"
          f" {len(times)} runs), iterations {sorted(iters)}"
          + (f", settings {settings}" if settings else ""))
if "mpich" in median:
    for mpi in libs:
        print(f"{mpi:8s} / mpich = {median[mpi] / median['mpich']:.3f}")
EOF
