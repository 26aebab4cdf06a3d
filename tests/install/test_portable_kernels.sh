#!/usr/bin/env bash
# test_portable_kernels.sh SOURCE WORK MPIEXEC: the kernels' portable paths. SpMV and the float
# sweeps have AVX2+FMA intrinsic kernels chosen at compile time (-march=native on this machine), so
# the ordinary tree never compiles the fallbacks a baseline x86-64 build (or another CPU) runs.
# Builds test_krylov_kernels and test_precond_single with -march=x86-64 (no AVX, no FMA), checks
# that the intrinsic paths are really compiled out, and runs both on 1 and 2 ranks x 2 threads.
set -euo pipefail
src=$1 work=$2 mpiexec=$3
rm -rf "$work"
cmake -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG -march=x86-64" >/dev/null
cmake --build "$work" -j2 --target test_krylov_kernels test_precond_single >/dev/null
# the intrinsic kernels use FMA instructions; a baseline build must contain none
if objdump -d "$work/solvers/CMakeFiles/cc_solvers.dir/kernels.c.o" \
     "$work/solvers/CMakeFiles/cc_solvers.dir/precond_sgs_single.c.o" | grep -q vfmadd; then
  echo "FAIL: FMA instructions in a -march=x86-64 build"; exit 1
fi
for ranks in 1 2; do
  OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$mpiexec" -n $ranks \
    "$work/tests/test_krylov_kernels" --nx 9 --ny 5 --nz 7
  OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$mpiexec" -n $ranks \
    "$work/tests/test_precond_single" --nx 9 --ny 5 --nz 7
done
rm -rf "$work"
echo PASS
