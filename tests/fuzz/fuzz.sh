#!/usr/bin/env bash
# fuzz.sh ENVFILE TARGET SECONDS: build the libFuzzer target tests/fuzz/fuzz_TARGET.c with clang-14
# (ASan + UBSan, every cubecg source it reaches instrumented) and run it for SECONDS on a copy of its
# seed corpus tests/fuzz/corpus/TARGET. Any crash, leak or sanitizer report fails the test.
# Exit 77 (ctest: skipped) when clang-14 or libFuzzer is not installed.
set -euo pipefail
envfile=$1 target=$2 seconds=$3
source "$envfile" # SRC, OUT, MPI_INC, HDF5_INC, LIBS (written by tests/fuzz/fuzz.cmake)
clang=${CUBECG_FUZZ_CC:-clang-14}
if ! command -v "$clang" >/dev/null; then
  echo "SKIP: $clang not found (Debian: apt-get install clang-14 libclang-rt-14-dev)"
  exit 77
fi
if ! echo '#include <omp.h>' | "$clang" -fopenmp -x c -c - -o /dev/null 2>/dev/null; then
  echo "SKIP: $clang has no OpenMP runtime headers (Debian: apt-get install libomp-14-dev)"
  exit 77
fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){return 0;}' |
    "$clang" -x c -fsanitize=fuzzer - -o "$OUT/probe" 2>/dev/null; then
  echo "SKIP: $clang cannot link -fsanitize=fuzzer (Debian: libclang-rt-14-dev)"
  exit 77
fi
mkdir -p "$OUT/obj"
cflags=(-std=c17 -D_GNU_SOURCE -fopenmp -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
        -fno-sanitize-recover=undefined -Wno-unknown-pragmas -I"$SRC/common" -I"$SRC/mesh"
        -I"$SRC/solvers" -I"$SRC/io" -I"$SRC/io/checkpoint" -I"$SRC/io/backends"
        -I"$SRC/io/backends/gas" -I"$SRC/src" $MPI_INC $HDF5_INC)
# One instrumented archive of the libraries, built once (flock: the targets may build in parallel).
(
  flock 9
  stamp=$OUT/lib.stamp
  newest=$(find "$SRC/common" "$SRC/mesh" "$SRC/solvers" "$SRC/io" "$SRC"/src/options* "$SRC/src/test_seams.h" -name '*.[ch]' -newer "$stamp" 2>/dev/null | head -n 1 || true)
  if [ ! -e "$stamp" ] || [ -n "$newest" ]; then
    rm -f "$OUT"/obj/*.o "$OUT"/libcore.a "$OUT"/libcore_norank.a
    # the option parser takes its choices from the solvers' registries and validates gas options
    # through the gas store of io/, so the solvers and the options' files are in the archive too
    for f in "$SRC"/common/*.c "$BUILD_INFO" "$SRC"/mesh/*.c "$SRC"/solvers/*.c "$SRC"/io/*.c "$SRC"/io/*/*.c \
             "$SRC"/io/backends/gas/*.c "$SRC"/src/options*.c; do
      [[ "$f" == *.inc.c ]] && continue # templates, included by their precision's file
      "$clang" "${cflags[@]}" -c "$f" -o "$OUT/obj/$(basename "$(dirname "$f")")_$(basename "${f%.c}").o"
    done
    ar rcs "$OUT/libcore.a" "$OUT"/obj/*.o
    ar rcs "$OUT/libcore_norank.a" $(ls "$OUT"/obj/*.o | grep -v backends_io_rankfile.o)
    touch "$stamp"
  fi
) 9>"$OUT/lib.lock"
lib=$OUT/libcore.a
[ "$target" = rankfile ] && lib=$OUT/libcore_norank.a # the harness includes io_rankfile.c
"$clang" "${cflags[@]}" -fsanitize=fuzzer "$SRC/tests/fuzz/fuzz_$target.c" "$lib" $LIBS \
  -lm -lpthread -o "$OUT/fuzz_$target"
corpus=$OUT/corpus_$target
rm -rf "$corpus" && mkdir -p "$corpus"
cp "$SRC/tests/fuzz/corpus/$target"/* "$corpus"/
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
export LSAN_OPTIONS=suppressions=$SRC/cmake/lsan.supp HWLOC_COMPONENTS=-pci
cd "$OUT"
"$OUT/fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10 \
  -artifact_prefix="$OUT/crash_${target}_" "$corpus"
echo "PASS: fuzz_$target ran ${seconds} s: no crash, no sanitizer report"
