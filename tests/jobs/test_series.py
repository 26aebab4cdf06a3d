"""Series and configurations: which solves form one median, and the noise verdict of a comparison."""
import copy

from conftest import fixture, with_times

from cubecg_analysis import variants as cv
from cubecg_analysis.readers import reports as rp
from cubecg_analysis.readers import series as se


def rows_of(folder):
    return se.solve_rows(rp.load_reports(folder.path))


def test_mpi_family_from_library_or_implementation():
    r = fixture("run_2x1_off.json")
    assert se.mpi_implementation(r) == "mpich"
    r["mpi"]["library"] = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"
    assert se.mpi_implementation(r) == "openmpi"
    r["mpi"]["library"] = "Intel(R) MPI Library 2021.10 for Linux* OS"
    assert se.mpi_implementation(r) == "intel"  # the name cubecg's mpi.implementation gives it
    r["mpi"]["library"] = "MPI VERSION    : CRAY MPICH version 8.1.26.4 (ANL base 3.4a2)"
    assert se.mpi_implementation(r) == "cray-mpich"
    r["mpi"]["library"] = "MVAPICH2 Version 2.3.7 (built on MPICH 3.2)"
    assert se.mpi_implementation(r) == "mvapich"
    r["mpi"]["implementation"] = "openmpi"  # the report's own field wins over the parsed family
    assert se.mpi_implementation(r) == "openmpi"


def test_runs_of_two_mpi_implementations_are_never_merged(folder):
    a = fixture("run_2x1_off.json")
    b = copy.deepcopy(a)
    b["mpi"]["implementation"] = "openmpi"
    folder.write("a.json", with_times(a, {("pcg", "ar"): 1.0}))
    folder.write("b.json", with_times(b, {("pcg", "ar"): 5.0}))
    stats = se.index_stats([r for r in rows_of(folder) if r["variant"] == "pcg/ar"])
    assert sorted((k[se.CONFIG.index("mpi")], st.n, st.med) for k, st in stats.items()) == \
        [("mpich", 1, 1.0), ("openmpi", 1, 5.0)]


def test_precision_splits_the_configuration(folder):
    a = fixture("run_2x1_off.json")
    for prec in ("double", "single", "half"):
        r = copy.deepcopy(a)
        r["preconditioner"]["precision"] = prec
        folder.write(f"{prec}.json", r)
    rows = [r for r in rows_of(folder) if r["variant"] == "pcg/ar"]
    assert sorted(r["precision"] for r in rows) == ["double", "half", "single"]
    assert len(se.index_stats(rows)) == 3
    assert se.rt_label(dict(rows[0], precision="single")).endswith(", single")


def registry_with_plcg(report):
    """The fixture's registry plus a variant with a parameter, as a build that has one writes."""
    plcg = copy.deepcopy(report["available"]["variants"][2])
    plcg.update(name="plcg", description="Alg.5 pipelined(l) PCG")
    report["available"]["variants"].append(plcg)
    return report


def test_label_is_the_series_key(folder):
    for depth in (2, 3):
        r = registry_with_plcg(fixture("run_2x1_off.json"))
        extra = copy.deepcopy([s for s in r["solves"] if s["solver"] == "pipecg"])
        for s in extra:
            s.update(solver="plcg", label=f"plcg-l{depth}", time_s=float(depth))
        r["solves"] += extra
        folder.write(f"l{depth}.json", r)
    rows = rows_of(folder)
    plcg = sorted({r["variant"] for r in rows if r["solver"] == "plcg"})
    assert plcg == ["plcg-l2/ar", "plcg-l2/iar", "plcg-l3/ar", "plcg-l3/iar"]
    assert {r["series"] for r in rows if r["solver"] == "pcg"} == {"pcg"}  # no label: the solver
    assert se.variant_label("plcg-l2/iar") == "Alg.5 l2 IAR"
    assert cv.solver_of("plcg-l3") == "plcg" and cv.color_of("plcg-l3") == cv.COLOR["plcg"]
    assert se.variant_order(["plcg-l2/ar", "pcg/ar", "gropp/iar"]) == ["pcg/ar", "gropp/iar", "plcg-l2/ar"]
    # the two depths never share a median
    st = se.index_stats([r for r in rows if r["series"].startswith("plcg") and r["reduction"] == "ar"])
    assert sorted(s.med for s in st.values()) == [2.0, 3.0]


def test_median_and_range_of_repeats(folder):
    base = fixture("run_2x1_off.json")
    for i, t in enumerate((1.0, 3.0, 2.0)):
        folder.write(f"run_rep{i + 1}.json", with_times(base, {("pcg", "ar"): t}))
    rows = [r for r in rows_of(folder) if r["variant"] == "pcg/ar"]
    assert sorted(r["repeat"] for r in rows) == [1, 2, 3]
    (st,) = se.index_stats(rows).values()
    assert (st.n, st.med, st.lo, st.hi) == (3, 2.0, 1.0, 3.0)
    assert abs(st.spread() - 1.0) < 1e-12  # (max - min) / median


def test_noise_verdict():
    assert se.noise_verdict(se.Stat([1.0, 2.0, 3.0]), se.Stat([2.5, 4.0])) == "within noise"
    assert se.noise_verdict(se.Stat([1.0, 1.1]), se.Stat([2.0, 2.1])) == ""
    assert se.noise_verdict(se.Stat([1.0]), se.Stat([2.0, 2.1])) == "single run"
    assert se.noise_verdict(se.Stat([1.0, 1.2]), None) == "single run"
