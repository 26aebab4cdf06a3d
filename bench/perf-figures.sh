#!/usr/bin/env bash
# perf-figures.sh: regenerate the figures of docs/performance.md, one set or all, with the commands
# that page gives, then print each report's headline numbers beside the CPU and the load average.
#
#   bench/perf-figures.sh [--out DIR] [--sets LIST] [--mesh N] [--pairs N] [--repeat N]
#                         [--ssd-dir DIR] [--max-ranks N] [--dry-run]
#
#   --sets LIST   comma list of: solve, roofline, kernels, streams, ceilings, single, halo, fused,
#                 offload, fio, gas, weak
#                 (default: all of them; on a 2-core machine all of them take about an hour)
#   --mesh N      N^3 nodes for the solve, roofline, kernels and single sets (default 128, as the
#                 page; smaller meshes fit the cache and read above the triad)
#   --pairs N     pairs of the A/B sets (single, halo, fused; default 4)
#   --repeat N    repetitions of the benchmark programs (default 10)
#   --ssd-dir DIR directory on the disk for the I/O and store sets (default DIR/io)
#   --max-ranks N the weak set (bench/weak-scaling.py): P = 1, 2, 4 .. N ranks (default 64)
#   --out DIR     reports and logs (default results/perf-<timestamp>)
#   --dry-run     print the commands only
# Environment: CUBECG_BUILD (default <repo>/build; its MPI from its cubecg-mpi.env), CUBECG_MPI,
# CUBECG_MPIEXEC (the library's launcher). Ranks are not pinned, as the page's figures were taken
# (jobs/lib/cubecg-jobs.sh cc_mpi_launch: MPICH -bind-to none, Intel MPI I_MPI_PIN=off, Open MPI
# --bind-to none); two emulated nodes need MPICH's or Intel MPI's fork launcher.
# Exit 0 when every command succeeded (a timing run cut short by --maxit exits 3 and counts as
# done), 1 otherwise, 2 on bad arguments. Run it on an idle machine: the figures are ratios taken
# in the same run or in back-to-back pairs, and a loaded machine moves them by tens of percent.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../jobs/lib/cubecg-jobs.sh
source "$here/jobs/lib/cubecg-jobs.sh"
cc_binaries "$here" || exit 2
build=$CC_BUILD
out="" sets="solve,roofline,kernels,streams,ceilings,single,halo,fused,offload,fio,gas,weak"
mesh=128 pairs=4 repeat=10 ssd="" dry=0 max_ranks=64
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
  --out) out=${2-}; shift 2 ;;
  --sets) sets=${2-}; shift 2 ;;
  --mesh) mesh=${2-}; shift 2 ;;
  --pairs) pairs=${2-}; shift 2 ;;
  --repeat) repeat=${2-}; shift 2 ;;
  --ssd-dir) ssd=${2-}; shift 2 ;;
  --max-ranks) max_ranks=${2-}; shift 2 ;;
  --dry-run) dry=1; shift ;;
  -h | --help) usage; exit 0 ;;
  *) echo "perf-figures.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for v in mesh pairs repeat max_ranks; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "perf-figures.sh: --${v//_/-} '${!v}' is not a positive integer" >&2; exit 2; }
done
known=",solve,roofline,kernels,streams,ceilings,single,halo,fused,offload,fio,gas,weak,"
IFS=, read -ra set_list <<<"$sets"
[ ${#set_list[@]} -gt 0 ] || { echo "perf-figures.sh: --sets is empty" >&2; exit 2; }
for s in "${set_list[@]}"; do
  [[ $known == *",$s,"* ]] || { echo "perf-figures.sh: --sets: unknown set '$s' (known: ${known:1:-1})" >&2; exit 2; }
done
out=${out:-$here/results/perf-$(date +%Y%m%d-%H%M%S)}
ssd=${ssd:-$out/io}
cubecg=$build/src/cubecg bench=$build/bench/cubecg-bench
iobench=$build/bench/cubecg-iobench gasbench=$build/bench/cubecg-gasbench
if [ $dry = 0 ]; then
  for p in "$cubecg" "$bench" "$iobench" "$gasbench"; do
    [ -x "$p" ] || { echo "perf-figures.sh: $p not built (./build.sh release, or set CUBECG_BUILD)" >&2; exit 2; }
  done
  mkdir -p "$out/logs" "$ssd" || exit 1
fi
n=$mesh failed=0

# launch_words RANKS THREADS [NODES]: CC_LAUNCH / CC_LAUNCH_ENV for RANKS unpinned ranks on one
# node, or over NODES emulated nodes of this host (cc_mpi_launch); non-zero when refused
launch_words() {
  CC_BIND=none CC_EMULATE_NODES=${3:-1} cc_mpi_launch "$1" "$1" "$2"
}
# run NAME THREADS RANKS [--nodes N] PROGRAM ARGS...: one command, its log in DIR/logs
run() {
  local name=$1 threads=$2 ranks=$3 nodes=1; shift 3
  if [ "${1-}" = "--nodes" ]; then nodes=$2; shift 2; fi
  if ! launch_words "$ranks" "$threads" "$nodes"; then
    echo "   FAILED $name: no launch"
    failed=$((failed + 1))
    return 0
  fi
  local cmd=(env OMP_NUM_THREADS="$threads" "${CC_LAUNCH_ENV[@]}" "${CC_LAUNCH[@]}" "$@")
  echo "== $name: ${cmd[*]}"
  [ $dry = 1 ] && return 0
  "${cmd[@]}" >"$out/logs/$name.log" 2>&1
  local code=$?
  if [ $code -ne 0 ] && [ $code -ne 3 ]; then
    echo "   FAILED (exit $code), see $out/logs/$name.log"
    failed=$((failed + 1))
  fi
}
# ab NAME A_OPTS B_OPTS RANKS THREADS NODES COMMON...: paired runs through jobs/ab.py
ab() {
  local name=$1 a=$2 b=$3 ranks=$4 threads=$5 nodes=$6; shift 6
  if ! launch_words "$ranks" "$threads" "$nodes"; then
    echo "   FAILED $name: no launch"
    failed=$((failed + 1))
    return 0
  fi
  local launch
  launch=$(cc_quote "${CC_LAUNCH[@]}")
  ((${#CC_LAUNCH_ENV[@]})) && launch=$(cc_quote env "${CC_LAUNCH_ENV[@]}" "${CC_LAUNCH[@]}")
  local cmd=(python3 "$here/jobs/ab.py" --pairs "$pairs" --launch "$launch" --threads "$threads"
    --cubecg "$cubecg" --out "$out/$name" --a "$a" --b "$b" -- "$@")
  echo "== $name: ${cmd[*]}"
  [ $dry = 1 ] && return 0
  "${cmd[@]}" >"$out/logs/$name.log" 2>&1 ||
    { echo "   FAILED, see $out/logs/$name.log"; failed=$((failed + 1)); }
}

machine="# $(lscpu 2>/dev/null | grep 'Model name' | sed 's/  */ /g'); load: $(uptime)"
echo "$machine"
[ $dry = 1 ] || echo "$machine" >"$out/machine.txt"
for s in "${set_list[@]}"; do
  case $s in
  solve) # full Alg.1 solves, double and single, both layouts
    for p in double single; do
      run "solve_2x1_$p" 1 2 "$cubecg" --nx $n --ny $n --nz $n --solver pcg --precond-precision $p --quiet --report "$out/solve_2x1_$p.json"
      run "solve_1x2_$p" 2 1 "$cubecg" --nx $n --ny $n --nz $n --solver pcg --precond-precision $p --quiet --report "$out/solve_1x2_$p.json"
    done ;;
  roofline) # both fractions from the same windows
    run roofline_2x1 1 2 "$cubecg" --nx $n --ny $n --nz $n --solver pcg --maxit 20 --roofline --quiet --report "$out/roofline_2x1.json"
    run roofline_1x2 2 1 "$cubecg" --nx $n --ny $n --nz $n --solver pcg --maxit 20 --roofline --quiet --report "$out/roofline_1x2.json" ;;
  kernels) # kernels against the triad before each repetition, and SpMV's anatomy
    run kernels_2x1 1 2 "$bench" --nx $n --ny $n --nz $n --allow-cached 1 --repeat "$repeat" --anatomy 1 --report "$out/kernels_2x1.json"
    run kernels_1x2 2 1 "$bench" --nx $n --ny $n --nz $n --allow-cached 1 --repeat "$repeat" --anatomy 1 --report "$out/kernels_1x2.json" ;;
  streams) # a core's reads with 1..6 streams at once against the triad
    run streams 1 2 "$bench" --read-streams 6 --repeat "$repeat" --report "$out/streams.json" ;;
  ceilings) # each precision's sweep kernel on blocks held in L1 against the triad
    run ceilings 1 2 "$bench" --block-ceilings --repeat "$repeat" --report "$out/ceilings.json" ;;
  single) # double / single preconditioner, paired runs
    ab single_2x1 "--precond-precision double" "--precond-precision single" 2 1 1 \
      --nx $n --ny $n --nz $n --solver pcg --maxit 20 --roofline
    ab single_1x2 "--precond-precision double" "--precond-precision single" 1 2 1 \
      --nx $n --ny $n --nz $n --solver pcg --maxit 20 --roofline ;;
  halo) # halo exchange behind the interior rows, 2 emulated nodes
    ab halo_nodes2 "--halo-overlap off" "--halo-overlap on" 2 1 2 \
      --nx 64 --ny 64 --nz 64 --solver pcg --maxit 40 ;;
  fused) # fused vector passes of Alg.3
    ab fused_2x1 "--fused 0" "--fused 1" 2 1 1 \
      --nx 64 --ny 64 --nz 64 --solver pipecg --reduction ar --maxit 30 --tol 1e-30 ;;
  offload) # the offload checkpoint's stall against its write
    run offload_iobench 1 2 "$iobench" --dir "$ssd/offload" --sizes 8M,256M --backends offload,offload-uring --buffers 512k --repeat "$repeat" --report "$out/offload_iobench.json"
    run offload_solve 1 2 "$cubecg" --nx 48 --ny 48 --nz 48 --checkpoint offload --checkpoint-dir "$ssd/ck" --checkpoint-every 10 --checkpoint-overwrite --quiet --report "$out/offload_solve.json" ;;
  fio) # checkpoint writes against their fio twins
    run fio_n1 1 1 "$iobench" --backends posix,uring --sizes 256M,1G --buffers 512k --fio --repeat 5 --dir "$ssd/fio" --report "$out/fio_n1.json" ;;
  gas) # the global store across 2 emulated nodes
    run gas_nodes2 1 2 --nodes 2 "$gasbench" --sizes 4M --page 4M --dram 64M --repeat 15 --fio --no-weak --ssd-dir "$ssd/gas" --report "$out/gas_nodes2.json" ;;
  weak) # set-up stages, per-rank peak RSS, checkpoint commit and restart at 1 .. max-ranks ranks
    cmd=(python3 "$here/bench/weak-scaling.py" --max-ranks "$max_ranks" --local 12 --build "$build"
      --mpiexec "$CC_MPIEXEC" --out "$out/weak" --json "$out/weak-scaling.json" --png "$out/weak-scaling.png")
    echo "== weak: ${cmd[*]}"
    if [ $dry = 0 ] && ! "${cmd[@]}" >"$out/logs/weak.log" 2>&1; then
      echo "   FAILED, see $out/logs/weak.log"
      failed=$((failed + 1))
    fi ;;
  esac
