"""Tidy rows and series: one row per solve of every run report, the configuration that keeps runs
apart (never merged into one median), the series key of a solve, and medians of repeats with the
noise verdict of a comparison.

A series is what one line or bar of a figure draws: the solve's "label" when the report gives one
(plcg-l2, sstep-s4), else its solver name, with the reduction (AR / IAR). The configuration adds
the MPI implementation (mpi.implementation, else a family parsed from mpi.library) and the
preconditioner's precision (double | single | half) to mesh, nodes, ranks, threads, progress,
placement, injected latency and checkpoint backend."""
import math
import os
import re
import statistics

from .. import variants as cv
from ..common import num

def progress_label(report):
    """off | poll | on (on-inactive: asked for, but the MPI library did not start the thread)."""
    mpi = report["mpi"]
    if mpi["async_progress_active"]:
        return "on"
    if mpi.get("async_progress_requested"):
        return "on-inactive"
    return "poll" if mpi["progress"] == "poll" else "off"


def placement_of(report, path, progress):
    """The progress-thread placement (Table 6 mapping): topology.placement (version 2), else the
    _pin-NAME the Slurm scripts put into the file name; "" when none was given. A run without a
    progress thread has none."""
    if progress != "on":
        return ""
    topo = report.get("topology") or {}
    name = topo.get("placement")
    if isinstance(name, str) and name:
        return name
    m = re.search(r"_pin-([A-Za-z0-9:,.+-]+?)(?:_|\.json$)", os.path.basename(path))
    if m:
        return m.group(1)
    return ""


# mpi.library's first words -> implementation family, named as cubecg's registry names them in
# mpi.implementation (MVAPICH and Cray MPICH before MPICH: they name it too)
MPI_FAMILIES = (("mvapich", "mvapich"), ("open mpi", "openmpi"), ("intel", "intel"),
                ("cray mpich", "cray-mpich"), ("mpich", "mpich"), ("microsoft", "msmpi"),
                ("spectrum", "spectrum"))


def mpi_implementation(report):
    """mpi.implementation when the report has it, else the family parsed from mpi.library
    ("MPICH Version: 4.0.2" -> mpich, "Open MPI v4.1.4" -> openmpi); "" when neither says."""
    mpi = report.get("mpi") or {}
    impl = mpi.get("implementation")
    if isinstance(impl, str) and impl:
        return impl
    lib = mpi.get("library")
    if not isinstance(lib, str) or not lib.strip():
        return ""
    low = lib.lower()
    for needle, family in MPI_FAMILIES:
        if needle in low:
            return family
    return low.split()[0].strip(":,")


def precision_of(report):
    """preconditioner.precision (double | single | half), else --precond-precision, else double."""
    pc = report.get("preconditioner") or {}
    prec = pc.get("precision") or (report.get("parameters") or {}).get("precond_precision")
    return prec if isinstance(prec, str) and prec else "double"


def series_of(solve):
    """A solve's series key: its "label" when present (plcg-l2, sstep-s4), else the solver."""
    label = solve.get("label")
    return label if isinstance(label, str) and label else solve["solver"]


def run_base(path, r):
    """The per-report part of a row (the configuration of the run)."""
    pb = r["problem"]
    ranks, threads = pb["ranks"], pb["threads"]
    cores = ranks * threads
    topo = r.get("topology")
    if topo:  # version 2: per-host facts from the run itself
        nodes, rpn = topo["nodes"], topo["ranks_per_node_max"]
        oversub, cores_node = topo["oversubscribed"], topo["cores_per_node"]
    else:  # version 1: one node assumed, oversubscription guessed from rank 0's machine
        nodes, rpn = 1, ranks
        cores_node = r["platform"]["cores_online"]
        oversub = cores > cores_node
    progress = progress_label(r)
    return dict(file=path, version=r["cubecg_report_version"],
                mesh=f"{pb['nx']}x{pb['ny']}x{pb['nz']}", nodes=nodes, ranks=ranks,
                threads=threads, cores=cores, ranks_per_node=rpn, cores_per_node=cores_node,
                rt=f"{ranks}x{threads}", layout="flat" if threads == 1 else "hybrid",
                progress=progress, placement=placement_of(r, path, progress),
                latency=num(r["mpi"]["injected_reduction_latency_us"]),
                oversub=bool(oversub), async_threads=bool(r["mpi"]["async_progress_active"]),
                mpi=mpi_implementation(r), precision=precision_of(r))


