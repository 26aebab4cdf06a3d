#!/bin/sh
# io_restart_old_manifest.sh PYTHON MPIEXEC CUBECG SRC DIR: a checkpoint written before the problem's
# parameters were recorded (SRC's latest checkpoint, copied to DIR with its manifest's "problem"
# object removed) still restarts, with a warning that they cannot be verified.
set -u
python=$1 mpiexec=$2 cubecg=$3 src=$4 dir=$5
rm -rf "$dir"
latest=$(cat "$src/latest") || exit 1
mkdir -p "$dir" && cp -r "$src/$latest" "$dir/" && cp "$src/latest" "$dir/" || exit 1
"$python" - "$dir/$latest/manifest.json" <<'PY' || exit 1
import json, sys
m = json.load(open(sys.argv[1]))
assert "problem" in m, "the fixture's manifest has no problem object"
del m["problem"]
json.dump(m, open(sys.argv[1], "w"), indent=1)
PY
err=$(mktemp)
"$mpiexec" -n 2 "$cubecg" --nx 10 --ny 9 --nz 8 --restart "$dir" --quiet 2>"$err"
code=$?
cat "$err"
grep -q "cannot be verified" "$err" || { rm -f "$err"; echo "FAIL: no warning"; exit 1; }
rm -f "$err"
[ "$code" -eq 0 ] || { echo "FAIL: exit $code"; exit 1; }
echo "PASS"
