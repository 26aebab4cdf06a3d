"""cubecg-ab (cubecg_analysis.ab): the binary from CUBECG_BUILD, A and B told apart by their
environment (--env-a / --env-b) as well as by options, the order alternating, every option in
--help with its whole text. A stand-in cubecg (a script) writes the report, so no MPI run is needed:
its time per iteration is 2 ms when CUBECG_TEST_SLOW=1 is in its environment, else 1 ms."""
import json
import os
import subprocess
import sys

import pytest

import cubecg_ab as ab

FAKE = """#!/usr/bin/env python3
import json, os, sys
report = sys.argv[sys.argv.index("--report") + 1]
slow = os.environ.get("CUBECG_TEST_SLOW") == "1"
with open(os.path.join(os.path.dirname(report), "calls.txt"), "a") as f:
    f.write(("slow" if slow else "fast") + " " + " ".join(sys.argv[1:]) + "\\n")
json.dump({"solves": [{"converged": True, "iterations": 10, "time_per_iter_s": 0.002 if slow
                       else 0.001}]}, open(report, "w"))
"""


@pytest.fixture
def build(tmp_path):
    """A build folder holding src/cubecg, the stand-in."""
    path = tmp_path / "build" / "src" / "cubecg"
    path.parent.mkdir(parents=True)
    path.write_text(FAKE)
    path.chmod(0o755)
    return tmp_path / "build"


def test_env_pairs_cubecg_build(build, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CUBECG_BUILD", str(build))
    out = tmp_path / "ab"
    ab.main(["--pairs", "3", "--launch", "", "--out", str(out), "--env-b", "CUBECG_TEST_SLOW=1",
             "--env-a", "CUBECG_TEST_SLOW=0", "--", "--nx", "4"])
    summary = json.load(open(out / "ab.json"))
    assert summary["a"]["env"] == {"CUBECG_TEST_SLOW": "0"}
    assert summary["b"]["env"] == {"CUBECG_TEST_SLOW": "1"}
    assert summary["ratio_a_over_b"] == [0.5, 0.5, 0.5]  # B (the slow side) takes twice as long
    calls = (out / "calls.txt").read_text().split("\n")[:-1]
    # alternating order: A B, B A, A B; every run gets the common options, --quiet, its report
    assert [c.split()[0] for c in calls] == ["fast", "slow", "slow", "fast", "fast", "slow"]
    assert all(c.split()[1:4] == ["--nx", "4", "--quiet"] for c in calls)
    assert "median 0.500" in capsys.readouterr().out


def test_refusals(build, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CUBECG_BUILD", str(build))
    for argv, why in (([], "A and B are the same run"),
                      (["--env-a", "NOEQUALS"], "is not NAME=VALUE"),
                      (["--env-a", "1X=2"], "is not NAME=VALUE"),
                      (["--pairs", "0", "--a", "--nx 8"], "--pairs 0"),
                      (["--cubecg", str(tmp_path / "none"), "--a", "--nx 8"], "not an executable")):
        with pytest.raises(SystemExit) as e:
            ab.main(argv)
        assert e.value.code == 2
        assert why in capsys.readouterr().err
    # CUBECG_BUILD without a cubecg: refused naming the path, never another binary silently
    monkeypatch.setenv("CUBECG_BUILD", str(tmp_path / "empty"))
    with pytest.raises(SystemExit):
        ab.main(["--a", "--nx 8"])
    assert str(tmp_path / "empty") in capsys.readouterr().err


def test_help_whole():
    """--help gives the whole description (it once stopped mid-sentence) and every option."""
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "..", "..", "jobs", "ab.py")
    out = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True,
                         check=True).stdout
    assert ab.__doc__.strip().split("\n")[-1].strip() in out
    for opt in ("--pairs", "--launch", "--threads", "--cubecg", "--out", "--label-a", "--label-b",
                "--a", "--b", "--env-a", "--env-b"):
        assert f"  {opt} " in out, opt