def solve_rows(reports):
    """One dict per solve of every run report."""
    rows = []
    for path, r in reports:
        if r["kind"] != "run":
            continue
        base = run_base(path, r)
        # a run asked for checkpoints even if a solve reports none (never a baseline then)
        asked = r["parameters"].get("checkpoint") or ""
        if asked == "none":
            asked = ""
        for s in r["solves"]:
            ck = s["checkpoint"]
            series = series_of(s)
            rows.append(dict(base, solver=s["solver"], series=series, reduction=s["reduction"],
                             variant=f"{series}/{s['reduction']}", iterations=s["iterations"],
                             converged=s["converged"], time=num(s["time_s"]),
                             tpi=num(s["time_per_iter_s"]), rel=num(s.get("relative_to_pcg_ar")),
                             breakdown={k: num(v) for k, v in s["breakdown_mean"].items()},
                             ckpt=ck["backend"] if ck else asked, ckpt_info=ck,
                             ops=s.get("ops_per_iteration") or {}))
    # repeat: 1, 2, ... over the reports of one configuration and variant, in file order
    seen = {}
    for row in sorted(rows, key=lambda x: x["file"]):
        k = config_key(row) + (row["variant"],)
        seen[k] = seen.get(k, 0) + 1
        row["repeat"] = seen[k]
    return rows


# a configuration: runs that differ in any of these are never merged into one median
CONFIG = ("mesh", "nodes", "ranks", "threads", "progress", "placement", "latency", "ckpt", "mpi",
          "precision")


def config_key(row, *drop, **override):
    """The configuration of a row as a tuple (fields of CONFIG, minus drop, with overrides)."""
    return tuple(override.get(k, row[k]) for k in CONFIG if k not in drop)


def median_time(rows):
    """Median solve time over repeated reports of one configuration and variant."""
    t = [r["time"] for r in rows if not math.isnan(r["time"])]
    return statistics.median(t) if t else math.nan


class Stat:
    """Median, min, max and count of repeated measurements."""

    def __init__(self, values):
        v = sorted(x for x in values if not math.isnan(x))
        self.n = len(v)
        self.med = statistics.median(v) if v else math.nan
        self.lo = v[0] if v else math.nan
        self.hi = v[-1] if v else math.nan

    def spread(self):
        """(max - min) / median; nan with fewer than two measurements."""
        return (self.hi - self.lo) / self.med if self.n >= 2 and self.med else math.nan


def index_stats(rows, value="time"):
    """{(config..., variant): Stat over the repeats}."""
    groups = {}
    for r in rows:
        groups.setdefault(config_key(r) + (r["variant"],), []).append(r[value])
    return {k: Stat(v) for k, v in groups.items()}


def index_times(rows):
    """{(config..., variant): median time} over repeats."""
    return {k: st.med for k, st in index_stats(rows).items()}


def noise_verdict(a, b):
    """How far a comparison of two sets of repeats can be trusted: "single run" when either side
    ran once (no spread known), "within noise" when their [min, max] ranges overlap, else ""
    (the difference is larger than the run-to-run spread)."""
    if a is None or b is None or a.n < 2 or b.n < 2:
        return "single run"
    if a.lo <= b.hi and b.lo <= a.hi:
        return "within noise"
    return ""


def baseline_variant():
    """Alg.1-AR: the registry's first variant with blocking reductions."""
    return f"{cv.NAMES[0]}/ar"


def variant_order(variants):
    def key(v):
        s, red = v.split("/")
        return (cv.rank_of(s), s, red != "ar", red)
    return sorted(set(variants), key=key)


def variant_label(v):
    s, red = v.split("/")
    return f"{cv.short_of(s)} {red.upper()}"


def config_tag(d):
    """", Open MPI, single" for a run whose MPI or precision is not the default (MPICH, double)."""
    tags = [t for t, default in ((d.get("mpi", ""), "mpich"), (d.get("precision", ""), "double"))
            if t and t != default]
    return "".join(f", {t}" for t in tags)


def rt_label(d):
    return f"{d['ranks']}x{d['threads']}" + (f" on {d['nodes']} nodes" if d["nodes"] > 1 else "") + \
        (" (oversubscribed)" if d.get("oversubscribed") else "") + config_tag(d)


def plain_rows(rows):
    """Runs without checkpoint and injected latency."""
    return [r for r in rows if not r["ckpt"] and (math.isnan(r["latency"]) or r["latency"] == 0)]


pick_reference = plain_rows


def main_mesh(rows):
    """The mesh with the most distinct core counts (a sweep is one mesh)."""
    counts = {}
    for r in rows:
        counts.setdefault(r["mesh"], set()).add(r["cores"])
    return max(sorted(counts), key=lambda m: len(counts[m])) if counts else None


def config_fields(r):
    return dict(mesh=r["mesh"], layout=r["layout"], nodes=r["nodes"], ranks=r["ranks"],
                threads=r["threads"], cores=r["cores"], progress=r["progress"],
                placement=r["placement"], latency_us=0.0 if math.isnan(r["latency"]) else r["latency"],
                mpi=r["mpi"], precision=r["precision"])


def most_common_setup(rows):
    """The rows of the most frequent (MPI implementation, precision): a figure that draws one
    setup never merges another into its medians (tables.md lists every setup)."""
    if not rows:
        return rows
    setups = sorted({(r["mpi"], r["precision"]) for r in rows})
    best = max(setups, key=lambda k: sum((r["mpi"], r["precision"]) == k for r in rows))
    return [r for r in rows if (r["mpi"], r["precision"]) == best]
