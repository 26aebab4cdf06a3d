#!/usr/bin/env python3
"""plcg_latency.py: how much of an injected reduction latency p(l)-CG, pipecg and s-step CG hide.

One iteration's work t_w (SpMV + M^-1 and their halos, from an Alg.1 run's breakdown) sets the
injected latency lat = k t_w (--inject-reduction-latency, k in --k). Each variant runs with lat
and without (same settings otherwise), medians of --repeat runs of the time per iteration:

  exposed = (t_it(lat) - t_it(0)) / (R lat)    R = reductions per iteration (1; s-step 1/S)
  hidden  = 1 - exposed

The goal: p(l)-CG with L >= k hides >= 0.9 (each reduction has L iterations of work behind it);
every row says whether it is met ("goal met" / "goal MISSED"; "-" where L < k or for the others);
pipecg-IAR hides at most t_w of it (one SpMV + M^-1); s-step pays lat once per S steps, so its
cost per iteration is lat / S (hidden = 1 - exposed for R = 1/S; "per_iteration" = exposed / S).

  python3 bench/plcg_latency.py --cubecg build/src/cubecg [--ranks 2] [--nx 20 ...]
      [--k 1,2,3] [--depths 1,2,3,5] [--steps 2,4,8] [--repeat 3] [--out DIR]

p(l)-CG and s-step CG get the spectrum bounds of a first run's Lanczos estimate through
--spectrum-bounds (the same bounds, so the same iterations): the estimate (1 blocking reduction
per step plus the first, 21 at its 20 steps) is set-up, paid once per solve, not per iteration; the line before
the table gives its cost in latencies.

Reduction counts are exact at any load: every row prints the loop's blocking, posted and
"waited early" (entered before the injected latency elapsed) reductions per iteration from the
report's solves[].reductions, and the script checks the exact counts each variant must post:
  pipecg-IAR  1 posted per iteration, no blocking one in the loop
  plcg-lL     blocking = 1 (|b|; b^T M^-1 b rides in the first cycle's column 0, the true
              residual of each x_j of the test phase in a column of the pipeline);
              posted = iterations + (restarts + 1)(L + 1) - 1 + tail, tail = L + 1 when the
              returned x_j's test is read where the pipeline reads it (x_j's step and test are
              taken in iteration j + 1's window, read L iterations later: the pipeline runs on past
              the x it returns, whose iteration is the one reported), 1 <= tail <= L + 1 when a
              square-root restart or maxit drains the pipeline first (checked as that range)
  sstep-sS    posted = iterations / S + 1 (one per block and the last block's test),
              blocking = 1 (|b|)
  pcg-AR      2 blocking per iteration
and exits 1 when one differs. The paid latencies per iteration the counts predict,
(blocking + waited early) / iterations, are printed beside the measured ones.

Writes DIR/plcg_latency.json and prints a table with the CPU model and the load average."""
import argparse
import json
import os
import statistics
import sys
import subprocess
import tempfile


def run(args, extra, report):
    cmd = [*args.launch.split(), "-n", str(args.ranks), args.cubecg, "--nx", str(args.nx), "--ny",
           str(args.ny), "--nz", str(args.nz), "--quiet", "--report", report, *extra]
    subprocess.run(cmd, check=True, env=dict(os.environ, OMP_NUM_THREADS=str(args.threads)))
    with open(report, encoding="utf-8") as f:
        return json.load(f)["solves"][0]


def expected_counts(name, s):
    """(blocking, posted) the variant must post in this solve, or None when not checked."""
    its = s["iterations"] - s["start_iteration"]
    spectrum = s.get("spectrum", {}).get("reductions", 0)
    if name.startswith("plcg"):
        depth = s["pipeline_depth"]
        base = its + (s["sqrt_breakdown_restarts"] + 1) * (depth + 1) - 1
        return 1 + spectrum, range(base + 1, base + depth + 2)
    if name.startswith("sstep"):
        return 1 + spectrum, its // s["sstep"] + 1
    if name == "pipecg-iar":
        return 1, its + 1
    if name == "pcg-ar":
        return None
    return None


def check_counts(name, s):
    """A line of failures ('' when the counts are the expected ones)."""
    red = s["reductions"]
    want = expected_counts(name, s)
    bad = []
    if want:
        posted_ok = red["posted"] in want[1] if isinstance(want[1], range) else \
            red["posted"] == want[1]
        if red["blocking"] != want[0] or not posted_ok:
            posted = (f"{want[1].start}..{want[1].stop - 1}" if isinstance(want[1], range)
                      else want[1])
            bad.append(f"{name}: {red['blocking']} blocking / {red['posted']} posted reductions, "
                       f"expected {want[0]} / {posted}")
    if name == "pcg-ar" and abs(red["per_iteration"]["blocking"] - 2.0) > 1e-12:
        bad.append(f"{name}: {red['per_iteration']['blocking']} blocking reductions per "
                   "iteration, expected 2")
    return "; ".join(bad)


