#!/usr/bin/env python3
"""analyze.py: tables and figures from cubecg JSON reports (docs/report-schema.md, versions 1, 2).

Reproduces the figures of Nakajima's pipelined-CG / asynchronous-progress study (Figs. 12-18,
Table 7) and of the checkpoint I/O study for the reports under one folder:

  python3 jobs/analyze.py DIR [--force] [--figdir OUT]

Reads every *.json under DIR (recursively), refuses malformed or unknown-version reports (exit 2,
naming the file; version 1 is read and what it lacks is said), prints a table of every solve and
writes into DIR (or OUT), every figure with the data it draws as a CSV of the same stem:
  fig1_speedup.png       speed-up vs cores (Figs. 12/18): every variant against one baseline,
                         Alg.1-AR at the smallest core count n0: n0 x T(pcg/ar, n0) / T(v, n)
  fig2_ar_vs_iar.png     Table 7: median T(Alg.x-AR) / median T(Alg.x-IAR), x = 3, 4
  fig3_progress.png      time of each variant relative to Alg.1-AR by progress (off, on, poll)
  fig4_breakdown.png     time breakdown (SpMV, precond, halo, reduction, AXPY, dot, other)
  fig5_io_bandwidth.png  I/O bandwidth vs file size per backend and rank count (iobench reports)
  io1_size.png ... io5_mapping.png  the I/O study's figures (jobs/analyze_io.py)
  fig6_checkpoint.png    checkpoint overhead per backend, median with min-max, "within noise"
  fig7_placement.png     Table 6 / Fig. 17: one bar per progress-thread placement, never merged
  study.csv              one row per solve of every run report (long format, for pandas)
  speedup.csv, relative.csv, table7.csv, table4.csv, table6.csv   the metrics behind the figures
  tables.md              the tables, with the published values beside them, labelled published
Repeated reports of one configuration (jobs/run-local.sh --repeat N, CUBECG_REPEAT) are drawn as
the median with min-max bars. A configuration is mesh, nodes, ranks, threads, progress setting,
progress-thread placement, injected latency and checkpoint backend: runs that differ in any of
these are never merged.
An existing file is never overwritten silently: without --force the new one gets a free name
(fig1_speedup-2.png, ...) and the output says so. Python 3 + matplotlib (Agg) only.
"""
import argparse
import csv
import io
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cubecg_variants as cv  # noqa: E402  (same folder: the variants of cubecg's registry)

REPORT_VERSION = 2  # newest version read; REPORT_VERSIONS are all read
REPORT_VERSIONS = (1, 2)
# what a version-1 report does not carry (said once per analysis when such reports are read)
V1_LACKS = ("topology (node count, ranks per node, cores per node, hosts, oversubscription per "
            "host, CPU affinity, progress-thread placement), build.launcher and build.git_commit: "
            "nodes are taken as 1, oversubscription as ranks x threads > rank 0's cores_online, "
            "and the placement from the file name (_pin-NAME) only")
KINDS = ("run", "iobench", "kernels", "gasbench")
FIG_SIZE_IN = (10.0, 6.0)  # every figure is FIG_SIZE_IN x FIG_DPI pixels: 1000 x 600
FIG_DPI = 100
FIGURES = {
    1: "fig1_speedup.png",
    2: "fig2_ar_vs_iar.png",
    3: "fig3_progress.png",
    4: "fig4_breakdown.png",
    5: "fig5_io_bandwidth.png",
    6: "fig6_checkpoint.png",
    7: "fig7_placement.png",
}
# the variants as cubecg's registry lists them (the reports' "available"; jobs/cubecg_variants.py)
SOLVERS = cv.NAMES
SOLVER_LABEL = cv.LABEL
SOLVER_SHORT = cv.SHORT
SOLVER_COLOR = cv.COLOR
PROGRESS_ORDER = ("off", "poll", "on")
PROGRESS_COLOR = {"off": "tab:blue", "poll": "tab:orange", "on": "tab:green"}
# halo_wait / precond_halo_wait: blocked for the halo messages (issue 15; older reports count the
# wait inside halo / precond_halo and lack these keys)
BREAKDOWN = ("spmv", "precond", "precond_halo", "precond_halo_wait", "halo", "halo_wait",
             "reduction", "axpy", "dot", "other")
BREAKDOWN_LABEL = {"spmv": "SpMV", "precond": "preconditioner", "precond_halo": "ASDD halo",
                   "precond_halo_wait": "ASDD halo wait", "halo": "SpMV halo",
                   "halo_wait": "SpMV halo wait", "reduction": "reduction wait", "axpy": "AXPY",
                   "dot": "dot (local)", "checkpoint": "checkpoint stall", "other": "other"}
BACKEND_COLOR = {"posix": "tab:blue", "uring": "tab:orange", "offload": "tab:green",
                 "hdf5": "tab:purple"}
# Table 7 of the study (Oakforest-PACS, 512x256x256): T(Alg.x-AR) / T(Alg.x-IAR), progress thread
# on in both runs (../shared/reference-results.md)
PAPER_TABLE7 = {"cores": [8192, 16384, 32768, 65536, 131072, 262144],
                "pipecg": [1.03, 1.13, 1.05, 1.06, 1.08, 1.19],
                "gropp": [1.06, 1.21, 1.20, 1.25, 1.34, 1.38]}
# Table 4 of the study: share of MPI_Allreduce in Alg.1's CG loop (Oakforest-PACS, strong scaling)
PAPER_TABLE4 = {8192: (15.34, 2.26, 0.1475), 16384: (9.89, 1.56, 0.1573), 32768: (7.29, 1.89, 0.2594),
                65536: (5.93, 2.32, 0.3915), 131072: (6.53, 3.88, 0.5950)}
# Table 6 of the study: progress-thread placements on 32 KNL nodes (mapping -> description)
PAPER_TABLE6 = [("1", "no progress thread", "(off)"), ("2", "default", "271 down to 264"),
                ("3", "last tile", "66,67,134,135,202,203,270,271"),
                ("4", "3rd hardware thread of each MPI process", "138,146,...,192"),
                ("5", "4th hardware thread of each MPI process", "206,214,...,262"),
                ("6", "first tile", "0,1,68,69,136,137,204,205"),
                ("7", "first and last tiles", "0,1,68,69,66,67,134,135")]


class ReportError(Exception):
    """A report that cannot be used; the message names the file."""


# ---------------------------------------------------------------- loading and validation


def _get(obj, dotted):
    for part in dotted.split("."):
        if not isinstance(obj, dict) or part not in obj:
            raise KeyError(dotted)
        obj = obj[part]
    return obj


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# required keys per kind: (dotted path, type) with type "num", "num?" (number or null),
# "int", "bool", "str", "list", "dict", "any"
REQUIRED = {
    "run": [("parameters", "dict"), ("problem.nx", "int"), ("problem.ny", "int"),
            ("problem.nz", "int"), ("problem.ranks", "int"), ("problem.threads", "int"),
            ("mpi.async_progress_active", "bool"), ("mpi.progress", "str"),
            ("mpi.injected_reduction_latency_us", "num"), ("platform.cores_online", "int"),
            ("solves", "list")],
    "solve": [("solver", "str"), ("reduction", "str"), ("iterations", "int"),
              ("converged", "bool"), ("time_s", "num"), ("time_per_iter_s", "num?"),
              ("breakdown_mean", "dict"), ("checkpoint", "any")]
    + [("breakdown_mean." + k, "num?") for k in BREAKDOWN if not k.endswith("_wait")],
    "checkpoint": [("backend", "str"), ("count", "int"), ("stall_s", "num?"), ("write_s", "num?"),
                   ("bytes", "int")],
    "topology": [("topology.nodes", "int"), ("topology.ranks_per_node_min", "int"),
                 ("topology.ranks_per_node_max", "int"), ("topology.cores_per_node", "int"),
                 ("topology.hosts", "int"), ("topology.oversubscribed", "bool")],
    "iobench": [("ranks", "int"), ("results", "list")],
    "ioresult": [("backend", "str"), ("op", "str"), ("size_bytes", "int"), ("ranks", "int"),
                 ("buffer_bytes", "int"), ("aggregate_bytes_per_s.median", "num"),
                 ("aggregate_bytes_per_s.min", "num?"), ("aggregate_bytes_per_s.max", "num?")],
    "kernels": [("ranks", "int"), ("threads", "int"), ("nx", "int"), ("ny", "int"), ("nz", "int"),
                ("stream_triad_bytes_per_s", "num?"), ("kernels", "list")],
    "kernel": [("name", "str"), ("seconds", "num?"), ("bytes", "num"), ("bytes_per_s", "num?")],
}


def _check(obj, spec, where):
    for path, kind in REQUIRED[spec]:
        try:
            v = _get(obj, path)
        except KeyError:
            raise ReportError(f"{where}: required key '{path}' is missing") from None
        ok = {"num": _is_num(v), "num?": v is None or _is_num(v),
              "int": isinstance(v, int) and not isinstance(v, bool), "bool": isinstance(v, bool),
              "str": isinstance(v, str), "list": isinstance(v, list), "dict": isinstance(v, dict),
              "any": True}[kind]
        if not ok:
            raise ReportError(f"{where}: key '{path}' = {json.dumps(v)[:40]} is not of type {kind}")


