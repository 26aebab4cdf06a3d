#!/bin/bash
# iosweep.sh: the seeds' checkpoint I/O sweep (SX-Aurora normal / accelerated / offload I/O) with
# cubecg-iobench: rank counts 1, 2, 4, ... up to the cores (x nodes), per-rank file sizes 1 MB to
# 1 GB, 8 KB and 512 KB buffers, every backend built in (the Fortran one included), and the
# rank-to-device mapping experiment (--dirs D1,D2,... block and cyclic). Then cubecg-analyze-io.
#
#   jobs/iosweep.sh [--quick] [--out DIR] [--dirs D1,D2,...] [--repeat R] [--fio] [--dry-run]
#                   [--emulate-nodes N] [--no-analyze] [--force]
#
#   --quick          tiny grid for tests: sizes 64k,1M, --repeat 2, ranks 1 and 2 always
#   --out DIR        report folder (default results/iosweep-<timestamp>[-quick] in the repository)
#   --dirs D1,...    directories (devices) for the files; the first one for the rank and size
#                    sweep, all of them for the mapping runs (block and cyclic, hdf5 left out: one
#                    shared file). Default DIR/iofiles; with --quick DIR/iofiles-a,DIR/iofiles-b
#                    (one device: the mapping runs then only rehearse the grid)
#   --repeat R       repetitions per configuration (default 10, as the seeds)
#   --fio            pass --fio (each backend's fio twin beside it; one node only)
#   --dry-run        print the command lines only
#   --emulate-nodes N  runs whose rank count is a multiple of N spread over N emulated nodes on
#                    this machine (as jobs/run-local.sh); the rank counts still stop at the cores
#   --no-analyze     skip cubecg-analyze-io
#   --force          let the analyzer overwrite figures already in DIR
# Environment: CUBECG_BUILD (build dir; its MPI from its cubecg-mpi.env), CUBECG_MPI, CUBECG_MPIEXEC
# (the library's launcher), CUBECG_LAUNCHER (srun inside a Slurm job, else mpiexec), CUBECG_MAX_CORES
# (cores per node, default nproc), CUBECG_NODES (nodes; default SLURM_NNODES, else 1: inside a Slurm
# allocation the rank counts go up to cores x nodes, spread evenly over the nodes), CUBECG_IO_SIZES
# and CUBECG_IO_BACKENDS (override the grid).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib/cubecg-jobs.sh
source "$here/lib/cubecg-jobs.sh"
cc_binaries "$repo"

quick=0 out="" dirs="" repeat=10 fio=() analyze=1 force=() emulate=1
CC_DRY_RUN=${CUBECG_DRY_RUN:-0}
while (($#)); do
  case "$1" in
  --quick) quick=1; shift ;;
  --out) out=${2-}; shift $(($# > 1 ? 2 : 1)) ;;
  --out=*) out=${1#--out=}; shift ;;
  --dirs) dirs=${2-}; shift $(($# > 1 ? 2 : 1)) ;;
  --dirs=*) dirs=${1#--dirs=}; shift ;;
  --repeat) repeat=${2-}; shift $(($# > 1 ? 2 : 1)) ;;
  --repeat=*) repeat=${1#--repeat=}; shift ;;
  --fio) fio=(--fio); shift ;;
  --dry-run) CC_DRY_RUN=1; shift ;;
  --no-analyze) analyze=0; shift ;;
  --force) force=(--force); shift ;;
  --emulate-nodes) emulate=${2-}; shift $(($# > 1 ? 2 : 1)) ;;
  --emulate-nodes=*) emulate=${1#--emulate-nodes=}; shift ;;
  -h | --help) sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "iosweep.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $emulate =~ ^[1-9][0-9]*$ ]] || { echo "iosweep.sh: --emulate-nodes '$emulate' is not a node count (1, 2, ...)" >&2; exit 2; }
((quick)) && [[ $repeat == 10 ]] && repeat=2
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "iosweep.sh: --repeat '$repeat' (a positive integer)" >&2; exit 2; }
# nproc honours OMP_NUM_THREADS (set to 1 for these runs): ask for the cores without it
ncores=${CUBECG_MAX_CORES:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}
nodes=${CUBECG_NODES:-${SLURM_NNODES:-1}}
[[ $ncores =~ ^[1-9][0-9]*$ ]] || { echo "iosweep.sh: CUBECG_MAX_CORES '$ncores' (a positive integer)" >&2; exit 2; }
[[ $nodes =~ ^[1-9][0-9]*$ ]] || { echo "iosweep.sh: CUBECG_NODES '$nodes' (a positive integer)" >&2; exit 2; }
if [[ -z $out ]]; then
  out=$repo/results/iosweep-$(date +%Y%m%d-%H%M%S)
  ((quick)) && out+=-quick
fi
if [[ -z $dirs ]]; then
  if ((quick)); then dirs=$out/iofiles-a,$out/iofiles-b; else dirs=$out/iofiles; fi
