#!/usr/bin/env bash
# setup.sh: install what cubecg needs on Debian 12 (idempotent; used by run.sh, test.sh and CI).
# Debian packages: MPICH, METIS, parallel HDF5 for MPICH, liburing, cJSON, CMake, hwloc, clang-14 + libFuzzer + libomp (fuzz targets)
# (tests/fuzz); matplotlib for the python3 on PATH (which may not be Debian's:
# jobs/ensure-python.sh checks the one the scripts use).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
packages=(build-essential cmake pkg-config mpich libmpich-dev libmetis-dev libhdf5-mpich-dev
          liburing-dev hdf5-tools libcjson-dev clang-14 libclang-rt-14-dev libomp-14-dev)
missing=()
packages+=(hwloc) # hwloc-calc: CPU numbers of a node for the job scripts (jobs/lib/cubecg-jobs.sh)
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# optional: fio, the physical-limit anchor of cubecg-iobench --fio (issue 13); setup goes on without
if ! command -v fio >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends fio; } ||
    echo "setup: fio not installed (optional: cubecg-iobench --fio says it is missing)" >&2
fi
if [ -x "$here/jobs/ensure-python.sh" ]; then
  "$here/jobs/ensure-python.sh"
fi
# optional: meshio/h5py/vtk for the export_viewer_* tests (they skip with a message without them)
if [ -x "$here/tests/ensure-viewers.sh" ]; then
  "$here/tests/ensure-viewers.sh"
fi
