#!/usr/bin/env bash
# test_native_flags.sh SOURCE WORK: user-given target flags override CUBECG_NATIVE's -march=native,
# and the flags cubecg reports are the configured ones (CMAKE_C_FLAGS_<CONFIG> upper case).
set -euo pipefail
src=$1 work=$2
rm -rf "$work"
out=$(cmake -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
      "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG -march=x86-64" 2>&1)
line=$(echo "$out" | grep "cubecg: build flags")
echo "$line"
echo "$line" | grep -q -- "-O2 -DNDEBUG -march=x86-64" || { echo "FAIL: user flags not used"; exit 1; }
if echo "$line" | grep -q -- "-march=native"; then echo "FAIL: -march=native over user flags"; exit 1; fi
out=$(cmake -S "$src" -B "$work" -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG" -DCUBECG_NATIVE=ON 2>&1)
line=$(echo "$out" | grep "cubecg: build flags")
echo "$line"
echo "$line" | grep -q -- "-O3 -DNDEBUG .*-march=native" || { echo "FAIL: CUBECG_NATIVE=ON without -march=native"; exit 1; }
rm -rf "$work"
echo PASS
