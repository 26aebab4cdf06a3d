#!/usr/bin/env bash
# test.sh [--release | --sanitize | --mpi-libraries | --help] [ctest arguments...]: install what is
# missing, then what CI runs: the release suite (build/, release preset, MPICH, fuzz targets
# included), the sanitizer suite (build-debug/, ASan + UBSan, LSan suppressions of cmake/lsan.supp),
# then the tests labelled mpi-libraries on Open MPI (build-openmpi/) and Intel MPI
# (build-intel-mpi/). --release, --sanitize or --mpi-libraries runs only that part. Extra
# arguments go to every ctest call (e.g. ./test.sh -R driver).
# A library that cannot be installed (no network for PyPI, ...) is skipped with a loud line, and
# fails the run only when CUBECG_REQUIRE_MPIS names it (CI: .ci/run requires openmpi and intel).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=all
case "${1:-}" in
--release) mode=release; shift ;;
--sanitize) mode=sanitize; shift ;;
--mpi-libraries) mode=mpi-libraries; shift ;;
-h | --help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
"$here/setup.sh"
# meshio/h5py/vtk for the export_viewer_* tests only (they skip with a message without them);
# ./run.sh does not need them
if [ -x "$here/tests/driver/ensure-viewers.sh" ]; then
  "$here/tests/driver/ensure-viewers.sh"
fi
status=0
if [ "$mode" = all ] || [ "$mode" = release ]; then
  "$here/build.sh" release
  (cd "$here/build" && ctest --output-on-failure -j "$(nproc)" "$@") || status=1
fi
if [ "$mode" = all ] || [ "$mode" = sanitize ]; then
  "$here/build.sh" debug
  # label sanitize-skip: the few tests too slow under ASan (see tests/CMakeLists.txt)
  (cd "$here/build-debug" && ctest --output-on-failure -j "$(nproc)" -LE sanitize-skip "$@") ||
    status=1
fi
# the labelled subset on each other MPI: its own build folder (the preset's), only the programs the
# subset runs, its environment from setup.sh --print-env
if [ "$mode" = all ] || [ "$mode" = mpi-libraries ]; then
  for mpi in openmpi intel; do
    preset=$mpi
    [ "$mpi" = intel ] && preset=intel-mpi
    required=0
    [[ ",${CUBECG_REQUIRE_MPIS:-}," == *",$mpi,"* ]] && required=1
    if ! "$here/setup.sh" --mpi "$mpi" >"${TMPDIR:-/tmp}/cubecg-setup-$mpi.log" 2>&1; then
      echo "test.sh: ======== $mpi could not be installed (see ${TMPDIR:-/tmp}/cubecg-setup-$mpi.log): its mpi-libraries tests did NOT run ========" >&2
      ((required)) && status=1
      continue
    fi
    (
      set -a
      eval "$("$here/setup.sh" --mpi "$mpi" --print-env)"
      set +a
      cd "$here"
      cmake --preset "$preset" >/dev/null
      cmake --build --preset "$preset" -j "$(nproc)" --target cubecg test_mpi_registry >/dev/null
      cd "$here/build-$preset"
      ctest --output-on-failure -j "$(nproc)" -L mpi-libraries "$@"
    ) || status=1
  done
fi
exit $status
