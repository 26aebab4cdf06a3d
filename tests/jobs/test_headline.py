"""The headline cubecg-analyze prints first and tables.md opens with: values computed by hand from
the times the fixtures were given, each line's noise verdict, "not measured" where the reports
carry nothing to compare, and the per-run listing only with --verbose."""
import copy
import io

from conftest import fixture, with_times

from cubecg_analysis import cli
from cubecg_analysis.readers import reports, series
from cubecg_analysis.tables import headline
from cubecg_analysis.tables import markdown as tables

# Alg.1 AR: off (2.0, 2.1, 2.2) s against on (1.0, 1.05, 1.1) s, ranges apart; Alg.3 IAR: off and
# on overlapping
OFF = {("pcg", "ar"): (2.0, 2.1, 2.2), ("pipecg", "iar"): (1.0, 1.1, 1.2)}
ON = {("pcg", "ar"): (1.0, 1.05, 1.1), ("pipecg", "iar"): (1.05, 1.15, 1.25)}


def folder_with_progress(folder, overlap=None):
    for name, times in (("run_2x1_off.json", OFF), ("run_2x1_on.json", ON)):
        for i in range(3):
            r = with_times(fixture(name), {k: v[i] for k, v in times.items()})
            if overlap is not None:
                for s in r["solves"]:
                    s["overlap"] = {"measured": overlap[i]}
            folder.write(name.replace(".json", f"_rep{i}.json"), r)
    rep = reports.load_reports(folder.path)
    return series.solve_rows(rep), rep


def line(lines, start):
    found = [ln for ln in lines if ln.startswith(start)]
    assert len(found) == 1, (start, lines)
    return found[0]


def test_progress_gain_per_variant_with_verdict(folder):
    rows, rep = folder_with_progress(folder)
    gains = {g["variant"]: g for g in headline.progress_gains(rows)}
    assert abs(gains["pcg/ar"]["ratio"] - 2.1 / 1.05) < 1e-12
    assert abs(gains["pcg/ar"]["lo"] - 2.0 / 1.1) < 1e-12
    assert abs(gains["pcg/ar"]["hi"] - 2.2 / 1.0) < 1e-12
    assert gains["pcg/ar"]["noise"] == "" and gains["pipecg/iar"]["noise"] == "within noise"
    lines = headline.headline_lines(rows, rep)
    a1 = line(lines, "progress thread, T(off)/T(on), Alg.1 AR:")
    assert "2.00 [1.82-2.20]" in a1 and "noise" not in a1 and "at 2x1" in a1
    assert "(within noise)" in line(lines, "progress thread, T(off)/T(on), Alg.3 IAR:")


def test_ar_iar_overlap_and_checkpoint_lines(folder):
    rows, rep = folder_with_progress(folder)
    lines = headline.headline_lines(rows, rep)
    assert line(lines, "AR/IAR, T(AR)/T(IAR), Alg.3:")
    assert line(lines, "measured overlap:") == \
        "measured overlap: not measured (the reports carry no solves[].overlap)"
    assert line(lines, "checkpoint share:").endswith("not measured (no run with checkpoints)")


def test_measured_overlap_when_reports_carry_it(folder):
    rows, rep = folder_with_progress(folder, overlap=(0.2, 0.4, 0.3))
    ov = line(headline.headline_lines(rows, rep), "measured overlap:")
    assert "Alg.3 IAR 0.30 [0.20-0.40]" in ov


def test_single_run_and_nothing_to_compare(folder):
    folder.write("off.json", fixture("run_2x1_off.json"))
    rep = reports.load_reports(folder.path)
    lines = headline.headline_lines(series.solve_rows(rep), rep)
    assert line(lines, "progress thread, T(off)/T(on):").endswith("not measured (no configuration "
                                                                  "ran with the progress thread "
                                                                  "both off and on)")
    assert "(single run)" in line(lines, "AR/IAR, T(AR)/T(IAR), Alg.2:")


def test_tables_md_opens_with_the_headline(folder):
    rows, rep = folder_with_progress(folder)
    md = tables.tables_md(rows, rep)
    first_section = md.split("\n## ")[1]
    assert first_section.startswith("The answer first")
    assert "- progress thread, T(off)/T(on), Alg.1 AR: 2.00 [1.82-2.20]" in md


def test_cli_prints_headline_first_and_runs_only_with_verbose(folder, capsys):
    folder_with_progress(folder)
    assert cli.main([folder.path, "--no-figures"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("The study's answer")
    assert "ms/iter" not in out  # the per-run table
    assert cli.main([folder.path, "--no-figures", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert out.index("The study's answer") < out.index("ms/iter")
