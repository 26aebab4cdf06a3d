#!/bin/bash
# test_jobs_quick_sweep_reports.sh MPIEXEC CUBECG IOBENCH BENCH OUTDIR: a real, tiny (8^3) quick run that
# produces the report set the analyzer tests read: cubecg at 1 and 2 ranks (and 1x2 threads) with
# every variant x reduction, async progress off / on (two placements) / poll, the 2x1 runs
# repeated, a 2x1 run on two emulated nodes (hydra -launcher fork -hosts a:1,b:1), one
# injected-latency run, a checkpointed run (repeated), one I/O benchmark and one kernel benchmark.
# Seconds on 2 cores.
#
# Report version 2: while cubecg still writes version-1 reports (the topology work lands apart),
# each run report is brought to version-2 form here: "topology" from how the test launched the run
# (nodes, ranks per node, the placement it set), build.launcher and build.git_commit, and
# "fixture_topology": true saying so. A binary that writes version 2 is left untouched.
set -u
mpiexec=$1 cubecg=$2 iobench=$3 bench=$4 out=$5
rm -rf "$out" && mkdir -p "$out/logs"
fail=0
ncores=$(nproc)
# to_v2 FILE NODES PLACEMENT: version-2 form of a version-1 run report (see above)
to_v2()
{
  python3 - "$@" "$ncores" <<'EOF'
import json, sys
path, nodes, placement, ncores = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
with open(path) as f:
    d = json.load(f)
if d["cubecg_report_version"] == 1:
    ranks, threads = d["problem"]["ranks"], d["problem"]["threads"]
    rpn = ranks // nodes
    d["cubecg_report_version"] = 2
    # emulated nodes share the machine: oversubscribed when all ranks x threads exceed its cores
    d["topology"] = {"nodes": nodes, "ranks_per_node_min": rpn, "ranks_per_node_max": rpn,
                     "cores_per_node": ncores, "hostnames": [d["platform"]["hostname"]], "hosts": 1,
                     "oversubscribed": ranks * threads > ncores, "affinity": [],
                     "progress_thread_affinity": None, "placement": placement or None}
    d["fixture_topology"] = True
    d["build"]["launcher"] = "mpiexec.mpich"
    d["build"]["git_commit"] = "fixture"
    with open(path, "w") as f:
        json.dump(d, f, indent=1)
EOF
}
run() # run NAME NODES PLACEMENT RANKS THREADS ENV... -- PROGRAM ARGS...
{
  local name=$1 nodes=$2 placement=$3 ranks=$4 threads=$5 envs=() launch=()
  shift 5
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  ((nodes > 1)) && launch=(-launcher fork -hosts "$(seq -s, -f "fixnode%g:$((ranks / nodes))" 1 "$nodes")")
  [[ -n $placement ]] && envs+=(CUBECG_PLACEMENT="$placement")
  if env OMP_NUM_THREADS="$threads" "${envs[@]}" "$mpiexec" "${launch[@]}" \
    -n "$ranks" "$@" >"$out/logs/$name.log" 2>&1 && [[ -s $out/$name.json ]]; then
    echo "ok   $name"
    [[ $name == iobench* || $name == kernels* ]] || to_v2 "$out/$name.json" "$nodes" "$placement" ||
      { echo "FAIL $name: no version-2 form"; fail=1; }
  else
    echo "FAIL $name (exit $?):"; tail -20 "$out/logs/$name.log"; fail=1
  fi
}
mesh=(--nx 8 --ny 8 --nz 8)
all=(--solver all --reduction all)
off=(MPIR_CVAR_ASYNC_PROGRESS=0)
on=(MPIR_CVAR_ASYNC_PROGRESS=1)
run run_1x1_off 1 "" 1 1 "${off[@]}" -- "$cubecg" "${mesh[@]}" "${all[@]}" --report "$out/run_1x1_off.json"
run run_1x1_on 1 inherit 1 1 "${on[@]}" -- "$cubecg" "${mesh[@]}" "${all[@]}" --report "$out/run_1x1_on.json"
for rep in 1 2; do # repeats: the analyzer draws median and min-max
  run "run_2x1_off_rep$rep" 1 "" 2 1 "${off[@]}" -- "$cubecg" "${mesh[@]}" "${all[@]}" --report "$out/run_2x1_off_rep$rep.json"
  run "run_2x1_on_rep$rep" 1 inherit 2 1 "${on[@]}" -- "$cubecg" "${mesh[@]}" "${all[@]}" --report "$out/run_2x1_on_rep$rep.json"
done
# a second placement of the progress thread (Table 6): one bar each, never merged with inherit
run run_2x1_on_compute 1 compute 2 1 "${on[@]}" MPIR_CVAR_PROGRESS_THREAD_AFFINITY=0,1 -- "$cubecg" "${mesh[@]}" \
  "${all[@]}" --report "$out/run_2x1_on_compute.json"
run run_2x1_poll 1 "" 2 1 "${off[@]}" -- "$cubecg" "${mesh[@]}" "${all[@]}" --progress poll --report "$out/run_2x1_poll.json"
run run_1x2_off 1 "" 1 2 "${off[@]}" -- "$cubecg" "${mesh[@]}" "${all[@]}" --report "$out/run_1x2_off.json"
# two emulated nodes x 1 rank: same core count as run_2x1_off, not oversubscribed, never merged
run run_2n_2x1_off 2 "" 2 1 "${off[@]}" -- "$cubecg" "${mesh[@]}" "${all[@]}" --report "$out/run_2n_2x1_off.json"
run run_2x1_off_lat500 1 "" 2 1 "${off[@]}" -- "$cubecg" "${mesh[@]}" "${all[@]}" --inject-reduction-latency 500 \
  --report "$out/run_2x1_off_lat500.json"
for rep in 1 2; do
  run "run_2x1_off_ckpt-posix_rep$rep" 1 "" 2 1 "${off[@]}" -- "$cubecg" "${mesh[@]}" --solver pcg --reduction ar \
    --checkpoint posix --checkpoint-dir "$out/ckpt$rep" --checkpoint-every 5 --report "$out/run_2x1_off_ckpt-posix_rep$rep.json"
done
run iobench_2x1 1 "" 2 1 -- "$iobench" --dir "$out/iobench-files" --sizes 1M --backends "$("$iobench" --list-backends)" \
  --buffers 8k,512k --repeat 1 --report "$out/iobench_2x1.json"
# the I/O figures io4 (ranks) and io5 (mapping): one rank, and two ranks over two directories
run iobench_1x1 1 "" 1 1 -- "$iobench" --dir "$out/iobench-files" --sizes 1M --backends posix,uring \
  --buffers 512k --repeat 1 --report "$out/iobench_1x1.json"
run iobench_2x1_block-2dirs 1 "" 2 1 -- "$iobench" --dirs "$out/iobench-files/a,$out/iobench-files/b" \
  --mapping block --sizes 1M --backends posix --buffers 512k --repeat 1 --report "$out/iobench_2x1_block-2dirs.json"
run kernels_1x1 1 "" 1 1 -- "$bench" "${mesh[@]}" --repeat 1 --stream-mb 16 --allow-cached --report "$out/kernels_1x1.json"
rm -rf "$out"/ckpt* "$out/iobench-files"
exit $fail
