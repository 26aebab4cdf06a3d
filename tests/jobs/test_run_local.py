"""jobs/run-local.sh --quick with stand-in programs (each exits 0 at once): every point repeats 3
times by default and --repeat changes it, and the progress counter ends at its own total."""
import os
import re
import stat
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def stub(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


# the launcher stand-in writes the report a passing run leaves (the sweep counts a run without a
# passing report as failed, whatever its exit code)
MPIEXEC_STUB = """#!/bin/sh
prev=
for a in "$@"; do
  if [ "$prev" = --report ]; then
    printf '{"kind": "run", "in_progress": false, "interrupted": false, "checks": {"passed": true}}\\n' >"$a"
  fi
  prev=$a
done
exit 0
"""


def sweep(tmp_path, *options):
    build = tmp_path / "build"
    for prog in ("src/cubecg", "bench/cubecg-bench", "bench/cubecg-iobench"):
        stub(str(build / prog))
    stub(str(tmp_path / "mpiexec-stub"))
    with open(tmp_path / "mpiexec-stub", "w", encoding="utf-8") as f:
        f.write(MPIEXEC_STUB)
    env = dict(os.environ, CUBECG_BUILD=str(build), CUBECG_MPIEXEC=str(tmp_path / "mpiexec-stub"),
               CUBECG_MAX_CORES="2")
    out = tmp_path / "out"
    done = subprocess.run(["bash", os.path.join(REPO, "jobs", "run-local.sh"), "--quick", "--no-analyze",
                           "--out", str(out), *options], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return [tuple(map(int, m)) for m in re.findall(r"\[ *(\d+)/(\d+)\]", done.stdout)], out


@pytest.mark.parametrize("options, repeats", [((), 3), (("--repeat", "1"), 1)])
def test_quick_sweep_repeats_and_counts_to_its_total(tmp_path, options, repeats):
    steps, out = sweep(tmp_path, *options)
    total = steps[0][1]
    assert [n for n, _ in steps] == list(range(1, total + 1))
    assert all(t == total for _, t in steps)
    logs = os.listdir(out / "logs")
    plain = [name for name in logs if "progress-off" in name and "ckpt" not in name and "lat" not in name
             and "1x1_serial" in name]
    assert len(plain) == repeats
