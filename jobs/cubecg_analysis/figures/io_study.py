"""cubecg-analyze-io: the figures of the seeds' checkpoint I/O study (SX-Aurora TSUBASA: normal vs
accelerated vs VH-offload I/O) from cubecg-iobench reports (jobs/iosweep.sh), each beside the
published A300-2/4/8 values (data/published.json, io_sx_aurora), labelled "published, SX-Aurora"
(other hardware: the comparison is of shapes, not of numbers).

  cubecg-analyze-io DIR [--force] [--figdir OUT]      (python3 -m cubecg_analysis.figures.io_study)

Also called by cubecg-analyze. Bandwidth = the seeds' statistic: the mean over ranks and
repetitions of the per-rank bandwidth, times the rank count (per_rank_bytes_per_s.mean x ranks),
with bars from the smallest to the largest per-rank value x ranks. Every PNG gets the CSV of what
it draws (the published values included, source = "published, SX-Aurora ...") beside it:
  io1_size.png       bandwidth vs file size per backend (returned, completed, read-warm, read-cold)
  io2_c_fortran.png  C (posix) against Fortran (fortran): write returned and read-cold
  io3_modes.png      normal (posix) vs accelerated (uring) vs offload, largest size
  io4_ranks.png      bandwidth vs rank count per backend, largest size
  io5_mapping.png    rank-to-device mapping: one directory vs block vs cyclic over --dirs
Reports over several directories (--dirs) feed io5 only. Exit 2 naming the file on bad input.
"""
import os
import sys

from ..common import human_bytes
from ..readers import published as pub
from ..readers.reports import load_or_complain
from .output import new_figure, report_args, report_writer

FIGS = {1: "io1_size.png", 2: "io2_c_fortran.png", 3: "io3_modes.png", 4: "io4_ranks.png",
        5: "io5_mapping.png"}
TIMINGS = ("returned", "completed", "read-warm", "read-cold")
TIMING_LABEL = {"returned": "write returned (barrier + write + flush; offload: handover)",
                "completed": "write completed (fsync; offload: helper finished)",
                "ior": "write, IOR (open..close, fsync)",
                "read-warm": "read, warm (just written)",
                "read-cold": "read, cold (page cache dropped)",
                "read-not-dropped": "read (page cache NOT dropped)"}
COLORS = {"posix": "tab:blue", "uring": "tab:orange", "offload": "tab:green",
          "offload-uring": "tab:olive", "hdf5": "tab:purple", "fortran": "tab:brown"}
MODE_OF = {"posix": "normal (posix)", "uring": "accelerated (uring)", "offload": "offload"}
PUB = "published, SX-Aurora"
# the published bandwidths, 1 GB files, GB/s: (system, devices, ranks, mode, op, GB/s, note)
PUBLISHED = pub.IO
# the mapping experiment: A300-8, 8 devices behind 2 PCIe switches, accelerated I/O
PUBLISHED_MAPPING = pub.IO_MAPPING


def io_points(reports):
    """One dict per (report, result row) with the seeds' bandwidth."""
    pts = []
    for path, r in reports:
        if r["kind"] != "iobench":
            continue
        dirs = r.get("dirs") or [r.get("dir")]
        mapping = r.get("mapping", "block") if len(dirs) > 1 else "one-dir"
        for x in r["results"]:
            pr = x["per_rank_bytes_per_s"]
            n = x["ranks"]
            if "mean" not in pr:
                continue  # older reports: no mean over ranks x repetitions
            pts.append(dict(source=os.path.basename(path), backend=x["backend"], op=x["op"],
                            timing=x.get("timing", ""), size_bytes=x["size_bytes"], ranks=n,
                            buffer_bytes=x["buffer_bytes"], mapping=mapping, n_dirs=len(dirs),
                            gb_s=pr["mean"] * n / 1e9, gb_s_lo=pr["min"] * n / 1e9,
                            gb_s_hi=pr["max"] * n / 1e9,
                            fio_gb_s=(x["fio_bytes_per_s"] / 1e9 if x.get("fio_bytes_per_s")
                                      else ""),
                            fio_ratio=x.get("fio_ratio"), page_cache=x.get("page_cache", "")))
    return pts


