# cubecg-jobs.sh: helpers shared by the Slurm scripts and the local runner (sourced, not executed).
# They only turn settings into environment variables, binding options and command lines; all
# computation stays in cubecg and in the analysis package jobs/cubecg_analysis (docs/conventions: "batch scripts are thin").
# shellcheck shell=bash

# Mesh presets of the study (nodes per direction, 3 DOF per node): Nakajima's Reedbush-U runs
# (small, medium), the Oakforest-PACS progress-thread study (ofp-32, ofp-4096) and a tiny CI mesh.
cc_preset_mesh()
{
  case "$1" in
  small) echo "256 128 144" ;;
  medium) echo "256 128 288" ;;
  ofp-32) echo "128 128 64" ;;
  ofp-4096) echo "512 256 256" ;;
  ci) echo "16 16 16" ;;
  local) echo "48 48 48" ;;
  quick) echo "24 24 24" ;;
  [0-9]*x[0-9]*x[0-9]*) echo "${1//x/ }" ;;
  *)
    echo "cubecg-jobs: unknown preset '$1' (small, medium, ofp-32, ofp-4096, ci, local, quick or NXxNYxNZ)" >&2
    return 2
    ;;
  esac
}

# Paths of the three programs: CUBECG_BUILD (default <repo>/build) holds src/ and bench/.
cc_binaries()
{
  local repo=$1
  CC_BUILD=${CUBECG_BUILD:-$repo/build}
  CC_CUBECG=$CC_BUILD/src/cubecg
  CC_BENCH=$CC_BUILD/bench/cubecg-bench
  CC_IOBENCH=$CC_BUILD/bench/cubecg-iobench
  # installed (cmake --install): <prefix>/share/cubecg/jobs, programs in <prefix>/bin
  if [[ -z ${CUBECG_BUILD:-} && ! -d $repo/build && -x $repo/../../bin/cubecg ]]; then
    CC_BUILD=$(cd "$repo/../../bin" && pwd)
    CC_CUBECG=$CC_BUILD/cubecg CC_BENCH=$CC_BUILD/cubecg-bench CC_IOBENCH=$CC_BUILD/cubecg-iobench
  fi
  cc_mpi_detect
}

# cc_mpi_detect: the MPI library of the build (CC_MPI: mpich | openmpi | intel | cray-mpich |
# mvapich) and its launcher (CC_MPIEXEC): CUBECG_MPI / CUBECG_MPIEXEC when set, else what CMake wrote
# beside the programs (<build>/cubecg-mpi.env), else MPICH's. Intel MPI also needs its I_MPI_ROOT.
cc_mpi_detect()
{
  local file=${CC_BUILD:-}/cubecg-mpi.env key value built_mpi="" built_exec="" built_root=""
  CC_HAVE_HDF5=ON # the hdf5 backend: OFF when the build found no parallel HDF5 of its MPI
  if [[ -r $file ]]; then
    while IFS='=' read -r key value; do
      case "$key" in
      CUBECG_MPI) built_mpi=$value ;;
      CUBECG_MPIEXEC) built_exec=$value ;;
      I_MPI_ROOT) built_root=$value ;;
      CUBECG_HDF5) CC_HAVE_HDF5=$value ;;
      esac
    done <"$file"
  fi
  CC_MPI=${CUBECG_MPI:-${built_mpi:-mpich}}
  # the programs speak the MPI they were linked with: another library's launcher and knobs would
  # start N copies of rank 0 or set variables nobody reads, so a different CUBECG_MPI is refused
  if [[ -n ${CUBECG_MPI:-} && -n $built_mpi && $CUBECG_MPI != "$built_mpi" ]]; then
    echo "cubecg-jobs: CUBECG_MPI=$CUBECG_MPI, but the build in ${CC_BUILD} is linked with $built_mpi" \
      "($file); point CUBECG_BUILD at a build made with $CUBECG_MPI (./build.sh ...) or unset CUBECG_MPI" >&2
    return 2
  fi
  case "$CC_MPI" in
  mpich | openmpi | intel | cray-mpich | mvapich) ;;
  *)
    echo "cubecg-jobs: CUBECG_MPI='$CC_MPI' (mpich, openmpi, intel, cray-mpich or mvapich)" >&2
    return 2
    ;;
  esac
  local default_exec=mpiexec.mpich
  case "$CC_MPI" in
  openmpi) default_exec=mpiexec.openmpi ;;
  intel) default_exec=mpiexec.hydra ;;
  cray-mpich | mvapich) default_exec=mpiexec ;;
  esac
  [[ $CC_MPI == "${built_mpi:-}" && -n $built_exec ]] && default_exec=$built_exec
  CC_MPIEXEC=${CUBECG_MPIEXEC:-$default_exec}
  if [[ $CC_MPI == intel && -z ${I_MPI_ROOT:-} && -n $built_root ]]; then export I_MPI_ROOT=$built_root; fi
  return 0
}