def per_iteration(args, extra, out, name):
    times = []
    for rep in range(args.repeat):
        s = run(args, extra, os.path.join(out, f"{name}.{rep}.json"))
        times.append(s["time_per_iter_s"])
    return statistics.median(times), s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cubecg", required=True)
    p.add_argument("--launch", default="mpiexec.mpich")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--nx", type=int, default=20)
    p.add_argument("--ny", type=int, default=20)
    p.add_argument("--nz", type=int, default=20)
    p.add_argument("--k", default="1,2,3")
    p.add_argument("--depths", default="1,2,3,5")
    p.add_argument("--steps", default="2,4,8")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--precond", default="jacobi")
    p.add_argument("--out", default="")
    args = p.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="plcg_latency_")
    os.makedirs(out, exist_ok=True)
    common = ["--precond", args.precond]
    no_replacement = ["--replace-every", "0"]  # pcg, pipecg (p(l)-CG and s-step have none)
    base = run(args, common + ["--solver", "pcg"] + no_replacement,
               os.path.join(out, "pcg.json"))
    b = base["breakdown"]
    work = (b["spmv"] + b["precond"] + b["halo"] + b["halo_wait"] + b["precond_halo"] +
            b["precond_halo_wait"]) / (base["iterations"] - base["start_iteration"])
    cpu = subprocess.run("lscpu | grep 'Model name'", shell=True, capture_output=True,
                         text=True).stdout.split(":", 1)[-1].strip()
    load = os.getloadavg()
    print(f"{args.nx}x{args.ny}x{args.nz}, {args.ranks} ranks x {args.threads} threads, precond "
          f"{args.precond}; one iteration's SpMV + M^-1 t_w = {work * 1e6:.0f} us; CPU {cpu}; "
          f"load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    variants = [("pipecg-iar", ["--solver", "pipecg", "--reduction", "iar"] + no_replacement,
                 1.0)]
    variants += [(f"plcg-l{d}", ["--solver", "plcg", "--reduction", "iar", "--pipeline-depth",
                                 str(d)], 1.0) for d in (int(v) for v in args.depths.split(","))]
    variants += [(f"sstep-s{s}", ["--solver", "sstep", "--reduction", "iar", "--sstep", str(s)],
                  1.0 / s) for s in (int(v) for v in args.steps.split(","))]
    variants += [("pcg-ar", ["--solver", "pcg"] + no_replacement, 2.0)]
    # the Lanczos estimate once; its bounds go to every p(l)-CG and s-step run
    est = run(args, common + ["--solver", "plcg", "--reduction", "iar"],
              os.path.join(out, "estimate.json"))
    spec = est["spectrum"]
    bounds = ["--spectrum-bounds", f"{spec['lambda_min']!r},{spec['lambda_max']!r}"]
    print(f"spectrum estimate: [{spec['lambda_min']:.6g}, {spec['lambda_max']:.6g}], "
          f"{spec['reductions']} blocking reductions = {spec['reductions']} latencies per solve "
          f"(set-up; {spec['seconds'] * 1e3:.1f} ms here without injected latency)")
    rows, failures = [], []
    for name, extra, reductions in variants:
        if name.startswith(("plcg", "sstep")):
            extra = extra + bounds
        t0, s0 = per_iteration(args, common + extra, out, f"{name}.lat0")
        failures += [f for f in [check_counts(name, s0)] if f]
        for k in (float(v) for v in args.k.split(",")):
            lat = k * work
            t1, s = per_iteration(args, common + extra + ["--inject-reduction-latency",
                                                          f"{lat * 1e6:.3f}"], out, f"{name}.k{k:g}")
            exposed = (t1 - t0) / (reductions * lat)
            goal = "-"
            if name.startswith("plcg") and s["pipeline_depth"] >= k:
                goal = "goal met" if 1.0 - exposed >= 0.9 else "goal MISSED"
            failures += [f for f in [check_counts(name, s)] if f]
            red = s["reductions"]
            its = s["iterations"] - s["start_iteration"]
            predicted = (red["blocking"] + red["waited_early"]) / its
            row = {"series": name, "k": k, "latency_us": lat * 1e6, "t_it_s": t0, "t_it_lat_s": t1,
                   "reductions_per_iteration": reductions, "hidden_fraction": 1.0 - exposed,
                   "paid_per_iteration_in_latencies": (t1 - t0) / lat,
                   "iterations": s["iterations"], "reductions": red,
                   "predicted_paid_per_iteration_upper": predicted,
                   "goal": goal}
            rows.append(row)
            print(f"{name:11s} k={k:g} lat {lat * 1e6:7.0f} us: t/it {t0 * 1e3:7.3f} -> "
                  f"{t1 * 1e3:7.3f} ms, paid {row['paid_per_iteration_in_latencies']:5.2f} lat/it, "
                  f"hidden {row['hidden_fraction']:5.2f} of its {reductions:g} reduction(s)/it; "
                  f"loop per it: {red['per_iteration']['blocking']:.3f} blocking, "
                  f"{red['per_iteration']['posted']:.3f} posted, "
                  f"{red['per_iteration']['waited_early']:.3f} waited early; solve: "
                  f"{red['blocking']} blocking, {red['posted']} posted, {red['waited_early']} "
                  f"early (<= {predicted:.2f} lat/it); {goal}")
    with open(os.path.join(out, "plcg_latency.json"), "w", encoding="utf-8") as f:
        json.dump({"nx": args.nx, "ny": args.ny, "nz": args.nz, "ranks": args.ranks,
                   "threads": args.threads, "precond": args.precond, "work_s": work, "cpu": cpu,
                   "loadavg": load, "repeat": args.repeat, "spectrum": spec, "rows": rows,
                   "count_failures": failures}, f, indent=1)
    print(f"wrote {os.path.join(out, 'plcg_latency.json')}")
    for f in failures:
        print(f"FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
