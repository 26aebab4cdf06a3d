#!/usr/bin/env bash
# test.sh: install what is missing, build (release preset) and run the whole ctest suite.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$here/setup.sh"
"$here/build.sh" release
cd "$here/build"
ctest --output-on-failure -j "$(nproc)" "$@"
