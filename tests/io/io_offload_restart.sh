#!/bin/sh
# io_offload_restart.sh PYTHON MPIEXEC NP CUBECG BACKEND WORKDIR: a solve checkpointing every 10
# iterations through an offload backend (commit on the helper threads) lists every
# checkpoint committed in the report (per_checkpoint), and a restart from a middle checkpoint ends
# exactly as the uninterrupted run: same iterations, same |r|/|b| and true residual, bit for bit.
set -u
python=$1 mpiexec=$2 np=$3 cubecg=$4 backend=$5 work=$6
mesh="--nx 12 --ny 11 --nz 10"
rm -rf "$work" && mkdir -p "$work" || exit 1
# shellcheck disable=SC2086
"$mpiexec" -n "$np" "$cubecg" $mesh --checkpoint "$backend" --checkpoint-dir "$work/ck" \
  --checkpoint-every 10 --checkpoint-keep 1000 --report "$work/full.json" --quiet
code=$?
[ "$code" -eq 0 ] || { echo "FAIL: the checkpointed run exited $code"; exit 1; }
middle=$("$python" - "$work/full.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["solves"][0]
c = s["checkpoint"]
its = [p["iteration"] for p in c["per_checkpoint"]]
# every 10 iterations; at the last iteration only when the solve went on past it
want = list(range(10, 10 * len(its) + 1, 10))
bad = []
if its != want or not s["iterations"] - 10 <= 10 * len(its) <= s["iterations"]:
    bad.append("per_checkpoint iterations %r, expected %r" % (its, want))
if c["count"] != len(its) or not all(p["committed"] for p in c["per_checkpoint"]):
    bad.append("count %d, committed %r" % (c["count"], [p["committed"] for p in c["per_checkpoint"]]))
if any(p["write_s"] <= 0 or p["stall_s"] < 0 or p["wait_s"] > p["stall_s"] for p in c["per_checkpoint"]):
    bad.append("times: %r" % c["per_checkpoint"])
if len(its) < 3:
    bad.append("only %d checkpoints" % len(its))
for b in bad:
    print("FAIL:", b, file=sys.stderr)
if bad:
    sys.exit(1)
print(its[len(its) // 2])
PY
) || exit 1
echo "restarting from ckpt.$middle"
# shellcheck disable=SC2086
"$mpiexec" -n "$np" "$cubecg" $mesh --restart "$work/ck/ckpt.$middle" --report "$work/restart.json" \
  --quiet
code=$?
[ "$code" -eq 0 ] || { echo "FAIL: the restart exited $code"; exit 1; }
"$python" - "$work/full.json" "$work/restart.json" "$middle" <<'PY' || exit 1
import json, sys
full = json.load(open(sys.argv[1]))["solves"][0]
got = json.load(open(sys.argv[2]))["solves"][0]
bad = [k for k in ("iterations", "rel_residual", "true_rel_residual") if got[k] != full[k]]
for k in bad:
    print("FAIL: restarted %s = %r, the uninterrupted run ended with %r" % (k, got[k], full[k]))
if got["start_iteration"] != int(sys.argv[3]):
    print("FAIL: start_iteration %r, expected %s" % (got["start_iteration"], sys.argv[3]))
    bad.append("start")
sys.exit(1 if bad else 0)
PY
echo "PASS"
