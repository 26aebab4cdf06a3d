#!/bin/bash
# test_jobs_dryrun.sh REPO WORKDIR: the Slurm scripts and the local runner in dry-run mode print
# the launch lines they would run (ranks, threads, binding, progress environment, options) and
# create nothing.
set -u
repo=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
fail=0
expect() # expect FILE REGEX WHAT
{
  if grep -Eq -- "$2" "$1"; then echo "ok   $3"; else echo "FAIL $3: no line matches /$2/ in $1"; fail=1; fi
}
sb=$repo/jobs/slurm/strong-scaling.sbatch
export CUBECG_RESULTS=$work/results CUBECG_BUILD=$work/nobuild CUBECG_REPO=$repo

# CPU numbers come from hwloc: the compute nodes' topology stands in as a synthetic description
# (KNL: 68 cores x 4 hardware threads, numbered as Linux does there: core c, thread k -> c + 68 k)
knl="core:68 pu:4(indexes=4*68:68*1)"

# 1) hybrid, Oakforest-PACS style: 8 ranks x 8 threads on 68 cores, 4 cores left for progress
CUBECG_HWLOC_INPUT=$knl CUBECG_PRESET=ofp-32 CUBECG_NODES=32 CUBECG_CORES_PER_NODE=68 CUBECG_HYBRID_RANKS_PER_NODE=8 \
  CUBECG_RESERVE=4 CUBECG_LAYOUTS=hybrid CUBECG_PROGRESS="off on poll on:smt" CUBECG_CHECKPOINT=posix \
  CUBECG_DRY_RUN=1 bash "$sb" >"$work/ofp.txt" 2>&1 || { echo "FAIL dry-run 1 exit $?"; fail=1; }
cat "$work/ofp.txt"
expect "$work/ofp.txt" '^env OMP_NUM_THREADS=8 .*MPIR_CVAR_ASYNC_PROGRESS=0 CUBECG_PLACEMENT=none mpiexec\.mpich -n 256 -ppn 8 -bind-to user:0\+1\+2\+3\+4\+5\+6\+7,8\+' "hybrid 256 ranks x 8 threads, hydra user binding"
expect "$work/ofp.txt" 'nobuild/src/cubecg --nx 128 --ny 128 --nz 64 .*--solver all --reduction all' "preset ofp-32 mesh, every variant x reduction"
expect "$work/ofp.txt" 'MPIR_CVAR_ASYNC_PROGRESS=1 MPIR_CVAR_PROGRESS_THREAD_AFFINITY=64,65,66,67,64,65,66,67 ' "progress threads on the 4 free cores"
expect "$work/ofp.txt" 'MPIR_CVAR_PROGRESS_THREAD_AFFINITY=68,76,84,92,100,108,116,124 ' "progress threads on SMT siblings"
expect "$work/ofp.txt" 'ASYNC_PROGRESS=0 .*--progress poll ' "poll setting"
expect "$work/ofp.txt" '--report [^ ]*/results/strong-ofp-32/ofp-32-N32-local/ofp-32_N32_256x8_hybrid_progress-on_pin-free_reserve-4\.json' "one report per run in a folder named after the run"
expect "$work/ofp.txt" '--checkpoint posix --checkpoint-dir [^ ]+ --checkpoint-every 50 (--checkpoint-overwrite )?--solver pcg --reduction ar ' "checkpoint run"

# 1b) the same, on a topology that numbers the hardware threads of a core adjacently: hwloc's
# numbers are used, not c + k*cores
CUBECG_HWLOC_INPUT="core:68 pu:4" CUBECG_PRESET=ofp-32 CUBECG_NODES=32 CUBECG_CORES_PER_NODE=68 \
  CUBECG_HYBRID_RANKS_PER_NODE=8 CUBECG_RESERVE=4 CUBECG_LAYOUTS=hybrid CUBECG_PROGRESS="on:smt" \
  CUBECG_DRY_RUN=1 bash "$sb" >"$work/adjacent.txt" 2>&1 || { echo "FAIL dry-run 1b exit $?"; fail=1; }
