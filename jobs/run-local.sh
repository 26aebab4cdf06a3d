#!/bin/bash
# run-local.sh: the strong-scaling / progress-thread study of jobs/slurm on one machine
# (Nakajima's pipelined CG with an asynchronous progress thread; checkpoint I/O benchmark), then
# cubecg-analyze and cubecg-model (jobs/cubecg_analysis) on the reports. One JSON report per run in the output folder.
#
#   jobs/run-local.sh [--quick] [--out DIR] [--mesh N|NXxNYxNZ] [--oversubscribe] [--dry-run]
#                     [--no-analyze] [--force] [--emulate-nodes N]
#
#   --quick          small sweep for a 2-core machine (< 5 min): 24^3 mesh, all variants x
#                    reductions, 1 and 2 cores, flat and hybrid, progress off/on/poll, injected
#                    reduction latency 0/200/2000 us, checkpoint backends, small I/O and kernel bench
#   --out DIR        report folder (default results/<timestamp>[-quick] in the repository)
#   --mesh M         mesh nodes per direction (N or NXxNYxNZ; default 24 quick, 48 otherwise)
#   --ckpt-mesh M    mesh of the checkpoint runs and their no-checkpoint baseline (default 40
#                    quick, 64 otherwise: solves of several seconds, so the overhead is not lost
#                    in start-up noise); these runs repeat max(--repeat, 3) times
#   --oversubscribe  also run more ranks than cores (up to 2 x nproc); those reports go to
#                    DIR/oversubscribed/ and are flagged in the analyzer's table
#   --dry-run        print the command lines only
#   --no-analyze     skip the analysis (cubecg-analyze, cubecg-model)
#   --force          let the analyzer overwrite figures already in DIR
#   --precisions L   preconditioner precisions to sweep, comma-separated (double,single,half;
#                    default double): each one beyond double adds the progress-off runs of every
#                    core count and layout with --precond-precision P (reports named prec-P)
#   --emulate-nodes N  rehearse a cluster study: every run whose rank count is a multiple of N
#                    is spread over N emulated nodes on this machine (MPICH: mpiexec.mpich -launcher
#                    fork -hosts node1:R/N,...,nodeN:R/N; Intel MPI: 2 nodes, -bootstrap fork;
#                    MPI_COMM_TYPE_SHARED splits them, traffic between them leaves shared memory),
#                    unbound (Hydra would pin each node's ranks to the same cores); other runs stay
#                    on one node. Default 1.
# Environment: CUBECG_BUILD (build dir, default <repo>/build; build-openmpi, build-intel-mpi for the
# other MPIs: the scripts read the build's MPI from its cubecg-mpi.env), CUBECG_MPI (mpich, openmpi,
# intel: overrides the build's), CUBECG_MPIEXEC (the library's launcher), Open MPI has no progress
# thread: its "progress on" runs are left out (poll is its alternative);
# CUBECG_MAX_CORES (default nproc).
# --repeat N: every cubecg setting runs N times (reports *_rep1 .. *_repN; the analyzer draws the
# median with min-max bars, and marks a point that ran once); default 3 with --quick, else 1.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=lib/cubecg-jobs.sh
source "$here/lib/cubecg-jobs.sh"
cc_binaries "$repo"

