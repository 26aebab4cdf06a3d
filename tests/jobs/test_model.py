"""The latency-bandwidth model: its inputs are the published data file, its fit of Table 7 is
leave-one-out and meets its goal, and its pieces compute what their formulas say."""
import json
import math

import pytest

from cubecg_analysis.model import preset as mp
from cubecg_analysis.model import report as mr
from cubecg_analysis.readers import published


def test_inputs_are_the_published_data_file():
    with open(published.DATA, encoding="utf-8") as f:
        raw = json.load(f)
    t7 = {r["cores"]: (r["pipecg"], r["gropp"]) for r in raw["table7"]["rows"]}
    assert {c: (mp.PUBLISHED_TABLE7["pipecg"][c], mp.PUBLISHED_TABLE7["gropp"][c]) for c in t7} == t7
    assert mp.PUBLISHED_TABLE4 == {r["cores"]: (r["cg_loop_s"], r["allreduce_s"])
                                   for r in raw["table4"]["rows"]}
    assert mp.PRESETS["oakforest-pacs"]["cores"] == [r["cores"] for r in raw["table7"]["rows"]]


def test_preset_fit_is_leave_one_out_and_meets_its_goal():
    res = mp.preset_model("oakforest-pacs")
    assert 0.0 < res["h_all"] < 1.0
    rows = res["rows"]
    assert len(rows) == 2 * len(published.TABLE7_CORES)
    for r in rows:
        assert r["published"] == published.TABLE7[r["solver"]][r["cores"]]
        assert abs(r["gain_error"] - (r["modelled"] - r["published"])) < 1e-12
        assert abs(r["modelled"] - r["in_sample"]) > 1e-6  # a prediction without its own point
        assert r["extrapolated"] == (r["cores"] not in published.TABLE4)
    rms = math.sqrt(sum(r["gain_error"] ** 2 for r in rows) / len(rows))
    assert rms <= 0.06
    g = {(r["cores"], r["solver"]): r["modelled"] for r in rows}
    assert all(g[(c, "gropp")] > g[(c, "pipecg")] for c in published.TABLE7_CORES)


def test_leave_one_out_ignores_the_held_out_point():
    c = published.TABLE7_CORES[1]
    before = {(r["cores"], r["solver"]): r for r in mp.preset_model("oakforest-pacs")["rows"]}
    saved = mp.PUBLISHED_TABLE7["gropp"][c]
    try:
        mp.PUBLISHED_TABLE7["gropp"][c] = saved + 0.5
        after = {(r["cores"], r["solver"]): r for r in mp.preset_model("oakforest-pacs")["rows"]}
    finally:
        mp.PUBLISHED_TABLE7["gropp"][c] = saved
    assert abs(after[(c, "gropp")]["modelled"] - before[(c, "gropp")]["modelled"]) < 1e-9
    assert abs(after[(c, "gropp")]["in_sample"] - before[(c, "gropp")]["in_sample"]) > 1e-4


def test_exposed_time_of_one_reduction():
    for (a, w, h, n), want in (((1.0, 10.0, 0.5, 2), 0.75), ((1.0, 10.0, 0.5, 1), 0.5),
                               ((1.0, 0.1, 0.5, 1), 0.9), ((1.0, 10.0, 0.5, 0), 0.0),
                               ((1.0, None, 0.5, 2), 1.0)):
        assert abs(mp.exposed(a, w, h, n=n) - want) < 1e-12


def test_compute_scaling_fit_is_a_least_squares_line():
    # C(P) = c0 * P0 / P + c1 through C(1000) = 10, C(2000) = 6: c0 = 8, c1 = 2
    c0, c1 = mp.fit_compute_scaling({1000: (11.0, 1.0), 2000: (7.0, 1.0)})
    assert abs(c0 - 8.0) < 1e-12 and abs(c1 - 2.0) < 1e-12


