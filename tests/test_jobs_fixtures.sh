#!/bin/bash
# test_jobs_fixtures.sh MPIEXEC CUBECG IOBENCH BENCH OUTDIR: a real, tiny (8^3) quick run that
# produces the report set the analyzer tests read: cubecg at 1 and 2 ranks (and 1x2 threads) with
# every variant x reduction, async progress off / on / poll, one injected-latency run, one
# checkpointed run, one I/O benchmark and one kernel benchmark. Seconds on 2 cores.
set -u
mpiexec=$1 cubecg=$2 iobench=$3 bench=$4 out=$5
rm -rf "$out" && mkdir -p "$out/logs"
fail=0
run() # run NAME RANKS THREADS ENV... -- PROGRAM ARGS...
{
  local name=$1 ranks=$2 threads=$3 envs=()
  shift 3
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  if env OMP_NUM_THREADS="$threads" "${envs[@]}" "$mpiexec" -n "$ranks" "$@" >"$out/logs/$name.log" 2>&1 \
    && [[ -s $out/$name.json ]]; then
    echo "ok   $name"
  else
    echo "FAIL $name (exit $?):"; tail -20 "$out/logs/$name.log"; fail=1
  fi
}
mesh=(--nx 8 --ny 8 --nz 8)
all=(--solver all --reduction all)
for np in 1 2; do
  run "run_${np}x1_off" "$np" 1 MPIR_CVAR_ASYNC_PROGRESS=0 -- "$cubecg" "${mesh[@]}" "${all[@]}" --report "$out/run_${np}x1_off.json"
  run "run_${np}x1_on" "$np" 1 MPIR_CVAR_ASYNC_PROGRESS=1 -- "$cubecg" "${mesh[@]}" "${all[@]}" --report "$out/run_${np}x1_on.json"
done
run run_2x1_poll 2 1 MPIR_CVAR_ASYNC_PROGRESS=0 -- "$cubecg" "${mesh[@]}" "${all[@]}" --progress poll --report "$out/run_2x1_poll.json"
run run_1x2_off 1 2 MPIR_CVAR_ASYNC_PROGRESS=0 -- "$cubecg" "${mesh[@]}" "${all[@]}" --report "$out/run_1x2_off.json"
run run_2x1_off_lat500 2 1 MPIR_CVAR_ASYNC_PROGRESS=0 -- "$cubecg" "${mesh[@]}" "${all[@]}" --inject-reduction-latency 500 --report "$out/run_2x1_off_lat500.json"
run run_2x1_off_ckpt-posix 2 1 MPIR_CVAR_ASYNC_PROGRESS=0 -- "$cubecg" "${mesh[@]}" --solver pcg --reduction ar \
  --checkpoint posix --checkpoint-dir "$out/ckpt" --checkpoint-every 5 --report "$out/run_2x1_off_ckpt-posix.json"
run iobench_2x1 2 1 -- "$iobench" --dir "$out/iobench-files" --sizes 1M --backends posix,uring,offload,hdf5 \
  --buffers 8k,512k --repeat 1 --report "$out/iobench_2x1.json"
run kernels_1x1 1 1 -- "$bench" "${mesh[@]}" --repeat 1 --stream-mb 16 --report "$out/kernels_1x1.json"
rm -rf "$out/ckpt" "$out/iobench-files"
exit $fail
