"""ab.py: paired A/B runs of cubecg, for claims like "single is 1.3x faster than double per
iteration" on a machine whose memory bandwidth drifts from run to run (one run of each, minutes
apart, can move the ratio by 30 %). Runs A and B back to back PAIRS times, alternating which goes
first (A B, B A, A B, ...), and reports per pair the ratio of their time per iteration (A / B: > 1
means B is faster), the median, min and max of those ratios, and each run's iterations, time per
iteration, roofline fraction and triad bandwidth (when --roofline is among the options).

  cubecg-ab [--pairs N] [--launch "mpiexec.mpich -n 2"] [--threads T] [--cubecg PATH] [--out DIR]
            [--label-a NAME] [--label-b NAME] [--env-a K=V ...] [--env-b K=V ...]
            [--a "OPTS"] [--b "OPTS"] -- COMMON...

A and B differ by their options (--a, --b), their environment (--env-a, --env-b) or both; at
least one of the four must be given. Example, MPICH's progress thread off against on:
  cubecg-ab --env-a MPIR_CVAR_ASYNC_PROGRESS=0 --env-b MPIR_CVAR_ASYNC_PROGRESS=1
            -- --solver pipecg --reduction iar --nx 64 --ny 64 --nz 64
Exit 1 when a run fails (its output is printed); a run ending with exit 3 (a built-in check
failed, as "not converged" does when --maxit cuts a timing run short) counts, its report says
which. Exit 2 on a bad option. Only the first solve of each report is used.
"""
import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile


def run_one(args, opts, extra_env, report):
    cmd = shlex.split(args.launch) + [args.cubecg] + opts + ["--quiet", "--report", report]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), **extra_env)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    # exit 3 = a built-in check failed, which includes "not converged" in a timing run cut short
    # by --maxit: the report is still written and says which (each run's "converged")
    if proc.returncode not in (0, 3) or not os.path.exists(report):
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.exit(f"cubecg-ab: run failed (exit {proc.returncode}): {shlex.join(cmd)}")
    solve = json.load(open(report))["solves"][0]
    return {
        "report": report,
        "exit": proc.returncode,
        "converged": solve["converged"],
        "iterations": solve["iterations"],
        "time_per_iter_s": solve["time_per_iter_s"],
        "roofline_fraction": solve.get("roofline_fraction"),
        "triad_bytes_per_s": solve.get("triad_bytes_per_s"),
        "true_rel_residual": solve.get("true_rel_residual"),
    }


def env_pair(text):
    """K=V of --env-a / --env-b: a variable name, '=', any value (possibly empty)."""
    key, eq, value = text.partition("=")
    if not eq or not key or not (key[0].isalpha() or key[0] == "_") or \
            not all(c.isalnum() or c == "_" for c in key):
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=VALUE")
    return key, value