# cc_mpi_progress_env MODE: the environment words that turn the library's asynchronous progress
# thread on (MODE on) or keep it off (off, poll). Open MPI has none: "on" is refused, naming
# --progress poll.
cc_mpi_progress_env()
{
  local on=0
  [[ $1 == on ]] && on=1
  case "$CC_MPI" in
  mpich) echo "MPIR_CVAR_ASYNC_PROGRESS=$on" ;;
  intel) echo "I_MPI_ASYNC_PROGRESS=$on" ;;
  cray-mpich) ((on)) && echo "MPICH_ASYNC_PROGRESS=1 MPICH_MAX_THREAD_SAFETY=multiple" || echo "MPICH_ASYNC_PROGRESS=0" ;;
  mvapich) echo "MV2_ASYNC_PROGRESS=$on" ;;
  openmpi)
    if ((on)); then
      echo "cubecg-jobs: Open MPI has no asynchronous progress thread: progress 'on' is refused; use progress 'poll' (cubecg --progress poll)" >&2
      return 2
    fi
    ;;
  esac
  return 0
}

# cc_mpi_pin_env LIST: the library's variable placing the progress threads on CPU LIST (one entry
# per local rank; Table 6's placements): MPICH's MPIR_CVAR_PROGRESS_THREAD_AFFINITY (MVAPICH's
# too), Intel MPI's I_MPI_ASYNC_PROGRESS_PIN. Empty LIST: nothing.
cc_mpi_pin_env()
{
  [[ -z $1 ]] && return 0
  case "$CC_MPI" in
  mpich | mvapich) echo "MPIR_CVAR_PROGRESS_THREAD_AFFINITY=$1" ;;
  intel) echo "I_MPI_ASYNC_PROGRESS_PIN=$1" ;;
  *)
    echo "cubecg-jobs: $CC_MPI has no variable to place its progress thread (pin '$1' refused)" >&2
    return 2
    ;;
  esac
}

# cc_launcher_default NAME: the launcher of a job script (sets CC_LAUNCHER): CUBECG_LAUNCHER when
# set, else srun inside a Slurm allocation that has it, else mpiexec (the library's). NAME is the
# script's name for the one-line refusal of any other value.
cc_launcher_default()
{
  if [[ -n ${SLURM_JOB_ID:-} ]] && command -v srun >/dev/null; then
    CC_LAUNCHER=${CUBECG_LAUNCHER:-srun}
  else
    CC_LAUNCHER=${CUBECG_LAUNCHER:-mpiexec}
  fi
  case "$CC_LAUNCHER" in
  srun | mpiexec) ;;
  *)
    echo "$1: CUBECG_LAUNCHER='$CC_LAUNCHER' (srun or mpiexec)" >&2
    return 2
    ;;
  esac
}

