#!/usr/bin/env bash
# test_portable_kernels.sh SOURCE WORK MPIEXEC: the kernels' other compile-time paths. SpMV, the
# double sweeps (cc_block3_simd.h) and the float sweeps have AVX2+FMA intrinsic kernels (with
# AVX-512VL masked loads where the target has them), and the binary16 sweeps AVX512-FP16, F16C or
# portable conversions, chosen at compile time; this -march=native tree compiles only one of the
# paths. Builds test_krylov_kernels, test_precond_sgs (the sweeps against the scalar reference:
# bitwise without FMA, to rounding with it), test_precond_single and test_precond_half for
# -march=x86-64 (no AVX, no FMA, no F16C: the portable C kernels; checked: no FMA or binary16
# conversion instruction in them) and for -march=x86-64-v3 (AVX2 + FMA + F16C without AVX-512: the
# vmaskmov and vcvtph2ps paths; only where this CPU runs it), and runs the four tests on 1 and 2
# ranks x 2 threads.
set -euo pipefail # (grep -q reads here-strings: in a pipe its early exit is a SIGPIPE failure)
src=$1 work=$2 mpiexec=$3
objs() {
  echo "$1/solvers/CMakeFiles/cc_solvers.dir/kernels.c.o" \
       "$1/solvers/CMakeFiles/cc_solvers.dir/precond_sgs.c.o" \
       "$1/solvers/CMakeFiles/cc_solvers.dir/precond_sgs_single.c.o" \
       "$1/solvers/CMakeFiles/cc_solvers.dir/precond_sgs_half.c.o"
}
for arch in x86-64 x86-64-v3; do
  if [ "$arch" = x86-64-v3 ] && ! grep -qw avx2 /proc/cpuinfo; then
    echo "SKIP $arch: this CPU has no AVX2"; continue
  fi
  tree=$work/$arch
  rm -rf "$tree"
  cmake -S "$src" -B "$tree" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG -march=$arch" >/dev/null
  cmake --build "$tree" -j2 \
    --target test_krylov_kernels test_precond_sgs test_precond_single test_precond_half >/dev/null
  # shellcheck disable=SC2046
  dis=$(objdump -d $(objs "$tree"))
  if [ "$arch" = x86-64 ] && grep -q vfmadd <<<"$dis"; then
    echo "FAIL: FMA instructions in a -march=x86-64 build"; exit 1
  fi
  if [ "$arch" = x86-64 ] && grep -q vcvtph2p <<<"$dis"; then
    echo "FAIL: binary16 conversion instructions in a -march=x86-64 build (no F16C)"; exit 1
  fi
  if [ "$arch" = x86-64-v3 ] && ! grep -q vcvtph2ps <<<"$dis"; then
    echo "FAIL: no vcvtph2ps in the -march=x86-64-v3 build (F16C path not compiled)"; exit 1
  fi
  if [ "$arch" = x86-64-v3 ] && ! grep -q vmaskmovpd <<<"$dis"; then
    echo "FAIL: no vmaskmovpd in the -march=x86-64-v3 build (AVX2 path not compiled)"; exit 1
  fi
  for ranks in 1 2; do
    OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$mpiexec" -n $ranks \
      "$tree/tests/test_krylov_kernels" --nx 9 --ny 5 --nz 7
    OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$mpiexec" -n $ranks \
      "$tree/tests/test_precond_single" --nx 9 --ny 5 --nz 7
    OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$mpiexec" -n $ranks \
      "$tree/tests/test_precond_half" --nx 9 --ny 5 --nz 7
    OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$mpiexec" -n $ranks \
      "$tree/tests/test_precond_sgs" --nx 9 --ny 5 --nz 7
  done
  echo "PASS $arch"
done
rm -rf "$work"
echo PASS
