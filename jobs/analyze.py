#!/usr/bin/env python3
"""analyze.py: tables and figures from cubecg JSON reports (docs/report-schema.md, version 1).

Reproduces the figures of Nakajima's pipelined-CG / asynchronous-progress study (Figs. 12-18,
Table 7) and of the checkpoint I/O study for the reports under one folder:

  python3 jobs/analyze.py DIR [--force] [--figdir OUT]

Reads every *.json under DIR (recursively), refuses malformed or other-version reports (exit 2,
naming the file), prints a table of every solve and writes into DIR (or OUT):
  fig1_speedup.png       speed-up vs cores per variant, relative to the smallest run, ideal line
  fig2_ar_vs_iar.png     AR vs IAR for Alg.3 / Alg.4 (time AR / time IAR)
  fig3_progress.png      relative time of each variant by progress setting (off, on, poll)
  fig4_breakdown.png     time breakdown (SpMV, precond, halo, reduction, AXPY, dot, other)
  fig5_io_bandwidth.png  I/O bandwidth vs file size per backend and rank count (iobench reports)
  fig6_checkpoint.png    checkpoint overhead on time-to-solution per backend
  tables.md              Table-7-style speed-up (async progress on vs off) and summaries
An existing file is never overwritten silently: without --force the new one gets a free name
(fig1_speedup-2.png, ...) and the output says so. Python 3 + matplotlib (Agg) only.
"""
import argparse
import json
import math
import os
import re
import statistics
import sys

REPORT_VERSION = 1
KINDS = ("run", "iobench", "kernels")
FIG_SIZE_IN = (10.0, 6.0)  # every figure is FIG_SIZE_IN x FIG_DPI pixels: 1000 x 600
FIG_DPI = 100
FIGURES = {
    1: "fig1_speedup.png",
    2: "fig2_ar_vs_iar.png",
    3: "fig3_progress.png",
    4: "fig4_breakdown.png",
    5: "fig5_io_bandwidth.png",
    6: "fig6_checkpoint.png",
}
SOLVERS = ("pcg", "cgcg", "pipecg", "gropp")
SOLVER_LABEL = {"pcg": "Alg.1 PCG", "cgcg": "Alg.2 Chronopoulos/Gear", "pipecg": "Alg.3 pipelined",
                "gropp": "Alg.4 Gropp"}
SOLVER_SHORT = {"pcg": "Alg.1", "cgcg": "Alg.2", "pipecg": "Alg.3", "gropp": "Alg.4"}
SOLVER_COLOR = {"pcg": "tab:blue", "cgcg": "tab:orange", "pipecg": "tab:green", "gropp": "tab:red"}
PROGRESS_ORDER = ("off", "poll", "on")
PROGRESS_COLOR = {"off": "tab:blue", "poll": "tab:orange", "on": "tab:green"}
BREAKDOWN = ("spmv", "precond", "precond_halo", "halo", "reduction", "axpy", "dot", "other")
BREAKDOWN_LABEL = {"spmv": "SpMV", "precond": "preconditioner", "precond_halo": "ASDD halo",
                   "halo": "SpMV halo", "reduction": "reduction wait", "axpy": "AXPY",
                   "dot": "dot (local)", "checkpoint": "checkpoint stall", "other": "other"}
BACKEND_COLOR = {"posix": "tab:blue", "uring": "tab:orange", "offload": "tab:green",
                 "hdf5": "tab:purple"}