expect "$work/adjacent.txt" 'MPIR_CVAR_PROGRESS_THREAD_AFFINITY=1,33,65,97,129,161,193,225 .*-bind-to user:0\+4\+8\+12\+16\+20\+24\+28,32\+' "CPU numbers from hwloc (adjacent hardware threads)"
expect "$work/adjacent.txt" 'CUBECG_PLACEMENT=smt1 ' "placement name set for the report"
# 1c) 68 cores asked on a machine where hwloc sees fewer, no topology given: refused, exit 2
CUBECG_PRESET=ofp-32 CUBECG_NODES=32 CUBECG_CORES_PER_NODE=68 CUBECG_LAYOUTS=hybrid CUBECG_DRY_RUN=1 \
  bash "$sb" >"$work/nohw.txt" 2>&1
rc=$?
if [[ $rc == 2 ]] && grep -q "68 cores per node asked, hwloc sees .* (set CUBECG_HWLOC_INPUT" "$work/nohw.txt"; then
  echo "ok   cores beyond hwloc's topology refused"
else echo "FAIL more cores than hwloc sees: exit $rc"; cat "$work/nohw.txt"; fail=1; fi

# 1d) an explicit list: the placement name cubecg accepts (no commas: letters, digits, ._:+-)
CUBECG_HWLOC_INPUT="core:4 pu:1" CUBECG_CORES_PER_NODE=4 CUBECG_LAYOUTS=flat CUBECG_PROGRESS="on:list:3,2,1,0" \
  CUBECG_DRY_RUN=1 bash "$sb" >"$work/list.txt" 2>&1 || { echo "FAIL dry-run 1d exit $?"; fail=1; }
expect "$work/list.txt" 'MPIR_CVAR_PROGRESS_THREAD_AFFINITY=3,2,1,0 CUBECG_PLACEMENT=list:3\+2\+1\+0 ' "list placement named without commas"

# 2) flat and hybrid with a reserved core per rank, launched by srun
CUBECG_HWLOC_INPUT="package:2 core:18 pu:2(indexes=2*36:36*1)" CUBECG_PRESET=medium CUBECG_NODES=2 CUBECG_CORES_PER_NODE=36 CUBECG_SOCKETS_PER_NODE=2 \
  CUBECG_RESERVE=per-rank CUBECG_LAUNCHER=srun CUBECG_LATENCIES="0 500" bash "$sb" --dry-run \
  >"$work/srun.txt" 2>&1 || { echo "FAIL dry-run 2 exit $?"; fail=1; }
expect "$work/srun.txt" '^env OMP_NUM_THREADS=17 .* srun --nodes 2 --ntasks 4 --ntasks-per-node 2 --cpus-per-task 18 --cpu-bind=mask_cpu:0x3ffff,0xffffc0000 ' "hybrid 2 ranks/node x 17 threads + 1 reserved core (srun masks)"
expect "$work/srun.txt" 'MPIR_CVAR_PROGRESS_THREAD_AFFINITY=17,35 CUBECG_PLACEMENT=free srun' "progress thread on each rank's reserved core"
expect "$work/srun.txt" '^env OMP_NUM_THREADS=1 .* srun --nodes 2 --ntasks 36 --ntasks-per-node 18 ' "flat MPI layout"
expect "$work/srun.txt" '--nx 256 --ny 128 --nz 288 ' "preset medium"
expect "$work/srun.txt" '--inject-reduction-latency 500 .*_lat500\.json' "injected-latency run"

# 3) the submit helper loops node counts with sbatch -N
bash "$repo/jobs/slurm/submit-sweep.sh" --preset small --nodes 2,4,8 --sweep test --repeat 2 --dry-run -- -p debug \
  >"$work/submit.txt" 2>&1 || { echo "FAIL submit dry-run exit $?"; fail=1; }
