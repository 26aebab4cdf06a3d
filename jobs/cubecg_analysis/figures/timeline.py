"""cubecg-timeline: a few iterations per rank of a cubecg --trace archive, as a PNG.

  cubecg-timeline TRACEDIR [--iterations N] [--out FILE.png] [--force]
  cubecg-analyze REPORTS --timeline TRACEDIR      (the same, beside the other figures)

Reads TRACEDIR/traces.otf2 (written by `cubecg --trace TRACEDIR`, docs/user-guide.md) with the
OTF2 Python bindings (Debian python3-otf2). They belong to Debian's /usr/bin/python3, which may not
be the python3 that runs this package (jobs/ensure-python.sh): when `import otf2` fails here, the
archive is read by /usr/bin/python3 running this file with --dump (standard library + otf2 only)
and the drawing is done here. One row per rank from the start of the first solve to the end of its
N-th iteration (default 3): the timing regions as bars (nested regions drawn thinner on top),
each non-blocking reduction's post (triangle), its tests (ticks) and its wait's return (circle:
filled when the reduction had already completed as the wait began, hollow when the wait blocked),
iteration ends as dotted lines. Exit 2 on a missing or unreadable archive, 3 without a reader.
"""
import argparse
import json
import os
import subprocess
import sys

DEBIAN_PYTHON = "/usr/bin/python3"
THINNER = 3 / 4  # bar height of a nested region against the region it is in
COLORS = {"spmv": "tab:blue", "halo": "tab:cyan", "halo_wait": "tab:red", "precond": "tab:green",
          "precond_halo": "tab:olive", "precond_halo_wait": "tab:pink", "dot": "tab:purple",
          "axpy": "tab:orange", "reduction": "black", "checkpoint": "tab:brown"}


def read_archive(archive, iterations):
    """{rank name: {"regions": [[name, t0, t1, depth]], "iterations": [[t, i]], "posts": [t],
    "tests": [[t, completed]], "waits": [[t, completed]]}} in seconds since the trace opened, each
    rank cut after its first solve's `iterations`-th iteration marker (needs the otf2 module)."""
    import otf2  # Debian python3-otf2
    ranks = {}
    with otf2.reader.open(archive) as trace:
        res = float(trace.definitions.clock_properties.timer_resolution)
        for loc, ev in trace.events:
            d = ranks.setdefault(loc.name, {"regions": [], "iterations": [], "posts": [],
                                            "tests": [], "waits": [], "stack": [], "done": False})
            if d["done"]:
                continue
            t, kind = ev.time / res, type(ev).__name__
            attrs = {a.name: v for a, v in ev.attributes.items()} if ev.attributes else {}
            if kind == "Enter":
                d["stack"].append((ev.region.name, t))
            elif kind == "Leave" and d["stack"]:
                name, t0 = d["stack"].pop()
                d["regions"].append([name, t0, t, len(d["stack"])])
                d["done"] = name == "solve"  # the first solve only
            elif kind == "ParameterInt":
                d["iterations"].append([t, int(ev.value)])
                d["done"] = len(d["iterations"]) >= iterations
            elif kind == "NonBlockingCollectiveRequest":
                d["posts"].append(t)
            elif kind == "MpiRequestTest":
                d["tests"].append([t, int(attrs.get("completed", 0))])
            elif kind == "NonBlockingCollectiveComplete":
                d["waits"].append([t, int(attrs.get("completed", 0))])
    for d in ranks.values():  # regions still open at the cut end there
        end = d["iterations"][-1][0] if d["iterations"] else None
        for name, t0 in d.pop("stack"):
            if end is not None:
                d["regions"].append([name, t0, end, 0])
        d.pop("done")
    return ranks


def load(archive, iterations):
    """read_archive here, or through Debian's python3 when this interpreter has no otf2."""
    try:
        import otf2  # noqa: F401
        return read_archive(archive, iterations)
    except ImportError:
        pass
    if not os.path.exists(DEBIAN_PYTHON) or os.path.realpath(sys.executable) == DEBIAN_PYTHON:
        raise RuntimeError("no OTF2 reader: install Debian's python3-otf2 (./setup.sh)")
    p = subprocess.run([DEBIAN_PYTHON, os.path.abspath(__file__), "--dump", archive,
                        "--iterations", str(iterations)], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{DEBIAN_PYTHON} could not read {archive}: "
                           + (p.stderr.strip().splitlines() or ["no message"])[-1])
    return json.loads(p.stdout)


