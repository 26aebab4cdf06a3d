"""tables.md and the metrics behind it: values computed by hand from the times the fixtures were
given, the noise verdict of each comparison, and the published rows at their own core counts."""
import re

from conftest import fixture, with_times

from cubecg_analysis.metrics import scaling as metrics
from cubecg_analysis.readers import published, reports, series
from cubecg_analysis.tables import markdown as tables

# three repeats of the 2x1 run with the progress thread on: Alg.3's AR and IAR ranges apart,
# Alg.4's overlapping
AR3, IAR3 = (2.0, 2.2, 2.4), (1.0, 1.1, 1.2)
AR4, IAR4 = (1.0, 1.2, 1.4), (1.1, 1.3, 1.5)


def repeated(folder):
    base = fixture("run_2x1_on.json")
    for i in range(3):
        folder.write(f"run_2x1_on_rep{i + 1}.json", with_times(base, {
            ("pipecg", "ar"): AR3[i], ("pipecg", "iar"): IAR3[i],
            ("gropp", "ar"): AR4[i], ("gropp", "iar"): IAR4[i], ("pcg", "ar"): 1.0 + i}))
    rep = reports.load_reports(folder.path)
    return series.solve_rows(rep), rep


def table_line(text, first_cells):
    """The Markdown row starting with the given cells."""
    head = "| " + " | ".join(first_cells) + " |"
    lines = [ln for ln in text.splitlines() if ln.startswith(head)]
    assert len(lines) == 1, (head, lines)
    return [c.strip() for c in lines[0].strip("|").split("|")]


def test_table7_ratio_of_medians_with_noise(folder):
    rows, rep = repeated(folder)
    t7 = {d["solver"]: d for d in metrics.table7_data(rows)}
    assert abs(t7["pipecg"]["ar_over_iar"] - 2.2 / 1.1) < 1e-12
    assert abs(t7["pipecg"]["ar_over_iar_min"] - 2.0 / 1.2) < 1e-12
    assert abs(t7["pipecg"]["ar_over_iar_max"] - 2.4 / 1.0) < 1e-12
    assert t7["pipecg"]["noise"] == "" and t7["gropp"]["noise"] == "within noise"
    md = tables.tables_md(rows, rep)
    t7 = md.split("## Table 7")[1].split("\n## ")[0]
    cells = table_line(t7, ["2", "measured", "6x6x6"])
    head = table_line(t7, ["cores", "source", "mesh"])
    assert cells[head.index("Alg.3")] == "2.00 [1.67-2.40]"
    assert cells[head.index("Alg.4")] == "0.92 [0.67-1.27] (within noise)"
    assert "medians over repeated reports" in md


def test_published_rows_stand_at_their_core_counts(folder):
    rows, rep = repeated(folder)
    md = tables.tables_md(rows, rep)
    t7 = md.split("## Table 7")[1].split("\n## ")[0]
    pub_rows = [ln for ln in t7.splitlines() if ln.startswith("|") and "*published*" in ln]
    cores = [int(re.match(r"\| ([\d,]+) \|", ln).group(1).replace(",", "")) for ln in pub_rows]
    assert cores == published.TABLE7_CORES
    for c in cores:
        cells = table_line(t7, [f"{c:,}", "*published*"])
        head = table_line(t7, ["cores", "source", "mesh"])
        assert cells[head.index("Alg.3")] == f"{published.TABLE7['pipecg'][c]:.2f}"
        assert cells[head.index("Alg.4")] == f"{published.TABLE7['gropp'][c]:.2f}"
    # no measured row carries a published value, and the rows are ordered by core count
    measured = [ln for ln in t7.splitlines() if "| measured |" in ln]
    assert measured and all("published" not in ln for ln in measured)
    t4 = md.split("## Table 4")[1].split("\n## ")[0]
    cells = table_line(t4, ["131,072", "*published*"])
    head = table_line(t4, ["cores", "source", "mesh"])
    assert cells[head.index("Alg.1 AR")] == "59.50%"
    assert cells[head.index("Alg.3 AR")] == ""
    sp = md.split("## Speed-up")[1].split("\n## ")[0]
    top = published.SPEEDUP["rows"][-1]
    cells = table_line(sp, [f"{published.SPEEDUP['mesh']} (*published*)", "-", f"{top['cores']:,}"])
    head = table_line(sp, ["mesh", "progress", "cores"])
    assert cells[head.index("Alg.3 IAR")] == f"about {top['pipecg']:,}"
    assert cells[head.index("Alg.1 AR")] == ""


def test_single_runs_are_marked(folder):
    folder.write("a.json", fixture("run_2x1_off.json"))
    folder.write("b.json", fixture("run_2x1_on.json"))
    rep = reports.load_reports(folder.path)
    md = tables.tables_md(series.solve_rows(rep), rep)
    assert "Every configuration ran once" in md
    t7 = md.split("## Table 7")[1].split("\n## ")[0]
    measured = [ln for ln in t7.splitlines() if "| measured |" in ln]
    assert len(measured) == 2
    assert all(ln.count("(single run)") == 3 for ln in measured)  # Alg.2, Alg.3, Alg.4
    progress = md.split("## Progress setting: T(off) / T(on)")[1].split("\n## ")[0]
    assert "(single run)" in progress and "within noise" not in progress