for n in 2 4 8; do
  expect "$work/submit.txt" "^sbatch -N $n .*CUBECG_PRESET=small,CUBECG_SWEEP=test,CUBECG_REPEAT=2 -p debug .*strong-scaling\.sbatch" "sbatch -N $n"
done
expect "$work/submit.txt" '--nx 256 --ny 128 --nz 144 .*_rep2\.json' "preset small, repeats"

# 4) the local runner, quick mode
CUBECG_MAX_CORES=2 bash "$repo/jobs/run-local.sh" --quick --dry-run --out "$work/local" >"$work/local.txt" 2>&1 ||
  { echo "FAIL run-local dry-run exit $?"; fail=1; }
expect "$work/local.txt" 'OMP_NUM_THREADS=1 .*MPIR_CVAR_ASYNC_PROGRESS=0 mpiexec\.mpich -n 2 -ppn 2 -bind-to core [^ ]*cubecg --nx 24 .*--solver all --reduction all' "local flat 2x1"
expect "$work/local.txt" 'OMP_NUM_THREADS=2 .*MPIR_CVAR_ASYNC_PROGRESS=1 mpiexec\.mpich -n 1 -ppn 1 -bind-to core:2 ' "local hybrid 1x2, async on"
expect "$work/local.txt" '--inject-reduction-latency 2000 ' "local injected latency"
expect "$work/local.txt" 'cubecg-iobench --dir .* --sizes 8M,32M ' "local I/O benchmark"
expect "$work/local.txt" 'cubecg-bench --nx 32 ' "local kernel benchmark"
expect "$work/local.txt" '--checkpoint hdf5 ' "local checkpoint backend"

# 4a) the core count does not follow OMP_NUM_THREADS (nproc alone would give 1 here)
all_cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
env -u CUBECG_MAX_CORES OMP_NUM_THREADS=1 bash "$repo/jobs/run-local.sh" --quick --dry-run --out "$work/local" \
  >"$work/local1.txt" 2>&1 || { echo "FAIL run-local dry-run (OMP_NUM_THREADS=1) exit $?"; fail=1; }
expect "$work/local1.txt" "OMP_NUM_THREADS=1 .*mpiexec\\.mpich -n $all_cores .*--solver all" "local: all $all_cores cores with OMP_NUM_THREADS=1"

# 4b) the local runner with repeats
CUBECG_MAX_CORES=2 bash "$repo/jobs/run-local.sh" --quick --dry-run --repeat 3 --out "$work/local" >"$work/local3.txt" 2>&1 ||
  { echo "FAIL run-local --repeat dry-run exit $?"; fail=1; }
expect "$work/local3.txt" '--report [^ ]*/local/24x24x24_2x1_flat_progress-on_rep3\.json' "local --repeat 3: third repeat"

# 6) the whole study in one command: one sbatch per node count, an afterok analysis job
st=$repo/jobs/slurm/submit-study.sh
CUBECG_HWLOC_INPUT=$knl CUBECG_CORES_PER_NODE=68 CUBECG_HYBRID_RANKS_PER_NODE=8 bash "$st" --preset ofp-4096 \
  --nodes 128,256,512 --repeat 3 --progress off,on --placements inherit,free,smt --reserve 4 --layouts hybrid \
  --sweep study-test --results "$work/results" --dry-run -- -p normal >"$work/study.txt" 2>&1 ||
  { echo "FAIL submit-study dry-run exit $?"; fail=1; }
for n in 128 256 512; do
  expect "$work/study.txt" "^env .*CUBECG_REPEAT=3 .*sbatch --parsable -N $n .*--export ALL -p normal [^ ]*/strong-scaling\.sbatch\$" "study: sbatch -N $n"