fi
IFS=, read -r -a dir_list <<<"$dirs"
((${#dir_list[@]} >= 1)) || { echo "iosweep.sh: --dirs '$dirs' names no directory" >&2; exit 2; }

cc_require_binary "$CC_IOBENCH"
# srun inside a Slurm allocation, else the library's mpiexec; CUBECG_LAUNCHER chooses
cc_launcher_default iosweep.sh || exit 2
launcher=$CC_LAUNCHER
# a dry run only prints the commands: the launcher need not be installed where it runs
if [[ $launcher == mpiexec && $CC_DRY_RUN != 1 ]] && ! command -v "$CC_MPIEXEC" >/dev/null; then
  echo "iosweep.sh: $CC_MPIEXEC not found (set CUBECG_MPIEXEC)" >&2
  exit 2
fi

# every backend built in (the program says which), the Fortran one included when built
if [[ -n ${CUBECG_IO_BACKENDS:-} ]]; then
  backends=$CUBECG_IO_BACKENDS
elif [[ -x $CC_IOBENCH ]]; then
  backends=$("$CC_IOBENCH" --list-backends)
else # dry run without a build: the full list
  backends=posix,uring,offload,offload-uring,hdf5,fortran
fi
# hdf5 writes one shared file: on several nodes the directories may be node-local, so it is left
# out there unless CUBECG_IO_BACKENDS names it (a parallel file system)
if ((nodes > 1)) && [[ -z ${CUBECG_IO_BACKENDS:-} ]] && grep -qx hdf5 <(tr , '\n' <<<"$backends"); then
  backends=$(tr , '\n' <<<"$backends" | grep -vx hdf5 | paste -sd, -)
  echo "iosweep.sh: $nodes nodes: hdf5 left out (one shared file; set CUBECG_IO_BACKENDS on a parallel file system)" >&2
fi
# the mapping runs spread per-rank files over the directories: hdf5 writes one shared file
mapping_backends=$(tr , '\n' <<<"$backends" | grep -vx hdf5 | paste -sd, -)
if ((quick)); then sizes=${CUBECG_IO_SIZES:-64k,1M}; else sizes=${CUBECG_IO_SIZES:-1M,8M,32M,128M,512M,1G}; fi
buffers=8k,512k

# rank counts 1, 2, 4, ... and cores x nodes (the --quick grid stops at 2)
max=$((ncores * nodes))
((quick)) && max=2 # the test grid: 1 and 2 ranks (oversubscribed on one core)
counts=()
for ((c = 1; c < max; c *= 2)); do counts+=("$c"); done
counts+=("$max")

[[ $CC_DRY_RUN == 1 ]] || mkdir -p "$out/logs"
{
  echo "cubecg I/O sweep $(date -Iseconds) on $(hostname), $ncores cores x $nodes node(s), emulated nodes: $emulate"
  echo "build: $CC_BUILD  MPI: $CC_MPI  launcher: $launcher ($CC_MPIEXEC)  quick: $quick  repeat: $repeat  fio: ${fio[*]:-no}"
  echo "ranks: ${counts[*]}  sizes: $sizes  buffers: $buffers  backends: $backends"
  echo "dirs: $dirs (mapping block and cyclic over ${#dir_list[@]} director$( ((${#dir_list[@]} == 1)) && echo y || echo ies); backends $mapping_backends)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews the timings)"
} | if [[ $CC_DRY_RUN == 1 ]]; then cat; else tee "$out/run-info.txt"; fi

failed=0
# launch NAME RANKS -- ARGS...: one cubecg-iobench run, its report in $out/NAME.json
launch()
{
  local name=$1 ranks=$2
  shift 3
  # one rank per core, ranks / nodes (rounded up) per node, the library's way (cc_mpi_launch); unbound when
  # there are more ranks than cores (the --quick grid's 2 ranks on one core)
  local bind=cores emulated=1
  ((ranks > ncores * nodes)) && bind=none
  ((nodes == 1 && emulate > 1 && ranks % emulate == 0)) && emulated=$emulate
  if ! CC_LAUNCHER=$launcher CC_BIND=$bind CC_EMULATE_NODES=$emulated \
    cc_mpi_launch "$ranks" $(((ranks + nodes - 1) / nodes)) 1; then
    failed=$((failed + 1))
    return 0
  fi
  local t0=$SECONDS
  [[ $CC_DRY_RUN == 1 ]] || printf '%-44s ' "$name"
  if cc_launch "$out/logs/$name.log" OMP_NUM_THREADS=1 "${CC_LAUNCH_ENV[@]}" -- "${CC_LAUNCH[@]}" \
    "$CC_IOBENCH" "$@" --sizes "$sizes" --buffers "$buffers" --repeat "$repeat" "${fio[@]}" \
    --report "$out/$name.json"; then
    [[ $CC_DRY_RUN == 1 ]] || echo "ok   $((SECONDS - t0)) s"
  else
    echo "FAILED (exit $?), see $out/logs/$name.log"
    failed=$((failed + 1))
  fi
}

suffix()
{
  local ranks=$1
  if ((nodes > 1)); then echo "_${nodes}nodes"; elif ((emulate > 1 && ranks % emulate == 0)); then echo "_${emulate}nodes"; fi
}

# 1) ranks x sizes x buffers x backends on the first directory
for ranks in "${counts[@]}"; do
  launch "iobench_${ranks}x1_one-dir$(suffix "$ranks")" "$ranks" -- --dir "${dir_list[0]}" \
    --backends "$backends"
done
# 2) the mapping experiment (the seeds' PCIe switches): ranks over every directory, block and cyclic
if ((${#dir_list[@]} > 1)); then
  for ranks in "${counts[@]}"; do
    ((ranks >= 2)) || continue
    for mapping in block cyclic; do
      launch "iobench_${ranks}x1_${mapping}-${#dir_list[@]}dirs$(suffix "$ranks")" "$ranks" -- \
        --dirs "$dirs" --mapping "$mapping" --backends "$mapping_backends"
    done
  done
fi
# a dry run exits 2 when a launch was refused (e.g. emulated nodes under Open MPI)
[[ $CC_DRY_RUN == 1 ]] && exit $((failed > 0 ? 2 : 0))
for d in "${dir_list[@]}"; do rmdir "$d" 2>/dev/null || true; done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/run-info.txt"
echo "I/O sweep: $failed failed run(s); reports in $out"
if ((analyze)); then
  PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" python3 -m cubecg_analysis.figures.io_study "${force[@]}" "$out" ||
    failed=$((failed + 1))
fi
((failed == 0))