def rank_order(ranks):
    return sorted(ranks, key=lambda n: int(n.split()[-1]) if n.split()[-1].isdigit() else n)


def draw(ranks, out, iterations):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    names = rank_order(ranks)
    t0 = min((r[1] for d in ranks.values() for r in d["regions"] if r[0] == "solve"), default=0.0)
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.9 * len(names)))
    seen = set()
    for row, name in enumerate(names):
        d, y = ranks[name], len(names) - 1 - row
        for region, a, b, depth in sorted(d["regions"], key=lambda r: r[3]):
            if region == "solve":
                continue
            h = 0.7 * THINNER ** max(depth - 1, 0)  # inside solve: depth 1; nested ones thinner
            ax.barh(y, (b - a) * 1e3, left=(a - t0) * 1e3, height=h,
                    color=COLORS.get(region, "tab:gray"), edgecolor="none")
            seen.add(region)
        ax.plot([(t - t0) * 1e3 for t in d["posts"]], [y + 0.42] * len(d["posts"]), "v",
                color="black", ms=5)
        ax.plot([(t - t0) * 1e3 for t, _ in d["tests"]], [y - 0.42] * len(d["tests"]), "|",
                color="gray", ms=5)
        for t, done in d["waits"]:
            ax.plot((t - t0) * 1e3, y + 0.42, "o", ms=5, color="black",
                    markerfacecolor="black" if done else "white")
        for t, _ in d["iterations"]:  # this rank's row only: ranks end iterations apart
            ax.plot([(t - t0) * 1e3] * 2, [y - 0.5, y + 0.5], color="gray", ls=":", lw=0.8)
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(list(reversed(names)))
    ax.set_xlabel("time since the solve began [ms]")
    ax.set_title(f"cubecg --trace: the first {iterations} iteration(s) of the first solve, per rank")
    handles = [Patch(color=COLORS.get(r, "tab:gray"), label=r) for r in COLORS if r in seen]
    handles += [Line2D([], [], marker="v", ls="", color="black", label="reduction posted"),
                Line2D([], [], marker="|", ls="", color="gray", label="MPI_Test (poll)"),
                Line2D([], [], marker="o", ls="", color="black", label="wait: had completed"),
                Line2D([], [], marker="o", ls="", color="black", markerfacecolor="white",
                       label="wait: blocked"),
                Line2D([], [], ls=":", color="gray", label="iteration end")]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7,
              frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def free_name(path, force):
    if force or not os.path.exists(path):
        return path
    stem, ext = os.path.splitext(path)
    n = 2
    while os.path.exists(f"{stem}-{n}{ext}"):
        n += 1
    return f"{stem}-{n}{ext}"


def timeline(trace_dir, out=None, iterations=3, force=False):
    """Draw trace_dir's timeline into out (default trace_dir/timeline.png); returns the path."""
    archive = os.path.join(trace_dir, "traces.otf2")
    if not os.path.isfile(archive):
        raise FileNotFoundError(f"{archive}: no such archive (written by cubecg --trace {trace_dir})")
    ranks = load(archive, iterations)
    if not any(d["regions"] for d in ranks.values()):
        raise RuntimeError(f"{archive}: no solve regions recorded")
    path = free_name(out or os.path.join(trace_dir, "timeline.png"), force)
    draw(ranks, path, iterations)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(prog="cubecg-timeline", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace_dir", help="the --trace directory (holds traces.otf2)")
    ap.add_argument("--iterations", type=int, default=3, help="iterations drawn (default 3)")
    ap.add_argument("--out", help="the PNG (default TRACEDIR/timeline.png)")
    ap.add_argument("--force", action="store_true", help="overwrite an existing PNG")
    ap.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)  # the reader's side
    args = ap.parse_args(argv)
    if args.iterations < 1:
        print(f"cubecg-timeline: --iterations {args.iterations} must be >= 1", file=sys.stderr)
        return 2
    if args.dump:  # trace_dir is the archive itself here
        json.dump(read_archive(args.trace_dir, args.iterations), sys.stdout)
        return 0
    try:
        path = timeline(args.trace_dir, args.out, args.iterations, args.force)
    except FileNotFoundError as e:
        print(f"cubecg-timeline: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"cubecg-timeline: {e}", file=sys.stderr)
        return 3 if "no OTF2 reader" in str(e) else 2
    print(f"cubecg-timeline: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
