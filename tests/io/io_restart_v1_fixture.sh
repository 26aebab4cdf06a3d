#!/bin/sh
# io_restart_v1_fixture.sh PYTHON MPIEXEC CUBECG FIXTURE WORKDIR: a checkpoint written by cubecg
# before the solver-state format changed (tests/io/data/ckpt_v1_<backend>, 8x8x8, committed) still
# restarts, and the resumed solve ends as the uninterrupted run that wrote it did
# (FIXTURE/expected.json): the same iterations and start iteration exactly, |r|/|b| and true
# |b-Ax|/|b| to 1e-6 relative. Not bitwise: those numbers came from that commit's kernels, and the
# SpMV kernel has changed since (FMA, 2026-11-25: 1.3e-8 relative after the 9 resumed iterations);
# the bitwise restart of what the current binary writes is tested by io_offload_restart_exact_* and
# the kill/ENOSPC tests.
set -u
python=$1 mpiexec=$2 cubecg=$3 fixture=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cp -r "$fixture"/. "$work/" || exit 1
ranks=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["ranks"])' "$fixture/expected.json") || exit 1
args=$("$python" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["args"]))' "$fixture/expected.json") || exit 1
# the fixtures were written before --asdd-residual, with ASDD's full residual: their manifests
# have no asdd_residual, which reads as full, and a restart must ask for it
# shellcheck disable=SC2086
"$mpiexec" -n "$ranks" "$cubecg" $args --asdd-residual full --restart "$work" --report "$work/report.json" --quiet
code=$?
[ "$code" -eq 0 ] || { echo "FAIL: exit $code"; exit 1; }
"$python" - "$fixture/expected.json" "$work/report.json" <<'PY' || exit 1
import json, sys
want = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))["solves"][0]
bad = [k for k in ("iterations", "start_iteration") if got[k] != want[k]]
bad += [k for k in ("rel_residual", "true_rel_residual")
        if not abs(got[k] - want[k]) <= 1e-6 * abs(want[k])]
for k in bad:
    print("FAIL: %s = %r, the run that wrote the checkpoint ended with %r" % (k, got[k], want[k]))
sys.exit(1 if bad else 0)
PY
echo "PASS"