done
expect "$work/study.txt" '^env .*CUBECG_PROGRESS=off\\ on:inherit\\ on:free\\ on:smt ' "study: every progress setting x placement"
expect "$work/study.txt" '^ +env OMP_NUM_THREADS=8 .*CUBECG_PLACEMENT=free-last srun --nodes 512 --ntasks 4096 --ntasks-per-node 8 --cpus-per-task 8 --cpu-bind=mask_cpu:0xff,0xff00,' "study: srun with --cpu-bind and --cpus-per-task"
expect "$work/study.txt" 'MPIR_CVAR_PROGRESS_THREAD_AFFINITY=68,76,84,92,100,108,116,124 CUBECG_PLACEMENT=smt1 srun --nodes 128 ' "study: SMT placement from hwloc"
expect "$work/study.txt" '--nx 512 --ny 256 --nz 256 .*_N256_2048x8_hybrid_progress-on_pin-inherit_reserve-4_rep3\.json' "study: third repeat, one report each"
expect "$work/study.txt" '^env .*CUBECG_ANALYZE_DIR=[^ ]*/results/study-test sbatch --parsable --dependency=afterok:DRYRUN-1:DRYRUN-2:DRYRUN-3 .*analyze\.sbatch' "study: analysis job after all run jobs (afterok)"
expect "$work/study.txt" '^ +env PYTHONPATH=[^ ]*/jobs[^ ]* python3 -m cubecg_analysis\.cli --force [^ ]*/results/study-test$' "study: the analysis job runs the analysis package on the sweep"
runs=$(grep -c '^ .* srun --nodes 256 ' "$work/study.txt")
# 3 repeats x (off + on x 3 placements) x 1 layout = 12 launches per node count
if [[ $runs == 12 ]]; then echo "ok   study: 12 launch lines for 256 nodes"; else echo "FAIL study: $runs launch lines for 256 nodes (want 12)"; fail=1; fi
CUBECG_HWLOC_INPUT=$knl CUBECG_CORES_PER_NODE=68 bash "$st" --preset ci --nodes 2 --repeat 1 --launcher mpiexec \
  --layouts flat --progress off --results "$work/results" --dry-run >"$work/study-mpiexec.txt" 2>&1 ||
  { echo "FAIL submit-study --launcher mpiexec exit $?"; fail=1; }
expect "$work/study-mpiexec.txt" '^ +env OMP_NUM_THREADS=1 .* mpiexec\.mpich -n 136 -ppn 68 -bind-to user:0,1,2,' "study: mpiexec kept as an option"
for bad in "--nodes 2,x" "--nodes 2 --repeat 0" "--nodes 2 --progress sometimes" "--nodes 2 --launcher ssh" "--nodes"; do
  # shellcheck disable=SC2086
  bash "$st" --preset ci $bad --dry-run >"$work/study-bad.txt" 2>&1
  rc=$?
  if [[ $rc == 2 ]] && [[ $(wc -l <"$work/study-bad.txt") == 1 ]]; then echo "ok   submit-study refuses '$bad': $(cat "$work/study-bad.txt")"
  else echo "FAIL submit-study '$bad': exit $rc"; cat "$work/study-bad.txt"; fail=1; fi
done

# 7) one launch function (cc_mpi_launch) for every launch: strong-scaling.sbatch's runs and its
# benchmark steps (cubecg-iobench on every core of 2 nodes, cubecg-bench on one node) under each
# library and launcher; Hydra's words only where Hydra launches
bench_env=(CUBECG_HWLOC_INPUT="core:4 pu:1" CUBECG_CORES_PER_NODE=4 CUBECG_NODES=2 CUBECG_LAYOUTS=flat
  CUBECG_PROGRESS=off CUBECG_IOBENCH=1M CUBECG_KERNELS=1)
