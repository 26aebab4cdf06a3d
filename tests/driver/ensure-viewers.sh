#!/bin/bash
# ensure-viewers.sh: optional: makes meshio (+ h5py) and vtk importable by the python3 on PATH so
# that the export_viewer_* tests read the solution export as meshio and VTK/ParaView do. Never
# fatal: without them those tests are skipped with a message.
#   tests/driver/ensure-viewers.sh [--check]
set -uo pipefail
py=$(command -v python3) || { echo "ensure-viewers.sh: no python3 on PATH: viewer tests will skip"; exit 0; }
missing=()
for m in meshio h5py vtk; do python3 -c "import $m" 2>/dev/null || missing+=("$m"); done
if ((${#missing[@]} == 0)); then
  echo "ensure-viewers.sh: meshio, h5py, vtk importable by $py"
  exit 0
fi
if [[ ${1:-} == --check ]]; then
  echo "ensure-viewers.sh: missing for $py: ${missing[*]} (the viewer tests will skip)"
  exit 0
fi
user=()
exe=$(python3 -c 'import sys; print(sys.executable)')
[[ -z ${VIRTUAL_ENV:-} && $exe == /usr/* ]] && user=(--user)
if python3 -m pip install "${user[@]}" "${missing[@]}"; then
  echo "ensure-viewers.sh: installed ${missing[*]} for $exe"
else
  echo "ensure-viewers.sh: could not install ${missing[*]} for $exe (the viewer tests will skip)"
fi
exit 0