def backends_of(pts):
    known = list(COLORS)
    return sorted({p["backend"] for p in pts}, key=lambda b: (known.index(b) if b in known else 99, b))


def errbar(ax, pts, x, label, **kw):
    xs = [x(p) for p in pts]
    ys = [p["gb_s"] for p in pts]
    err = [[max(0.0, p["gb_s"] - p["gb_s_lo"]) for p in pts],
           [max(0.0, p["gb_s_hi"] - p["gb_s"]) for p in pts]]
    ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label, **kw)


def published_rows(op=None, mode=None):
    return [dict(source=f"{PUB} {s} ({d} devices, {n} ranks, 1 GB files; other hardware)",
                 backend=m, op=o, timing="seeds: barrier + write/read + flush", size_bytes=1 << 30,
                 ranks=n, buffer_bytes="", mapping="", n_dirs=d, gb_s=v, gb_s_lo=v, gb_s_hi=v,
                 fio_gb_s="", fio_ratio="", page_cache=note)
            for s, d, n, m, o, v, note in PUBLISHED
            if (op is None or o == op) and (mode is None or m == mode)]


def published_inset(ax, op):
    """The published A300 values of op as labelled horizontal marks on a twin axis."""
    rows = [p for p in PUBLISHED if p[4] == op]
    tw = ax.twinx()
    for i, (s, d, n, m, o, v, note) in enumerate(rows):
        tw.scatter([1.02], [v], marker="*" if m == "accelerated" else "s", s=40, color="grey",
                   transform=tw.get_yaxis_transform(), clip_on=False)
        tw.annotate(f"{s} {m}", (1.04, v), xycoords=tw.get_yaxis_transform(), fontsize=6,
                    va="center", color="grey")
    tw.set_ylim(0, 36)
    tw.set_ylabel(f"{PUB} GB/s (other hardware)", fontsize=7, color="grey")
    tw.tick_params(labelsize=6, colors="grey")
    return rows


def best_bars(cands, data):
    """Bar heights and min-max error bars of the point with the larger buffer in each candidate
    list (0 where a list is empty); the points drawn are appended to data."""
    ys, lo, hi = [], [], []
    for cand in cands:
        best = max(cand, key=lambda p: p["buffer_bytes"], default=None)
        ys.append(best["gb_s"] if best else 0)
        lo.append(best["gb_s"] - best["gb_s_lo"] if best else 0)
        hi.append(best["gb_s_hi"] - best["gb_s"] if best else 0)
        if best:
            data.append(best)
    return ys, [lo, hi]


def largest(pts):
    return max(p["size_bytes"] for p in pts) if pts else 0


