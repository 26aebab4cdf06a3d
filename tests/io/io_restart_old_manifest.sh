#!/bin/sh
# io_restart_old_manifest.sh PYTHON MPIEXEC CUBECG SRC DIR: a checkpoint written before the problem's
# parameters and the run's settings were recorded (SRC's latest checkpoint, copied to DIR with its
# manifest's "problem" and "settings" objects removed) still restarts, with a warning that they
# cannot be verified (the settings named).
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
assert "settings" in m, "the fixture's manifest has no settings object"
del m["settings"]
json.dump(m, open(sys.argv[1], "w"), indent=1)
PY
err=$(mktemp)
"$mpiexec" -n 2 "$cubecg" --nx 10 --ny 9 --nz 8 --restart "$dir" --quiet 2>"$err"
code=$?
cat "$err"
grep -q "cannot be verified" "$err" || { rm -f "$err"; echo "FAIL: no warning"; exit 1; }
grep -q "records no settings.*--reduction.*cannot be verified" "$err" ||
  { rm -f "$err"; echo "FAIL: no warning naming the settings"; exit 1; }
rm -f "$err"
[ "$code" -eq 0 ] || { echo "FAIL: exit $code"; exit 1; }
echo "PASS"
