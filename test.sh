#!/usr/bin/env bash
# test.sh [--release | --sanitize | --help] [ctest arguments...]: install what is missing, then
# what CI runs: the release suite (build/, release preset, fuzz targets included), then the
# sanitizer suite (build-debug/, ASan + UBSan, LSan suppressions of cmake/lsan.supp). --release or
# --sanitize runs only that half. Extra arguments go to both ctest calls (e.g. ./test.sh -R driver).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=all
case "${1:-}" in
--release) mode=release; shift ;;
--sanitize) mode=sanitize; shift ;;
-h | --help) sed -n '2,5s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
"$here/setup.sh"
# meshio/h5py/vtk for the export_viewer_* tests only (they skip with a message without them);
# ./run.sh does not need them
if [ -x "$here/tests/ensure-viewers.sh" ]; then
  "$here/tests/ensure-viewers.sh"
fi
status=0
if [ "$mode" != sanitize ]; then
  "$here/build.sh" release
  (cd "$here/build" && ctest --output-on-failure -j "$(nproc)" "$@") || status=1
fi
if [ "$mode" != release ]; then
  "$here/build.sh" debug
  # label sanitize-skip: the few tests too slow under ASan (see tests/CMakeLists.txt)
  (cd "$here/build-debug" && ctest --output-on-failure -j "$(nproc)" -LE sanitize-skip "$@") ||
    status=1
fi
exit $status