# Table 7 of the study (Oakforest-PACS, 512x256x256, IAR, async progress on vs off)
PAPER_TABLE7 = {"cores": [8192, 16384, 32768, 65536, 131072, 262144],
                "pipecg": [1.03, 1.13, 1.05, 1.06, 1.08, 1.19],
                "gropp": [1.06, 1.21, 1.20, 1.25, 1.34, 1.38]}


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
    + [("breakdown_mean." + k, "num?") for k in BREAKDOWN],
    "checkpoint": [("backend", "str"), ("count", "int"), ("stall_s", "num?"), ("write_s", "num?"),
                   ("bytes", "int")],
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
    """Raise ReportError (naming the file) unless report is a usable version-1 cubecg report."""
    if not isinstance(report, dict) or "cubecg_report_version" not in report:
        raise ReportError(f"{path}: not a cubecg report (no 'cubecg_report_version')")
    version = report["cubecg_report_version"]
    if version != REPORT_VERSION:
        raise ReportError(f"{path}: cubecg_report_version {json.dumps(version)}, this analyzer "
                          f"reads version {REPORT_VERSION} only (do not mix report versions)")
    kind = report.get("kind")
    if kind not in KINDS:
        raise ReportError(f"{path}: unknown kind {json.dumps(kind)} (expected one of {', '.join(KINDS)})")
    _check(report, kind, path)
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
        reports.append((p, data))
    return reports


# ---------------------------------------------------------------- tidy rows


def num(v):
    return float(v) if _is_num(v) else math.nan


def progress_label(report, path):
    """off | poll | on, plus the placement the Slurm scripts write into the file name (pin-...)."""
    mpi = report["mpi"]
    if mpi["async_progress_active"]:
        label = "on"
        m = re.search(r"_pin-([A-Za-z0-9:,.]+?)(?:_|\.json$)", os.path.basename(path))
        if m and m.group(1) not in ("inherit",):
            label += "/" + m.group(1)
    elif mpi.get("async_progress_requested"):
        label = "on-inactive"  # asked for, but the MPI library did not start the thread
    else:
        label = "poll" if mpi["progress"] == "poll" else "off"
    return label


def solve_rows(reports):
    """One dict per solve of every run report."""
    rows = []
    for path, r in reports:
        if r["kind"] != "run":
            continue
        pb = r["problem"]
        ranks, threads = pb["ranks"], pb["threads"]
        cores = ranks * threads
        base = dict(file=path, mesh=f"{pb['nx']}x{pb['ny']}x{pb['nz']}", ranks=ranks,
                    threads=threads, cores=cores, rt=f"{ranks}x{threads}",
                    layout="flat" if threads == 1 else "hybrid",
                    progress=progress_label(r, path),
                    latency=num(r["mpi"]["injected_reduction_latency_us"]),
                    oversub=cores > r["platform"]["cores_online"],
                    async_threads=bool(r["mpi"]["async_progress_active"]))
        # a run asked for checkpoints even if a solve reports none (never a baseline then)
        asked = r["parameters"].get("checkpoint") or ""
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
    return rows


def config_key(row, *drop):
    keys = ("mesh", "ranks", "threads", "progress", "latency", "ckpt")
    return tuple(row[k] for k in keys if k not in drop)


def median_time(rows):
    """Median solve time over repeated reports of one configuration and variant."""
    t = [r["time"] for r in rows if not math.isnan(r["time"])]
    return statistics.median(t) if t else math.nan