masks='--cpus-per-task 1 --cpu-bind=mask_cpu:0x1,0x2,0x4,0x8'
for case in mpich:mpiexec mpich:srun intel:mpiexec intel:srun openmpi:mpiexec openmpi:srun; do
  mpi=${case%:*} l=${case#*:} f=$work/bench-$mpi-$l.txt
  env "${bench_env[@]}" CUBECG_MPI="$mpi" CUBECG_LAUNCHER="$l" bash "$sb" --dry-run >"$f" 2>&1 ||
    { echo "FAIL bench dry-run $case exit $?"; fail=1; }
  case "$case" in
  mpich:mpiexec) all='mpiexec\.mpich -n 8 -ppn 4 -bind-to user:0,1,2,3 ' node='mpiexec\.mpich -n 4 -ppn 4 -bind-to user:0,1,2,3 ' ;;
  mpich:srun) all="srun --nodes 2 --ntasks 8 --ntasks-per-node 4 $masks --mpi=pmi2 " node="srun --nodes 1 --ntasks 4 --ntasks-per-node 4 $masks --mpi=pmi2 " ;;
  intel:mpiexec) all='I_MPI_PIN_DOMAIN=\\\[1\\,2\\,4\\,8\\\] mpiexec\.hydra -n 8 -ppn 4 ' node='I_MPI_PIN_DOMAIN=\\\[1\\,2\\,4\\,8\\\] mpiexec\.hydra -n 4 -ppn 4 ' ;;
  intel:srun) all="I_MPI_PIN=off .*srun --nodes 2 --ntasks 8 --ntasks-per-node 4 $masks --mpi=pmi2 " node="I_MPI_PIN=off .*srun --nodes 1 --ntasks 4 --ntasks-per-node 4 $masks --mpi=pmi2 " ;;
  openmpi:mpiexec) all='mpiexec\.openmpi -n 8 --map-by ppr:4:node:PE=1 --bind-to core ' node='mpiexec\.openmpi -n 4 --map-by ppr:4:node:PE=1 --bind-to core ' ;;
  openmpi:srun) all="srun --nodes 2 --ntasks 8 --ntasks-per-node 4 $masks " node="srun --nodes 1 --ntasks 4 --ntasks-per-node 4 $masks " ;;
  esac
  expect "$f" "^env OMP_NUM_THREADS=1 .*$all[^ ]*/src/cubecg " "$case: the runs"
  expect "$f" "^env OMP_NUM_THREADS=1 .*$all[^ ]*/bench/cubecg-iobench " "$case: cubecg-iobench on every core of both nodes"
  expect "$f" "^env OMP_NUM_THREADS=1 .*$node[^ ]*/bench/cubecg-bench " "$case: cubecg-bench on one node"
  if [[ $case != mpich:mpiexec && $case != intel:mpiexec ]] && grep -E -- ' -ppn | -bind-to ' "$f"; then
    echo "FAIL $case: Hydra's words in a launch that Hydra does not make"; fail=1
  fi
done
# the local runner and the I/O sweep, Intel MPI and Open MPI: each rank on a core, the library's way
CUBECG_MPI=intel CUBECG_MPIEXEC=mpiexec.hydra CUBECG_MAX_CORES=2 bash "$repo/jobs/run-local.sh" --quick --dry-run \
  --out "$work/local" >"$work/local-intel.txt" 2>&1 || { echo "FAIL run-local (intel) exit $?"; fail=1; }
expect "$work/local-intel.txt" '^env OMP_NUM_THREADS=2 .*I_MPI_PIN_DOMAIN=omp I_MPI_ASYNC_PROGRESS=1 mpiexec\.hydra -n 1 -ppn 1 [^ ]*/cubecg ' "local (intel): hybrid 1x2, I_MPI_PIN_DOMAIN=omp, its own knob"
expect "$work/local-intel.txt" '^env OMP_NUM_THREADS=1 .*I_MPI_PIN_DOMAIN=core .*mpiexec\.hydra -n 2 -ppn 2 [^ ]*/cubecg-iobench ' "local (intel): the I/O benchmark"
CUBECG_MPI=openmpi CUBECG_MPIEXEC=mpiexec.openmpi CUBECG_MAX_CORES=2 bash "$repo/jobs/run-local.sh" --quick --dry-run \
  --oversubscribe --out "$work/local" >"$work/local-ompi.txt" 2>&1 || { echo "FAIL run-local (openmpi) exit $?"; fail=1; }
