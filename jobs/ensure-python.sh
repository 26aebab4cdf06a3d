#!/bin/bash
# ensure-python.sh: makes matplotlib (the figures) and pytest (the analysis package's tests,
# tests/jobs) importable by the python3 on PATH, which the job scripts and the analysis package
# (jobs/cubecg_analysis) run with. That python3 may be pyenv's rather than Debian's, so pip
# installs them; Debian's python3-matplotlib / python3-pytest are the fallback only when python3
# IS /usr/bin/python3 (the packages are invisible to any other interpreter).
#   jobs/ensure-python.sh [--check]     (--check: report only, exit 1 if one is missing)
set -euo pipefail

modules=(matplotlib pytest)
py=$(command -v python3 || true)
if [[ -z $py ]]; then
  echo "ensure-python.sh: no python3 on PATH; install Python 3 (Debian: apt-get install python3)" >&2
  exit 2
fi
real=$(readlink -f "$py")
# pyenv's shim resolves to the selected interpreter only through python3 itself
exe=$(python3 -c 'import sys; print(sys.executable)')

missing=()
for m in "${modules[@]}"; do
  if version=$(python3 -c "import $m; print($m.__version__)" 2>/dev/null); then
    echo "ensure-python.sh: $m $version importable by $exe"
  else
    missing+=("$m")
  fi
done
((${#missing[@]})) || exit 0
if [[ ${1:-} == --check ]]; then
  echo "ensure-python.sh: ${missing[*]} not importable by $exe (run jobs/ensure-python.sh to install)" >&2
  exit 1
fi

echo "ensure-python.sh: ${missing[*]} missing for $exe; installing"
debian=0
[[ $exe == /usr/bin/python3* || $real == /usr/bin/python3* ]] && debian=1
installed=0
if python3 -m pip --version >/dev/null 2>&1; then
  if [[ -n ${VIRTUAL_ENV:-} || $exe != /usr/* ]]; then
    # venv / pyenv / conda: their own site-packages
    python3 -m pip install "${missing[@]}" && installed=1
  else
    python3 -m pip install --user "${missing[@]}" && installed=1
  fi
fi
if ((!installed)); then
  if ((debian)) && command -v apt-get >/dev/null; then
    # Debian's own interpreter (pip missing or refused by PEP 668): its packages
    sudo_cmd=()
    ((EUID == 0)) || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get install -y "${missing[@]/#/python3-}"
  else
    echo "ensure-python.sh: could not install ${missing[*]} for $exe: give it pip" \
      "(python3 -m ensurepip --user) or put Debian's python3 first on PATH" >&2
    exit 2
  fi
fi
for m in "${missing[@]}"; do
  python3 -c "import $m" || {
    echo "ensure-python.sh: $m still not importable by $exe" >&2
    exit 2
  }
done
echo "ensure-python.sh: ${modules[*]} ready for $exe"