def index_times(rows):
    """{(config..., variant): median time} over repeats."""
    groups = {}
    for r in rows:
        groups.setdefault(config_key(r) + (r["variant"],), []).append(r)
    return {k: median_time(v) for k, v in groups.items()}


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
    head = (f"{'mesh':>11} {'RxT':>6} {'layout':>6} {'progress':>9} {'lat_us':>6} {'ckpt':>7} "
            f"{'flags':>7} {'variant':>11} {'iters':>5} {'conv':>4} {'time_s':>9} {'ms/iter':>8} "
            f"{'vs A1':>6}")
    print(head, file=out)
    print("-" * len(head), file=out)
    vorder = variant_order(r["variant"] for r in rows)
    order = sorted(rows, key=lambda r: (r["mesh"], r["cores"], r["threads"], r["latency"], r["ckpt"],
                                        PROGRESS_ORDER.index(r["progress"])
                                        if r["progress"] in PROGRESS_ORDER else 9, r["progress"],
                                        vorder.index(r["variant"])))
    for r in order:
        flags = "oversub" if r["oversub"] else ""
        rel = "" if math.isnan(r["rel"]) or r["rel"] < 0 else f"{r['rel']:.3f}"
        print(f"{r['mesh']:>11} {r['rt']:>6} {r['layout']:>6} {r['progress']:>9} "
              f"{fmt_lat(r['latency']):>6} {r['ckpt'] or '-':>7} {flags:>7} "
              f"{variant_label(r['variant']):>11} {r['iterations']:>5} "
              f"{'yes' if r['converged'] else 'NO':>4} {r['time']:>9.4f} {1e3 * r['tpi']:>8.3f} "
              f"{rel:>6}", file=out)
    n = {k: sum(1 for _, r in reports if r["kind"] == k) for k in KINDS}
    print(f"({n['run']} run, {n['iobench']} iobench, {n['kernels']} kernels report(s); "
          f"'vs A1' = time per iteration / Alg.1 AR of the same run; 'oversub' = more ranks x "
          f"threads than cores)", file=out)


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

    def save(self, fig, name, what):
        import matplotlib.pyplot as plt
        path = self.target(name)
        fig.savefig(path, dpi=FIG_DPI)
        plt.close(fig)
        self.written.append(path)
        print(f"  wrote {path}: {what}")
        return path

    def text(self, name, content, what):
        path = self.target(name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(content)
        self.written.append(path)
        print(f"  wrote {path}: {what}")


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


# ---------------------------------------------------------------- figure 1: speed-up


def fig_speedup(rows, fw):
    plain = pick_reference(rows)
    progress = "off" if any(r["progress"] == "off" for r in plain) else None
    plain = [r for r in plain if progress is None or r["progress"] == progress]
    mesh = main_mesh(plain)
    plain = [r for r in plain if r["mesh"] == mesh]
    if len({r["cores"] for r in plain}) < 2:
        return skip(1, "needs plain runs (no latency, no checkpoint) at two or more core counts")
    times = index_times(plain)
    layouts = [lay for lay in ("flat", "hybrid")
               if any(r["layout"] == lay and r["cores"] > 1 for r in plain)]
    fig, axes = new_figure(1, len(layouts))
    variants = variant_order(r["variant"] for r in plain)
    for ax, lay in zip(axes[0], layouts):
        # a 1x1 run belongs to both layouts' series
        pts = [r for r in plain if r["layout"] == lay or r["cores"] == 1]
        cores_all = sorted({r["cores"] for r in pts})
        for v in variants:
            series = {}
            for c in cores_all:
                ts = [times[config_key(r) + (v,)] for r in pts
                      if r["cores"] == c and r["variant"] == v]
                ts = [t for t in ts if not math.isnan(t)]
                if ts:  # several layouts with this core count (e.g. 2x2 and 4x1): best one
                    series[c] = min(ts)
            if len(series) < 2:
                continue
            c0 = min(series)
            xs = sorted(series)
            ys = [c0 * series[c0] / series[c] for c in xs]
            s, red = v.split("/")
            ax.plot(xs, ys, marker="o", color=SOLVER_COLOR.get(s), linestyle="-" if red == "ar" else "--",
                    label=variant_label(v))
        c0, c1 = cores_all[0], cores_all[-1]
        ax.plot([c0, c1], [c0, c1], color="black", linewidth=1, label="ideal")
        over = [c for c in cores_all if any(r["oversub"] for r in pts if r["cores"] == c)]
        if over:
            ax.axvspan(min(over) - 0.5, c1 + 0.5, color="grey", alpha=0.15, label="oversubscribed")
        if c1 / c0 >= 8:
            ax.set_xscale("log", base=2)
            ax.set_yscale("log", base=2)
        ax.set_xlabel("cores (ranks x threads)")
        ax.set_ylabel(f"speed-up (= {c0} at {c0} core(s))")
        ax.set_title(f"{lay}{' MPI' if lay == 'flat' else ' MPI+OpenMP'}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"Strong scaling, mesh {mesh} nodes, progress {progress or 'any'} (cf. Fig. 12)")
    fig.tight_layout()
    fw.save(fig, FIGURES[1], "speed-up vs cores per variant, relative to the smallest run")


# ---------------------------------------------------------------- figure 2: AR vs IAR


def fig_ar_iar(rows, fw):
    times = index_times([r for r in rows if not r["ckpt"]])
    configs = sorted({config_key(r) for r in rows if not r["ckpt"]},
                     key=lambda k: (k[0], k[1] * k[2], k[2], k[4], k[3]))
    labels, gains = [], {s: [] for s in ("pipecg", "gropp")}
    for k in configs:
        g = {}
        for s in gains:
            ar, iar = times.get(k + (f"{s}/ar",)), times.get(k + (f"{s}/iar",))
            g[s] = ar / iar if ar and iar and not math.isnan(ar / iar) else math.nan
        if all(math.isnan(x) for x in g.values()):
            continue
        mesh, ranks, threads, progress, lat, _ = k
        labels.append(f"{ranks}x{threads}\n{progress}" + (f"\nlat {fmt_lat(lat)}" if lat else ""))
        for s in gains:
            gains[s].append(g[s])
    if not labels:
        return skip(2, "no run with both AR and IAR for Alg.3 or Alg.4 (--reduction all)")
    fig, axes = new_figure()
    ax = axes[0][0]
    w = 0.38
    for i, s in enumerate(gains):
        xs = [j + (i - 0.5) * w for j in range(len(labels))]
        ax.bar(xs, gains[s], width=w, color=SOLVER_COLOR[s], label=f"{SOLVER_LABEL[s]}")
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7 if len(labels) > 8 else 9)
    ax.set_ylabel("time AR / time IAR  (> 1: IAR faster)")
    ax.set_xlabel("ranks x threads, progress setting, injected reduction latency [us]")
    ax.set_title("Blocking (AR) vs non-blocking (IAR) reductions, Alg.3 and Alg.4 (cf. Figs. 13/18)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fw.save(fig, FIGURES[2], "AR vs IAR gain for Alg.3/4 per configuration")


# ---------------------------------------------------------------- figure 3: progress settings


def fig_progress(rows, fw):
    runs = [r for r in rows if not r["ckpt"]]
    groups = {}
    for r in runs:
        groups.setdefault((r["mesh"], r["ranks"], r["threads"], r["latency"]), set()).add(r["progress"])
    chosen = [g for g in groups if len(groups[g]) >= 2]
    chosen.sort(key=lambda g: (g[3] != 0, -(g[1] * g[2]), g[2], g[3]))
    if not chosen:
        return skip(3, "no configuration run with two or more progress settings (off/on/poll)")
    dropped = chosen[6:]
    chosen = chosen[:6]
    times = index_times(runs)
    nr, nc = grid_for(len(chosen))
    fig, axes = new_figure(nr, nc)
    flat_axes = [a for row in axes for a in row]
    legend = {}
    for ax, g in zip(flat_axes, chosen):
        mesh, ranks, threads, lat = g
        settings = sorted(groups[g], key=lambda p: (PROGRESS_ORDER.index(p) if p in PROGRESS_ORDER else 9, p))
        base_setting = "off" if "off" in settings else settings[0]
        base = times.get((mesh, ranks, threads, base_setting, lat, "", "pcg/ar"))
        variants = variant_order(r["variant"] for r in runs
                                 if (r["mesh"], r["ranks"], r["threads"], r["latency"]) == g)
        w = 0.8 / len(settings)
        for i, p in enumerate(settings):
            ys = [times.get((mesh, ranks, threads, p, lat, "", v), math.nan) / base
                  if base else math.nan for v in variants]
            ax.bar([j + (i - (len(settings) - 1) / 2) * w for j in range(len(variants))], ys,
                   width=w, label=f"progress {p}",
                   color=PROGRESS_COLOR.get(p.split("/")[0], None))
            legend[p] = ax.containers[-1]
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(variants)))
        ax.set_xticklabels([variant_label(v) for v in variants], rotation=45, fontsize=7)
        ax.set_title(f"{ranks}x{threads}, lat {fmt_lat(lat)} us", fontsize=9)
        ax.set_ylabel(f"time / Alg.1 AR ({base_setting})", fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    for ax in flat_axes[len(chosen):]:
        ax.axis("off")
    fig.legend(list(legend.values()), [f"progress {p}" for p in legend], loc="upper right",
               fontsize=8)
    fig.suptitle("Relative time of each variant by progress setting (cf. Figs. 16/17)")
    fig.tight_layout(rect=(0, 0, 0.88, 1))
    fw.save(fig, FIGURES[3], "relative time per variant, progress off / on / poll")
    if dropped:
        print(f"  figure 3: {len(dropped)} further configuration(s) not drawn (see tables.md)")


# ---------------------------------------------------------------- figure 4: breakdown


def fig_breakdown(rows, fw):
    plain = pick_reference(rows)
    if not plain:
        return skip(4, "no run without checkpoint and injected latency")
    mesh = main_mesh(plain)
    plain = [r for r in plain if r["mesh"] == mesh]
    top = max(r["cores"] for r in plain)
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
    cmap = {p: c for p, c in zip(parts, ["tab:blue", "tab:orange", "tab:olive", "tab:cyan",
                                          "tab:red", "tab:green", "tab:purple", "tab:brown", "tab:grey"])}
    cmap["other"] = "tab:grey"
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
    fig.suptitle(f"Time breakdown per variant, mesh {mesh}, {top} core(s)")
    fig.tight_layout(rect=(0, 0, 0.84, 1))
    fw.save(fig, FIGURES[4], "time breakdown stacked bars per variant")


# ---------------------------------------------------------------- figure 5: I/O bandwidth


IO_MODES = ("write/barrier", "write/ior", "read/barrier", "read/ior")
IO_MODE_LABEL = {"write/barrier": "write+flush", "write/ior": "write+fsync (IOR)",
                 "read/barrier": "read", "read/ior": "read (IOR)"}


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
    fw.save(fig, FIGURES[5], "I/O bandwidth vs file size per backend and rank count")


# ---------------------------------------------------------------- figure 6: checkpoint


def checkpoint_overheads(rows):
    """Per checkpointed solve: its baseline (same run settings, no checkpoint) and overheads."""
    times = index_times([r for r in rows if not r["ckpt"]])
    out = []
    for r in rows:
        if not r["ckpt"]:
            continue
        base = times.get(config_key(r, "ckpt") + ("", r["variant"]))
        ck = r["ckpt_info"] or {"count": 0, "bytes": 0}  # None: the solve reported no checkpoint
        stall, write = num(ck.get("stall_s")), num(ck.get("write_s"))
        out.append(dict(row=r, base=base if base and not math.isnan(base) else None,
                        overhead=(r["time"] / base - 1) if base else math.nan,
                        stall_share=stall / r["time"] if r["time"] else math.nan,
                        bw=ck["bytes"] / write if write and write > 0 else math.nan,
                        count=ck["count"], bytes=ck["bytes"]))
    return out


def fig_checkpoint(rows, fw):
    data = checkpoint_overheads(rows)
    if not data:
        return skip(6, "no run with a checkpoint backend (cubecg --checkpoint BACKEND)")
    groups = sorted({(d["row"]["mesh"], d["row"]["rt"], d["row"]["variant"], d["row"]["progress"])
                     for d in data})
    fig, axes = new_figure()
    ax = axes[0][0]
    backends = backend_order(d["row"]["ckpt"] for d in data)
    w = min(0.25, 0.8 / max(1, len(backends)))
    missing_base = False
    for i, b in enumerate(backends):
        xs, total, stall, notes = [], [], [], []
        for j, g in enumerate(groups):
            ds = [d for d in data if d["row"]["ckpt"] == b
                  and (d["row"]["mesh"], d["row"]["rt"], d["row"]["variant"], d["row"]["progress"]) == g]
            if not ds:
                continue
            d = ds[0]
            xs.append(j + (i - (len(backends) - 1) / 2) * w)
            if d["base"] is None:
                missing_base = True
                total.append(math.nan)
            else:
                total.append(100 * d["overhead"])
            stall.append(100 * d["stall_share"])
            notes.append(d)
        ax.bar(xs, [t if not math.isnan(t) else 0 for t in total], width=w,
               color=BACKEND_COLOR.get(b), label=f"{b}: time-to-solution overhead")
        ax.bar(xs, stall, width=w * 0.45, color="black", alpha=0.45,
               label="stall in solver (share of solve)" if i == 0 else None)
        for x, t, d in zip(xs, total, notes):
            bw = d["bw"]
            txt = (f"{t:+.1f}%" if not math.isnan(t) else "no base") + \
                  (f"\n{bw / 1e9:.2f} GB/s" if not math.isnan(bw) else "")
            ax.annotate(txt, (x, max(0.0, t if not math.isnan(t) else 0.0)), ha="center",
                        va="bottom", fontsize=7)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{g[0]} {g[1]}\n{variant_label(g[2])}, progress {g[3]}" for g in groups],
                       fontsize=8)
    ax.set_ylabel("% of time-to-solution without checkpoint")
    ax.set_title("Checkpoint overhead per backend: extra time-to-solution vs the same run without\n"
                 "checkpoint (colour), solver stall (dark), label: overhead and write bandwidth",
                 fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi + 0.35 * (hi - lo))  # room for the legend above the bars
    ax.legend(fontsize=7, loc="upper right", ncol=2)
    fig.tight_layout()
    fw.save(fig, FIGURES[6], "checkpoint overhead per backend")
    silent = sorted({os.path.basename(d["row"]["file"]) for d in data if d["row"]["ckpt_info"] is None})
    if silent:
        print(f"  figure 6: {', '.join(silent)} asked for checkpoints but report none in solves[]"
              " (checkpoint: null): time overhead only")
    if missing_base:
        print("  figure 6: some checkpointed runs have no matching run without checkpoint "
              "(same mesh, ranks, threads, progress, latency, variant): only their stall is shown")