expect "$work/local-ompi.txt" '^env OMP_NUM_THREADS=1 .*mpiexec\.openmpi -n 2 --map-by ppr:2:node:PE=1 --bind-to core [^ ]*/cubecg-bench ' "local (openmpi): the kernel benchmark"
expect "$work/local-ompi.txt" '^env OMP_NUM_THREADS=1 .*mpiexec\.openmpi -n 4 --map-by ppr:4:node --oversubscribe --bind-to none [^ ]*/cubecg ' "local (openmpi): oversubscribed runs unbound"
if grep -q 'progress-on' "$work/local-ompi.txt"; then echo "FAIL local (openmpi): a progress-on run"; fail=1; else echo "ok   local (openmpi): no progress-on run"; fi
CUBECG_MPI=openmpi CUBECG_MAX_CORES=2 bash "$repo/jobs/run-local.sh" --quick --dry-run --emulate-nodes 2 \
  --out "$work/local" >"$work/local-ompi-nodes.txt" 2>&1
rc=$?
if [[ $rc == 2 ]] && grep -q "emulated nodes need a fork launcher (MPICH's or Intel MPI's Hydra); openmpi has none" "$work/local-ompi-nodes.txt"; then
  echo "ok   local (openmpi): emulated nodes refused, exit 2"
else echo "FAIL local (openmpi) --emulate-nodes 2: exit $rc"; fail=1; fi
CUBECG_MPI=openmpi CUBECG_MPIEXEC=mpiexec.openmpi CUBECG_MAX_CORES=4 CUBECG_NODES=2 CUBECG_LAUNCHER=mpiexec \
  bash "$repo/jobs/iosweep.sh" --dry-run --out "$work/io" --dirs /d1 >"$work/io-ompi.txt" 2>&1 ||
  { echo "FAIL iosweep (openmpi) exit $?"; fail=1; }
expect "$work/io-ompi.txt" '^env OMP_NUM_THREADS=1 mpiexec\.openmpi -n 8 --map-by ppr:4:node:PE=1 --bind-to core [^ ]*/cubecg-iobench ' "iosweep (openmpi): 8 ranks over 2 nodes"
CUBECG_MAX_CORES=4 CUBECG_NODES=2 CUBECG_LAUNCHER=srun bash "$repo/jobs/iosweep.sh" --dry-run --out "$work/io" \
  --dirs /d1 >"$work/io-srun.txt" 2>&1 || { echo "FAIL iosweep (srun) exit $?"; fail=1; }
expect "$work/io-srun.txt" '^env OMP_NUM_THREADS=1 srun --nodes 2 --ntasks 8 --ntasks-per-node 4 --cpus-per-task 1 --cpu-bind=cores --mpi=pmi2 [^ ]*/cubecg-iobench ' "iosweep (srun): 8 ranks over 2 nodes"
# Table 6's placements in each library's terms: Intel MPI's I_MPI_ASYNC_PROGRESS_PIN (one CPU per
# local rank), no MPICH variable; Open MPI refuses the thread, naming poll (exit 2)
CUBECG_MPI=intel CUBECG_HWLOC_INPUT=$knl CUBECG_PRESET=ofp-32 CUBECG_NODES=32 CUBECG_CORES_PER_NODE=68 \
  CUBECG_HYBRID_RANKS_PER_NODE=8 CUBECG_RESERVE=4 CUBECG_LAYOUTS=hybrid CUBECG_PROGRESS="on:free on:smt" \
  bash "$sb" --dry-run >"$work/intel-pin.txt" 2>&1 || { echo "FAIL intel placements exit $?"; fail=1; }
