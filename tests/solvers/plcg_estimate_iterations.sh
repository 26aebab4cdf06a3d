#!/bin/bash
# plcg_estimate_iterations.sh MPIEXEC CUBECG WORKDIR: p(l)-CG with the bounds of its own Lanczos
# estimate (no --spectrum-bounds) takes at most 1.1 x Alg.1's iterations at L = 1, 2, 3, 5 (point-
# block Jacobi, tol 1e-8, 10^3 nodes on 1 rank and 12^3 on 2). The estimate's interval decides the
# square-root breakdowns: widened by 10 % past the largest Ritz value, L = 3 took 135 iterations
# against Alg.1's 90 on the first mesh (docs/deep-pipelines.md).
set -u
mpiexec=$1 cubecg=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
for cfg in "10 1" "12 2"; do
  set -- $cfg
  n=$1 np=$2
  common=(--nx "$n" --ny "$n" --nz "$n" --precond jacobi --tol 1e-8 --quiet)
  "$mpiexec" -n "$np" "$cubecg" "${common[@]}" --solver pcg --report "pcg$n.json" >/dev/null ||
    { echo "FAIL pcg at $n^3 on $np ranks"; exit 1; }
  for l in 1 2 3 5; do
    "$mpiexec" -n "$np" "$cubecg" "${common[@]}" --solver plcg --reduction iar --pipeline-depth "$l" \
      --report "plcg$n-$l.json" >/dev/null || { echo "FAIL plcg L=$l at $n^3: exit $?"; fail=1; continue; }
    python3 - "pcg$n.json" "plcg$n-$l.json" "$n" "$l" <<'PY' || fail=1
import json, sys
pcg = json.load(open(sys.argv[1]))["solves"][0]
s = json.load(open(sys.argv[2]))["solves"][0]
n, l = sys.argv[3], sys.argv[4]
sp = s["spectrum"]
msg = (f"{n}^3 L={l}: {s['iterations']} iterations ({s['sqrt_breakdown_restarts']} restarts) "
       f"against Alg.1's {pcg['iterations']}; bounds [{sp['lambda_min']:.6g}, {sp['lambda_max']:.6g}] "
       f"from '{sp['source']}', Ritz max {sp['ritz_max']:.6g}")
ok = (s["converged"] and sp["source"] == "lanczos" and sp["lambda_max"] == sp["ritz_max"]
      and s["iterations"] <= 1.1 * pcg["iterations"])
print(("ok " if ok else "FAIL ") + msg)
sys.exit(0 if ok else 1)
PY
  done
done
exit $fail
