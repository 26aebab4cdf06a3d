"""cubecg-analyze-store: figures and a summary from cubecg-gasbench reports (kind "gasbench",
docs/report-schema.md), beside the published vGASNet numbers (labelled as published, other
hardware: TSUBAME-KFC, Intel DC S3500 SSD, InfiniBand FDR; data/published.json, vgasnet).

  cubecg-analyze-store REPORT.json|DIR ... [--out DIR] [--force]
  (python3 -m cubecg_analysis.figures.store)

Writes into --out (default: the folder of the first report):
  gas_fig1_bandwidth.png  put/get bandwidth vs transfer size per page size: dram-hit, ssd-miss,
                          coop-hit, MPI_Send/Recv, fio read; published vGASNet get from DRAM
  gas_fig2_weak.png       weak-scaling throughput relative to 1 rank, with and without cooperative
                          caching; published vGASNet at 32 nodes
  gas_summary.md          the three target ratios and the weak-scaling table of every report
cubecg-analyze calls make_figures(reports, writer) with its FigureWriter for the reports whose
kind is "gasbench".
Exit 2 on a malformed or non-gasbench report (naming it). Python 3 + matplotlib (Agg) only.
"""
import argparse
import os
import sys

from ..readers import published as pub
from ..readers.gasbench import load
from ..readers.reports import ReportError
from .output import FIG_SIZE_IN, FigureWriter, use_agg

# vGASNet (published, other hardware: TSUBAME-KFC), data/published.json
PUBLISHED_GET_DRAM_4M = pub.VGASNET["get_dram_bytes_per_s"]  # remote get from DRAM caches, bytes/s
PUBLISHED_GET_SIZE = pub.VGASNET["get_dram_size_bytes"]
PUBLISHED_SSD_READ = pub.VGASNET["ssd_read_bytes_per_s"]  # Intel DC S3500 sequential read
PUBLISHED_WEAK = pub.VGASNET["weak_scaling"]
CASE_STYLE = {("get", "dram-hit"): ("tab:blue", "-", "o"), ("put", "dram-hit"): ("tab:cyan", "-", "s"),
              ("get", "ssd-miss"): ("tab:red", "-", "v"), ("get", "ssd-stream"): ("tab:orange", "-", "<"),
              ("get", "coop-hit"): ("tab:green", "-", "^"),
              ("get", "send-recv"): ("black", "--", "x"), ("put", "send-recv"): ("gray", ":", "+")}


def human(b):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("k", 1 << 10)):
        if b >= scale:
            return f"{b / scale:g}{unit}"
    return f"{b}"


def fig_bandwidth(reports, fw):
    import matplotlib.pyplot as plt
    pages = sorted({row["page_bytes"] for _, r in reports for row in r["results"] if row["page_bytes"]})
    if not pages:
        print("  gas_fig1_bandwidth.png skipped: no store rows")
        return
    fig, axes = plt.subplots(1, len(pages), figsize=FIG_SIZE_IN, squeeze=False, sharey=True)
    for ax, page in zip(axes[0], pages):
        for path, r in reports:
            tag = f" ({r['ranks']}r/{r.get('nodes', 1)}n)" if len(reports) > 1 else ""
            for (op, case), (color, ls, mk) in CASE_STYLE.items():
                rows = sorted((x for x in r["results"] if x["op"] == op and x["case"] == case and
                               (x["page_bytes"] in (page, 0))), key=lambda x: x["size_bytes"])
                if not rows:
                    continue
                ax.plot([x["size_bytes"] for x in rows], [x["bytes_per_s"]["median"] / 1e9 for x in rows],
                        color=color, ls=ls, marker=mk, label=f"{op} {case}{tag}")
            fio = sorted(r.get("fio", []), key=lambda x: x["size_bytes"])
            if fio:
                ax.plot([x["size_bytes"] for x in fio], [x["read_bytes_per_s"] / 1e9 for x in fio],
                        color="tab:orange", ls="-.", marker="d", label=f"fio io_uring direct read{tag}")
        ax.plot([PUBLISHED_GET_SIZE], [PUBLISHED_GET_DRAM_4M / 1e9], marker="*", ms=14, color="tab:purple", ls="",
                label="published vGASNet get from DRAM, 4 MB\n(TSUBAME-KFC, IB FDR: other hardware)")
        ax.axhline(PUBLISHED_SSD_READ / 1e9, color="tab:purple", ls=":", lw=1,
                   label=f"published: DC S3500 SSD read {PUBLISHED_SSD_READ / 1e6:.0f} MB/s")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"page {human(page)}")
        ax.set_xlabel("transfer size (bytes)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("bandwidth (GB/s, median)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7)
    fig.suptitle("cubecg global memory store: put/get vs size (this machine) beside vGASNet (published)")
    fig.tight_layout(rect=(0, 0.18, 1, 0.95))
    fw.save(fig, "gas_fig1_bandwidth.png", "put/get bandwidth vs transfer size")