def fig_size(pts, fw):
    sel = [p for p in pts if p["mapping"] == "one-dir" and p["timing"] in TIMINGS + ("handover", "read-not-dropped")]
    if not sel:
        return analyze_skip(1, "no single-directory iobench report with the per-rank timing rows")
    n = max(p["ranks"] for p in sel)
    sel = [p for p in sel if p["ranks"] == n]
    fig, axes = new_figure(2, 2)
    data = []
    for ax, timing in zip([a for row in axes for a in row], TIMINGS):
        want = {timing} | ({"handover"} if timing == "returned" else set()) | \
               ({"read-not-dropped"} if timing == "read-cold" else set())
        for b in backends_of(sel):
            for buf, style in zip(sorted({p["buffer_bytes"] for p in sel}), ["-", "--", ":"]):
                line = sorted((p for p in sel if p["backend"] == b and p["buffer_bytes"] == buf
                               and p["timing"] in want), key=lambda p: p["size_bytes"])
                if line:
                    errbar(ax, line, lambda p: p["size_bytes"],
                           f"{b}" + (f", {human_bytes(buf)}" if buf else ""),
                           color=COLORS.get(b), linestyle=style)
                    data += line
        data += published_rows(op="read" if timing.startswith("read") else "write")
        published_inset(ax, "read" if timing.startswith("read") else "write")
        size_axes(ax, n, TIMING_LABEL[timing])
        ax.tick_params(labelsize=6)
        ax.grid(True, alpha=0.3)
    h, lab = axes[0][0].get_legend_handles_labels()
    fig.legend(h, lab, loc="center right", fontsize=6)
    fig.suptitle(f"Bandwidth vs file size per backend (this machine, {n} ranks; mean over ranks x "
                 f"repetitions); grey: {PUB} A300, 1 GB files (other hardware)", fontsize=8)
    fig.tight_layout(rect=(0, 0, 0.86, 0.95))
    fw.save(fig, FIGS[1], "bandwidth vs file size per backend", data)


def size_axes(ax, n, title):
    """Bandwidth against file size per rank (figures io1 and io2)."""
    ax.set_xscale("log", base=2)
    ax.set_xlabel("file size per rank", fontsize=7)
    ax.set_ylabel(f"GB/s, {n} rank(s)", fontsize=7)
    ax.set_title(title, fontsize=8)


def fig_c_fortran(pts, fw):
    sel = [p for p in pts if p["mapping"] == "one-dir" and p["backend"] in ("posix", "fortran")]
    if not {p["backend"] for p in sel} >= {"posix", "fortran"}:
        return analyze_skip(2, "needs posix and fortran rows (a build with the Fortran backend)")
    n = max(p["ranks"] for p in sel)
    fig, axes = new_figure(1, 2)
    data = []
    for ax, (timing, op) in zip(axes[0], (("returned", "write"), ("read-cold", "read"))):
        for b, label in (("posix", "C (posix: fwrite + fflush)"), ("fortran", "Fortran (WRITE/READ)")):
            # posix with its largest buffer against fortran (no buffer of its own)
            cand = [p for p in sel if p["backend"] == b and p["ranks"] == n and
                    p["timing"] in (timing, "read-not-dropped")]
            buf = max((p["buffer_bytes"] for p in cand), default=0)
            line = sorted((p for p in cand if p["buffer_bytes"] == buf), key=lambda p: p["size_bytes"])
            if line:
                errbar(ax, line, lambda p: p["size_bytes"], label, color=COLORS[b])
                data += line
        pub = [p for p in PUBLISHED if p[0] == "A300-2" and p[3] == "normal" and p[4] == op]
        for s, d, nr, m, o, v, note in pub:
            ax.axhline(v, color="grey", linestyle=":",
                       label=f"{PUB} {s}, {note} (other hardware)")
        data += [r for r in published_rows(op=op, mode="normal") if "A300-2" in r["source"]]
        size_axes(ax, n, TIMING_LABEL[timing])
        ax.legend(fontsize=6)
        ax.grid(True, alpha=0.3)
    fig.suptitle("C against Fortran (the seeds: C consistently faster than Fortran READ/WRITE)",
                 fontsize=9)
    fig.tight_layout()
    fw.save(fig, FIGS[2], "C vs Fortran", data)