done
[ $dry = 1 ] && exit 0
echo "== load after the sets: $(uptime)" | tee -a "$out/machine.txt"

# Headline numbers of every report (the page's tables are built from these).
python3 - "$out" <<'EOF'
import glob, json, os, statistics, sys
out = sys.argv[1]
for path in sorted(glob.glob(os.path.join(out, "*.json")) + glob.glob(os.path.join(out, "*", "ab.json"))):
    try:
        r = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{path}: unreadable ({e})"); continue
    name = os.path.relpath(path, out)
    kind = r.get("kind")
    if kind == "run":
        for s in r.get("solves", []):
            line = (f"{name}: {s['solver']}-{s['reduction']} {s['iterations']} iterations, "
                    f"{1e3 * s['time_per_iter_s']:.1f} ms/iteration")
            if s.get("roofline_fraction") is not None:
                rl = s.get("roofline") or {}
                fmt = lambda v: f"{v:.3f}" if isinstance(v, (int, float)) else "n/a"
                line += (f", roofline {fmt(s['roofline_fraction'])} (against the matrix's pages "
                         f"{fmt(rl.get('fraction_matrix_pages'))}, the triad's own arrays "
                         f"{fmt(rl.get('fraction_triad_arrays'))}; headline: {rl.get('triad_source')})")
            ck = s.get("checkpoint")
            if ck and ck.get("write_s"):
                line += f", checkpoint stall / write {ck['stall_s'] / ck['write_s']:.3f}"
            print(line)
    elif kind == "kernels":
        ks = ", ".join(f"{k['name']} {100 * k['fraction_of_stream']:.1f} %" for k in r.get("kernels", [])
                       if k.get("fraction_of_stream") is not None)
        print(f"{name}: triad {r.get('stream_triad_bytes_per_s', 0) / 1e9:.2f} GB/s; {ks}")
        for v in (r.get("spmv_anatomy") or {}).get("variants", []):
            print(f"{name}:   anatomy {v['name']} {v['seconds']:.4g} s, {100 * v['fraction_of_stream']:.1f} %")
    elif kind == "read_streams":
        fr = ", ".join(f"{s['streams']}: {s['fraction_of_triad']:.3f}" for s in r.get("streams", []))
        print(f"{name}: triad {r.get('triad_median_bytes_per_s', 0) / 1e9:.2f} GB/s; read / triad by streams {fr}")
    elif kind == "block_ceilings":
        fr = ", ".join(f"{k['precision']} {k['fraction_of_triad']:.3f}" for k in r.get("kernels", []))
        print(f"{name}: triad {r.get('triad_median_bytes_per_s', 0) / 1e9:.2f} GB/s; in L1 / triad {fr}"
              f"{'' if r.get('row_sums_exact') else ' (ROW SUMS NOT EXACT)'}")
    elif kind in ("iobench", "gasbench"):
        if kind == "gasbench":
            for key, val in (r.get("ratios") or {}).items():
                print(f"{name}: {key} {val.get('value') if isinstance(val, dict) else val}")
        else:
            print(f"{name}: iobench report (the page's stall and fio_ratio columns are in its rows)")
    elif kind == "weak_scaling":
        for row in r.get("setup", []):
            print(f"{name}: {row['partition']} P={row['ranks']} peak RSS max {row['rss_bytes']['max'] / 2**20:.1f} MiB"
                  f" (median {row['rss_bytes']['median'] / 2**20:.1f}), partition {row['stages_max_s']['partition']:.3g} s")
        for row in r.get("checkpoints", []):
            print(f"{name}: {row['backend']} P={row['ranks']} commit {row['commit_s']:.3g} s, restart {row['restart_s']:.3g} s")
    elif "ratio_a_over_b" in r:
        ratios = r["ratio_a_over_b"]
        print(f"{name}: A / B time per iteration per pair {', '.join(f'{x:.2f}' for x in ratios)}; "
              f"median {r['ratio_median']:.2f}")
EOF
echo "== reports in $out; $failed command(s) failed"
[ $failed -eq 0 ]