def default_cubecg():
    """$CUBECG_BUILD/src/cubecg when CUBECG_BUILD is set (as the job scripts read it), else the
    repository's build/, else cubecg on PATH (an installed prefix)."""
    build = os.environ.get("CUBECG_BUILD")
    if build:
        return os.path.join(build, "src", "cubecg")
    here = os.path.dirname(os.path.abspath(__file__))  # jobs/
    path = os.path.join(here, "..", "build", "src", "cubecg")
    return path if os.path.exists(path) or not shutil.which("cubecg") else shutil.which("cubecg")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="cubecg-ab", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pairs", type=int, default=5, metavar="N", help="pairs of runs (default 5)")
    p.add_argument("--launch", default=os.environ.get("CUBECG_MPIEXEC", "mpiexec.mpich") + " -n 2",
                   metavar="CMD", help="launcher and its options, split as a shell would (default"
                   ' "%(default)s": $CUBECG_MPIEXEC or mpiexec.mpich; "" runs cubecg directly)')
    p.add_argument("--threads", type=int, default=1, metavar="T",
                   help="OMP_NUM_THREADS of every run (default 1)")
    p.add_argument("--cubecg", default=None, metavar="PATH",
                   help="the binary (default $CUBECG_BUILD/src/cubecg, else <repo>/build/src/cubecg,"
                        " else cubecg on PATH)")
    p.add_argument("--out", metavar="DIR", help="reports a.<k>.json, b.<k>.json and the summary"
                   " ab.json (default a new temporary folder, named at the end)")
    p.add_argument("--label-a", default="A", metavar="NAME", help="A's name in the output")
    p.add_argument("--label-b", default="B", metavar="NAME", help="B's name in the output")
    p.add_argument("--a", default="", metavar="OPTS", help="cubecg options of A only, one string"
                   " (a single word starting with -- needs --a=--roofline)")
    p.add_argument("--b", default="", metavar="OPTS", help="cubecg options of B only (one string)")
    p.add_argument("--env-a", type=env_pair, action="append", default=[], metavar="K=V",
                   help="an environment variable of A's runs only (repeatable)")
    p.add_argument("--env-b", type=env_pair, action="append", default=[], metavar="K=V",
                   help="an environment variable of B's runs only (repeatable)")
    p.add_argument("common", nargs=argparse.REMAINDER, metavar="-- COMMON",
                   help="options both get; every run adds --quiet and its own --report")
    args = p.parse_args(argv)
    if args.pairs < 1:
        p.error(f"--pairs {args.pairs}: must be >= 1")
    if args.threads < 1:
        p.error(f"--threads {args.threads}: must be >= 1")
    if (args.a, dict(args.env_a)) == (args.b, dict(args.env_b)):
        p.error("A and B are the same run: give --a/--b options or --env-a/--env-b variables that differ")
    args.cubecg = args.cubecg or default_cubecg()
    if not os.access(args.cubecg, os.X_OK):
        p.error(f"--cubecg {args.cubecg}: not an executable file (build first, or set CUBECG_BUILD)")
    return args


def main(argv=None):
    args = parse_args(argv)
    env = {"a": dict(args.env_a), "b": dict(args.env_b)}
    common = args.common[1:] if args.common[:1] == ["--"] else args.common
    out = args.out or tempfile.mkdtemp(prefix="cubecg-ab-")
    os.makedirs(out, exist_ok=True)
    runs = {"a": [], "b": []}
    ratios = []
    for k in range(args.pairs):
        order = ("a", "b") if k % 2 == 0 else ("b", "a")
        got = {}
        for side in order:
            opts = shlex.split(args.a if side == "a" else args.b) + common
            got[side] = run_one(args, opts, env[side], os.path.join(out, f"{side}.{k}.json"))
            runs[side].append(got[side])
        ratio = got["a"]["time_per_iter_s"] / got["b"]["time_per_iter_s"]
        ratios.append(ratio)
        print(f"pair {k + 1}/{args.pairs} ({order[0]} first): "
              f"{args.label_a} {got['a']['time_per_iter_s']:.4g} s/it, "
              f"{args.label_b} {got['b']['time_per_iter_s']:.4g} s/it, ratio {ratio:.3f}",
              flush=True)
    summary = {
        "kind": "ab",
        "a": {"label": args.label_a, "options": args.a, "env": env["a"], "runs": runs["a"]},
        "b": {"label": args.label_b, "options": args.b, "env": env["b"], "runs": runs["b"]},
        "common": common,
        "launch": args.launch,
        "threads": args.threads,
        "ratio_a_over_b": ratios,
        "ratio_median": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
    }
    json.dump(summary, open(os.path.join(out, "ab.json"), "w"), indent=1)
    for side, label in (("a", args.label_a), ("b", args.label_b)):
        r = runs[side]
        line = (f"{label}: iterations {sorted({x['iterations'] for x in r})}, time/iteration "
                f"median {statistics.median(x['time_per_iter_s'] for x in r):.4g} s")
        if all(x["roofline_fraction"] is not None for x in r):
            line += (f", roofline fraction median "
                     f"{statistics.median(x['roofline_fraction'] for x in r):.3f} (min "
                     f"{min(x['roofline_fraction'] for x in r):.3f}, max "
                     f"{max(x['roofline_fraction'] for x in r):.3f})")
        print(line)
    print(f"{args.label_a} / {args.label_b} time per iteration: median {summary['ratio_median']:.3f} "
          f"(min {summary['ratio_min']:.3f}, max {summary['ratio_max']:.3f}) over {args.pairs} "
          f"pairs; reports in {out}")


if __name__ == "__main__":
    sys.exit(main())
