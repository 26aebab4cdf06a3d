#!/usr/bin/env bash
# test_install.sh SOURCE BUILD WORK: `cmake --install` into WORK/prefix, then a project outside the tree
# builds against it with find_package(cubecg) and with pkg-config, and the installed jobs/ helper
# finds the installed programs.
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/cubecg bin/cubecg-iobench bin/cubecg-bench include/cubecg/cc_common.h \
         lib/libcc_io.a lib/cmake/cubecg/cubecgConfig.cmake lib/pkgconfig/cubecg.pc \
         share/cubecg/jobs/lib/cubecg-jobs.sh share/doc/cubecg/README.md; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
"$prefix/bin/cubecg" --version
# find_package(cubecg)
cmake -S "$src/tests/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
OMP_NUM_THREADS=1 "$work/consumer/consumer"
# pkg-config (static libraries: --static for their dependencies)
flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs --static cubecg)
mpicc.mpich -fopenmp "$src/tests/install/consumer.c" -o "$work/consumer-pc" $flags
OMP_NUM_THREADS=1 "$work/consumer-pc"
# the installed study scripts find the installed programs
(
  source "$prefix/share/cubecg/jobs/lib/cubecg-jobs.sh"
  unset CUBECG_BUILD
  cc_binaries "$prefix/share/cubecg"
  [ "$CC_CUBECG" -ef "$prefix/bin/cubecg" ] || { echo "FAIL: jobs helper found '$CC_CUBECG'"; exit 1; }
)
# the installed analysis package runs from the prefix, its published values beside it
PYTHONPATH="$prefix/share/cubecg/jobs" python3 -m cubecg_analysis.model.cli --preset oakforest-pacs \
  --out "$work/model" >/dev/null || { echo "FAIL: installed cubecg_analysis does not run"; exit 1; }
[ -s "$work/model/model_table7.csv" ] || { echo "FAIL: installed cubecg_analysis wrote no model"; exit 1; }
echo "PASS: installed tree usable through find_package, pkg-config and jobs/"