expect "$work/intel-pin.txt" 'I_MPI_ASYNC_PROGRESS=1 I_MPI_ASYNC_PROGRESS_PIN=64,65,66,67,64,65,66,67 CUBECG_PLACEMENT=free-last ' "intel: progress threads on the 4 free cores"
expect "$work/intel-pin.txt" 'I_MPI_ASYNC_PROGRESS=1 I_MPI_ASYNC_PROGRESS_PIN=68,76,84,92,100,108,116,124 CUBECG_PLACEMENT=smt1 ' "intel: progress threads on SMT siblings"
if grep -q MPIR_CVAR "$work/intel-pin.txt"; then echo "FAIL intel: an MPICH variable in Intel MPI's launch"; fail=1; fi
CUBECG_MPI=openmpi CUBECG_HWLOC_INPUT="core:4 pu:1" CUBECG_CORES_PER_NODE=4 CUBECG_LAYOUTS=flat CUBECG_PROGRESS="off on" \
  bash "$sb" --dry-run >"$work/ompi-on.txt" 2>&1
rc=$?
if [[ $rc == 2 ]] && grep -q "Open MPI has no asynchronous progress thread: progress 'on' is refused; use progress 'poll'" "$work/ompi-on.txt"; then
  echo "ok   openmpi: progress on refused, naming poll"
else echo "FAIL openmpi progress on: exit $rc"; cat "$work/ompi-on.txt"; fail=1; fi
# a shell that took a library's environment (setup.sh --print-env) runs the job scripts: none of its
# variables is one they read as a setting (the mesh preset CUBECG_PRESET)
for mpi in openmpi intel; do
  (set -a && eval "$(bash "$repo/setup.sh" --mpi "$mpi" --print-env)" && set +a &&
    CUBECG_HWLOC_INPUT="core:4 pu:1" CUBECG_CORES_PER_NODE=4 CUBECG_LAYOUTS=flat CUBECG_PROGRESS=off \
      bash "$sb" --dry-run) >"$work/env-$mpi.txt" 2>&1
  rc=$?
  if [[ $rc == 0 ]] && grep -q 'preset ci ' "$work/env-$mpi.txt"; then echo "ok   strong-scaling.sbatch in $mpi's environment"
  else echo "FAIL strong-scaling.sbatch in $mpi's environment (setup.sh --print-env): exit $rc"; cat "$work/env-$mpi.txt"; fail=1; fi
done
# no other script writes launcher words of its own: every launch line comes from cc_mpi_launch
own=$(grep -nE -- ' -ppn | -bind-to |--map-by|--cpu-bind|-launcher fork|-bootstrap fork|"\$CC_MPIEXEC" -n' \
  "$repo"/jobs/*.sh "$repo"/jobs/slurm/* "$repo"/bench/*.sh | grep -vE '^[^:]+:[0-9]+: *#')
if [[ -z $own ]]; then echo "ok   no launcher words outside cc_mpi_launch"; else echo "FAIL launcher words outside cc_mpi_launch:"; echo "$own"; fail=1; fi

# 5) errors: unknown preset -> exit 2 with the name
CUBECG_PRESET=huge CUBECG_DRY_RUN=1 bash "$sb" >"$work/bad.txt" 2>&1
rc=$?
if [[ $rc == 2 ]] && grep -q "unknown preset 'huge'" "$work/bad.txt"; then echo "ok   unknown preset refused"
else echo "FAIL unknown preset: exit $rc"; cat "$work/bad.txt"; fail=1; fi

# dry-run creates nothing
if [[ -e $work/results || -e $work/local || -e $work/io ]]; then echo "FAIL dry-run created files"; fail=1; else echo "ok   nothing created"; fi
exit $fail