def validate(report, path):
    """Raise ReportError (naming the file) unless report is a usable version-1 or -2 report."""
    if not isinstance(report, dict) or "cubecg_report_version" not in report:
        raise ReportError(f"{path}: not a cubecg report (no 'cubecg_report_version')")
    version = report["cubecg_report_version"]
    if version not in REPORT_VERSIONS or isinstance(version, bool):
        raise ReportError(f"{path}: cubecg_report_version {json.dumps(version)}, this analyzer "
                          f"reads versions {', '.join(map(str, REPORT_VERSIONS))}")
    kind = report.get("kind")
    if kind not in KINDS:
        raise ReportError(f"{path}: unknown kind {json.dumps(kind)} (expected one of {', '.join(KINDS)})")
    if kind == "gasbench":  # drawn by jobs/analyze_gas.py, which checks its rows itself
        if not isinstance(report.get("results"), list):
            raise ReportError(f"{path}: gasbench report without a 'results' list")
        return
    _check(report, kind, path)
    if version >= 2 and kind == "run":
        _check(report, "topology", path)
    if kind == "run":
        if not report["solves"]:
            raise ReportError(f"{path}: run report with an empty 'solves' list")
        for i, s in enumerate(report["solves"]):
            _check(s, "solve", f"{path}: solves[{i}]")
            if s["checkpoint"] is not None:
                _check(s["checkpoint"], "checkpoint", f"{path}: solves[{i}].checkpoint")
    elif kind == "iobench":
        for i, r in enumerate(report["results"]):
            _check(r, "ioresult", f"{path}: results[{i}]")
    else:
        for i, k in enumerate(report["kernels"]):
            _check(k, "kernel", f"{path}: kernels[{i}]")