# cc_mpi_launch RANKS PER_NODE THREADS: the one place that turns ranks into a launch, for every
# job script and bench script. Sets CC_LAUNCH (the launcher and its words) and CC_LAUNCH_ENV (the
# library's pinning variables), the library's way (CC_MPI) under the launcher CC_LAUNCHER (srun or
# mpiexec, default mpiexec: Hydra for MPICH and Intel MPI, mpirun for Open MPI). PER_NODE ranks go
# on each node (the last node may have fewer). CC_BIND says how ranks are pinned:
#   sets  (default) the CPU sets of cc_cpu_sets (CC_RANK_CPUS): Hydra -bind-to user:, Intel MPI
#         I_MPI_PIN_DOMAIN masks, Open MPI --map-by ppr:N:node:PE=T --bind-to core (its ranks fill
#         the cores from the first: reserved cores stay free only at the end), srun
#         --cpu-bind=mask_cpu:
#   cores each rank on THREADS cores of its own, chosen by the library (no CPU numbers needed):
#         Hydra -bind-to core[:T], Intel MPI I_MPI_PIN_DOMAIN=core|omp, Open MPI as above, srun
#         --cpu-bind=cores
#   none  unbound (more ranks than cores, emulated nodes): Hydra -bind-to none, Intel MPI
#         I_MPI_PIN=off, Open MPI --bind-to none --oversubscribe, srun --cpu-bind=none
# CC_EMULATE_NODES=N (N > 1): the ranks over N emulated nodes of this host, unbound: MPICH's Hydra
# fork launcher (-hosts node1:R/N,...), Intel MPI's for two nodes (this host's name and localhost);
# refused under srun and other libraries. Returns 2 with one line when the launch cannot be made.
cc_mpi_launch()
{
  local ranks=$1 ppn=$2 threads=$3 launcher=${CC_LAUNCHER:-mpiexec} bind=${CC_BIND:-sets}
  local emulate=${CC_EMULATE_NODES:-1} nodes
  CC_LAUNCH=() CC_LAUNCH_ENV=()
  nodes=$(((ranks + ppn - 1) / ppn))
  case "$bind" in
  sets | cores | none) ;;
  *)
    echo "cubecg-jobs: rank binding '$bind' (sets, cores or none)" >&2
    return 2
    ;;
  esac
  if ((emulate > 1)); then
    if [[ $launcher == srun ]]; then
      echo "cubecg-jobs: emulated nodes need mpiexec on one host, not srun" >&2
      return 2
    fi
    case "$CC_MPI" in
    mpich)
      local hosts=() n
      for ((n = 1; n <= emulate; n++)); do hosts+=("node$n:$((ranks / emulate))"); done
      CC_LAUNCH=("$CC_MPIEXEC" -n "$ranks" -bind-to none -launcher fork -hosts "$(cc_join , "${hosts[@]}")")
      ;;
    intel)
      # Intel's Hydra forks proxies only for names of this host: two names, two nodes
      if ((emulate != 2)); then
        echo "cubecg-jobs: Intel MPI emulates 2 nodes on one host (this host's name and localhost), not $emulate" >&2
        return 2
      fi
      CC_LAUNCH=("$CC_MPIEXEC" -n "$ranks" -bootstrap fork -hosts "$(hostname),localhost" -ppn "$((ranks / 2))")
      CC_LAUNCH_ENV+=(I_MPI_PIN=off)
      ;;
    *)
      echo "cubecg-jobs: emulated nodes need a fork launcher (MPICH's or Intel MPI's Hydra); $CC_MPI has none" >&2
      return 2
      ;;
    esac
    return 0
  fi
  if [[ $bind == sets ]] && ((${#CC_RANK_CPUS[@]} == 0)); then
    echo "cubecg-jobs: rank binding 'sets' without CPU sets (cc_cpu_sets first)" >&2
    return 2
  fi
  if [[ $launcher == srun ]]; then
    local pmi=() cpus=$threads cpu_bind
    # MPICH and Intel MPI take Slurm's PMI2 (CUBECG_SRUN_MPI overrides, e.g. pmix)
    [[ $CC_MPI == mpich || $CC_MPI == intel ]] && pmi=(--mpi="${CUBECG_SRUN_MPI:-pmi2}")
    [[ -n ${CUBECG_SRUN_MPI:-} && $CC_MPI != mpich && $CC_MPI != intel ]] && pmi=(--mpi="$CUBECG_SRUN_MPI")
    case "$bind" in
    sets)
      cpus=$((threads + ${#CC_FREE_CPUS[@]} / ppn))
      cpu_bind=mask_cpu:$(cc_hex_masks)
      ;;
    cores) cpu_bind=cores ;;
    none) cpu_bind=none ;;
    esac
    CC_LAUNCH=(srun --nodes "$nodes" --ntasks "$ranks" --ntasks-per-node "$ppn"
      --cpus-per-task "$cpus" --cpu-bind="$cpu_bind" "${pmi[@]}")
    # Intel MPI under srun: Slurm binds, Intel must not re-pin; its PMI2 from Slurm's library
    if [[ $CC_MPI == intel ]]; then
      CC_LAUNCH_ENV+=(I_MPI_PIN=off)
      [[ -r /usr/lib/x86_64-linux-gnu/libpmi2.so ]] && CC_LAUNCH_ENV+=(I_MPI_PMI_LIBRARY=/usr/lib/x86_64-linux-gnu/libpmi2.so)
    fi
    return 0
  fi
  case "$CC_MPI" in
  openmpi)
    if [[ $bind == none ]]; then
      CC_LAUNCH=("$CC_MPIEXEC" -n "$ranks" --map-by "ppr:$ppn:node" --oversubscribe --bind-to none)
    else
      CC_LAUNCH=("$CC_MPIEXEC" -n "$ranks" --map-by "ppr:$ppn:node:PE=$threads" --bind-to core)
    fi
    ;;
  intel)
    CC_LAUNCH=("$CC_MPIEXEC" -n "$ranks" -ppn "$ppn")
    case "$bind" in
    sets)
      local masks
      masks=$(cc_hex_masks)
      masks=${masks//0x/}
      CC_LAUNCH_ENV+=(I_MPI_PIN_DOMAIN="[$masks]")
      ;;
    cores) if ((threads > 1)); then CC_LAUNCH_ENV+=(I_MPI_PIN_DOMAIN=omp); else CC_LAUNCH_ENV+=(I_MPI_PIN_DOMAIN=core); fi ;;
    none) CC_LAUNCH_ENV+=(I_MPI_PIN=off) ;;
    esac
    ;;
  *)
    local how=none
    [[ $bind == sets ]] && how=user:$(cc_join , "${CC_RANK_CPUS[@]}")
    [[ $bind == cores ]] && how=core
    [[ $bind == cores ]] && ((threads > 1)) && how=core:$threads
    CC_LAUNCH=("$CC_MPIEXEC" -n "$ranks" -ppn "$ppn" -bind-to "$how")
    ;;
  esac
}

