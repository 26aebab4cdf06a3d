#!/bin/bash
# settings_restart.sh MPIEXEC CUBECG PYTHON DIR: walks the run's settings (the options --help marks
# [setting]): each one has a case below, else the test fails (a new setting cannot be forgotten).
# For each: a tiny run with a non-default value writes a checkpoint; --restart DIR alone reports
# the same value (taken from the manifest, parameter_sources "checkpoint"); the value given
# differently is refused with exit 2 naming both values.
set -u
mpiexec=$1 cubecg=$2 python=$3 dir=$4
rm -rf "$dir" && mkdir -p "$dir" || exit 1
export OMP_NUM_THREADS=1
fail() { echo "FAIL: $*"; exit 1; }
base="--nx 8 --ny 8 --nz 8 --quiet --checkpoint posix --checkpoint-every 5"
# setting|value written|another value|options the case needs
cases=(
  "nx|9|10|" "ny|7|8|" "nz|6|8|" "partition|metis|box|" "px|1|2|--py 2 --pz 1"
  "py|2|1|--px 1 --pz 1" "pz|2|1|--px 1 --py 1" "E|2|3|" "nu|0.25|0.2|" "traction|2|3|"
  "solver|cgcg|pcg|" "reduction|iar|ar|--solver pipecg" "replace-every|7|auto|"
  "pipeline-depth|3|2|--solver plcg" "spectrum-bounds|0.01,1.5|0.02,1.5|--solver sstep"
  "sstep|5|4|--solver sstep" "sstep-basis|newton|chebyshev|--solver sstep"
  "precond|sgs|asdd|" "ordering|rcm|natural|" "colors|5|6|" "asdd-iters|3|2|"
  "asdd-residual|full|fused|" "precond-precision|half|double|"
  "checkpoint-exact|1|0|--solver plcg")
settings=$("$cubecg" --help | sed -n 's/^  --\([A-Za-z-]*\) .*\[setting\].*/\1/p')
[ -n "$settings" ] || fail "--help marks no setting"
for s in $settings; do
  found=0
  for c in "${cases[@]}"; do [ "${c%%|*}" = "$s" ] && found=1; done
  [ $found = 1 ] || fail "setting --$s has no case in settings_restart.sh"
done
for c in "${cases[@]}"; do
  IFS='|' read -r name value other extra <<<"$c"
  ck=$dir/$name
  ranks=2
  # the decomposition's own cases: 2 ranks in a 1x2x1 / 2x1x1 ... box
  # shellcheck disable=SC2086
  "$mpiexec" -n $ranks "$cubecg" $base $extra --$name "$value" --checkpoint-dir "$ck" \
    >"$dir/$name.write.out" 2>&1 || { cat "$dir/$name.write.out"; fail "$name: write"; }
  # restart: the other options again only where the restart needs them to apply (checkpoints)
  more=""
  [ "$name" = checkpoint-exact ] && more="--checkpoint posix --checkpoint-dir $ck.again"
  # shellcheck disable=SC2086
  "$mpiexec" -n $ranks "$cubecg" --quiet --restart "$ck" $more \
    --report "$dir/$name.json" >"$dir/$name.restart.out" 2>&1 ||
    { cat "$dir/$name.restart.out"; fail "$name: --restart alone"; }
  "$python" - "$dir/$name.json" "$name" "$value" <<'PY' || fail "$name: not taken from the manifest"
import json, sys
r = json.load(open(sys.argv[1]))
name, value = sys.argv[2], sys.argv[3]
got = r["parameters"][name]
ok = str(got) == value or (isinstance(got, float) and got == float(value))
assert ok, f"--{name}: the restart ran {got!r}, the checkpoint was written with {value}"
assert r["parameter_sources"][name] == "checkpoint", r["parameter_sources"][name]
PY
  [ "$name" = partition ] || [ "${name#p[xyz]}" != "$name" ] && continue # may differ: rebuilt
  # shellcheck disable=SC2086
  "$mpiexec" -n $ranks "$cubecg" --quiet --restart "$ck" $more --$name "$other" \
    >"$dir/$name.other.out" 2>&1
  code=$?
  [ $code = 2 ] || { cat "$dir/$name.other.out"; fail "$name: --$name $other exit $code, not 2"; }
  grep -q -- "--$name [^ ]* differs from the checkpoint's $name = " "$dir/$name.other.out" ||
    { cat "$dir/$name.other.out"; fail "$name: the refusal does not name both values"; }
  echo "ok --$name $value (restart takes it; $other refused)"
done
echo PASS