def test_windows_hold_the_halo_exchanges_of_the_algorithms():
    inp = mp.preset_inputs(mp.PRESETS["oakforest-pacs"])[0]
    c = published.TABLE7_CORES[0]
    assert inp[(c, "pipecg")]["halos"] == [2] and inp[(c, "gropp")]["halos"] == [1, 1]
    assert abs(inp[(c, "gropp")]["a"] - published.TABLE4[c][1] / 2) < 1e-12


def test_deep_model_rows_by_depth_and_step():
    """p(l)-CG for L in 1, 2, 3, 5 and s-step for S in 2, 4, 8 at every preset core count; the
    s-step rows are C plus the blocking reduction once per S iterations, recomputed here."""
    res = mp.preset_model("oakforest-pacs")
    deep = mp.deep_model("oakforest-pacs", res)
    cores = res["preset"]["cores"]
    series = ["plcg-l1", "plcg-l2", "plcg-l3", "plcg-l5", "sstep-s2", "sstep-s4", "sstep-s8"]
    assert {(r["cores"], r["series"]) for r in deep["rows"]} == {(c, s) for c in cores
                                                                 for s in series}
    assert mp.deep_ops("plcg-l3") == dict(spmv=1, precond=1, dot=4, axpy=7, reductions=1)
    assert mp.deep_ops("sstep-s4")["reductions"] == 0.25
    bpr, base = res["bpr"], mp.TABLE1["pcg"]
    for r in deep["rows"]:
        inp = res["inputs"][(r["cores"], "pipecg")]
        comp1 = inp["loop"] - inp["allreduce"]
        per_byte = comp1 / sum(base[k] * bpr[k] for k in ("spmv", "precond", "dot", "axpy"))
        ops = mp.deep_ops(r["series"])
        comp = comp1 + per_byte * sum((ops[k] - base[k]) * bpr[k] for k in ("dot", "axpy"))
        if r["series"].startswith("sstep"):
            assert r["t_loop"] == pytest.approx(comp + inp["a"] * ops["reductions"], rel=1e-12)
        else:  # what the window hides lies between nothing and the whole reduction
            assert comp <= r["t_loop"] <= comp + inp["a"] + 1e-12
        assert r["vs_alg3"] == pytest.approx(r["t_loop"] / r["t_alg3"], rel=1e-12)


def test_deep_model_overtakes_agree_with_its_rows():
    deep = mp.deep_model("oakforest-pacs")
    for s, since in deep["overtakes"].items():
        rows = sorted((r["cores"], max(r["vs_alg3"], r["vs_alg4"])) for r in deep["rows"]
                      if r["series"] == s)
        faster = [c for c, v in rows if v < 1.0]
        assert deep["faster_at"][s] == faster
        if since is None:
            assert not faster or faster[-1] != rows[-1][0]
        else:
            assert all(v < 1.0 for c, v in rows if c >= since)
            earlier = [v for c, v in rows if c < since]
            assert not earlier or earlier[-1] >= 1.0
    lines = mr.deep_lines(deep)
    assert len(lines) == 7 and all("MODEL" in line for line in lines)


# ---- the overlap parameter measured (model_overlap.py) ---------------------------------------
def _probe_result(hidden, t_pure=1e-4, t_cpu=1e-3, setting="thread"):
    spread = lambda v: {"min": v, "median": v, "max": v}  # noqa: E731
    return {"setting": setting, "values": 3, "repeats": 8, "injected_latency_us": 0,
            "t_pure_s": spread(t_pure), "t_cpu_s": spread(t_cpu), "t_ovrl_s": spread(t_cpu),
            "wait_s": spread(0.0), "overlap_pct": spread(100.0), "hidden_pct": spread(hidden)}


def _write(tmp_path, name, report):
    path = tmp_path / name
    path.write_text(json.dumps(report), encoding="utf-8")
    return str(path)


