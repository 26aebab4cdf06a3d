"""The latency-bandwidth model: its inputs are the published data file, its fit of Table 7 is
leave-one-out and meets its goal, and its pieces compute what their formulas say."""
import json
import math

from cubecg_analysis import model_preset as mp
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