# cc_require_binary PATH: clear message when a program has not been built (skipped in dry-run).
cc_require_binary()
{
  [[ ${CC_DRY_RUN:-0} == 1 || -x $1 ]] && return 0
  echo "cubecg-jobs: $1 is missing or not executable; build first:" >&2
  echo "  cd <repo> && cmake --preset release && cmake --build --preset release   (or ./build.sh release)" >&2
  echo "  (or point CUBECG_BUILD at your build directory)" >&2
  return 2
}

# cc_split_pins LIST: the entries of a comma-separated list of progress-thread placements, one a
# line. An explicit list keeps its own commas: in "inherit,list:17,35,free" the numbers after
# list: belong to it (a placement name never starts with a digit), giving inherit, list:17,35, free.
cc_split_pins()
{
  local items=() out=() item
  IFS=, read -r -a items <<<"$1"
  for item in "${items[@]}"; do
    if [[ $item =~ ^[0-9][0-9-]*$ ]] && ((${#out[@]} > 0)) && [[ ${out[-1]} == list:* ]]; then
      out[-1]+=,$item
    else
      out+=("$item")
    fi
  done
  ((${#out[@]} == 0)) || printf '%s\n' "${out[@]}"
}

# cc_check_pin PIN: 0 when PIN names a placement cc_progress_affinity knows, else one line, 2.
cc_check_pin()
{
  case "$1" in
  inherit | auto | free | compute | smt) return 0 ;;
  list:[0-9]*) [[ ${1#list:} =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] && return 0 ;;
  esac
  echo "cubecg-jobs: placement '$1' (inherit, auto, free, compute, smt or list:CPU,CPU,...)" >&2
  return 2
}

# cc_join SEP ITEMS...: join items with a separator.
cc_join()
{
  local sep=$1 out="" item
  shift
  for item in "$@"; do out+=${out:+$sep}$item; done
  printf '%s' "$out"
}

# cc_hw_map CORES: the node's CPU numbering from hwloc (hwloc-calc), never assumed. Sets CC_PU, an
# associative array "CORE.K" -> operating-system number of the K-th hardware thread of logical
# core CORE (0..CORES-1). The topology is this machine's, or CUBECG_HWLOC_INPUT (an XML file from
# `lstopo --of xml` on a compute node, or a synthetic description such as
# "package:2 core:18 pu:2"), which dry runs on a login node or a workstation need.
cc_hw_map()
{
  local cores=$1 input=() lo po i c=-1 prev=""
  declare -gA CC_PU=()
  [[ -n ${CUBECG_HWLOC_INPUT:-} ]] && input=(--input "$CUBECG_HWLOC_INPUT")
  if ! command -v hwloc-calc >/dev/null; then
    echo "cubecg-jobs: hwloc-calc not found (Debian package hwloc); it numbers the node's CPUs" >&2
    return 2
  fi
  # logical core index and OS number of each PU, in the same (logical) order
  lo=$(hwloc-calc "${input[@]}" -H core.pu --logical-output all 2>/dev/null) &&
    po=$(hwloc-calc "${input[@]}" -H core.pu --physical-output all 2>/dev/null) && [[ -n $lo ]] || {
    echo "cubecg-jobs: hwloc-calc cannot read the topology '${CUBECG_HWLOC_INPUT:-this machine}':" \
      "$(hwloc-calc "${input[@]}" -H core.pu all 2>&1 >/dev/null | grep -v 'Inserting a NUMA' | head -1)" >&2
    return 2
  }
  local -a los pos
  read -r -a los <<<"$lo"
  read -r -a pos <<<"$po"
  local k=0
  for ((i = 0; i < ${#los[@]}; i++)); do
    local core=${los[i]%%.*}
    if [[ $core != "$prev" ]]; then c=$((c + 1)) k=0 prev=$core; else k=$((k + 1)); fi
    CC_PU["$c.$k"]=${pos[i]#*PU:}
  done
  CC_HW_CORES=$((c + 1))
  if ((cores > CC_HW_CORES)); then
    echo "cubecg-jobs: $cores cores per node asked, hwloc sees $CC_HW_CORES in" \
      "'${CUBECG_HWLOC_INPUT:-this machine}' (set CUBECG_HWLOC_INPUT to the compute node's topology)" >&2
    return 2
  fi
}

# cc_pu CORE K: OS number of the K-th hardware thread of logical core CORE (after cc_hw_map).
cc_pu()
{
  local v=${CC_PU["$1.$2"]:-}
  if [[ -z $v ]]; then
    echo "cubecg-jobs: core $1 has no hardware thread $2 in '${CUBECG_HWLOC_INPUT:-this machine}'" >&2
    return 2
  fi
  echo "$v"
}

# cc_cpu_sets CORES RANKS THREADS RESERVE AT
# Lays out one node: RANKS ranks with THREADS compute cores each, on logical cores 0..CORES-1
# (OS CPU numbers from hwloc: the first hardware thread of each core, see cc_hw_map).
# RESERVE: none | per-rank (one extra core after each rank's block, left free of compute: the core
# for its progress thread) | N (N cores per node left free of compute: AT=last at the end, first
# at the beginning, both half at each end). Sets CC_RANK_CPUS (one "a+b+c" per local rank, for hydra
# -bind-to user:) and CC_FREE_CPUS (free cores, per rank for per-rank).
cc_cpu_sets()
{
  local cores=$1 ranks=$2 threads=$3 reserve=$4 at=${5:-last}
  local i t first block=$threads offset=0 need
  CC_RANK_CPUS=()
  CC_FREE_CPUS=()
  case "$reserve" in
  none) need=$((ranks * threads)) ;;
  per-rank)
    block=$((threads + 1))
    need=$((ranks * block))
    ;;
  '' | *[!0-9]*)
    echo "cubecg-jobs: CUBECG_RESERVE='$reserve' (none, per-rank or a core count)" >&2
    return 2
    ;;
  *)
    need=$((ranks * threads + reserve))
    case "$at" in
    first) offset=$reserve ;;
    both) offset=$((reserve / 2)) ;; # half at the beginning, the rest at the end
    last) ;;
    *)
      echo "cubecg-jobs: CUBECG_RESERVE_AT='$at' (last, first or both)" >&2
      return 2
      ;;
    esac
    ;;
  esac
  if ((need > cores)); then
    echo "cubecg-jobs: $ranks ranks x $threads threads + reserve '$reserve' need $need cores, node has $cores" >&2
    return 2
  fi
  [[ ${CC_HW_CORES:-0} -ge $cores ]] || cc_hw_map "$cores" || return 2
  CC_RANK_CORES=() # first logical core of each rank (for the smt pin)
  for ((i = 0; i < ranks; i++)); do
    first=$((offset + i * block))
    CC_RANK_CORES+=("$first")
    local set=()
    for ((t = 0; t < threads; t++)); do set+=("${CC_PU["$((first + t)).0"]}"); done
    if [[ $reserve == per-rank ]]; then
      set+=("${CC_PU["$((first + threads)).0"]}")
      CC_FREE_CPUS+=("${CC_PU["$((first + threads)).0"]}")
    fi
    CC_RANK_CPUS+=("$(cc_join + "${set[@]}")")
  done
  if [[ $reserve =~ ^[0-9]+$ ]]; then
    for ((i = 0; i < offset; i++)); do CC_FREE_CPUS+=("${CC_PU["$i.0"]}"); done
    for ((i = ranks * threads + offset; i < need; i++)); do
      CC_FREE_CPUS+=("${CC_PU["$((cores - need + i)).0"]}")
    done
  fi
}

# cc_progress_affinity PIN: value of MPIR_CVAR_PROGRESS_THREAD_AFFINITY (one progress thread per
# rank, one entry per local rank in rank order, as MPICH documents the list) or "" to leave the
# thread on its rank's cores. PIN: inherit | auto | free | compute | smt | list:a,b,...
# Needs CC_RANK_CPUS / CC_FREE_CPUS from cc_cpu_sets and CORES for smt.
cc_progress_affinity()
{
  local pin=$1 cores=$2 i out=() n=${#CC_RANK_CPUS[@]}
  case "$pin" in
  inherit | '') return 0 ;;
  auto) echo auto ;;
  free)
    if ((${#CC_FREE_CPUS[@]} == 0)); then
      echo "cubecg-jobs: progress pin 'free' needs free cores (CUBECG_RESERVE=per-rank or N)" >&2
      return 2
    fi
    for ((i = 0; i < n; i++)); do out+=("${CC_FREE_CPUS[i % ${#CC_FREE_CPUS[@]}]}"); done
    cc_join , "${out[@]}"
    ;;
  compute)
    for ((i = 0; i < n; i++)); do out+=("${CC_RANK_CPUS[i]%%+*}"); done
    cc_join , "${out[@]}"
    ;;
  smt)
    # the K-th hardware thread (CUBECG_SMT_INDEX, default 1) of each rank's first core, numbered
    # by hwloc (Table 6 mappings 4 and 5 are K = 2 and 3 on KNL)
    local k=${CUBECG_SMT_INDEX:-1} pu
    for ((i = 0; i < n; i++)); do
      pu=$(cc_pu "${CC_RANK_CORES[i]}" "$k") || return 2
      out+=("$pu")
    done
    cc_join , "${out[@]}"
    ;;
  list:*) echo "${pin#list:}" ;;
  *)
    echo "cubecg-jobs: unknown progress pin '$pin' (inherit, auto, free, compute, smt, list:...)" >&2
    return 2
    ;;
  esac
}

