"""Writing the outputs: figures (PNG of FIG_SIZE_IN x FIG_DPI pixels, each with the CSV of what it
draws), CSVs and text files, never overwriting silently (a taken name gets -2, -3, ... unless
--force); matplotlib with the file-only Agg backend."""
import argparse
import csv
import io
import math
import os
import sys

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
    8: "fig8_progress_gain.png",
}


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


def panel_grid(n, **kw):
    """A figure of n panels (up to 6) on grid_for(n) and its n axes in reading order; the grid's
    unused axes are blank."""
    fig, axes = new_figure(*grid_for(n), **kw)
    flat_axes = [a for row in axes for a in row]
    for ax in flat_axes[n:]:
        ax.axis("off")
    return fig, flat_axes[:n]


def skip(num_, why):
    print(f"  figure {num_} ({FIGURES[num_]}) skipped: {why}")


def yerr(vals, lo, hi):
    """Error bars (min-max around the median) for matplotlib."""
    return [[max(0.0, v - a) if not math.isnan(a) else 0.0 for v, a in zip(vals, lo)],
            [max(0.0, b - v) if not math.isnan(b) else 0.0 for v, b in zip(vals, hi)]]


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


def report_args(prog, doc, what, outputs):
    """The command line of the analyzers (cubecg-analyze, cubecg-analyze-io): DIR, --figdir, --force."""
    ap = argparse.ArgumentParser(prog=prog, description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help=f"folder with {what} JSON reports (searched recursively)")
    ap.add_argument("--figdir", help=f"write {outputs} here instead of DIR")
    ap.add_argument("--force", action="store_true", help="overwrite existing figures")
    return ap


def report_writer(args, heading):
    """The FigureWriter of report_args' DIR (or --figdir, made when missing) and --force, with
    matplotlib on Agg; None when matplotlib is missing (the analyzers exit 3)."""
    if not use_agg():
        return None
    outdir = args.figdir or args.dir
    os.makedirs(outdir, exist_ok=True)
    print(f"{heading} -> {outdir}")
    return FigureWriter(outdir, args.force)


NOISE_LABEL = "hatched: within noise or single run"


def mark_noise(ax, bars, xs, ys, notes):
    """Bars whose comparison is not a measured difference (note "within noise": the repeats'
    ranges overlap; "single run": no spread known) are drawn faint and hatched; the legend says so
    (noise_handle), no text on the bars."""
    for bar, x, y, note in zip(bars, xs, ys, notes):
        if note and not math.isnan(y):
            bar.set_alpha(0.35)
            bar.set_hatch("//")


def noise_handle():
    """The legend entry of mark_noise's hatch."""
    from matplotlib.patches import Patch
    return Patch(facecolor="white", edgecolor="black", hatch="//", label=NOISE_LABEL)
