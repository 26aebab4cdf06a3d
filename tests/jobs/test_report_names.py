"""Folders and reports whose names are not UTF-8 (bytes Python hands over as surrogates): read,
analysed, and named in study.csv with \\xNN escapes, in a subprocess as a user runs it (the
console script's streams, not pytest's)."""
import csv
import os
import shutil
import subprocess
import sys

from conftest import FIXTURES

from cubecg_analysis.readers import reports

JOBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "jobs")


def test_non_utf8_folder_and_report(tmp_path):
    folder = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    os.mkdir(folder)
    names = sorted(n for n in os.listdir(FIXTURES) if n.endswith(".json"))
    for i, name in enumerate(names):
        shutil.copy(os.path.join(FIXTURES, name), os.path.join(folder, b"r\xe9p%d.json" % i))
    env = dict(os.environ, PYTHONPATH=JOBS, LC_ALL="C.UTF-8")
    proc = subprocess.run([sys.executable, "-m", "cubecg_analysis.cli",
                           os.fsdecode(folder)], env=env, capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    with open(os.path.join(folder, b"study.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    solves = sum(len(r["solves"]) for _, r in reports.load_reports(FIXTURES))
    assert len(rows) == solves > 0
    assert {os.path.basename(r["file"]) for r in rows} == {f"r\\xe9p{i}.json" for i in range(len(names))}
    assert all("caf\\xe9" in r["file"] for r in rows)


def test_printable():
    assert reports.printable(os.fsdecode(b"/a/caf\xe9/x.json")) == "/a/caf\\xe9/x.json"
    assert reports.printable("/a/café/x.json") == "/a/café/x.json"  # UTF-8 names unchanged
