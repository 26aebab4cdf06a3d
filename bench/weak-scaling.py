#!/usr/bin/env python3
"""weak-scaling.py: weak scaling of everything but the solve (docs/benchmarks.md, "Weak scaling of
the set-up"). At P = 1, 2, 4, ... ranks with a fixed number of nodes per rank (px x py x pz boxes
of L^3 nodes), for each partition: the set-up stages of the report (mesh, partition, assembly,
ordering, setup; max over ranks), each rank's peak RSS (/usr/bin/time -f %M around every rank),
and for every checkpoint backend of the build the commit and write time of a checkpoint and the
time a restart takes to load it. Writes a JSON and a PNG figure.

  bench/weak-scaling.py [--max-ranks N | --ranks LIST] [--local L] [--partitions LIST]
                        [--backends LIST|auto|none] [--out DIR] [--json PATH] [--png PATH]
                        [--check-rss RATIO,GROWTH] [--build DIR] [--mpiexec PATH]

--check-rss RATIO,GROWTH  exit 1 unless at every P the largest rank's peak RSS is at most RATIO x
                          the median rank's, and the largest rank's RSS at the last P is at most
                          GROWTH x that at the first P (the ctests scale_rss_*; bytes, no times)
Exit 0 when every run succeeded (and the check held), 1 otherwise, 2 on bad arguments. A run cut
short by --maxit exits 3 and counts as done. Times from a loaded or oversubscribed machine are
shapes, not figures: the RSS columns are counts of bytes and hold there too.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
STAGES = ["mesh", "partition", "assembly", "ordering", "setup"]
STAMP = re.compile(r"^\[\s*([0-9.]+) s\] (.*)$")


def fail(msg):
    print(f"weak-scaling.py: {msg}", file=sys.stderr)
    sys.exit(2)


def factor3(p):
    """px, py, pz with px * py * pz = p and the least surface (px + py + pz smallest), px <= py <= pz"""
    best = None
    for px in range(1, p + 1):
        if p % px:
            continue
        for py in range(px, p // px + 1):
            if (p // px) % py:
                continue
            pz = p // px // py
            if pz < py:
                continue
            if best is None or px + py + pz < sum(best):
                best = (px, py, pz)
    return best


def mpiexec_of(build):
    """the launcher CMake chose for the build (cubecg-mpi.env), else mpiexec"""
    env = os.path.join(build, "cubecg-mpi.env")
    if os.path.exists(env):
        for line in open(env):
            if line.startswith("CUBECG_MPIEXEC=") and line.strip().split("=", 1)[1]:
                return line.strip().split("=", 1)[1]
    return os.environ.get("CUBECG_MPIEXEC", "mpiexec")


def rank_rss(rss_dir, ranks):
    """peak RSS of each rank in bytes (the wrapper's /usr/bin/time -f %M: KiB)"""
    out = []
    for r in range(ranks):
        path = os.path.join(rss_dir, f"rss.{r}")
        if not os.path.exists(path):
            raise RuntimeError(f"{path}: no peak RSS of rank {r} (did /usr/bin/time run?)")
        text = open(path).read().split()
        out.append(int(text[-1]) * 1024)
    return out


def run(args, ranks, partition, extra, tag):
    """one cubecg run in its own directory: its report, stage stamps and per-rank peak RSS"""
    px, py, pz = factor3(ranks)
    L = args.local
    d = os.path.join(args.out, f"{tag}-{partition}-np{ranks}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "rss"))
    cmd = [args.mpiexec, "-n", str(ranks)] + (["-bind-to", "none"] if "mpich" in args.mpiexec or
                                                "hydra" in args.mpiexec else [])
    cmd += [os.path.join(HERE, "rank-rss.sh"), args.cubecg]
    cmd += ["--nx", str(px * L), "--ny", str(py * L), "--nz", str(pz * L), "--partition",
            partition, "--report", "r.json", "--monitor", "-1"]
    if partition == "box":
        cmd += ["--px", str(px), "--py", str(py), "--pz", str(pz)]
    cmd += extra
    env = dict(os.environ, CUBECG_RSS_DIR=os.path.join(d, "rss"), OMP_NUM_THREADS="1")
    p = subprocess.run(cmd, cwd=d, env=env, capture_output=True, text=True, timeout=args.timeout)
    open(os.path.join(d, "stdout.txt"), "w").write(p.stdout + p.stderr)
    rep = os.path.join(d, "r.json")
    if p.returncode not in (0, 3) or not os.path.exists(rep):
        raise RuntimeError(f"{' '.join(cmd)} in {d}: exit {p.returncode}\n{p.stderr[-2000:]}")
    report = json.load(open(rep))
    stamps = [m.groups() for m in map(STAMP.match, p.stdout.splitlines()) if m]
    return report, [(float(t), s) for t, s in stamps], rank_rss(os.path.join(d, "rss"), ranks), d


def setup_row(args, ranks, partition):
    report, _, rss, _ = run(args, ranks, partition, ["--maxit", "1"], "setup")
    px, py, pz = factor3(ranks)
    return {
        "ranks": ranks, "partition": partition, "px": px, "py": py, "pz": pz,
        "nodes": report["problem"]["nx"] * report["problem"]["ny"] * report["problem"]["nz"],
        "edge_cut": report["problem"].get("edge_cut"),
        "stages_max_s": {k: report["timings"][k] for k in STAGES},
        "stages_min_s": {k: report["timings_min"][k] for k in STAGES},
        "rss_bytes": {"min": min(rss), "median": statistics.median(rss), "max": max(rss),
                      "per_rank": rss},
        "report_peak_rss_bytes_max": report["memory"]["peak_rss_bytes_max"],
    }


def stamp_of(stamps, prefix):
    for t, s in stamps:
        if s.startswith(prefix):
            return t
    return None


def checkpoint_row(args, ranks, backend):
    """commit, write and stall of a checkpoint (median of two), then a restart's load time: the
    rank-0 stamps from the solve's start to "resumed from" (0.01 s resolution)"""
    ck = ["--checkpoint", backend, "--checkpoint-dir", "ck", "--checkpoint-every", "1",
          "--checkpoint-keep", "2"]
    partition = args.checkpoint_partition
    report, _, rss, d = run(args, ranks, partition, ck + ["--maxit", "2"], f"ckpt-{backend}")
    per = report["solves"][0]["checkpoint"]["per_checkpoint"]
    row = {"ranks": ranks, "backend": backend, "partition": partition,
           "bytes": report["solves"][0]["checkpoint"]["bytes"],
           "path_used": report["solves"][0]["checkpoint"]["path_used"],
           "rss_bytes_max": max(rss)}
    for key in ("commit_s", "write_s", "stall_s"):
        row[key] = statistics.median(c[key] for c in per)
    ck_dir = os.path.join(d, "ck")
    _, stamps, _, _ = run(args, ranks, partition,
                          ck + ["--maxit", "3", "--restart", ck_dir, "--checkpoint-dir", ck_dir,
                                "--checkpoint-overwrite"], f"restart-{backend}")
    t0, t1 = stamp_of(stamps, "solve 1/1"), stamp_of(stamps, "resumed from")
    if t0 is None or t1 is None:
        raise RuntimeError(f"restart of {backend} at {ranks} ranks printed no 'resumed from'")
    row["restart_s"] = t1 - t0
    return row


def check_rss(rows, ratio, growth):
    ok = True
    for part in sorted({r["partition"] for r in rows}):
        mine = sorted((r for r in rows if r["partition"] == part), key=lambda r: r["ranks"])
        for r in mine:
            q = r["rss_bytes"]["max"] / r["rss_bytes"]["median"]
            good = q <= ratio
            ok &= good
            print(f"{part} P={r['ranks']}: peak RSS max {r['rss_bytes']['max']} B, median "
                  f"{r['rss_bytes']['median']:.0f} B, max/median {q:.3f} "
                  f"({'ok' if good else 'ABOVE'} {ratio})")
        g = mine[-1]["rss_bytes"]["max"] / mine[0]["rss_bytes"]["max"]
        good = g <= growth
        ok &= good
        print(f"{part}: max peak RSS at P={mine[-1]['ranks']} / at P={mine[0]['ranks']} = {g:.3f} "
              f"({'ok' if good else 'ABOVE'} {growth})")
    return ok


def save(data, path):
    """the JSON after every row, so that a run cut short keeps what it measured"""
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=1)
    os.replace(path + ".tmp", path)


def figure(data, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(15, 4.5))
    style = {"box": "-", "metis": "--"}
    for part in sorted({r["partition"] for r in data["setup"]}):
        rows = sorted((r for r in data["setup"] if r["partition"] == part), key=lambda r: r["ranks"])
        P = [r["ranks"] for r in rows]
        for i, k in enumerate(STAGES):  # one colour per stage, one line style per partition
            ax[0].plot(P, [max(r["stages_max_s"][k], 1e-6) for r in rows], style.get(part, ":"),
                       color=f"C{i}", marker="o", label=f"{k} ({part})")
        for i, k in enumerate(("max", "median", "min")):
            ax[1].plot(P, [r["rss_bytes"][k] / 2**20 for r in rows], style.get(part, ":"),
                       color=f"C{i}", marker="o", label=f"{k} ({part})")
    for b in sorted({r["backend"] for r in data["checkpoints"]}):
        rows = sorted((r for r in data["checkpoints"] if r["backend"] == b), key=lambda r: r["ranks"])
        P = [r["ranks"] for r in rows]
        line = ax[2].plot(P, [max(r["commit_s"], 1e-6) for r in rows], "-", marker="o",
                          label=f"{b} commit")
        ax[2].plot(P, [max(r["restart_s"], 1e-3) for r in rows], ":", marker="s",
                   color=line[0].get_color(), label=f"{b} restart")
    titles = ["set-up stages, max over ranks [s]", "peak RSS per rank [MiB]",
              "checkpoint commit / restart load [s]"]
    for a, t in zip(ax, titles):
        a.set_xscale("log", base=2)
        a.set_xlabel("ranks P (%d^3 nodes per rank)" % data["local"])
        a.set_title(t)
        a.legend(fontsize=6, ncol=2)
        a.grid(alpha=0.3)
    ax[0].set_yscale("log")
    ax[2].set_yscale("log")
    fig.suptitle(data["machine_note"], fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-ranks", type=int, default=64)
    ap.add_argument("--ranks", help="comma list of rank counts (default 1, 2, 4, ... max-ranks)")
    ap.add_argument("--local", type=int, default=12, help="L: L^3 nodes per rank (default 12)")
    ap.add_argument("--partitions", default="box,metis")
    ap.add_argument("--backends", default="auto",
                    help="comma list, auto (every backend the build has) or none")
    ap.add_argument("--checkpoint-partition", default="box")
    ap.add_argument("--out", default=os.path.join(REPO, "results", "weak-scaling"))
    ap.add_argument("--json")
    ap.add_argument("--png")
    ap.add_argument("--no-figure", action="store_true")
    ap.add_argument("--check-rss")
    ap.add_argument("--build", default=os.environ.get("CUBECG_BUILD", os.path.join(REPO, "build")))
    ap.add_argument("--mpiexec")
    ap.add_argument("--timeout", type=float, default=900)
    a = ap.parse_args()
    if a.ranks:
        try:
            a.rank_list = [int(x) for x in a.ranks.split(",")]
        except ValueError:
            fail(f"--ranks '{a.ranks}' is not a comma list of integers")
    else:
        if a.max_ranks < 1:
            fail(f"--max-ranks {a.max_ranks} must be >= 1")
        a.rank_list = [1 << i for i in range(a.max_ranks.bit_length()) if 1 << i <= a.max_ranks]
    if any(p < 1 for p in a.rank_list):
        fail(f"--ranks '{a.ranks}': every rank count must be >= 1")
    if a.local < 2:
        fail(f"--local {a.local} must be >= 2")
    a.partition_list = [p for p in a.partitions.split(",") if p]
    for p in a.partition_list:
        if p not in ("box", "metis"):
            fail(f"--partitions: unknown partition '{p}' (box, metis)")
    if a.check_rss:
        try:
            a.rss_ratio, a.rss_growth = (float(x) for x in a.check_rss.split(","))
        except ValueError:
            fail(f"--check-rss '{a.check_rss}' is not RATIO,GROWTH")
    a.cubecg = os.path.join(a.build, "src", "cubecg")
    if not os.access(a.cubecg, os.X_OK):
        fail(f"{a.cubecg}: no cubecg program (--build or CUBECG_BUILD)")
    a.mpiexec = a.mpiexec or mpiexec_of(a.build)
    a.json = a.json or os.path.join(a.out, "weak-scaling.json")
    a.png = a.png or os.path.join(a.out, "weak-scaling.png")
    return a


def main():
    a = parse()
    os.makedirs(a.out, exist_ok=True)
    data = {"kind": "weak_scaling", "local": a.local, "ranks": a.rank_list, "command": " ".join(sys.argv),
            "machine_note": f"{os.uname().nodename}, {os.cpu_count()} CPUs, ranks oversubscribed "
                            f"above {os.cpu_count()}: times are shapes only",
            "setup": [], "checkpoints": [], "failures": []}
    for part in a.partition_list:
        for p in a.rank_list:
            try:
                data["setup"].append(setup_row(a, p, part))
                r = data["setup"][-1]
                print(f"setup {part} P={p}: " + " ".join(f"{k} {r['stages_max_s'][k]:.3g}"
                      for k in STAGES) + f"  RSS max {r['rss_bytes']['max'] / 2**20:.1f} MiB",
                      flush=True)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                data["failures"].append(f"setup {part} P={p}: {e}")
                print(data["failures"][-1], file=sys.stderr)
            save(data, a.json)
    backends = []
    if a.backends == "auto" and data["setup"]:
        rep = json.load(open(os.path.join(a.out, f"setup-{data['setup'][0]['partition']}-np"
                                                 f"{data['setup'][0]['ranks']}", "r.json")))
        backends = rep["available"]["checkpoint_backends"]
    elif a.backends not in ("auto", "none"):
        backends = [b for b in a.backends.split(",") if b]
    for p in a.rank_list:  # every backend at P before the next P: a cut-short run has them all
        for b in backends:
            try:
                data["checkpoints"].append(checkpoint_row(a, p, b))
                r = data["checkpoints"][-1]
                print(f"checkpoint {b} P={p}: commit {r['commit_s']:.3g} s write {r['write_s']:.3g}"
                      f" s restart {r['restart_s']:.3g} s", flush=True)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                data["failures"].append(f"checkpoint {b} P={p}: {e}")
                print(data["failures"][-1], file=sys.stderr)
            save(data, a.json)
    save(data, a.json)
    print(f"wrote {a.json}")
    if not a.no_figure and (data["setup"] or data["checkpoints"]):
        figure(data, a.png)
        print(f"wrote {a.png}")
    ok = not data["failures"]
    if a.check_rss:
        ok &= bool(data["setup"]) and check_rss(data["setup"], a.rss_ratio, a.rss_growth)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
