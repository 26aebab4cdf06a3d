#!/usr/bin/env bash
# test_gas_restart.sh MPIEXEC "LAUNCH ARGS" CUBECG DIR [SOLVER|all [REDUCTION [ssd]]]: --checkpoint gas
# end to end. Writes gas checkpoints (small pages and DRAM budget, so pages are evicted to the
# owners' page files), restarts from the intact checkpoint, then deletes the last rank's *local*
# copy and restarts from its partner's pages: both restarts must give the same iterations and
# residuals bit for bit, and the pcg restart the uninterrupted count within 1. Deleting the
# partner's page file too must fail naming both copies. With --solver all, every solve's
# subdirectory is checked through the given solver/reduction. With "ssd", the owners' page files go
# to --gas-ssd-dir DIR/ssd, which must hold exactly the committed checkpoints' files afterwards.
set -u
mpiexec=$1 launch=$2 cubecg=$3 dir=$4 solver=${5:-pcg} reduction=${6:-ar} ssd=${7:-}
export OMP_NUM_THREADS=1
rm -rf "$dir"
mkdir -p "$dir"
mesh="--nx 10 --ny 9 --nz 8"
gas="--gas-page 16k --gas-dram 32k"
# the SSD directory stands for a mounted node-local disk: it exists before the run (cubecg refuses
# to create a missing one)
if [ "$ssd" = ssd ]; then
  mkdir -p "$dir/ssd"
  gas="$gas --gas-ssd-dir $dir/ssd"
fi
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck disable=SC2086
run() { $mpiexec $launch "$cubecg" $mesh "$@"; }

if [ "$solver" = all ]; then
  run --solver all --reduction all --checkpoint gas --checkpoint-dir "$dir/ck" \
      --checkpoint-every 10 $gas --report "$dir/full.json" --quiet || fail "write run (all)"
  ckdir="$dir/ck/pipecg-iar"
  solver=pipecg reduction=iar
else
  run --solver "$solver" --reduction "$reduction" --checkpoint gas --checkpoint-dir "$dir/ck" \
      --checkpoint-every 10 $gas --report "$dir/full.json" --quiet || fail "write run"
  ckdir="$dir/ck"
fi
latest="$ckdir/$(cat "$ckdir/latest")" || fail "no latest in $ckdir"
if [ "$ssd" = ssd ]; then # retention: the SSD holds the committed checkpoints' page files only
  committed=$(cd "$ckdir" && ls -d ckpt.* | sort)
  onssd=$(cd "$dir/ssd/$(basename "$ckdir")" && ls -d ckpt.* | sort)
  [ "$committed" = "$onssd" ] || fail "SSD dir holds '$onssd', committed: '$committed'"
  ls "$dir/ssd/$(basename "$ckdir")"/ckpt.*/gas.*.pages >/dev/null || fail "no page files on the SSD"
  ls "$latest"/gas.*.pages 2>/dev/null && fail "page files in the checkpoint with --gas-ssd-dir"
fi
echo "latest checkpoint: $latest"; ls "$latest"
run --solver "$solver" --reduction "$reduction" --restart "$ckdir" --report "$dir/local.json" \
    --quiet 2>"$dir/local.err" || { cat "$dir/local.err"; fail "restart from the local copies"; }
grep -q "partner copy" "$dir/local.err" && fail "intact checkpoint restored from a partner copy"

last=$(ls "$latest" | sed -n 's/^rank\.\([0-9]*\)\.bin$/\1/p' | sort -n | tail -1)
rm -f "$latest/rank.$last.bin"
run --solver "$solver" --reduction "$reduction" --restart "$ckdir" --report "$dir/partner.json" \
    --quiet 2>"$dir/partner.err" || { cat "$dir/partner.err"; fail "restart from the partner copy"; }
cat "$dir/partner.err"
grep -q "rank $last restored from the partner copy" "$dir/partner.err" ||
  fail "rank $last did not report the partner copy"

python3 - "$dir/local.json" "$dir/partner.json" "$dir/full.json" "$solver" "$reduction" <<'PY' || exit 1
import json, sys
a, b, full = (json.load(open(p)) for p in sys.argv[1:4])
solver, reduction = sys.argv[4:6]
sa, sb = a["solves"][0], b["solves"][0]
keys = ["start_iteration", "iterations", "rel_residual", "true_rel_residual", "analytic_max_rel_error"]
for k in keys:
    if sa[k] != sb[k]:
        sys.exit(f"FAIL: {k} differs: local copy {sa[k]!r}, partner copy {sb[k]!r}")
if not (sa["start_iteration"] > 0 and a["checks"]["passed"] and b["checks"]["passed"]):
    sys.exit("FAIL: restart did not start from a checkpoint or failed its checks")
ref = [s for s in full["solves"] if s["solver"] == solver and s["reduction"] == reduction][0]
if abs(ref["iterations"] - sa["iterations"]) > 1:
    sys.exit(f"FAIL: uninterrupted {ref['iterations']} iterations, restarted {sa['iterations']}")
print(f"PASS: both copies restart at {sa['start_iteration']} and converge in {sa['iterations']} "
      f"iterations (uninterrupted: {ref['iterations']}), residual {sa['true_rel_residual']}")
PY

# a flipped byte in the partner's pages (the local copy still gone): refused naming page and owner
receipt_owner=$(python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(); print(struct.unpack_from('<i', d, 24)[0])" "$latest/rank.$last.gas")
pages="$latest/gas.$receipt_owner.pages"
[ "$ssd" = ssd ] && pages="$dir/ssd/$(basename "$ckdir")/$(basename "$latest")/gas.$receipt_owner.pages"
cp "$pages" "$dir/pages.bak"
python3 - "$pages" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:   # the first page: one byte flipped
    f.seek(100); b = f.read(1); f.seek(100); f.write(bytes([b[0] ^ 0x5A]))
PY
if run --solver "$solver" --reduction "$reduction" --restart "$ckdir" --quiet 2>"$dir/corrupt.err"; then
  fail "restart accepted a corrupt partner page"
fi
grep -q "partner copy (owner rank $receipt_owner.*is corrupt" "$dir/corrupt.err" ||
  { cat "$dir/corrupt.err"; fail "corrupt partner page not named"; }
head -1 "$dir/corrupt.err"
cp "$dir/pages.bak" "$pages"
rm -f "$latest"/gas.*.pages
[ "$ssd" = ssd ] && rm -f "$dir/ssd/$(basename "$ckdir")/$(basename "$latest")"/gas.*.pages
if run --solver "$solver" --reduction "$reduction" --restart "$ckdir" --quiet 2>"$dir/none.err"; then
  fail "restart succeeded with rank $last's local and partner copies gone"
fi
grep -q "neither copy is usable" "$dir/none.err" || { cat "$dir/none.err"; fail "no clear error"; }
echo "PASS"