# ---------------------------------------------------------------- tables.md


def md_table(header, body):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def tables_md(rows, reports):
    out = ["# cubecg results\n",
           "Generated by `jobs/analyze.py` from the JSON reports in this folder. Times are medians "
           "over repeated reports of the same configuration.\n"]
    runs = [r for r in rows if not r["ckpt"]]
    times = index_times(runs)
    variants = variant_order(r["variant"] for r in runs)
    # Table 7 style: time(async off) / time(async on)
    configs = sorted({(r["mesh"], r["ranks"], r["threads"], r["latency"]) for r in runs},
                     key=lambda c: (c[0], c[3], c[1] * c[2], c[2]))
    for other, title in (("on", "asynchronous progress thread on"), ("poll", "polling (--progress poll)")):
        body = []
        for mesh, ranks, threads, lat in configs:
            cells, any_ = [], False
            for v in variants:
                t_off = times.get((mesh, ranks, threads, "off", lat, "", v))
                t_on = times.get((mesh, ranks, threads, other, lat, "", v))
                if t_off and t_on and not math.isnan(t_off / t_on):
                    cells.append(f"{t_off / t_on:.2f}")
                    any_ = True
                else:
                    cells.append("")
            if any_:
                over = any(r["oversub"] for r in runs if (r["ranks"], r["threads"]) == (ranks, threads))
                layout = f"{ranks}x{threads}" + (" (oversubscribed)" if over else "")
                body.append([mesh, ranks * threads, layout, fmt_lat(lat)] + cells)
        out.append(f"\n## Speed-up from {title} vs off (time off / time {other}; Table 7 style)\n")
        if body:
            out.append(md_table(["mesh", "cores", "ranks x threads", "injected latency [us]"]
                                + [variant_label(v) for v in variants], body))
        else:
            out.append(f"(no configuration was run with both progress off and {other})\n")
    out.append("\nFor comparison, the published Table 7 (Oakforest-PACS, 512x256x256 nodes, IAR, "
               "progress thread on vs off):\n\n")
    out.append(md_table(["cores", "Alg.3 IAR", "Alg.4 IAR"],
                        [[f"{c:,}", f"{a:.2f}", f"{b:.2f}"] for c, a, b in
                         zip(PAPER_TABLE7["cores"], PAPER_TABLE7["pipecg"], PAPER_TABLE7["gropp"])]))
    # speed-up vs cores (Fig. 1 data)
    plain = [r for r in pick_reference(rows) if r["progress"] == "off"]
    if plain:
        out.append("\n## Time to solution [s], progress off, no injected latency\n")
        cfgs = sorted({(r["mesh"], r["ranks"], r["threads"]) for r in plain},
                      key=lambda c: (c[0], c[1] * c[2], c[2]))
        tp = index_times(plain)
        body = [[m, f"{rk}x{th}"] + [f"{tp.get((m, rk, th, 'off', 0.0, '', v), math.nan):.4f}"
                                     for v in variants] for m, rk, th in cfgs]
        out.append(md_table(["mesh", "ranks x threads"] + [variant_label(v) for v in variants], body))
    ck = checkpoint_overheads(rows)
    if ck:
        out.append("\n## Checkpoint overhead\n")
        body = [[d["row"]["rt"], variant_label(d["row"]["variant"]), d["row"]["ckpt"], d["count"],
                 human_bytes(d["bytes"]), f"{d['row']['time']:.4f}",
                 f"{d['base']:.4f}" if d["base"] else "-",
                 f"{100 * d['overhead']:+.1f}%" if not math.isnan(d["overhead"]) else "-",
                 f"{100 * d['stall_share']:.1f}%" if not math.isnan(d["stall_share"]) else "-",
                 f"{d['bw'] / 1e9:.2f}" if not math.isnan(d["bw"]) else "-"] for d in ck]
        out.append(md_table(["ranks x threads", "variant", "backend", "checkpoints", "bytes",
                             "time [s]", "without [s]", "overhead", "stall share",
                             "write GB/s"], body))
    io = io_rows(reports)
    if io:
        out.append("\n## I/O bandwidth (aggregate, median GB/s)\n")
        keys = sorted({(r["mode"], r["ranks"], r["buffer"], r["size"]) for r in io},
                      key=lambda k: (IO_MODES.index(k[0]) if k[0] in IO_MODES else 9, k))
        backends = backend_order(r["backend"] for r in io)
        body = []
        for op, n, buf, size in keys:
            cells = []
            for b in backends:
                m = [r["med"] for r in io if (r["mode"], r["ranks"], r["buffer"], r["size"], r["backend"])
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="folder with cubecg JSON reports (searched recursively)")
    ap.add_argument("--figdir", help="write figures and tables.md here instead of DIR")
    ap.add_argument("--force", action="store_true", help="overwrite existing figures")
    ap.add_argument("--no-figures", action="store_true", help="print the table only")
    args = ap.parse_args(argv)
    try:
        reports = load_reports(args.dir)
    except ReportError as e:
        print(f"analyze.py: {e}", file=sys.stderr)
        return 2
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
    for fn in (fig_speedup, fig_ar_iar, fig_progress, fig_breakdown):
        if rows:
            fn(rows, fw)
        else:
            skip({fig_speedup: 1, fig_ar_iar: 2, fig_progress: 3, fig_breakdown: 4}[fn],
                 "no run reports")
    fig_io(reports, fw)
    fig_checkpoint(rows, fw)
    fw.text("tables.md", tables_md(rows, reports), "speed-up tables (Markdown)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