def test_overlap_from_a_run_report_is_h_of_one_halo_exchange(tmp_path):
    from cubecg_analysis.model import overlap as mo
    run = {"kind": "run", "overlap_probe": {"status": "measured", "why": None, "work": "spmv",
                                            "result": _probe_result(64.0)}}
    m = mo.load_overlap(_write(tmp_path, "run.json", run))
    assert abs(m["h"] - 0.64) < 1e-12 and m["n_halos"] == 1 and m["thread"]
    assert not m["window_limited"]
    # work shorter than the reduction: the hidden share is bounded by the window, said so
    run["overlap_probe"]["result"] = _probe_result(64.0, t_pure=1e-3, t_cpu=1e-4, setting="none")
    m = mo.load_overlap(_write(tmp_path, "short.json", run))
    assert m["window_limited"] and not m["thread"] and "lower bound" in mo.describe(m)


def test_overlap_from_a_bench_report_takes_the_nth_root(tmp_path):
    from cubecg_analysis.model import overlap as mo
    rows = [dict(_probe_result(h, setting=s), values=n)
            for s, h in (("none", 25.0), ("poll", 49.0)) for n in (1, 2, 3, 41)]
    m = mo.load_overlap(_write(tmp_path, "b.json", {"kind": "overlap", "asdd_iters": 2,
                                                    "rows": rows}))
    # no thread in the launch: the 'none' row of 3 doubles; SpMV + ASDD(2) holds 2 exchanges
    assert m["setting"] == "none" and m["n_halos"] == 2 and abs(m["h"] - 0.5) < 1e-12


def test_overlap_from_refuses_a_probe_that_did_not_run(tmp_path):
    from cubecg_analysis.model import overlap as mo
    run = {"kind": "run", "overlap_probe": {"status": "off", "why": "skipped (--overlap-probe off)"}}
    with pytest.raises(mo.OverlapError, match="off"):
        mo.load_overlap(_write(tmp_path, "off.json", run))
    with pytest.raises(mo.OverlapError, match="kind"):
        mo.load_overlap(_write(tmp_path, "k.json", {"kind": "kernels"}))


def test_measured_h_rms_is_the_fixed_h_error_and_the_fit_is_kept_beside():
    from cubecg_analysis.model import overlap as mo
    res = mp.preset_model("oakforest-pacs")
    goals = mp.preset_goals(res)
    # the fitted h used as if measured gives the in-sample RMS; the LOO RMS stays the fit's
    assert abs(mo.fixed_h_rms(res["inputs"], res["preset"]["cores"], res["h_all"])
               - goals["rms_in"]) < 1e-12
    m = {"h": 1.0, "thread": True, "setting": "thread", "hidden_pct": {"min": 100, "median": 100,
         "max": 100}, "values": 3, "repeats": 8, "n_halos": 1, "window_limited": False,
         "injected_latency_us": 0, "source": "start-up probe (one SpMV)", "where": "x.json"}
    cmp = mo.comparison(res, m)
    assert abs(cmp["fitted_loo_rms"] - goals["rms"]) < 1e-12 and cmp["fitted_h"] == res["h_all"]
    assert cmp["measured_rms"] > cmp["fitted_loo_rms"]  # h = 1 overstates every point
    lines = mo.comparison_lines(cmp, m)
    assert any("MEASURED" in x for x in lines) and any("leave-one-out" in x for x in lines)


def test_model_cli_preset_with_overlap_from(tmp_path, capsys):
    from cubecg_analysis.model import cli as model_cli
    run = {"kind": "run", "overlap_probe": {"status": "measured", "why": None, "work": "spmv",
                                            "result": _probe_result(64.0)}}
    path = _write(tmp_path, "run.json", run)
    assert model_cli.main(["--preset", "oakforest-pacs", "--out", str(tmp_path / "o"),
                           "--overlap-from", path]) == 0
    out = capsys.readouterr().out
    assert "h = 0.640 MEASURED" in out and "fitted h leave-one-out" in out
    assert "Measured overlap" in (tmp_path / "o" / "model.md").read_text(encoding="utf-8")
    assert model_cli.main(["--preset", "oakforest-pacs", "--out", str(tmp_path / "o2"),
                           "--overlap-from", str(tmp_path / "missing.json")]) == 2
