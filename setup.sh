#!/usr/bin/env bash
# setup.sh: install what cubecg needs on Debian 12 (idempotent; used by run.sh, test.sh and CI).
# Debian packages: MPICH, METIS, parallel HDF5 for MPICH, liburing, cJSON, OTF2 (--trace: library,
# otf2-print, and python3-otf2 for Debian's /usr/bin/python3), CMake, hwloc, clang-14 + libFuzzer + libomp (fuzz targets)
# (tests/fuzz); matplotlib for the python3 on PATH (which may not be Debian's:
# jobs/ensure-python.sh checks the one the scripts use).
#
#   ./setup.sh [--mpi mpich|openmpi|intel] [--intel-venv DIR] [--print-env]
#   --mpi NAME     also install that MPI (default mpich, Debian's): openmpi = Debian's Open MPI and
#                  its parallel HDF5 (libopenmpi-dev, libhdf5-openmpi-dev); intel = Intel MPI from
#                  PyPI (impi-devel) in a venv at --intel-venv DIR or CUBECG_INTEL_MPI_VENV (default
#                  ~/.cache/cubecg/intel-mpi); no parallel HDF5 exists for it, so that build has
#                  no hdf5 backend (cubecg --version says so)
#   --print-env    print only the KEY=VALUE lines a shell needs to build and run with that MPI
#                  (eval "$(./setup.sh --mpi intel --print-env)"), installing nothing
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpi=mpich print_env=0
intel_venv=${CUBECG_INTEL_MPI_VENV:-$HOME/.cache/cubecg/intel-mpi}
while (($#)); do
  case "$1" in
  --mpi) mpi=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
  --mpi=*) mpi=${1#--mpi=}; shift ;;
  --intel-venv) intel_venv=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
  --intel-venv=*) intel_venv=${1#--intel-venv=}; shift ;;
  --print-env) print_env=1; shift ;;
  -h | --help) sed -n '2,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) echo "setup: unknown option '$1' (--mpi mpich|openmpi|intel, --intel-venv DIR, --print-env)" >&2; exit 2 ;;
  esac
done
case "$mpi" in
mpich | openmpi | intel) ;;
*) echo "setup: --mpi '$mpi' is not one of mpich, openmpi, intel" >&2; exit 2 ;;
esac
[[ -n $intel_venv ]] || { echo "setup: --intel-venv '' (a directory)" >&2; exit 2; }
if ((print_env)); then
  # the preset of each MPI (CMakePresets.json) and what its mpiexec needs here
  case "$mpi" in
  mpich) echo "CUBECG_CMAKE_PRESET=release"; echo "CUBECG_MPIEXEC=mpiexec.mpich" ;;
  openmpi)
    echo "CUBECG_CMAKE_PRESET=openmpi"
    echo "CUBECG_MPIEXEC=mpiexec.openmpi"
    # more ranks than cores (the tests' 4 ranks on 2 cores), and root in containers
    echo "OMPI_MCA_rmaps_base_oversubscribe=1"
    if [ "$(id -u)" -eq 0 ]; then
      echo "OMPI_ALLOW_RUN_AS_ROOT=1"
      echo "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
    fi
    ;;
  intel)
    echo "CUBECG_CMAKE_PRESET=intel-mpi"
    echo "I_MPI_ROOT=$intel_venv"
    echo "PATH=$intel_venv/bin:$PATH"
    echo "CUBECG_MPIEXEC=$intel_venv/bin/mpiexec.hydra"
    ;;
  esac
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
# apt_install PKG...: installs those of the Debian packages that are not installed yet
apt_install()
{
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
packages=(build-essential cmake pkg-config mpich libmpich-dev libmetis-dev libhdf5-mpich-dev
          liburing-dev hdf5-tools libcjson-dev clang-14 libclang-rt-14-dev libomp-14-dev)
packages+=(libopen-trace-format2-dev otf2-tools python3-otf2) # --trace, its test, the timeline
packages+=(hwloc) # hwloc-calc: CPU numbers of a node for the job scripts (jobs/lib/cubecg-jobs.sh)
packages+=(strace) # the checkpoint scaling test counts file-system calls per rank (io_ckpt_scaling)
apt_install "${packages[@]}"
# optional: fio, the physical-limit anchor of cubecg-iobench --fio; setup goes on without
if ! command -v fio >/dev/null 2>&1; then
  apt_install fio ||
    echo "setup: fio not installed (optional: cubecg-iobench --fio says it is missing)" >&2
fi
# optional: Slurm and munge for the batch-path test (tests/mpi/test_slurm_batch.sh starts a one-node
# cluster of this machine; it skips with the reason without them)
if ! command -v slurmctld >/dev/null 2>&1 && ! [ -x /usr/sbin/slurmctld ]; then
  apt_install slurm-wlm munge ||
    echo "setup: slurm-wlm/munge not installed (optional: the batch-path test skips)" >&2
fi
if [ -x "$here/jobs/ensure-python.sh" ]; then
  "$here/jobs/ensure-python.sh"
fi
case "$mpi" in
openmpi)
  apt_install openmpi-bin libopenmpi-dev libhdf5-openmpi-dev
  # Debian ranks Open MPI's alternatives above MPICH's: without this, installing it would make
  # mpicc, mpiexec and h5pcc Open MPI's, and the default builds (MPICH) would change library
  for alt in mpi:/usr/bin/mpicc.mpich mpirun:/usr/bin/mpirun.mpich h5pcc:/usr/bin/h5pcc.mpich; do
    $SUDO update-alternatives --set "${alt%%:*}" "${alt#*:}" >/dev/null ||
      echo "setup: warning: could not keep ${alt#*:} the default ${alt%%:*}" >&2
  done
  ;;
intel)
  if [ ! -x "$intel_venv/bin/mpiexec.hydra" ]; then
    echo "setup: installing Intel MPI (PyPI impi-devel) into $intel_venv"
    python3 -m venv "$intel_venv"
    "$intel_venv/bin/pip" install -q impi-devel
  fi
  ;;
esac