def fig_weak(reports, fw):
    import matplotlib.pyplot as plt
    rows = [(path, w) for path, r in reports for w in r["weak_scaling"]]
    if not rows:
        print("  gas_fig2_weak.png skipped: no weak-scaling rows (--no-weak)")
        return
    fig, axes = plt.subplots(1, 1, figsize=FIG_SIZE_IN, squeeze=False)
    ax = axes[0][0]
    for coop, color in ((False, "tab:red"), (True, "tab:green")):
        pts = {}
        for _, w in rows:
            if w["coop"] == coop:
                pts.setdefault(w["ranks"], []).append(w["bytes_per_s"])
        if 1 not in pts:
            continue
        base = sorted(pts[1])[len(pts[1]) // 2]
        xs = sorted(pts)
        ax.plot(xs, [sorted(pts[x])[len(pts[x]) // 2] / base for x in xs], color=color, marker="o",
                label=f"this machine, cooperative caching {'on' if coop else 'off'}")
    n = PUBLISHED_WEAK["nodes"]
    ax.errorbar([n], [PUBLISHED_WEAK["coop_avg"]], yerr=[[0], [PUBLISHED_WEAK["coop_max"] - PUBLISHED_WEAK["coop_avg"]]],
                color="tab:green", marker="*", ms=12, ls="", capsize=4,
                label=f"published vGASNet, {n} nodes, coop on: {PUBLISHED_WEAK['coop_avg']}x avg, up to "
                      f"{PUBLISHED_WEAK['coop_max']}x (other hardware)")
    ax.errorbar([n], [PUBLISHED_WEAK["nocoop_avg"]], yerr=[[0], [PUBLISHED_WEAK["nocoop_max"] - PUBLISHED_WEAK["nocoop_avg"]]],
                color="tab:red", marker="*", ms=12, ls="", capsize=4,
                label=f"published vGASNet, {n} nodes, coop off: {PUBLISHED_WEAK['nocoop_avg']}x avg, up to "
                      f"{PUBLISHED_WEAK['nocoop_max']}x")
    ax.plot([1, n], [1, n], color="gray", ls=":", lw=1, label="ideal")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("ranks (this machine) / nodes (published)")
    ax.set_ylabel("throughput relative to 1 rank")
    ax.set_title("weak scaling: every rank re-reads one hot data set after the owner's DRAM was emptied")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fw.save(fig, "gas_fig2_weak.png", "weak-scaling throughput with/without cooperative caching")


def summary_md(reports):
    out = ["# cubecg-gasbench summary", "",
           "Measured on a shared machine unless stated otherwise; published vGASNet numbers are from "
           "other hardware (TSUBAME-KFC).", ""]
    for path, r in reports:
        out += [f"## {path}: {r['ranks']} ranks, {r.get('nodes', 1)} node(s), owner rank {r.get('owner')}",
                "", "| ratio | value | target |", "|---|---|---|"]
        for name, x in r["ratios"].items():
            v = x.get("value")
            val = f"{v:.2f}" if isinstance(v, (int, float)) else f"n/a ({x.get('why_missing', '')})"
            out.append(f"| {x.get('what', name)} | {val} | >= {x.get('target')} |")
        if r["weak_scaling"]:
            out += ["", "| ranks | coop | GB/s | ssd misses | coop hits | dram hits |", "|---|---|---|---|---|---|"]
            for w in r["weak_scaling"]:
                out.append(f"| {w['ranks']} | {'on' if w['coop'] else 'off'} | {w['bytes_per_s'] / 1e9:.3f} | "
                           f"{w['ssd_misses']} | {w['coop_hits']} | {w['dram_hits']} |")
        out.append("")
    return "\n".join(out) + "\n"


def make_figures(reports, fw):
    """reports: [(path, report)] of kind gasbench; fw: save(fig, name, what), text(name, s, what)."""
    fig_bandwidth(reports, fw)
    fig_weak(reports, fw)
    fw.text("gas_summary.md", summary_md(reports), "gasbench ratios and weak scaling (Markdown)")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="cubecg-analyze-store", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reports", nargs="+", help="gasbench JSON reports or folders holding them")
    ap.add_argument("--out", help="output folder (default: the first report's folder)")
    ap.add_argument("--force", action="store_true", help="overwrite existing files")
    args = ap.parse_args(argv)
    try:
        reports = load(args.reports)
    except ReportError as e:
        print(f"cubecg-analyze-store: {e}", file=sys.stderr)
        return 2
    if not use_agg():
        return 3
    first = args.reports[0]
    outdir = args.out or (first if os.path.isdir(first) else os.path.dirname(os.path.abspath(first)))
    os.makedirs(outdir, exist_ok=True)
    print(f"cubecg-analyze-store: {len(reports)} gasbench report(s) -> {outdir}")
    make_figures(reports, FigureWriter(outdir, args.force))
    return 0


if __name__ == "__main__":
    sys.exit(main())
