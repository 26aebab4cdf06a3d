#!/bin/bash
# test_pip_install_clean.sh REPO WORKDIR: `pip install ./jobs` into a fresh virtual environment
# installs the analysis package (its console scripts run, its data file is there) and writes
# nothing into the source tree: jobs/ holds the same files before and after. The venv sees the
# system's matplotlib (--system-site-packages, --no-deps). The build runs offline on the system's
# setuptools when it can make wheels (setuptools >= 70.1, or the wheel package), else as a user's
# `pip install ./jobs` does: pip fetches setuptools into an isolated build environment.
set -u
repo=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
snapshot() { (cd "$repo/jobs" && find . -path '*/__pycache__' -prune -o -print | LC_ALL=C sort); }
snapshot >"$work/before.txt"
python3 -m venv --system-site-packages "$work/venv" || { echo "FAIL python3 -m venv (Debian: python3-venv)"; exit 1; }
isolation=()
python3 -c 'import setuptools.command.bdist_wheel' 2>/dev/null || python3 -c 'import wheel' 2>/dev/null &&
  isolation=(--no-build-isolation --no-index)
echo "pip install ${isolation[*]:-(isolated build)} --no-deps ./jobs"
if ! "$work/venv/bin/python" -m pip install "${isolation[@]}" --no-deps "$repo/jobs" \
  >"$work/pip.log" 2>&1; then
  echo "FAIL pip install ./jobs:"; cat "$work/pip.log"; exit 1
fi
snapshot >"$work/after.txt"
fail=0
if diff "$work/before.txt" "$work/after.txt" >"$work/diff.txt"; then
  echo "ok   the source tree is unchanged ($(wc -l <"$work/after.txt") paths under jobs/)"
else
  echo "FAIL pip install wrote into the source tree:"; cat "$work/diff.txt"; fail=1
fi
for script in cubecg-analyze cubecg-model cubecg-analyze-io cubecg-analyze-store cubecg-ab; do
  if "$work/venv/bin/$script" --help >/dev/null 2>&1; then echo "ok   $script --help"
  else echo "FAIL $script --help"; fail=1; fi
done
# from the venv (not the tree): its own copy of data/published.json
if (cd "$work" && "$work/venv/bin/python" -c 'import sys; from cubecg_analysis.readers import published
assert published.DATA.startswith(sys.prefix), published.DATA' 2>"$work/data.txt"); then
  echo "ok   the installed package reads its own data/published.json"
else echo "FAIL data/published.json not installed:"; cat "$work/data.txt"; fail=1; fi
exit $fail