quick=0 out="" mesh="" oversub=0 analyze=1 force=() emulate=1
CC_DRY_RUN=${CUBECG_DRY_RUN:-0}
while (($#)); do
  case "$1" in # an option that takes a value gets one (not the end, not the next option)
  --repeat | --out | --mesh | --ckpt-mesh | --emulate-nodes)
    [[ $# -ge 2 && $2 != --* ]] || { echo "run-local.sh: $1 needs a value (see --help)" >&2; exit 2; } ;;
  esac
  case "$1" in
  --repeat) repeat=${2:-}; shift 2 || shift ;;
  --quick) quick=1; shift ;;
  --out) out=$2; shift 2 ;;
  --out=*) out=${1#--out=}; shift ;;
  --mesh) mesh=$2; shift 2 ;;
  --ckpt-mesh) ckpt_mesh=$2; shift 2 ;;
  --oversubscribe) oversub=1; shift ;;
  --dry-run) CC_DRY_RUN=1; shift ;;
  --no-analyze) analyze=0; shift ;;
  --force) force=(--force); shift ;;
  --precisions) precisions=${2-}; shift $(($# > 1 ? 2 : 1)) ;;
  --precisions=*) precisions=${1#--precisions=}; shift ;;
  --emulate-nodes) emulate=${2-}; shift $(($# > 1 ? 2 : 1)) ;;
  --emulate-nodes=*) emulate=${1#--emulate-nodes=}; shift ;;
  -h | --help) sed -n '2,35p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "run-local.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

[[ $emulate =~ ^[1-9][0-9]*$ ]] || { echo "run-local.sh: --emulate-nodes '$emulate' is not a node count (1, 2, ...)" >&2; exit 2; }
# nproc honours OMP_NUM_THREADS (examples set it to 1): ask for the cores without it
ncores=${CUBECG_MAX_CORES:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}
repeat=${repeat:-$((quick ? 3 : 1))} # --quick: 3 repeats, so a comparison can say "within noise"
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "run-local.sh: --repeat '$repeat' (a positive integer)" >&2; exit 2; }
[[ -n $mesh ]] || { if ((quick)); then mesh=24; else mesh=48; fi; }
[[ $mesh =~ ^[0-9]+$ ]] && mesh=${mesh}x${mesh}x${mesh}
mesh=$(cc_preset_mesh "$mesh")
read -r nx ny nz <<<"$mesh"
for n in $nx $ny $nz; do ((10#$n >= 2)) || { echo "run-local.sh: --mesh ${nx}x${ny}x${nz}: each direction needs >= 2 nodes" >&2; exit 2; }; done
[[ -n ${ckpt_mesh:-} ]] || { if ((quick)); then ckpt_mesh=40; else ckpt_mesh=64; fi; }
[[ $ckpt_mesh =~ ^[0-9]+$ ]] && ckpt_mesh=${ckpt_mesh}x${ckpt_mesh}x${ckpt_mesh}
ckpt_mesh=$(cc_preset_mesh "$ckpt_mesh")
read -r cnx cny cnz <<<"$ckpt_mesh"
for n in $cnx $cny $cnz; do ((10#$n >= 2)) || { echo "run-local.sh: --ckpt-mesh ${cnx}x${cny}x${cnz}: each direction needs >= 2 nodes" >&2; exit 2; }; done
ckpt_repeat=$((repeat > 3 ? repeat : 3))
if [[ -z $out ]]; then
  out=$repo/results/$(date +%Y%m%d-%H%M%S)
  ((quick)) && out+=-quick
  ((oversub)) && out+=-oversubscribed
  ((emulate > 1)) && out+=-emulated${emulate}nodes
fi
cc_require_binary "$CC_CUBECG"
# the benchmarks only feed figure 5 and the model: without them, say so and go on
have_bench=1 have_iobench=1
[[ $CC_DRY_RUN == 1 || -x $CC_BENCH ]] || { have_bench=0; echo "run-local.sh: $CC_BENCH not built: no kernel benchmark (cubecg-model needs it)" >&2; }
[[ $CC_DRY_RUN == 1 || -x $CC_IOBENCH ]] || { have_iobench=0; echo "run-local.sh: $CC_IOBENCH not built: no I/O benchmark (figure 5)" >&2; }
# a dry run only prints the commands: the launcher need not be installed where it runs
[[ $CC_DRY_RUN == 1 ]] || command -v "$CC_MPIEXEC" >/dev/null || { echo "run-local.sh: $CC_MPIEXEC not found (set CUBECG_MPIEXEC)" >&2; exit 2; }

if ((quick)); then
  latencies=(200 2000)
  backends=(posix uring offload hdf5)
  io_sizes=8M,32M io_repeat=3 bench_n=32 bench_repeat=5
else
  latencies=(100 500 2000 5000)
  backends=(posix uring offload hdf5)
  io_sizes=1M,8M,64M,256M io_repeat=5 bench_n=64 bench_repeat=10
fi
# a build without a parallel HDF5 of its MPI (Intel MPI) has no hdf5 backend
io_backends=posix,uring,offload,hdf5
if [[ ${CC_HAVE_HDF5:-ON} == OFF ]]; then
  backends=(posix uring offload)
  io_backends=posix,uring,offload
fi

# core counts 1, 2, 4, ... and nproc; with --oversubscribe up to 2 x nproc
counts=()
for ((c = 1; c < ncores; c *= 2)); do counts+=("$c"); done
counts+=("$ncores")
if ((oversub)); then counts+=($((2 * ncores))); fi

# the run list: "ranks threads progress latency checkpoint"
runs=()
for c in "${counts[@]}"; do
  layouts=("$c 1")
  if ((c > 1)); then
    if ((quick)); then
      layouts+=("1 $c")
    else
      for ((t = 2; t <= c; t++)); do ((c % t == 0)) && layouts+=("$((c / t)) $t"); done
    fi
  fi
  for l in "${layouts[@]}"; do
    runs+=("$l off 0 -" "$l on 0 -")
    ((c > 1)) && runs+=("$l poll 0 -")
  done
done
# injected reduction latency (emulates a large machine's allreduce) and checkpoints on the flat
# layout that fills the machine
for lat in "${latencies[@]}"; do
  runs+=("$ncores 1 off $lat -" "$ncores 1 on $lat -")
  ((quick)) || runs+=("$ncores 1 poll $lat -")
done
# checkpoint runs on their own mesh, beside a baseline without checkpoint ("none")
for b in "${backends[@]}" none; do runs+=("$ncores 1 off 0 $b"); done
# --precisions: the preconditioner's precision as a dimension (progress off, every layout)
IFS=, read -r -a prec_list <<<"${precisions:-double}"
for p in "${prec_list[@]}"; do
  [[ $p =~ ^(double|single|half)$ ]] || { echo "run-local.sh: --precisions '$p' (double, single, half)" >&2; exit 2; }
  [[ $p == double ]] && continue
  for c in "${counts[@]}"; do
    runs+=("$c 1 off 0 - $p")
    ((c > 1)) && runs+=("1 $c off 0 - $p")
  done
done

[[ $CC_DRY_RUN == 1 ]] || mkdir -p "$out/logs"
{
  echo "cubecg local sweep $(date -Iseconds) on $(hostname), $ncores cores, mesh ${nx}x${ny}x${nz}"
  echo "build: $CC_BUILD  launcher: $CC_MPIEXEC  quick: $quick  oversubscribe: $oversub  emulated nodes: $emulate"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews the timings)"
} | if [[ $CC_DRY_RUN == 1 ]]; then cat; else tee "$out/run-info.txt"; fi

failed=0
# steps: every run times its repeats (a checkpoint run repeats ckpt_repeat times), then the benches
# (a library without a progress thread leaves its "progress on" runs out)
progress_on=1
if ! cc_mpi_progress_env on >/dev/null 2>&1; then
  progress_on=0
  echo "run-local.sh: $CC_MPI has no asynchronous progress thread: the 'progress on' runs are left out (poll runs stay)"
fi
total=$((2 * have_bench + 2 * have_iobench))
for r in "${runs[@]}"; do
  read -r _ _ r_progress _ r_ckpt _ <<<"$r"
  [[ $r_progress == on && $progress_on == 0 ]] && continue
  if [[ $r_ckpt == - ]]; then total=$((total + repeat)); else total=$((total + ckpt_repeat)); fi
done
step=0
t_start=$SECONDS

# launch NAME DIR RANKS THREADS ENV... -- PROGRAM ARGS...: one run (cc_mpi_launch) with progress lines.
launch()
{
  local name=$1 dir=$2 ranks=$3 threads=$4
  shift 4
  # ranks pinned the library's way (cc_mpi_launch): each on cores of its own, unbound when the
  # run has more threads than the machine has cores
  local omp=(OMP_PLACES=cores OMP_PROC_BIND=close) bind=cores emulated=1
  ((ranks * threads > ncores)) && bind=none
  # --emulate-nodes: N nodes of ranks/N ranks on this machine, unbound (see --help)
  if ((emulate > 1 && ranks % emulate == 0)); then
    emulated=$emulate
    # OMP_PROC_BIND would pin every emulated node's first thread to the same first core
    omp=(OMP_PROC_BIND=false)
  fi
  if ! CC_BIND=$bind CC_EMULATE_NODES=$emulated cc_mpi_launch "$ranks" "$ranks" "$threads"; then
    failed=$((failed + 1))
    return 0
  fi
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  step=$((step + 1))
  local t0=$SECONDS
  [[ $CC_DRY_RUN == 1 ]] || printf '[%2d/%d] %-48s ' "$step" "$total" "$name"
  local why="" report="" prev="" arg
  for arg in "$@"; do [[ $prev == --report ]] && report=$arg; prev=$arg; done
  if cc_launch "$out/logs/$name.log" OMP_NUM_THREADS="$threads" "${omp[@]}" "${CC_LAUNCH_ENV[@]}" \
    "${envs[@]}" -- "${CC_LAUNCH[@]}" "$@"; then
    # a report that says interrupted or a failed check is a failed run, whatever the exit code
    if [[ $CC_DRY_RUN != 1 && -n $report ]] && ! why=$(cc_report_verdict "$report"); then
      echo "FAILED (report: $why), see $out/logs/$name.log"
      failed=$((failed + 1))
    else
      [[ $CC_DRY_RUN == 1 ]] || echo "ok   $((SECONDS - t0)) s"
    fi
  else
    echo "FAILED (exit $?), see $out/logs/$name.log"
    failed=$((failed + 1))
  fi
}

for ((rep = 1; rep <= ckpt_repeat; rep++)); do for r in "${runs[@]}"; do
  read -r ranks threads progress lat ckpt prec <<<"$r"
  reps=$repeat rnx=$nx rny=$ny rnz=$nz
  [[ $ckpt != - ]] && reps=$ckpt_repeat rnx=$cnx rny=$cny rnz=$cnz
  ((rep <= reps)) || continue
  dir=$out
  flags=()
  if ((ranks * threads > ncores)); then dir=$out/oversubscribed flags=(oversub); fi
  [[ $CC_DRY_RUN == 1 ]] || mkdir -p "$dir"
  layout=flat
  ((threads > 1)) && layout=hybrid
  ((ranks == 1 && threads == 1)) && layout=serial
  # the library's own progress knob (jobs/lib/cubecg-jobs.sh); Open MPI has no thread: no "on" run
  envs=()
  if [[ $progress == on ]]; then
    knob=$(cc_mpi_progress_env on 2>/dev/null) || continue
  else
    knob=$(cc_mpi_progress_env off)
  fi
  read -r -a envs <<<"$knob"
  opts=(--solver all --reduction all)
  [[ $progress == poll ]] && opts+=(--progress poll)
  parts=("${rnx}x${rny}x${rnz}" "${ranks}x${threads}" "$layout" "progress-$progress" "${flags[@]}")
  ((lat > 0)) && parts+=("lat$lat")
  if [[ -n $prec ]]; then parts+=("prec-$prec"); opts+=(--precond-precision "$prec"); fi
  ((emulate > 1 && ranks % emulate == 0)) && parts+=("${emulate}nodes")
  if [[ $ckpt == none ]]; then
    parts+=("ckpt-none")
    opts=(--solver pcg --reduction ar)
  elif [[ $ckpt != - ]]; then
    parts+=("ckpt-$ckpt")
    opts=(--solver pcg --reduction ar --checkpoint "$ckpt" --checkpoint-dir "$out/ckpt/$ckpt"
      --checkpoint-every 20 --checkpoint-keep 2 --checkpoint-overwrite)
  fi
  ((reps > 1)) && parts+=("rep$rep")
  name=$(cc_report_name "${parts[@]}")
  launch "$name" "$dir" "$ranks" "$threads" "${envs[@]}" -- "$CC_CUBECG" --nx "$rnx" --ny "$rny" --nz "$rnz" \
    "${opts[@]}" --inject-reduction-latency "$lat" --report "$dir/$name.json"
done; done

# checkpoint I/O benchmark (the I/O study's per-rank files) and kernel bandwidth for the model
# (--allow-cached: the model's kernel mesh is small for speed and cubecg-model caps its fractions at 1;
# cubecg-bench refuses such a mesh otherwise)
for ranks in 1 "$ncores"; do
  sfx=""
  ((emulate > 1 && ranks % emulate == 0)) && sfx=_${emulate}nodes
  if ((have_iobench)); then
    launch "iobench_${ranks}x1$sfx" "$out" "$ranks" 1 -- "$CC_IOBENCH" --dir "$out/iobench-files" \
      --sizes "$io_sizes" --backends "$io_backends" --buffers 8k,512k --repeat "$io_repeat" \
      --report "$out/iobench_${ranks}x1$sfx.json"
  fi
  if ((have_bench)); then
    launch "kernels_${bench_n}cubed_${ranks}x1$sfx" "$out" "$ranks" 1 -- "$CC_BENCH" --nx "$bench_n" \
      --ny "$bench_n" --nz "$bench_n" --repeat "$bench_repeat" --allow-cached \
      --report "$out/kernels_${ranks}x1$sfx.json"
  fi
done
# a dry run exits 2 when a launch was refused (e.g. emulated nodes under Open MPI)
[[ $CC_DRY_RUN == 1 ]] && exit $((failed > 0 ? 2 : 0))
rm -rf "$out/ckpt" "$out/iobench-files"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/run-info.txt"
echo "local sweep: $((SECONDS - t_start)) s, $failed failed run(s); reports in $out"

if ((analyze)); then
  # the analysis package beside this script (jobs/cubecg_analysis), without installing it
  export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
  python3 -m cubecg_analysis.cli "${force[@]}" "$out" || failed=$((failed + 1))
  python3 -m cubecg_analysis.model.cli "${force[@]}" "$out" || failed=$((failed + 1))
fi
((failed == 0))
