"""The command lines: cubecg-analyze on fixture reports writes the figures with their data (the
published Table 7 inside fig2's), refuses bad input with exit 2 naming the file; the package keeps
its limits (check_package.py), which a planted circle and a long function break."""
import csv
import os
import subprocess
import sys

from conftest import fixture, with_times

from cubecg_analysis import cli
from cubecg_analysis.readers import published

HERE = os.path.dirname(os.path.abspath(__file__))


def test_analyze_writes_figures_with_published_values(folder, tmp_path, capsys):
    base = fixture("run_2x1_on.json")
    for i in range(2):
        folder.write(f"on_rep{i + 1}.json", with_times(base, {("pcg", "ar"): 1.0 + i}))
        folder.write(f"off_rep{i + 1}.json", with_times(fixture("run_2x1_off.json"), {}))
    out = str(tmp_path / "figs")
    assert cli.main([folder.path, "--figdir", out]) == 0
    for stem in ("fig2_ar_vs_iar", "fig3_progress", "fig7_placement"):
        assert os.path.getsize(os.path.join(out, stem + ".png")) > 10000
    with open(os.path.join(out, "fig2_ar_vs_iar.csv"), encoding="utf-8") as f:
        data = list(csv.DictReader(f))
    pub = [d for d in data if d["source"] == published.SOURCE["table7"]]
    assert sorted(int(d["cores"]) for d in pub) == sorted(2 * published.TABLE7_CORES)
    assert {d["noise"] for d in data if d["source"] == "measured"} <= {"", "within noise"}
    with open(os.path.join(out, "fig3_progress.csv"), encoding="utf-8") as f:
        assert "noise" in f.readline()
    assert "fig2_ar_vs_iar.png" in capsys.readouterr().out


def test_malformed_report_exits_2_naming_it(folder, capsys):
    folder.write("good.json", fixture("run_2x1_off.json"))
    with open(os.path.join(folder.path, "bad.json"), "w", encoding="utf-8") as f:
        f.write("{ not json")
    assert cli.main([folder.path, "--no-figures"]) == 2
    err = capsys.readouterr().err
    assert "bad.json: malformed JSON" in err and err.count("\n") == 1


def run_check(pkg):
    return subprocess.run([sys.executable, os.path.join(HERE, "check_package.py"), str(pkg)],
                          capture_output=True, text=True)


def test_package_limits_hold_and_can_fail(tmp_path):
    real = os.path.dirname(cli.__file__)
    ok = run_check(real)
    assert ok.returncode == 0, ok.stdout
    pkg = tmp_path / "planted"
    pkg.mkdir()
    (pkg / "a.py").write_text("from .b import g\n\n\ndef f():\n" + "    x = 1\n" * 81 + "    return g\n")
    (pkg / "b.py").write_text("from . import a\n\n\ndef g():\n    return a\n")
    bad = run_check(pkg)
    assert bad.returncode == 1
    assert "function f has 83 lines" in bad.stdout
    assert "import circle: a -> b -> a" in bad.stdout
