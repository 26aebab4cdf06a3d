#!/usr/bin/env bash
# build.sh [release|debug]: configure and build with the CMake preset (build/ or build-debug/).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
preset=${1:-release}
cd "$here"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
