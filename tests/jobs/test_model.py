"""The latency-bandwidth model: its inputs are the published data file, its fit of Table 7 is
leave-one-out and meets its goal, and its pieces compute what their formulas say."""
import json
import math

import pytest

from cubecg_analysis import model_preset as mp
from cubecg_analysis import model_report as mr
from cubecg_analysis import published


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
