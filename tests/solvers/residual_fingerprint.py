#!/usr/bin/env python3
"""Residual-history fingerprints of every CG variant, for refactors that must not change a bit.

Runs cubecg over a matrix of preconditioner precisions, preconditioners, orderings, rank counts
and thread counts (every variant and reduction in each run, --solver all --reduction all) and
prints one line per solve: the configuration, the iteration count and a SHA-256 of the recursive
residual history as the report holds it (17 significant digits: the doubles bit for bit).

  residual_fingerprint.py run CUBECG [--mpiexec mpiexec] > before.txt
  (change the code, rebuild)
  residual_fingerprint.py run CUBECG > after.txt
  residual_fingerprint.py compare before.txt after.txt     # exit 1 on any difference
  (--only REGEX runs the configurations whose label matches, e.g. --only 'half|single'; compare
  then reports the solves missing from one side as differing)
"""
import argparse
import hashlib
import itertools
import json
import re
import os
import subprocess
import sys
import tempfile

MESH = ["--nx", "10", "--ny", "9", "--nz", "8"]


def configs():
    """(label, extra options, ranks, threads) of every run."""
    for prec, pc, ranks, threads in itertools.product(
        ("double", "single", "half"), ("asdd", "sgs"), (1, 2, 4), (1, 2)
    ):
        yield (f"{pc}-{prec}-np{ranks}-t{threads}",
               ["--precond", pc, "--precond-precision", prec], ranks, threads)
    for prec, order in itertools.product(("double", "single", "half"),
                                         ("natural", "rcm", "mc", "cm-rcm-level-off")):
        opts = ["--precond", "sgs", "--precond-precision", prec]
        opts += (["--ordering", "cm-rcm", "--level-order", "off"] if order == "cm-rcm-level-off"
                 else ["--ordering", order])
        yield (f"sgs-{prec}-{order}-np2-t2", opts, 2, 2)
    for prec in ("double", "single", "half"):
        yield (f"asdd-{prec}-full-residual-np2-t2",
               ["--precond", "asdd", "--precond-precision", prec, "--asdd-residual", "full",
                "--asdd-iters", "3"], 2, 2)


def run(args):
    with tempfile.TemporaryDirectory() as tmp:
        for label, opts, ranks, threads in configs():
            if args.only and not re.search(args.only, label):
                continue
            report = os.path.join(tmp, "r.json")
            cmd = [args.mpiexec, "-n", str(ranks), args.cubecg, *MESH, "--solver", "all",
                   "--reduction", "all", "--residual-history", "--overlap-probe", "off",
                   "--quiet", "--report", report, *opts]
            env = dict(os.environ, OMP_NUM_THREADS=str(threads))
            res = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if res.returncode != 0:
                sys.exit(f"residual_fingerprint: {label} failed ({res.returncode}): "
                         f"{' '.join(cmd)}\n{res.stderr}")
            with open(report, encoding="utf-8") as f:
                rep = json.load(f)
            for s in rep["solves"]:
                hist = ",".join(repr(float(v)) for v in s["residual_history"])
                digest = hashlib.sha256(hist.encode()).hexdigest()[:20]
                print(f"{label} {s['solver']}-{s['reduction']} it={s['iterations']} {digest}",
                      flush=True)


def compare(args):
    def load(p):
        with open(p, encoding="utf-8") as f:
            return {" ".join(l.split()[:2]): l.split()[2:] for l in f if l.strip()}
    a, b = load(args.before), load(args.after)
    bad = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    for k in bad:
        print(f"differs: {k}: {a.get(k)} -> {b.get(k)}")
    print(f"{len(a)} solves before, {len(b)} after, {len(bad)} differ")
    return 1 if bad or not a else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("cubecg")
    r.add_argument("--mpiexec", default="mpiexec")
    r.add_argument("--only", metavar="REGEX", help="only the configurations whose label matches")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    a = ap.parse_args()
    return run(a) if a.cmd == "run" else compare(a)


if __name__ == "__main__":
    sys.exit(main() or 0)