# cc_hex_masks: srun --cpu-bind=mask_cpu: list from CC_RANK_CPUS (arbitrary core counts).
cc_hex_masks()
{
  local masks=() set cpu
  for set in "${CC_RANK_CPUS[@]}"; do
    local nib=() hex="" j
    for cpu in ${set//+/ }; do
      local k=$((cpu / 4))
      while ((${#nib[@]} <= k)); do nib+=(0); done
      nib[k]=$((nib[k] | (1 << (cpu % 4))))
    done
    for ((j = ${#nib[@]} - 1; j >= 0; j--)); do hex+=$(printf '%x' "${nib[j]}"); done
    masks+=("0x$hex")
  done
  cc_join , "${masks[@]}"
}

# cc_quote WORDS...: the words as one shell line, quoting only those that need it.
cc_quote()
{
  local out=() w
  for w in "$@"; do
    if [[ $w =~ ^[A-Za-z0-9_./:=+,@%^-]+$ ]]; then out+=("$w"); else out+=("$(printf '%q' "$w")"); fi
  done
  printf '%s' "${out[*]}"
}

# cc_launch LOG ENV... -- COMMAND...: run a command (env assignments first) with its output in LOG,
# or print it when CC_DRY_RUN=1. The printed line can be pasted into a shell.
cc_launch()
{
  local log=$1 envs=()
  shift
  while (($#)) && [[ $1 != -- ]]; do
    envs+=("$1")
    shift
  done
  shift
  local line
  line=$(cc_quote env "${envs[@]}" "$@")
  if [[ ${CC_DRY_RUN:-0} == 1 ]]; then
    echo "$line"
    return 0
  fi
  echo "+ $line" >"$log"
  env "${envs[@]}" "$@" >>"$log" 2>&1
}

# cc_report_verdict REPORT: 0 when a cubecg run's report says it finished and its checks passed;
# otherwise 1 and the reason on stdout (in progress, interrupted, verification FAILED or not run,
# unreadable). Whatever the launcher's exit code said: Hydra exits 0 when it was signalled itself.
# Reports of other kinds (benchmarks) pass when they parse.
cc_report_verdict()
{
  python3 - "$1" <<'PY'
import json, sys
try:
    with open(sys.argv[1]) as f:
        r = json.load(f)
except (OSError, ValueError) as e:
    sys.exit(print(f"unreadable report: {e}") or 1)
if r.get("kind", "run") != "run":
    sys.exit(0)
checks = r.get("checks") or {}
why = ("in progress (the run ended early)" if r.get("in_progress") else
       f"interrupted by {r.get('signal')}" if r.get("interrupted") else
       f"verification {checks.get('verification', 'FAILED')}" if not checks.get("passed") else "")
sys.exit(print(why) or 1 if why else 0)
PY
}

# cc_report_name FIELDS...: a report file name from settings (also used as the run's label).
cc_report_name()
{
  cc_join _ "$@"
}