def load_reports(folder):
    """All reports under folder as (path, dict), validated. Raises ReportError."""
    if not os.path.isdir(folder):
        raise ReportError(f"{folder}: not a directory")
    paths = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        paths += [os.path.join(root, f) for f in sorted(files) if f.endswith(".json")]
    if not paths:
        raise ReportError(f"{folder}: no cubecg reports (*.json) found; run jobs/run-local.sh "
                          "or point analyze.py at a results folder")
    reports = []
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                data = json.load(f)
        except json.JSONDecodeError as e:
            raise ReportError(f"{p}: malformed JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
        except (OSError, UnicodeDecodeError) as e:
            raise ReportError(f"{p}: cannot read ({e})") from None
        validate(data, p)
        if data.get("kind", "run") == "run" and (data.get("in_progress") or data.get("interrupted")):
            # a partial report (the run was killed, or stopped by a signal): its solves are not
            # whole runs, so it never enters a median
            print(f"analyze.py: {p}: skipped, the run did not finish "
                  f"({'interrupted by ' + str(data.get('signal')) if data.get('interrupted') else 'in progress'})",
                  file=sys.stderr)
            continue
        reports.append((p, data))
    if not reports:
        raise ReportError(f"{folder}: every report is partial (in progress or interrupted)")
    try:
        cv.use_reports(reports)
    except cv.VariantsError as e:
        raise ReportError(str(e)) from None
    return reports


def version_notes(reports):
    """One line per report version that lacks something the analysis uses (version 1)."""
    v1 = [p for p, r in reports if r["cubecg_report_version"] == 1 and r["kind"] != "gasbench"]
    if not v1:
        return []
    return [f"analyze.py: {len(v1)} version-1 report(s) (e.g. {os.path.basename(v1[0])}) lack "
            f"{V1_LACKS}"]


# ---------------------------------------------------------------- tidy rows


def num(v):
    return float(v) if _is_num(v) else math.nan


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


def solve_rows(reports):
    """One dict per solve of every run report."""
    rows = []
    for path, r in reports:
        if r["kind"] != "run":
            continue
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
        base = dict(file=path, version=r["cubecg_report_version"],
                    mesh=f"{pb['nx']}x{pb['ny']}x{pb['nz']}", nodes=nodes, ranks=ranks,
                    threads=threads, cores=cores, ranks_per_node=rpn, cores_per_node=cores_node,
                    rt=f"{ranks}x{threads}", layout="flat" if threads == 1 else "hybrid",
                    progress=progress, placement=placement_of(r, path, progress),
                    latency=num(r["mpi"]["injected_reduction_latency_us"]),
                    oversub=bool(oversub), async_threads=bool(r["mpi"]["async_progress_active"]))
        # a run asked for checkpoints even if a solve reports none (never a baseline then)
        asked = r["parameters"].get("checkpoint") or ""
        if asked == "none":
            asked = ""
        for s in r["solves"]:
            ck = s["checkpoint"]
            row = dict(base, solver=s["solver"], reduction=s["reduction"],
                       variant=f"{s['solver']}/{s['reduction']}", iterations=s["iterations"],
                       converged=s["converged"], time=num(s["time_s"]),
                       tpi=num(s["time_per_iter_s"]), rel=num(s.get("relative_to_pcg_ar")),
                       breakdown={k: num(v) for k, v in s["breakdown_mean"].items()},
                       ckpt=ck["backend"] if ck else asked, ckpt_info=ck,
                       ops=s.get("ops_per_iteration") or {})
            rows.append(row)
    # repeat: 1, 2, ... over the reports of one configuration and variant, in file order
    seen = {}
    for row in sorted(rows, key=lambda x: x["file"]):
        k = config_key(row) + (row["variant"],)
        seen[k] = seen.get(k, 0) + 1
        row["repeat"] = seen[k]
    return rows


# a configuration: runs that differ in any of these are never merged into one median
CONFIG = ("mesh", "nodes", "ranks", "threads", "progress", "placement", "latency", "ckpt")


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


def baseline_variant():
    """Alg.1-AR: the registry's first variant with blocking reductions."""
    return f"{SOLVERS[0]}/ar"


def variant_order(variants):
    def key(v):
        s, red = v.split("/")
        return (SOLVERS.index(s) if s in SOLVERS else 9, s, red != "ar", red)
    return sorted(set(variants), key=key)


def variant_label(v):
    s, red = v.split("/")
    return f"{SOLVER_SHORT.get(s, s)} {red.upper()}"


def fmt_lat(lat):
    return "0" if math.isnan(lat) or lat == 0 else f"{lat:g}"


# ---------------------------------------------------------------- text table


def print_table(rows, reports, out=sys.stdout):
    head = (f"{'mesh':>11} {'nodes':>5} {'RxT':>6} {'layout':>6} {'progress':>11} {'placement':>9} "
            f"{'lat_us':>6} {'ckpt':>7} "
            f"{'flags':>7} {'variant':>11} {'iters':>5} {'conv':>4} {'time_s':>9} {'ms/iter':>8} "
            f"{'vs A1':>6}")
    print(head, file=out)
    print("-" * len(head), file=out)
    vorder = variant_order(r["variant"] for r in rows)
    order = sorted(rows, key=lambda r: (r["mesh"], r["cores"], r["nodes"], r["threads"], r["latency"],
                                        r["ckpt"], PROGRESS_ORDER.index(r["progress"])
                                        if r["progress"] in PROGRESS_ORDER else 9, r["progress"],
                                        r["placement"], vorder.index(r["variant"]), r["repeat"]))
    for r in order:
        flags = "oversub" if r["oversub"] else ""
        rel = "" if math.isnan(r["rel"]) or r["rel"] < 0 else f"{r['rel']:.3f}"
        print(f"{r['mesh']:>11} {r['nodes']:>5} {r['rt']:>6} {r['layout']:>6} {r['progress']:>11} "
              f"{r['placement'] or '-':>9} {fmt_lat(r['latency']):>6} {r['ckpt'] or '-':>7} {flags:>7} "
              f"{variant_label(r['variant']):>11} {r['iterations']:>5} "
              f"{'yes' if r['converged'] else 'NO':>4} {r['time']:>9.4f} {1e3 * r['tpi']:>8.3f} "
              f"{rel:>6}", file=out)
    n = {k: sum(1 for _, r in reports if r["kind"] == k) for k in KINDS}
    print(f"({n['run']} run, {n['iobench']} iobench, {n['kernels']} kernels report(s); "
          f"'vs A1' = time per iteration / Alg.1 AR of the same run; 'oversub' = more ranks x "
          f"threads than cores on a host (version 2: the report's topology.oversubscribed))", file=out)


# ---------------------------------------------------------------- figure helpers


class FigureWriter:
    """Saves figures without overwriting: a taken name gets -2, -3, ... unless force."""

    def __init__(self, outdir, force):
        self.outdir, self.force, self.written = outdir, force, []

    def target(self, name):
        path = os.path.join(self.outdir, name)
        if self.force or not os.path.exists(path):
            return path
        stem, ext = os.path.splitext(name)
        i = 2
        while os.path.exists(os.path.join(self.outdir, f"{stem}-{i}{ext}")):
            i += 1
        new = os.path.join(self.outdir, f"{stem}-{i}{ext}")
        print(f"  {path} exists; writing {new} instead (use --force to overwrite)")
        return new

    def save(self, fig, name, what, data=None):
        """The figure as PNG and, given data (a list of dicts), the data it draws as a CSV of the
        same stem beside it."""
        import matplotlib.pyplot as plt
        path = self.target(name)
        fig.savefig(path, dpi=FIG_DPI)
        plt.close(fig)
        self.written.append(path)
        print(f"  wrote {path}: {what}")
        if data is not None:
            self.write_csv(os.path.splitext(path)[0] + ".csv", data, f"data of {os.path.basename(path)}")
        return path

    def write_csv(self, path, data, what):
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(csv_text(data))
        self.written.append(path)
        print(f"  wrote {path}: {what}")

    def csv(self, name, data, what):
        self.write_csv(self.target(name), data, what)

    def text(self, name, content, what):
        path = self.target(name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        self.written.append(path)
        print(f"  wrote {path}: {what}")


def csv_cell(v):
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


def csv_text(data):
    """A list of dicts (same keys) as CSV text; the header from the first row's keys."""
    buf = io.StringIO()
    if data:
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(list(data[0]))
        for d in data:
            w.writerow([csv_cell(d.get(k)) for k in data[0]])
    return buf.getvalue()


def new_figure(nrows=1, ncols=1, **kw):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(nrows, ncols, figsize=FIG_SIZE_IN, squeeze=False, **kw)
    return fig, axes


def grid_for(n):
    return {1: (1, 1), 2: (1, 2), 3: (1, 3), 4: (2, 2)}.get(n, (2, 3))


def skip(num_, why):
    print(f"  figure {num_} ({FIGURES[num_]}) skipped: {why}")


def pick_reference(rows):
    """Rows of the plain runs: no checkpoint, no injected latency, async off when available."""
    plain = [r for r in rows if not r["ckpt"] and (math.isnan(r["latency"]) or r["latency"] == 0)]
    return plain


def main_mesh(rows):
    """The mesh with the most distinct core counts (a sweep is one mesh)."""
    counts = {}
    for r in rows:
        counts.setdefault(r["mesh"], set()).add(r["cores"])
    return max(sorted(counts), key=lambda m: len(counts[m])) if counts else None


# ---------------------------------------------------------------- the paper's metrics


def plain_rows(rows):
    """Runs without checkpoint and injected latency."""
    return [r for r in rows if not r["ckpt"] and (math.isnan(r["latency"]) or r["latency"] == 0)]


def config_fields(r):
    return dict(mesh=r["mesh"], layout=r["layout"], nodes=r["nodes"], ranks=r["ranks"],
                threads=r["threads"], cores=r["cores"], progress=r["progress"],
                placement=r["placement"], latency_us=0.0 if math.isnan(r["latency"]) else r["latency"])


def speedup_data(rows):
    """Figs. 12/18: speedup(v, n) = n0 x T(pcg/ar, n0) / T(v, n) with one baseline per mesh,
    progress setting and placement: Alg.1-AR at the smallest core count n0, taken from the flat
    run (threads = 1) when there is one, the same for the flat and the hybrid panel. Medians over
    repeats; speedup_min / speedup_max from the slowest / fastest repeat of T(v, n)."""
    plain = plain_rows(rows)
    stats = index_stats(plain)
    out = []
    for grp in sorted({(r["mesh"], r["progress"], r["placement"]) for r in plain}):
        sel = [r for r in plain if (r["mesh"], r["progress"], r["placement"]) == grp]
        base = [r for r in sel if r["variant"] == baseline_variant()]
        if not base:
            continue
        n0 = min(r["cores"] for r in base)
        cand = sorted((r for r in base if r["cores"] == n0),
                      key=lambda r: (r["threads"] != 1, r["nodes"], r["ranks"]))
        b = cand[0]
        t0 = stats[config_key(b) + (baseline_variant(),)].med
        seen = set()
        for r in sorted(sel, key=lambda r: (r["cores"], r["nodes"], r["threads"], r["variant"])):
            k = config_key(r) + (r["variant"],)
            if k in seen:
                continue
            seen.add(k)
            st = stats[k]
            out.append(dict(config_fields(r), solver=r["solver"], reduction=r["reduction"],
                            speedup=n0 * t0 / st.med, speedup_min=n0 * t0 / st.hi,
                            speedup_max=n0 * t0 / st.lo, repeats=st.n, time_s=st.med,
                            baseline_cores=n0, baseline_rt=b["rt"], baseline_nodes=b["nodes"],
                            baseline_time_s=t0, oversubscribed=r["oversub"]))
    return out


def relative_data(rows):
    """Figs. 13/16: performance relative to Alg.1-AR of the same configuration,
    T(pcg/ar) / T(v) (> 1: faster than Alg.1-AR), medians over repeats."""
    runs = [r for r in rows if not r["ckpt"]]
    stats = index_stats(runs)
    out, seen = [], set()
    for r in sorted(runs, key=lambda r: (r["mesh"], r["latency"], r["cores"], r["nodes"], r["threads"],
                                         r["progress"], r["placement"], r["variant"])):
        k = config_key(r) + (r["variant"],)
        base = stats.get(config_key(r) + (baseline_variant(),))
        if k in seen or base is None:
            continue
        seen.add(k)
        st = stats[k]
        out.append(dict(config_fields(r), solver=r["solver"], reduction=r["reduction"],
                        relative=base.med / st.med, relative_min=base.med / st.hi,
                        relative_max=base.med / st.lo, repeats=st.n, oversubscribed=r["oversub"]))
    return out


def table7_data(rows):
    """Table 7: ar_over_iar = median T(Alg.x-AR) / median T(Alg.x-IAR) of the same solver, mesh,
    layout, nodes, progress setting and placement; min/max from the extreme repeats."""
    runs = [r for r in rows if not r["ckpt"]]
    stats = index_stats(runs)
    out, seen = [], set()
    for r in sorted(runs, key=lambda r: (r["mesh"], r["latency"], r["cores"], r["nodes"], r["threads"],
                                         PROGRESS_ORDER.index(r["progress"])
                                         if r["progress"] in PROGRESS_ORDER else 9, r["placement"])):
        for s in SOLVERS:
            k = config_key(r) + (s,)
            ar, iar = stats.get(config_key(r) + (f"{s}/ar",)), stats.get(config_key(r) + (f"{s}/iar",))
            if k in seen or ar is None or iar is None:
                continue
            seen.add(k)
            out.append(dict(cores=r["cores"], nodes=r["nodes"], progress=r["progress"], solver=s,
                            ar_over_iar=ar.med / iar.med, ar_over_iar_min=ar.lo / iar.hi,
                            ar_over_iar_max=ar.hi / iar.lo, mesh=r["mesh"], layout=r["layout"],
                            ranks=r["ranks"], threads=r["threads"], placement=r["placement"],
                            latency_us=0.0 if math.isnan(r["latency"]) else r["latency"],
                            time_ar_s=ar.med, time_iar_s=iar.med, repeats_ar=ar.n, repeats_iar=iar.n,
                            oversubscribed=r["oversub"]))
    return out


def table4_data(rows):
    """Table 4: share of the reduction wait in the solve per variant and configuration,
    median over repeats of breakdown_mean.reduction / time_s; the published Alg.1 share beside it
    where the core count is one of Table 4's."""
    runs = [dict(r, share=r["breakdown"].get("reduction", math.nan) / r["time"]
                 if r["time"] else math.nan,
                 red_s=r["breakdown"].get("reduction", math.nan)) for r in rows if not r["ckpt"]]
    share, red = index_stats(runs, "share"), index_stats(runs, "red_s")
    times = index_stats(runs)
    out, seen = [], set()
    for r in sorted(runs, key=lambda r: (r["mesh"], r["latency"], r["cores"], r["nodes"], r["threads"],
                                         r["progress"], r["placement"], r["variant"])):
        k = config_key(r) + (r["variant"],)
        if k in seen:
            continue
        seen.add(k)
        pub = PAPER_TABLE4.get(r["cores"]) if r["variant"] == baseline_variant() else None
        out.append(dict(config_fields(r), solver=r["solver"], reduction=r["reduction"],
                        reduction_s=red[k].med, solve_s=times[k].med, reduction_share=share[k].med,
                        reduction_share_min=share[k].lo, reduction_share_max=share[k].hi,
                        repeats=share[k].n, published_share=pub[2] if pub else math.nan))
    return out


def table6_data(rows):
    """Table 6 / Fig. 17: one entry per progress-thread placement, never merged:
    gain = median T(progress off) / median T(progress on, placement) of the same configuration
    and variant; the off run itself is mapping 1 (gain 1)."""
    runs = [r for r in rows if not r["ckpt"]]
    stats = index_stats(runs)
    out, seen = [], set()
    for r in sorted(runs, key=lambda r: (r["mesh"], r["latency"], r["cores"], r["nodes"], r["threads"],
                                         r["variant"], r["placement"])):
        if r["progress"] != "on":
            continue
        k = config_key(r) + (r["variant"],)
        off = stats.get(config_key(r, progress="off", placement="") + (r["variant"],))
        if k in seen or off is None:
            continue
        seen.add(k)
        st = stats[k]
        out.append(dict(config_fields(r), solver=r["solver"], reduction=r["reduction"],
                        placement_name=r["placement"] or "default (not given)",
                        gain_over_off=off.med / st.med, gain_min=off.lo / st.hi,
                        gain_max=off.hi / st.lo, time_s=st.med, time_off_s=off.med, repeats=st.n,
                        repeats_off=off.n))
    return out


def yerr(vals, lo, hi):
    """Error bars (min-max around the median) for matplotlib."""
    return [[max(0.0, v - a) if not math.isnan(a) else 0.0 for v, a in zip(vals, lo)],
            [max(0.0, b - v) if not math.isnan(b) else 0.0 for v, b in zip(vals, hi)]]


# ---------------------------------------------------------------- figure 1: speed-up


def fig_speedup(rows, fw):
    data = speedup_data(rows)
    progress = "off" if any(d["progress"] == "off" for d in data) else None
    sel = [d for d in data if progress is None or d["progress"] == progress]
    counts = {}
    for d in sel:
        counts.setdefault(d["mesh"], set()).add(d["cores"])
    mesh = max(sorted(counts), key=lambda m: len(counts[m])) if counts else None
    sel = [d for d in sel if d["mesh"] == mesh and not d["placement"]] or \
        [d for d in sel if d["mesh"] == mesh]
    if len({d["cores"] for d in sel}) < 2:
        return skip(1, "needs plain runs (no latency, no checkpoint) at two or more core counts")
    layouts = [lay for lay in ("flat", "hybrid") if any(d["layout"] == lay and d["cores"] > 1 for d in sel)]
    fig, axes = new_figure(1, len(layouts))
    variants = variant_order(f"{d['solver']}/{d['reduction']}" for d in sel)
    drawn = []
    for ax, lay in zip(axes[0], layouts):
        # a 1x1 run belongs to both layouts' series
        pts = [d for d in sel if d["layout"] == lay or d["cores"] == 1]
        cores_all = sorted({d["cores"] for d in pts})
        for v in variants:
            s, red = v.split("/")
            mine = [d for d in pts if (d["solver"], d["reduction"]) == (s, red)]
            # the line: at each core count the fewest nodes (the best ranks x threads there);
            # other node counts at the same core count are drawn apart, never merged
            line, apart = [], []
            for c in cores_all:
                at = [d for d in mine if d["cores"] == c]
                if not at:
                    continue
                fewest = min(d["nodes"] for d in at)
                best = max((d for d in at if d["nodes"] == fewest), key=lambda d: d["speedup"])
                line.append(best)
                apart += [d for d in at if d["nodes"] != fewest]
            if not line:
                continue
            color = SOLVER_COLOR.get(s)
            style = "-" if red == "ar" else "--"
            xs = [d["cores"] for d in line]
            ys = [d["speedup"] for d in line]
            ax.errorbar(xs, ys, yerr=yerr(ys, [d["speedup_min"] for d in line],
                                          [d["speedup_max"] for d in line]),
                        marker="o", capsize=3, color=color, linestyle=style, label=variant_label(v))
            drawn += [dict(d, panel=lay, drawn_as="line") for d in line]
            for d in apart:
                ax.errorbar([d["cores"]], [d["speedup"]],
                            yerr=yerr([d["speedup"]], [d["speedup_min"]], [d["speedup_max"]]),
                            marker="s", mfc="none", capsize=3, color=color, linestyle="none")
                ax.annotate(f"{d['nodes']} nodes", (d["cores"], d["speedup"]), fontsize=6,
                            xytext=(4, -8), textcoords="offset points")
                drawn.append(dict(d, panel=lay, drawn_as=f"apart ({d['nodes']} nodes)"))
        c0, c1 = cores_all[0], cores_all[-1]
        ax.plot([c0, c1], [c0, c1], color="black", linewidth=1, label="ideal")
        over = [c for c in cores_all if any(d["oversubscribed"] for d in pts if d["cores"] == c)]
        if over:
            ax.axvspan(min(over) - 0.5, c1 + 0.5, color="grey", alpha=0.15, label="oversubscribed")
        if c1 / c0 >= 8:
            ax.set_xscale("log", base=2)
            ax.set_yscale("log", base=2)
        b = sel[0]
        ax.set_xlabel("cores (ranks x threads)")
        ax.set_ylabel(f"speed-up: {b['baseline_cores']} x T(Alg.1 AR, {b['baseline_rt']}) / T", fontsize=8)
        ax.set_title(f"{lay}{' MPI' if lay == 'flat' else ' MPI+OpenMP'}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    reps = max(d["repeats"] for d in sel)
    fig.suptitle(f"Strong scaling, mesh {mesh} nodes, progress {progress or 'any'}: every variant against "
                 f"Alg.1 AR at {sel[0]['baseline_cores']} core(s) (cf. Figs. 12/18)\n"
                 + (f"median of up to {reps} repeats, bars min-max" if reps > 1 else
                    "one run per point (no repeats: no spread shown)"), fontsize=10)
    fig.tight_layout()
    fw.save(fig, FIGURES[1], "speed-up vs cores, one Alg.1-AR baseline for every variant", drawn)


# ---------------------------------------------------------------- figure 2: AR vs IAR


def fig_ar_iar(rows, fw):
    data = [d for d in table7_data(rows) if d["solver"] in ("pipecg", "gropp")]
    if not data:
        return skip(2, "no run with both AR and IAR for Alg.3 or Alg.4 (--reduction all)")
    configs = []
    for d in data:
        c = (d["mesh"], d["cores"], d["nodes"], d["ranks"], d["threads"], d["latency_us"], d["progress"],
             d["placement"])
        if c not in configs:
            configs.append(c)
    fig, axes = new_figure()
    ax = axes[0][0]
    w = 0.38
    for i, s in enumerate(("pipecg", "gropp")):
        xs, ys, lo, hi = [], [], [], []
        for j, c in enumerate(configs):
            m = [d for d in data if d["solver"] == s and (d["mesh"], d["cores"], d["nodes"], d["ranks"],
                                                          d["threads"], d["latency_us"], d["progress"],
                                                          d["placement"]) == c]
            if m:
                xs.append(j + (i - 0.5) * w)
                ys.append(m[0]["ar_over_iar"])
                lo.append(m[0]["ar_over_iar_min"])
                hi.append(m[0]["ar_over_iar_max"])
        ax.bar(xs, ys, width=w, color=SOLVER_COLOR[s], label=SOLVER_LABEL[s], yerr=yerr(ys, lo, hi),
               capsize=2)
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xticks(range(len(configs)))
    ax.set_xticklabels([f"{c[3]}x{c[4]}" + (f" {c[2]}n" if c[2] > 1 else "") + f"\n{c[6]}"
                        + (f" {c[7]}" if c[7] else "") + (f"\nlat {fmt_lat(c[5])}" if c[5] else "")
                        for c in configs], fontsize=7 if len(configs) > 8 else 9)
    ax.set_ylabel("median T(AR) / median T(IAR)  (> 1: IAR faster)")
    ax.set_xlabel("ranks x threads (nodes), progress setting (placement), injected latency [us]")
    reps = max(max(d["repeats_ar"], d["repeats_iar"]) for d in data)
    ax.set_title("Table 7: AR vs IAR of the same solver, Alg.3 and Alg.4 (published: progress on)\n"
                 + ("bars: min-max over repeats" if reps > 1 else "one run each (no spread shown)"),
                 fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fw.save(fig, FIGURES[2], "Table 7: T(AR)/T(IAR) for Alg.3/4 per configuration", data)


# ---------------------------------------------------------------- figure 3: progress settings


def fig_progress(rows, fw):
    rel = relative_data(rows)
    groups = {}
    for d in rel:
        groups.setdefault((d["mesh"], d["nodes"], d["ranks"], d["threads"], d["latency_us"]), set()).add(
            (d["progress"], d["placement"]))
    chosen = [g for g in groups if len(groups[g]) >= 2]
    chosen.sort(key=lambda g: (g[4] != 0, -(g[2] * g[3]), g[1], g[3], g[4]))
    if not chosen:
        return skip(3, "no configuration run with two or more progress settings (off/on/poll)")
    dropped = chosen[6:]
    chosen = chosen[:6]
    nr, nc = grid_for(len(chosen))
    fig, axes = new_figure(nr, nc)
    flat_axes = [a for row in axes for a in row]
    legend, drawn = {}, []
    for ax, g in zip(flat_axes, chosen):
        mesh, nodes, ranks, threads, lat = g
        settings = sorted(groups[g], key=lambda p: (PROGRESS_ORDER.index(p[0])
                                                    if p[0] in PROGRESS_ORDER else 9, p))
        sel = [d for d in rel if (d["mesh"], d["nodes"], d["ranks"], d["threads"], d["latency_us"]) == g]
        variants = variant_order(f"{d['solver']}/{d['reduction']}" for d in sel)
        w = 0.8 / len(settings)
        for i, (p, pl) in enumerate(settings):
            ys, lo, hi = [], [], []
            for v in variants:
                m = [d for d in sel if (d["progress"], d["placement"]) == (p, pl)
                     and f"{d['solver']}/{d['reduction']}" == v]
                ys.append(m[0]["relative"] if m else math.nan)
                lo.append(m[0]["relative_min"] if m else math.nan)
                hi.append(m[0]["relative_max"] if m else math.nan)
                drawn += m
            label = f"progress {p}" + (f" ({pl})" if pl else "")
            ax.bar([j + (i - (len(settings) - 1) / 2) * w for j in range(len(variants))], ys,
                   width=w, label=label, color=PROGRESS_COLOR.get(p) if not pl else None,
                   yerr=yerr(ys, lo, hi), capsize=2)
            legend[label] = ax.containers[-1]
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels([variant_label(v) for v in variants], rotation=45, fontsize=7)
        ax.set_title(f"{ranks}x{threads}" + (f" on {nodes} nodes" if nodes > 1 else "")
                     + f", lat {fmt_lat(lat)} us", fontsize=9)
        ax.set_ylabel("T(Alg.1 AR) / T (same setting)", fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    for ax in flat_axes[len(chosen):]:
        ax.axis("off")
    fig.legend(list(legend.values()), list(legend), loc="upper right", fontsize=8)
    fig.suptitle("Performance relative to Alg.1 AR of the same run, by progress setting "
                 "(cf. Figs. 13/16; > 1: faster)")
    fig.tight_layout(rect=(0, 0, 0.86, 1))
    fw.save(fig, FIGURES[3], "performance relative to Alg.1 AR per variant and progress setting", drawn)
    if dropped:
        print(f"  figure 3: {len(dropped)} further configuration(s) not drawn (see relative.csv)")


# ---------------------------------------------------------------- figure 7: placements (Table 6)


def fig_placement(rows, fw):
    data = table6_data(rows)
    if not data:
        return skip(7, "no run with the progress thread on beside the same run with it off")
    groups = []
    for d in data:
        g = (d["mesh"], d["nodes"], d["ranks"], d["threads"], d["latency_us"])
        if g not in groups:
            groups.append(g)
    groups = sorted(groups, key=lambda g: (g[4] != 0, -(g[2] * g[3]), g[1]))[:4]
    nr, nc = grid_for(len(groups))
    fig, axes = new_figure(nr, nc)
    flat_axes = [a for row in axes for a in row]
    drawn = []
    for ax, g in zip(flat_axes, groups):
        sel = [d for d in data if (d["mesh"], d["nodes"], d["ranks"], d["threads"], d["latency_us"]) == g]
        variants = variant_order(f"{d['solver']}/{d['reduction']}" for d in sel)
        places = sorted({d["placement_name"] for d in sel})
        w = 0.8 / len(places)
        for i, pl in enumerate(places):
            ys, lo, hi = [], [], []
            for v in variants:
                m = [d for d in sel if d["placement_name"] == pl and f"{d['solver']}/{d['reduction']}" == v]
                ys.append(m[0]["gain_over_off"] if m else math.nan)
                lo.append(m[0]["gain_min"] if m else math.nan)
                hi.append(m[0]["gain_max"] if m else math.nan)
                drawn += m
            ax.bar([j + (i - (len(places) - 1) / 2) * w for j in range(len(variants))], ys, width=w,
                   label=pl, yerr=yerr(ys, lo, hi), capsize=2)
        ax.axhline(1.0, color="black", linewidth=0.8, label="no progress thread (mapping 1)")
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels([variant_label(v) for v in variants], rotation=45, fontsize=7)
        ax.set_title(f"{g[2]}x{g[3]}" + (f" on {g[1]} nodes" if g[1] > 1 else "")
                     + f", lat {fmt_lat(g[4])} us", fontsize=9)
        ax.set_ylabel("T(progress off) / T(on, placement)", fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7, title="placement", title_fontsize=7)
    for ax in flat_axes[len(groups):]:
        ax.axis("off")
    fig.suptitle("Progress-thread placement (cf. Table 6 / Fig. 17): one bar per placement, "
                 "median with min-max over repeats")
    fig.tight_layout()
    fw.save(fig, FIGURES[7], "gain of the progress thread per placement (Table 6)", drawn)


# ---------------------------------------------------------------- figure 4: breakdown


def fig_breakdown(rows, fw):
    plain = pick_reference(rows)
    if not plain:
        return skip(4, "no run without checkpoint and injected latency")
    mesh = main_mesh(plain)
    plain = [r for r in plain if r["mesh"] == mesh]
    top = max(r["cores"] for r in plain)
    # one node count and the default placement: other runs are never merged into these medians
    fewest = min(r["nodes"] for r in plain if r["cores"] == top)
    plain = [r for r in plain if r["cores"] == top and r["nodes"] == fewest]
    if any(not r["placement"] for r in plain):
        plain = [r for r in plain if not r["placement"]]
    configs = sorted({(r["ranks"], r["threads"], r["progress"]) for r in plain if r["cores"] == top},
                     key=lambda c: (c[1], PROGRESS_ORDER.index(c[2]) if c[2] in PROGRESS_ORDER else 9))
    configs = configs[:6]
    nr, nc = grid_for(len(configs))
    fig, axes = new_figure(nr, nc)
    flat_axes = [a for row in axes for a in row]
    parts = list(BREAKDOWN)
    if any(not math.isnan(r["breakdown"].get("checkpoint", math.nan)) and r["breakdown"].get("checkpoint")
           for r in plain):
        parts.insert(-1, "checkpoint")
    cmap = {p: c for p, c in zip(parts, ["tab:blue", "tab:orange", "tab:olive", "gold", "tab:cyan",
                                          "lightskyblue", "tab:red", "tab:green", "tab:purple",
                                          "tab:brown", "tab:grey"])}
    cmap["other"] = "tab:grey"
    drawn = []
    for ax, (ranks, threads, progress) in zip(flat_axes, configs):
        sel = [r for r in plain if (r["ranks"], r["threads"], r["progress"]) == (ranks, threads, progress)]
        variants = variant_order(r["variant"] for r in sel)
        bottom = [0.0] * len(variants)
        for p in parts:
            vals = []
            for v in variants:
                vs = [r["breakdown"].get(p, math.nan) for r in sel if r["variant"] == v]
                vs = [x for x in vs if not math.isnan(x)]
                vals.append(max(0.0, statistics.median(vs)) if vs else 0.0)
                drawn.append(dict(mesh=mesh, cores=top, ranks=ranks, threads=threads, progress=progress,
                                  variant=v, part=p, seconds_median=vals[-1], repeats=len(vs)))
            ax.bar(range(len(variants)), vals, bottom=bottom, color=cmap[p],
                   label=BREAKDOWN_LABEL[p])
            bottom = [b + x for b, x in zip(bottom, vals)]
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels([variant_label(v) for v in variants], rotation=45, fontsize=7)
        ax.set_ylabel("seconds per solve (mean over ranks)", fontsize=8)
        ax.set_title(f"{ranks}x{threads}, progress {progress}", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    for ax in flat_axes[len(configs):]:
        ax.axis("off")
    handles, labels = flat_axes[0].get_legend_handles_labels()
    fig.legend(handles[::-1], labels[::-1], loc="center right", fontsize=8)
    fig.suptitle(f"Time breakdown per variant, mesh {mesh}, {top} core(s)"
                 + (f" on {fewest} nodes" if fewest > 1 else ""))
    fig.tight_layout(rect=(0, 0, 0.84, 1))
    fw.save(fig, FIGURES[4], "time breakdown stacked bars per variant", drawn)


# ---------------------------------------------------------------- figure 5: I/O bandwidth


IO_MODES = ("write/barrier", "write/ior", "read/barrier", "read/ior",
            # issue 13 rows (jobs/analyze_io.py draws them in full)
            "write/returned", "write/completed", "read/read-cold", "read/read-warm")
IO_MODE_LABEL = {"write/barrier": "write+flush", "write/ior": "write+fsync (IOR)",
                 "read/barrier": "read", "read/ior": "read (IOR)",
                 "write/returned": "write returned (seeds)", "write/completed": "write completed (fsync)",
                 "read/read-cold": "read, cold", "read/read-warm": "read, warm"}


def io_rows(reports):
    """iobench results; mode = op/timing. Reads are timed the same way under both timings, so
    read/ior is dropped where read/barrier exists for the same point."""
    rows = []
    for path, r in reports:
        if r["kind"] != "iobench":
            continue
        for x in r["results"]:
            agg = x["aggregate_bytes_per_s"]
            timing = x.get("timing") or "barrier"
            rows.append(dict(file=path, backend=x["backend"], op=x["op"], size=x["size_bytes"],
                             ranks=x["ranks"], buffer=x["buffer_bytes"], med=num(agg["median"]),
                             lo=num(agg.get("min")), hi=num(agg.get("max")),
                             durable=x.get("durable"), timing=timing, mode=f"{x['op']}/{timing}",
                             cache_dropped=r.get("page_cache_dropped")))
    have = {(r["file"], r["backend"], r["size"], r["ranks"], r["buffer"]) for r in rows
            if r["mode"] == "read/barrier"}
    return [r for r in rows if not (r["mode"] == "read/ior" and
                                    (r["file"], r["backend"], r["size"], r["ranks"], r["buffer"]) in have)]


def backend_order(names):
    known = list(BACKEND_COLOR)
    return sorted(set(names), key=lambda b: (known.index(b) if b in known else 9, b))


def human_bytes(b):
    if not b:
        return "-"
    for unit, f in (("G", 1 << 30), ("M", 1 << 20), ("k", 1 << 10)):
        if b >= f:
            return f"{b // f}{unit}" if b % f == 0 else f"{b / f:.1f}{unit}"
    return str(b)


def fig_io(reports, fw):
    rows = io_rows(reports)
    if not rows:
        return skip(5, "no iobench report (cubecg-iobench --report FILE)")
    # buffer 0 = a backend without a user buffer (hdf5): drawn in every buffer panel of its mode
    panels = {(r["mode"], r["buffer"]) for r in rows}
    panels = {(m, b) for m, b in panels if b or not any(m2 == m and b2 for m2, b2 in panels)}
    panels = sorted(panels,
                    key=lambda p: (IO_MODES.index(p[0]) if p[0] in IO_MODES else 9, p))
    if len(panels) > 6:
        print(f"  figure 5: {len(panels) - 6} further op/timing/buffer panel(s) not drawn (see tables.md)")
    panels = panels[:6]
    nr, nc = grid_for(len(panels))
    fig, axes = new_figure(nr, nc)
    flat_axes = [a for row in axes for a in row]
    rank_counts = sorted({r["ranks"] for r in rows})
    styles = ["-", "--", ":", "-."]
    for ax, (mode, buf) in zip(flat_axes, panels):
        sel = [r for r in rows if r["mode"] == mode and r["buffer"] in (buf, 0)]
        for b in backend_order(r["backend"] for r in sel):
            for i, n in enumerate(rank_counts):
                pts = sorted((r for r in sel if r["backend"] == b and r["ranks"] == n),
                             key=lambda r: r["size"])
                if not pts:
                    continue
                xs = [r["size"] for r in pts]
                ys = [r["med"] / 1e9 for r in pts]
                err = [[max(0.0, (r["med"] - r["lo"]) / 1e9) if not math.isnan(r["lo"]) else 0 for r in pts],
                       [max(0.0, (r["hi"] - r["med"]) / 1e9) if not math.isnan(r["hi"]) else 0 for r in pts]]
                ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=BACKEND_COLOR.get(b),
                            linestyle=styles[i % len(styles)], label=f"{b}, {n} rank(s)")
        ax.set_xscale("log", base=2)
        sizes = sorted({r["size"] for r in sel})
        ax.set_xticks(sizes)
        ax.set_xticklabels([human_bytes(s) for s in sizes], fontsize=8)
        ax.set_xlabel("file size per rank", fontsize=8)
        ax.set_ylabel("aggregate GB/s (median, min-max)", fontsize=8)
        ax.set_title(f"{IO_MODE_LABEL.get(mode, mode)}" + (f", buffer {human_bytes(buf)}" if buf else ""),
                     fontsize=8)
        ax.grid(True, alpha=0.3)
    for ax in flat_axes[len(panels):]:
        ax.axis("off")
    handles, labels = flat_axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=7)
    dropped = any(r["cache_dropped"] for r in rows)
    fig.suptitle("Checkpoint I/O bandwidth per backend and rank count; write+flush: barrier then "
                 "MPI_Wtime around write and flush (as the I/O study),\nwrite+fsync: IOR-style, "
                 "durable" + ("" if dropped else "; page cache not dropped: reads may come from memory"),
                 fontsize=9)
    fig.tight_layout(rect=(0, 0, 0.84, 1))
    fw.save(fig, FIGURES[5], "I/O bandwidth vs file size per backend and rank count",
            [{k: v for k, v in r.items() if k != "cache_dropped"} for r in rows])


# ---------------------------------------------------------------- figure 6: checkpoint


def checkpoint_overheads(rows):
    """Per checkpointed configuration and variant: overhead = median T(checkpoint) / median
    T(same settings without checkpoint) - 1, its min-max range, and the run-to-run spread of both
    (max - min over median). An overhead not larger than that spread is "within noise"; with a
    single run on either side the spread is unknown and the overhead is marked so."""
    stats = index_stats(rows)
    out, seen = [], set()
    for r in sorted(rows, key=lambda r: (r["file"])):
        if not r["ckpt"]:
            continue
        k = config_key(r) + (r["variant"],)
        if k in seen:
            continue
        seen.add(k)
        mine = [x for x in rows if config_key(x) + (x["variant"],) == k]
        st = stats[k]
        base = stats.get(config_key(r, ckpt="") + (r["variant"],))
        infos = [x["ckpt_info"] for x in mine if x["ckpt_info"]]
        stall = Stat([num(i.get("stall_s")) / x["time"] for x, i in
                      ((x, x["ckpt_info"]) for x in mine if x["ckpt_info"]) if x["time"]])
        bw = Stat([i["bytes"] / num(i.get("write_s")) for i in infos
                   if num(i.get("write_s")) > 0])
        d = dict(row=r, time=st, base=base, count=infos[0]["count"] if infos else 0,
                 bytes=infos[0]["bytes"] if infos else 0, stall_share=stall.med, bw=bw.med,
                 overhead=math.nan, overhead_min=math.nan, overhead_max=math.nan, noise=math.nan,
                 verdict="no run without checkpoint")
        if base is not None and base.med:
            d["overhead"] = st.med / base.med - 1
            d["overhead_min"] = st.lo / base.med - 1
            d["overhead_max"] = st.hi / base.med - 1
            d["noise"] = max(base.spread(), st.spread()) if base.n >= 2 and st.n >= 2 else math.nan
            if math.isnan(d["noise"]):
                d["verdict"] = "single run: spread unknown"
            elif abs(d["overhead"]) <= d["noise"]:
                d["verdict"] = "within noise"
            else:
                d["verdict"] = "measured"
        out.append(d)
    return out


def checkpoint_data(ck):
    return [dict(config_fields(d["row"]), solver=d["row"]["solver"], reduction=d["row"]["reduction"],
                 backend=d["row"]["ckpt"], checkpoints=d["count"], bytes=d["bytes"],
                 time_s=d["time"].med, time_min_s=d["time"].lo, time_max_s=d["time"].hi,
                 repeats=d["time"].n, without_s=d["base"].med if d["base"] else math.nan,
                 repeats_without=d["base"].n if d["base"] else 0, overhead=d["overhead"],
                 overhead_min=d["overhead_min"], overhead_max=d["overhead_max"],
                 run_to_run_spread=d["noise"], verdict=d["verdict"], stall_share=d["stall_share"],
                 write_bytes_per_s=d["bw"]) for d in ck]


def fig_checkpoint(rows, fw):
    data = checkpoint_overheads(rows)
    if not data:
        return skip(6, "no run with a checkpoint backend (cubecg --checkpoint BACKEND)")
    gkey = lambda d: (d["row"]["mesh"], d["row"]["nodes"], d["row"]["rt"], d["row"]["variant"],  # noqa: E731
                      d["row"]["progress"], d["row"]["placement"])
    groups = sorted({gkey(d) for d in data})
    fig, axes = new_figure()
    ax = axes[0][0]
    backends = backend_order(d["row"]["ckpt"] for d in data)
    w = min(0.25, 0.8 / max(1, len(backends)))
    for i, b in enumerate(backends):
        xs, total, lo, hi, notes = [], [], [], [], []
        for j, g in enumerate(groups):
            ds = [d for d in data if d["row"]["ckpt"] == b and gkey(d) == g]
            if not ds:
                continue
            d = ds[0]
            xs.append(j + (i - (len(backends) - 1) / 2) * w)
            total.append(100 * d["overhead"])
            lo.append(100 * d["overhead_min"])
            hi.append(100 * d["overhead_max"])
            notes.append(d)
        vals = [t if not math.isnan(t) else 0 for t in total]
        bars = ax.bar(xs, vals, width=w, color=BACKEND_COLOR.get(b), yerr=yerr(vals, lo, hi), capsize=3,
                      label=f"{b}: time-to-solution overhead (median, min-max)")
        for bar, d in zip(bars, notes):
            if d["verdict"] != "measured":  # not a measured overhead: drawn hollow, hatched
                bar.set_alpha(0.35)
                bar.set_hatch("//")
        for x, t, d in zip(xs, total, notes):
            txt = {"within noise": "within noise", "no run without checkpoint": "no base"}.get(
                d["verdict"], f"{t:+.1f}%")
            if d["verdict"] == "within noise":
                txt += f"\n({t:+.1f}% < {100 * d['noise']:.0f}% spread)"
            elif d["verdict"] == "single run: spread unknown":
                txt += "\n1 run: spread unknown"
            if not math.isnan(d["bw"]):
                txt += f"\n{d['bw'] / 1e9:.2f} GB/s"
            ax.annotate(txt, (x, max(0.0, t if not math.isnan(t) else 0.0)), ha="center",
                        va="bottom", fontsize=6)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{g[0]} {g[2]}" + (f" {g[1]} nodes" if g[1] > 1 else "")
                        + f"\n{variant_label(g[3])}, progress {g[4]}" for g in groups], fontsize=8)
    ax.set_ylabel("% of time-to-solution without checkpoint")
    ax.set_title("Checkpoint overhead per backend vs the same run without checkpoint: median, min-max "
                 "over repeats;\nhatched: not above the run-to-run spread (within noise) or a single "
                 "run (spread unknown)", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    lo_, hi_ = ax.get_ylim()
    ax.set_ylim(lo_, hi_ + 0.35 * (hi_ - lo_))  # room for the legend above the bars
    ax.legend(fontsize=7, loc="upper right", ncol=2)
    fig.tight_layout()
    fw.save(fig, FIGURES[6], "checkpoint overhead per backend (median, min-max, noise)",
            checkpoint_data(data))
    silent = sorted({os.path.basename(d["row"]["file"]) for d in data if d["row"]["ckpt_info"] is None})
    if silent:
        print(f"  figure 6: {', '.join(silent)} asked for checkpoints but report none in solves[]"
              " (checkpoint: null): time overhead only")
    if any(d["base"] is None for d in data):
        print("  figure 6: some checkpointed runs have no matching run without checkpoint "
              "(same mesh, nodes, ranks, threads, progress, latency, variant): no overhead shown")


# ---------------------------------------------------------------- study.csv


def study_data(rows):
    """study.csv: one row per solve of every run report."""
    return [dict(file=r["file"], mesh=r["mesh"], nodes=r["nodes"], ranks=r["ranks"], threads=r["threads"],
                 cores=r["cores"], ranks_per_node=r["ranks_per_node"], layout=r["layout"],
                 progress=r["progress"], placement=r["placement"],
                 latency_us=0.0 if math.isnan(r["latency"]) else r["latency"], checkpoint=r["ckpt"],
                 solver=r["solver"], reduction=r["reduction"], repeat=r["repeat"],
                 iterations=r["iterations"], converged=r["converged"], time_s=r["time"],
                 time_per_iter_s=r["tpi"], reduction_s=r["breakdown"].get("reduction", math.nan),
                 oversubscribed=r["oversub"], cores_per_node=r["cores_per_node"],
                 report_version=r["version"])
            for r in sorted(rows, key=lambda r: (r["file"], SOLVERS.index(r["solver"])
                                                 if r["solver"] in SOLVERS else 9, r["reduction"]))]


# ---------------------------------------------------------------- tables.md


def md_table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def fmt_range(med, lo, hi, n, fmt="{:.2f}"):
    """median, with [min-max] when there are repeats."""
    if math.isnan(med):
        return ""
    return fmt.format(med) + (f" [{fmt.format(lo)}-{fmt.format(hi)}]" if n > 1 else "")


def rt_label(d):
    return f"{d['ranks']}x{d['threads']}" + (f" on {d['nodes']} nodes" if d["nodes"] > 1 else "") + \
        (" (oversubscribed)" if d.get("oversubscribed") else "")


def tables_md(rows, reports):
    runs = [r for r in rows if not r["ckpt"]]
    reps = max([r["repeat"] for r in rows] or [1])
    if reps > 1:
        how = (f"Times are medians over repeated reports of the same configuration (up to {reps}); "
               "[min-max] over the repeats follows each value.")
    else:
        how = ("Every configuration ran once: each value is a single measurement, with no run-to-run "
               "spread (repeat runs with `jobs/run-local.sh --repeat N` or `CUBECG_REPEAT=N`).")
    out = ["# cubecg results\n",
           f"Generated by `jobs/analyze.py` from the JSON reports in this folder. {how} "
           "Values marked *published* are the study's (Oakforest-PACS), not measured here.\n"]
    notes = version_notes(reports)
    if notes:
        out.append("\n" + notes[0].replace("analyze.py: ", "Note: ") + ".\n")
    variants = variant_order(r["variant"] for r in runs)
    # Table 7: AR / IAR of the same solver
    t7 = table7_data(rows)
    out.append("\n## Table 7: T(AR) / T(IAR) of the same solver (> 1: IAR faster)\n\n"
               "Median time of Alg.x-AR over median time of Alg.x-IAR, same mesh, layout, nodes, progress "
               "setting and placement. The published table has the progress thread on in both runs; "
               "rows with it off and with polling are the controls.\n\n")
    body = []
    keys = []
    for d in t7:
        k = (d["mesh"], d["cores"], d["nodes"], d["ranks"], d["threads"], d["latency_us"], d["progress"],
             d["placement"])
        if k not in keys:
            keys.append(k)
    t7_solvers = [s for s in SOLVERS if any(d["solver"] == s for d in t7)]
    for k in keys:
        cells = []
        for s in t7_solvers:
            m = [d for d in t7 if d["solver"] == s and (d["mesh"], d["cores"], d["nodes"], d["ranks"],
                                                        d["threads"], d["latency_us"], d["progress"],
                                                        d["placement"]) == k]
            cells.append(fmt_range(m[0]["ar_over_iar"], m[0]["ar_over_iar_min"], m[0]["ar_over_iar_max"],
                                   min(m[0]["repeats_ar"], m[0]["repeats_iar"])) if m else "")
        d0 = [d for d in t7 if (d["mesh"], d["cores"], d["nodes"], d["ranks"], d["threads"], d["latency_us"],
                                d["progress"], d["placement"]) == k][0]
        body.append([k[0], k[1], rt_label(d0), fmt_lat(k[5]), k[6], k[7] or "-"] + cells)
    if body:
        out.append(md_table(["mesh", "cores", "ranks x threads", "injected latency [us]", "progress",
                             "placement"] + [SOLVER_SHORT[s] for s in t7_solvers], body))
    else:
        out.append("(no run with both AR and IAR of a solver)\n")
    out.append("\n*Published* Table 7 (Oakforest-PACS, 512x256x256, progress thread on in both runs; "
               "not measured here):\n\n")
    out.append(md_table(["cores", "Alg.3 AR/IAR (published)", "Alg.4 AR/IAR (published)"],
                        [[f"{c:,}", f"{a:.2f}", f"{b:.2f}"] for c, a, b in
                         zip(PAPER_TABLE7["cores"], PAPER_TABLE7["pipecg"], PAPER_TABLE7["gropp"])]))
    # speed-up (Figs. 12/18)
    sp = [d for d in speedup_data(rows)]
    if sp:
        out.append("\n## Speed-up against Alg.1 AR at the smallest core count (Figs. 12/18)\n\n"
                   "speedup = n0 x T(Alg.1 AR, n0) / T(variant, n), one baseline per mesh, progress setting "
                   "and placement (the flat run at n0 when there is one), the same for every variant and "
                   "layout.\n\n")
        keys = []
        for d in sp:
            k = (d["mesh"], d["progress"], d["placement"], d["cores"], d["nodes"], d["ranks"], d["threads"])
            if k not in keys:
                keys.append(k)
        body = []
        for k in keys:
            m = {f"{d['solver']}/{d['reduction']}": d for d in sp if (d["mesh"], d["progress"], d["placement"],
                                                                     d["cores"], d["nodes"], d["ranks"],
                                                                     d["threads"]) == k}
            any_d = next(iter(m.values()))
            body.append([k[0], k[1] + (f" ({k[2]})" if k[2] else ""), k[3], rt_label(any_d),
                         f"{any_d['baseline_cores']} ({any_d['baseline_rt']})"]
                        + [fmt_range(m[v]["speedup"], m[v]["speedup_min"], m[v]["speedup_max"],
                                     m[v]["repeats"]) if v in m else "" for v in variants])
        out.append(md_table(["mesh", "progress", "cores", "ranks x threads", "baseline n0"]
                            + [variant_label(v) for v in variants], body))
    # Table 4: reduction share
    t4 = [d for d in table4_data(rows) if d["latency_us"] == 0]
    if t4:
        out.append("\n## Table 4: share of the reduction wait in the solve\n\n"
                   "Measured: median over repeats of breakdown_mean.reduction / time_s (mean over ranks), "
                   "per variant and configuration (no injected latency). *Published*: Alg.1's "
                   "MPI_Allreduce share of the CG loop on Oakforest-PACS, where the core count matches.\n\n")
        keys = []
        for d in t4:
            k = (d["mesh"], d["cores"], d["nodes"], d["ranks"], d["threads"], d["progress"], d["placement"])
            if k not in keys:
                keys.append(k)
        body = []
        for k in keys:
            m = {f"{d['solver']}/{d['reduction']}": d for d in t4 if (d["mesh"], d["cores"], d["nodes"], d["ranks"],
                                                                     d["threads"], d["progress"],
                                                                     d["placement"]) == k}
            any_d = next(iter(m.values()))
            pub = PAPER_TABLE4.get(k[1])
            body.append([k[0], k[1], rt_label(any_d), k[5] + (f" ({k[6]})" if k[6] else "")]
                        + [fmt_range(100 * m[v]["reduction_share"], 100 * m[v]["reduction_share_min"],
                                     100 * m[v]["reduction_share_max"], m[v]["repeats"], "{:.1f}%")
                           if v in m else "" for v in variants]
                        + [f"{100 * pub[2]:.2f}%" if pub else "-"])
        out.append(md_table(["mesh", "cores", "ranks x threads", "progress"]
                            + [variant_label(v) for v in variants] + ["Alg.1 (published)"], body))
        out.append("\n*Published* Table 4 (Oakforest-PACS, Alg.1, 512x256x256; not measured here):\n\n")
        out.append(md_table(["cores", "CG loop [s]", "Allreduce [s]", "Allreduce share"],
                            [[f"{c:,}", f"{v[0]:.2f}", f"{v[1]:.2f}", f"{100 * v[2]:.2f}%"]
                             for c, v in sorted(PAPER_TABLE4.items())]))
    # Table 6: placements
    t6 = table6_data(rows)
    if t6:
        out.append("\n## Table 6: progress-thread placement (gain = T(off) / T(on, placement))\n\n"
                   "One column per placement, never merged; > 1: the progress thread helps.\n\n")
        places = sorted({d["placement_name"] for d in t6})
        keys = []
        for d in t6:
            k = (d["mesh"], d["cores"], d["nodes"], d["ranks"], d["threads"], d["latency_us"],
                 f"{d['solver']}/{d['reduction']}")
            if k not in keys:
                keys.append(k)
        body = []
        for k in keys:
            m = {d["placement_name"]: d for d in t6 if (d["mesh"], d["cores"], d["nodes"], d["ranks"], d["threads"],
                                                        d["latency_us"],
                                                        f"{d['solver']}/{d['reduction']}") == k}
            any_d = next(iter(m.values()))
            body.append([k[0], rt_label(any_d), fmt_lat(k[5]), variant_label(k[6])]
                        + [fmt_range(m[p]["gain_over_off"], m[p]["gain_min"], m[p]["gain_max"],
                                     min(m[p]["repeats"], m[p]["repeats_off"])) if p in m else ""
                           for p in places])
        out.append(md_table(["mesh", "ranks x threads", "injected latency [us]", "variant"] + places, body))
        out.append("\n*Published* Table 6 mappings (32 KNL nodes, 128x128x64; threads on cores free of "
                   "compute, mappings 3, 6, 7, gained 4.5 % to 6.7 % over mapping 1; on hardware threads "
                   "of compute cores, 4 and 5, lost):\n\n")
        out.append(md_table(["mapping", "placement", "logical CPUs"], [list(m) for m in PAPER_TABLE6]))
    # progress on / poll vs off (Figs. 16/17), not Table 7
    rel = {}
    stats = index_stats(runs)
    for other, title in (("on", "asynchronous progress thread on"), ("poll", "polling (--progress poll)")):
        body = []
        cfgs = []
        for r in runs:
            if r["progress"] != other:
                continue
            c = (r["mesh"], r["nodes"], r["ranks"], r["threads"], r["latency"], r["placement"])
            if c not in cfgs:
                cfgs.append(c)
        cfgs.sort(key=lambda c: (c[0], c[4], c[2] * c[3], c[1], c[3], c[5]))
        for mesh, nodes, ranks, threads, lat, pl in cfgs:
            cells, any_ = [], False
            for v in variants:
                off = stats.get((mesh, nodes, ranks, threads, "off", "", lat, "", v))
                on = stats.get((mesh, nodes, ranks, threads, other, pl, lat, "", v))
                if off and on and on.med:
                    cells.append(fmt_range(off.med / on.med, off.lo / on.hi, off.hi / on.lo, min(off.n, on.n)))
                    any_ = True
                else:
                    cells.append("")
            if any_:
                over = any(r["oversub"] for r in runs if (r["nodes"], r["ranks"], r["threads"]) == (nodes, ranks, threads))
                d = dict(ranks=ranks, threads=threads, nodes=nodes, oversubscribed=over)
                body.append([mesh, ranks * threads, rt_label(d), fmt_lat(lat), pl or "-"] + cells)
        rel[other] = body
        out.append(f"\n## Progress setting: T(off) / T({other}) of the same variant ({title}; "
                   "cf. Figs. 16/17, not Table 7)\n\n")
        if body:
            out.append(md_table(["mesh", "cores", "ranks x threads", "injected latency [us]", "placement"]
                                + [variant_label(v) for v in variants], body))
        else:
            out.append(f"(no configuration was run with both progress off and {other})\n")
    # time to solution
    plain = [r for r in pick_reference(rows) if r["progress"] == "off"]
    if plain:
        out.append("\n## Time to solution [s], progress off, no injected latency\n\n")
        cfgs = sorted({(r["mesh"], r["nodes"], r["ranks"], r["threads"]) for r in plain},
                      key=lambda c: (c[0], c[2] * c[3], c[1], c[3]))
        tp = index_stats(plain)
        body = []
        for m, nd, rk, th in cfgs:
            cells = []
            for v in variants:
                st = tp.get((m, nd, rk, th, "off", "", 0.0, "", v))
                cells.append(fmt_range(st.med, st.lo, st.hi, st.n, "{:.4f}") if st else "")
            body.append([m, rt_label(dict(ranks=rk, threads=th, nodes=nd))] + cells)
        out.append(md_table(["mesh", "ranks x threads"] + [variant_label(v) for v in variants], body))
    ck = checkpoint_overheads(rows)
    if ck:
        out.append("\n## Checkpoint overhead\n\n"
                   "Overhead = median time with checkpoints / median time without - 1, [min-max] over the "
                   "repeats with checkpoints. *within noise*: not larger than the run-to-run spread "
                   "((max - min) / median of either side); a single run on either side has no known "
                   "spread.\n\n")
        body = [[rt_label(dict(ranks=d["row"]["ranks"], threads=d["row"]["threads"], nodes=d["row"]["nodes"])),
                 variant_label(d["row"]["variant"]), d["row"]["ckpt"], d["count"], human_bytes(d["bytes"]),
                 fmt_range(d["time"].med, d["time"].lo, d["time"].hi, d["time"].n, "{:.4f}"),
                 fmt_range(d["base"].med, d["base"].lo, d["base"].hi, d["base"].n, "{:.4f}") if d["base"] else "-",
                 fmt_range(100 * d["overhead"], 100 * d["overhead_min"], 100 * d["overhead_max"],
                           d["time"].n, "{:+.1f}%") or "-",
                 f"{100 * d['noise']:.1f}%" if not math.isnan(d["noise"]) else "-", d["verdict"],
                 f"{100 * d['stall_share']:.1f}%" if not math.isnan(d["stall_share"]) else "-",
                 f"{d['bw'] / 1e9:.2f}" if not math.isnan(d["bw"]) else "-"] for d in ck]
        out.append(md_table(["ranks x threads", "variant", "backend", "checkpoints", "bytes",
                             "time [s]", "without [s]", "overhead", "run-to-run spread", "verdict",
                             "stall share", "write GB/s"], body))
    io_ = io_rows(reports)
    if io_:
        out.append("\n## I/O bandwidth (aggregate, median GB/s)\n")
        keys = sorted({(r["mode"], r["ranks"], r["buffer"], r["size"]) for r in io_},
                      key=lambda k: (IO_MODES.index(k[0]) if k[0] in IO_MODES else 9, k))
        backends = backend_order(r["backend"] for r in io_)
        body = []
        for op, n, buf, size in keys:
            cells = []
            for b in backends:
                m = [r["med"] for r in io_ if (r["mode"], r["ranks"], r["buffer"], r["size"], r["backend"])
                     == (op, n, buf, size, b)]
                cells.append(f"{statistics.median(m) / 1e9:.2f}" if m else "")
            body.append([op, n, human_bytes(buf), human_bytes(size)] + cells)
        out.append(md_table(["op/timing", "ranks", "buffer", "size/rank"] + backends, body))
    return "".join(out)


# ---------------------------------------------------------------- main


def use_agg():
    """matplotlib with the file-only Agg backend; a clear message when it is not installed."""
    try:
        import matplotlib
    except ImportError:
        print(f"{os.path.basename(sys.argv[0])}: matplotlib is not importable by {sys.executable}; "
              "run jobs/ensure-python.sh", file=sys.stderr)
        return False
    matplotlib.use("Agg")
    return True


def report_args(doc, what, outputs):
    """The command line of the analyzers (analyze.py, analyze_io.py): DIR, --figdir, --force."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help=f"folder with {what} JSON reports (searched recursively)")
    ap.add_argument("--figdir", help=f"write {outputs} here instead of DIR")
    ap.add_argument("--force", action="store_true", help="overwrite existing figures")
    return ap


def load_or_complain(prog, folder):
    """load_reports, or None after one line on stderr naming what is wrong (the caller exits 2)."""
    try:
        return load_reports(folder)
    except ReportError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return None


def main(argv=None):
    ap = report_args(__doc__, "cubecg", "figures, CSVs and tables.md")
    ap.add_argument("--no-figures", action="store_true", help="print the table only")
    args = ap.parse_args(argv)
    reports = load_or_complain("analyze.py", args.dir)
    if reports is None:
        return 2
    for line in version_notes(reports):
        print(line)
    rows = solve_rows(reports)
    if rows:
        print_table(rows, reports)
    else:
        print("analyze.py: no run reports (only benchmark reports); no solve table")
    if args.no_figures:
        return 0
    if not use_agg():
        return 3
    outdir = args.figdir or args.dir
    os.makedirs(outdir, exist_ok=True)
    fw = FigureWriter(outdir, args.force)
    print(f"\nfigures -> {outdir}")
    for fn, n in ((fig_speedup, 1), (fig_ar_iar, 2), (fig_progress, 3), (fig_breakdown, 4)):
        if rows:
            fn(rows, fw)
        else:
            skip(n, "no run reports")
    fig_io(reports, fw)
    import analyze_io  # issue 13: the I/O study's figures io1-io5 beside the published values
    analyze_io.figures(reports, fw)
    gas = [(p, r) for p, r in reports if r["kind"] == "gasbench"]
    if gas:
        import analyze_gas  # issue 14: the global store's figures beside the published vGASNet ones
        analyze_gas.make_figures(gas, fw)
    fig_checkpoint(rows, fw)
    if rows:
        fig_placement(rows, fw)
    else:
        skip(7, "no run reports")
    if rows:
        fw.csv("study.csv", study_data(rows), "one row per solve (long format)")
        fw.csv("speedup.csv", speedup_data(rows), "speed-up against Alg.1 AR at n0 (Figs. 12/18)")
        fw.csv("relative.csv", relative_data(rows), "performance relative to Alg.1 AR (Figs. 13/16)")
        fw.csv("table7.csv", table7_data(rows), "T(AR) / T(IAR) of the same solver (Table 7)")
        fw.csv("table4.csv", table4_data(rows), "reduction share of the solve (Table 4)")
        fw.csv("table6.csv", table6_data(rows), "progress-thread placements (Table 6)")
    fw.text("tables.md", tables_md(rows, reports), "the tables, published values beside (Markdown)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
