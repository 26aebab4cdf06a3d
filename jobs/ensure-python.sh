#!/bin/bash
# ensure-python.sh: makes matplotlib importable by the python3 on PATH, which the job scripts
# (jobs/analyze.py, jobs/model.py) run with. That python3 may be pyenv's rather than Debian's, so
# pip installs it; Debian's python3-matplotlib is the fallback only when python3 IS /usr/bin/python3
# (the package is invisible to any other interpreter).
#   jobs/ensure-python.sh [--check]     (--check: report only, exit 1 if missing)
set -euo pipefail

py=$(command -v python3 || true)
if [[ -z $py ]]; then
  echo "ensure-python.sh: no python3 on PATH; install Python 3 (Debian: apt-get install python3)" >&2
  exit 2
fi
real=$(readlink -f "$py")
# pyenv's shim resolves to the selected interpreter only through python3 itself
exe=$(python3 -c 'import sys; print(sys.executable)')

if python3 -c 'import matplotlib' 2>/dev/null; then
  echo "ensure-python.sh: matplotlib $(python3 -c 'import matplotlib; print(matplotlib.__version__)') importable by $exe"
  exit 0
fi
if [[ ${1:-} == --check ]]; then
  echo "ensure-python.sh: matplotlib is not importable by $exe (run jobs/ensure-python.sh to install)" >&2
  exit 1
fi

echo "ensure-python.sh: matplotlib missing for $exe; installing"
debian=0
[[ $exe == /usr/bin/python3* || $real == /usr/bin/python3* ]] && debian=1
installed=0
if python3 -m pip --version >/dev/null 2>&1; then
  if [[ -n ${VIRTUAL_ENV:-} || $exe != /usr/* ]]; then
    # venv / pyenv / conda: their own site-packages
    python3 -m pip install matplotlib && installed=1
  else
    python3 -m pip install --user matplotlib && installed=1
  fi
fi
if ((!installed)); then
  if ((debian)) && command -v apt-get >/dev/null; then
    # Debian's own interpreter (pip missing or refused by PEP 668): its package
    sudo_cmd=()
    ((EUID == 0)) || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get install -y python3-matplotlib
  else
    echo "ensure-python.sh: could not install matplotlib for $exe: give it pip" \
      "(python3 -m ensurepip --user) or put Debian's python3 first on PATH" >&2
    exit 2
  fi
fi
python3 -c 'import matplotlib' || {
  echo "ensure-python.sh: matplotlib still not importable by $exe" >&2
  exit 2
}
echo "ensure-python.sh: matplotlib $(python3 -c 'import matplotlib; print(matplotlib.__version__)') ready for $exe"