def fig_modes(pts, fw):
    sel = [p for p in pts if p["mapping"] == "one-dir" and p["backend"] in MODE_OF]
    if not sel:
        return analyze_skip(3, "no posix / uring / offload rows")
    n = max(p["ranks"] for p in sel)
    size = largest([p for p in sel if p["ranks"] == n])
    sel = [p for p in sel if p["ranks"] == n and p["size_bytes"] == size]
    groups = [("returned", "write returned\n(offload: handover)"), ("completed", "write completed"),
              ("read-cold", "read cold")]
    fig, axes = new_figure(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    ax, axp = axes[0]
    data = []
    width = 0.8 / len(MODE_OF)
    for i, (b, label) in enumerate(MODE_OF.items()):
        want = {t: {t, "handover"} if t == "returned" else {t, "read-not-dropped"} for t, _ in groups}
        ys, err = best_bars([[p for p in sel if p["backend"] == b and p["timing"] in want[t]]
                             for t, _ in groups], data)
        ax.bar([k + i * width for k in range(len(groups))], ys, width, yerr=err, capsize=3,
               color=COLORS[b], label=label)
    ax.set_xticks([k + width for k in range(len(groups))])
    ax.set_xticklabels([g[1] for g in groups], fontsize=7)
    ax.set_ylabel(f"GB/s ({n} ranks, {human_bytes(size)} per rank)", fontsize=7)
    ax.set_title("this machine", fontsize=8)
    ax.legend(fontsize=7)
    systems = ["A300-2", "A300-4", "A300-8"]
    for i, mode in enumerate(("normal", "accelerated")):
        ys = [max((p[5] for p in PUBLISHED if p[0] == s and p[3] == mode and p[4] == "write"),
                  default=0) for s in systems]
        axp.bar([k + i * 0.4 for k in range(3)], ys, 0.4, color="grey", alpha=0.5 + 0.4 * i,
                label=f"{mode} I/O")
    axp.set_xticks([k + 0.2 for k in range(3)])
    axp.set_xticklabels([f"{s}\n1 GB write" for s in systems], fontsize=7)
    axp.set_ylabel("GB/s", fontsize=7)
    axp.set_title(f"{PUB} (other hardware; no offload value published)", fontsize=8)
    axp.legend(fontsize=7)
    data += published_rows(op="write")
    fig.suptitle("Normal vs accelerated vs offload I/O", fontsize=9)
    fig.tight_layout()
    fw.save(fig, FIGS[3], "normal vs accelerated vs offload", data)


def fig_ranks(pts, fw):
    sel = [p for p in pts if p["mapping"] == "one-dir"]
    if len({p["ranks"] for p in sel}) < 2:
        return analyze_skip(4, "needs single-directory reports at two rank counts or more")
    fig, axes = new_figure(1, 2)
    data = []
    for ax, timing in zip(axes[0], ("completed", "read-cold")):
        want = {timing, "read-not-dropped"}
        for b in backends_of(sel):
            cand = [p for p in sel if p["backend"] == b and p["timing"] in want]
            if not cand:
                continue
            size = largest(cand)
            buf = max(p["buffer_bytes"] for p in cand)
            line = sorted((p for p in cand if p["size_bytes"] == size and p["buffer_bytes"] == buf),
                          key=lambda p: p["ranks"])
            errbar(ax, line, lambda p: p["ranks"], f"{b}, {human_bytes(size)}",
                   color=COLORS.get(b))
            data += line
        op = "read" if timing.startswith("read") else "write"
        data += published_rows(op=op)
        for mode, marker in (("normal", "s"), ("accelerated", "*")):
            pub = [p for p in PUBLISHED if p[3] == mode and p[4] == op]
            ax.scatter([p[2] for p in pub], [p[5] for p in pub], marker=marker, color="grey",
                       label=f"{PUB} A300-2/4/8, {mode} (other hardware)")
            for s_, d, nr, m, o, v, note in pub:
                ax.annotate(s_, (nr, v), fontsize=6, color="grey", xytext=(3, 3),
                            textcoords="offset points")
        ax.set_yscale("log")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("MPI ranks", fontsize=7)
        ax.set_ylabel("GB/s (all ranks)", fontsize=7)
        ax.set_title(TIMING_LABEL[timing], fontsize=8)
        ax.legend(fontsize=6, loc="lower right")
        ax.grid(True, alpha=0.3)
    fig.suptitle("Bandwidth vs ranks (largest size, larger buffer)", fontsize=9)
    fig.tight_layout()
    fw.save(fig, FIGS[4], "bandwidth vs ranks", data)


def fig_mapping(pts, fw):
    multi = [p for p in pts if p["mapping"] in ("block", "cyclic")]
    if not multi:
        return analyze_skip(5, "no report over several directories (cubecg-iobench --dirs)")
    n = max(p["ranks"] for p in multi)
    size = largest([p for p in multi if p["ranks"] == n])
    sel = [p for p in pts if p["ranks"] == n and p["size_bytes"] == size and
           p["timing"] in ("completed", "read-cold", "read-not-dropped")]
    fig, axes = new_figure(1, 2, gridspec_kw={"width_ratios": [3, 1]})
    ax, axp = axes[0]
    data = []
    cats = [(b, t) for b in backends_of(multi) for t in ("completed", "read-cold")]
    maps = ["one-dir", "block", "cyclic"]
    width = 0.8 / len(maps)
    for i, m in enumerate(maps):
        ys, err = best_bars([[p for p in sel if p["backend"] == b and p["mapping"] == m and
                              (p["timing"] == t or (t == "read-cold" and
                                                    p["timing"] == "read-not-dropped"))]
                             for b, t in cats], data)
        ax.bar([k + i * width for k in range(len(cats))], ys, width, yerr=err, capsize=2,
               label=m if m != "one-dir" else "one directory")
    ax.set_xticks([k + width for k in range(len(cats))])
    ax.set_xticklabels([f"{b}\n{'write' if t == 'completed' else 'read'}" for b, t in cats],
                       fontsize=6)
    ndirs = max(p["n_dirs"] for p in multi)
    ax.set_ylabel(f"GB/s ({n} ranks, {human_bytes(size)} per rank)", fontsize=7)
    ax.set_title(f"this machine: ranks over {ndirs} directories, block vs cyclic", fontsize=8)
    ax.legend(fontsize=7)
    axp.bar(range(2), [v for _, v in PUBLISHED_MAPPING], color="grey")
    axp.set_xticks(range(2))
    axp.set_xticklabels([k for k, _ in PUBLISHED_MAPPING], fontsize=7)
    axp.set_title(f"{PUB} A300-8,\naccelerated (other hardware)", fontsize=7)
    axp.set_ylabel("GB/s", fontsize=7)
    data += [dict(source=f"{PUB} A300-8 (8 devices behind 2 PCIe switches; other hardware)",
                  backend="accelerated", op="write", timing="seeds", size_bytes="", ranks="",
                  buffer_bytes="", mapping=k, n_dirs=8, gb_s=v, gb_s_lo=v, gb_s_hi=v,
                  fio_gb_s="", fio_ratio="", page_cache="") for k, v in PUBLISHED_MAPPING]
    fig.suptitle("Rank-to-device mapping (the seeds' PCIe-switch experiment)", fontsize=9)
    fig.tight_layout()
    fw.save(fig, FIGS[5], "the mapping effect", data)


def analyze_skip(n, why):
    print(f"  figure io{n} ({FIGS[n]}) skipped: {why}")


def figures(reports, fw):
    """All I/O figures from already-loaded reports (cli.py calls this)."""
    pts = io_points(reports)
    if not pts:
        print("  I/O figures io1-io5 skipped: no iobench report with the per-rank timing rows "
              "(jobs/iosweep.sh)")
        return
    for fn in (fig_size, fig_c_fortran, fig_modes, fig_ranks, fig_mapping):
        fn(pts, fw)


def main(argv=None):
    args = report_args("cubecg-analyze-io", __doc__, "cubecg-iobench",
                       "figures and CSVs").parse_args(argv)
    reports = load_or_complain("cubecg-analyze-io", args.dir)
    if reports is None:
        return 2
    fw = report_writer(args, "I/O figures")
    if fw is None:
        return 3
    figures(reports, fw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
