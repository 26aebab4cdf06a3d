"""The cost figures: the time breakdown per variant (fig4), the I/O bandwidth per backend (fig5)
and the checkpoint overhead per backend with its noise verdict (fig6)."""
import math
import os
import statistics

from ..common import BACKEND_COLOR, BREAKDOWN, BREAKDOWN_LABEL, PROGRESS_ORDER, human_bytes
from ..metrics.cost import (IO_MODE_LABEL, IO_MODES, backend_order, checkpoint_data,
                            checkpoint_overheads, io_rows)
from ..readers.series import (main_mesh, most_common_setup, pick_reference, variant_label,
                              variant_order)
from .output import FIGURES, new_figure, panel_grid, skip, yerr

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
    plain = most_common_setup(plain)  # one MPI implementation and precision: never merged either
    configs = sorted({(r["ranks"], r["threads"], r["progress"]) for r in plain if r["cores"] == top},
                     key=lambda c: (c[1], PROGRESS_ORDER.index(c[2]) if c[2] in PROGRESS_ORDER else 9))
    configs = configs[:6]
    fig, flat_axes = panel_grid(len(configs), sharey=True)  # panels compared: one y scale
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
        ax.set_xticklabels([variant_label(v) for v in variants], rotation=30, ha="right", fontsize=7)
        ax.set_ylabel("seconds per solve (mean over ranks)", fontsize=8)
        ax.set_title(f"{ranks}x{threads}, progress {progress}", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    handles, labels = flat_axes[0].get_legend_handles_labels()
    fig.legend(handles[::-1], labels[::-1], loc="center right", fontsize=8)
    fig.suptitle(f"Time breakdown per variant, mesh {mesh}, {top} core(s)"
                 + (f" on {fewest} nodes" if fewest > 1 else ""))
    fig.tight_layout(rect=(0, 0, 0.84, 1))
    fw.save(fig, FIGURES[4], "time breakdown stacked bars per variant", drawn)


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
    fig, flat_axes = panel_grid(len(panels))
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
