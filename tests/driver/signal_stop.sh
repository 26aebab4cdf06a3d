#!/bin/bash
# signal_stop.sh: a 2-rank run stopped by a real signal finishes its iteration, writes a last
# checkpoint and a report marked interrupted, exits 4; a restart from that checkpoint converges.
#   signal_stop.sh MPIEXEC CUBECG PYTHON OUTDIR SIGNAL TARGET MONITOR
#   (TARGET: mpiexec | one-rank; MONITOR: the --monitor value, 0 = auto: first line after 3 s)
set -u
mpiexec=$1 cubecg=$2 python=$3 out=$4 sig=$5 target=$6 monitor=$7
rm -rf "$out" && mkdir -p "$out" || exit 1
export OMP_NUM_THREADS=1
fail() { echo "signal_stop.sh: FAIL: $*" >&2; cat "$out/run.txt" >&2; exit 1; }

# no convergence before maxit (tol 1e-15, no preconditioner): only the signal can stop it; no
# periodic checkpoint (every 100000): the one found afterwards is the one the signal wrote
"$mpiexec" -n 2 "$cubecg" --nx 32 --ny 32 --nz 32 --precond none --tol 1e-15 --maxit 20000 \
  --monitor "$monitor" --report "$out/r.json" --checkpoint posix --checkpoint-dir "$out/ck" \
  --checkpoint-every 100000 >"$out/run.txt" 2>&1 &
pid=$!
# wait until the solve runs (the monitor's first line)
for _ in $(seq 600); do
  grep -q "pcg-ar .*|r|/|b|" "$out/run.txt" 2>/dev/null && break
  kill -0 $pid 2>/dev/null || fail "cubecg ended before the signal"
  sleep 0.1
done
grep -q "pcg-ar .*|r|/|b|" "$out/run.txt" || { kill -KILL $pid; fail "no monitor line within 60 s"; }
if [[ $target == mpiexec ]]; then
  kill -"$sig" $pid # Hydra forwards it to the ranks
else
  # one rank only: the ranks must still agree to stop at the same iteration
  rank=$(pgrep -f -n "^$cubecg " -P "$(pgrep -P $pid | head -1)" || pgrep -n -f "^$cubecg ")
  [[ -n $rank ]] || { kill -KILL $pid; fail "no rank process found"; }
  kill -"$sig" "$rank"
fi
wait $pid # a run that ignores the signal is ended by the ctest TIMEOUT
code=$?
cat "$out/run.txt"
if [[ $target == mpiexec ]]; then
  # Hydra was signalled itself: its own exit status is not the ranks' (seen: 0 or 4, depending on
  # whether the ranks ended before Hydra handled its signal); the ranks' exit 4 is in their output
  [[ $code == 4 || $code == 0 ]] || fail "exit code $code, expected 4 (or Hydra's 0)"
  grep -q "INTERRUPTED by SIG$sig: the run stopped early (exit code 4)" "$out/run.txt" ||
    fail "no 'INTERRUPTED by SIG$sig ... (exit code 4)' line"
else
  [[ $code == 4 ]] || fail "exit code $code, expected 4"
fi
"$python" - "$out" "SIG$sig" <<'PY' || fail "report check"
import json, os, sys
out, sig = sys.argv[1], sys.argv[2]
r = json.load(open(os.path.join(out, "r.json")))
s = r["solves"][0]
assert r["interrupted"] is True and r["signal"] == sig and r["in_progress"] is False, r
assert s["interrupted"] is True and not s["converged"] and s["iterations"] > 0, s
last = s["checkpoint"]["last"]
assert last == os.path.join(out, "ck", "ckpt.%d" % s["iterations"]), (last, s["iterations"])
assert os.path.isdir(last) and open(os.path.join(out, "ck", "latest")).read().strip() == os.path.basename(last)
print("signal_stop.sh: interrupted at iteration", s["iterations"], "->", last)
PY
grep -q "INTERRUPTED by SIG$sig" "$out/run.txt" || fail "no INTERRUPTED line in the summary"

# the last checkpoint restarts: same iteration index, converges
"$mpiexec" -n 2 "$cubecg" --nx 32 --ny 32 --nz 32 --precond none --tol 1e-8 --restart "$out/ck" \
  --report "$out/restart.json" >"$out/restart.txt" 2>&1 || { cat "$out/restart.txt"; fail "restart failed"; }
grep -q "resumed from $out/ck/ckpt\." "$out/restart.txt" || fail "no 'resumed from' line"
"$python" - "$out" <<'PY' || fail "restart report check"
import json, os, sys
out = sys.argv[1]
a = json.load(open(os.path.join(out, "r.json")))["solves"][0]
b = json.load(open(os.path.join(out, "restart.json")))["solves"][0]
assert b["start_iteration"] == a["iterations"] and b["converged"] and not b["interrupted"], b
print("signal_stop.sh: restart from", a["iterations"], "converged at", b["iterations"])
PY
echo "signal_stop.sh: PASS"
