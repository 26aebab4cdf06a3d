#!/usr/bin/env python3
"""plcg_latency.py: how much of an injected reduction latency p(l)-CG, pipecg and s-step CG hide.

One iteration's work t_w (SpMV + M^-1 and their halos, from an Alg.1 run's breakdown) sets the
injected latency lat = k t_w (--inject-reduction-latency, k in --k). Each variant runs with lat
and without (same settings otherwise), medians of --repeat runs of the time per iteration:

  exposed = (t_it(lat) - t_it(0)) / (R lat)    R = reductions per iteration (1; s-step 1/S)
  hidden  = 1 - exposed

p(l)-CG with L >= k should hide >= 0.9 (each reduction has L iterations of work behind it);
pipecg-IAR hides at most t_w of it (one SpMV + M^-1); s-step pays lat once per S steps, so its
cost per iteration is lat / S (hidden = 1 - exposed for R = 1/S; "per_iteration" = exposed / S).

  python3 bench/plcg_latency.py --cubecg build/src/cubecg [--ranks 2] [--nx 20 ...]
      [--k 1,2,3] [--depths 1,2,3,5] [--steps 2,4,8] [--repeat 3] [--out DIR]

Writes DIR/plcg_latency.json and prints a table with the CPU model and the load average."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile


def run(args, extra, report):
    cmd = [*args.launch.split(), "-n", str(args.ranks), args.cubecg, "--nx", str(args.nx), "--ny",
           str(args.ny), "--nz", str(args.nz), "--quiet", "--report", report, *extra]
    subprocess.run(cmd, check=True, env=dict(os.environ, OMP_NUM_THREADS=str(args.threads)))
    with open(report, encoding="utf-8") as f:
        return json.load(f)["solves"][0]


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
    common = ["--precond", args.precond, "--replace-every", "0"]
    base = run(args, common + ["--solver", "pcg"], os.path.join(out, "pcg.json"))
    b = base["breakdown"]
    work = (b["spmv"] + b["precond"] + b["halo"] + b["halo_wait"] + b["precond_halo"] +
            b["precond_halo_wait"]) / (base["iterations"] - base["start_iteration"])
    cpu = subprocess.run("lscpu | grep 'Model name'", shell=True, capture_output=True,
                         text=True).stdout.split(":", 1)[-1].strip()
    load = os.getloadavg()
    print(f"{args.nx}x{args.ny}x{args.nz}, {args.ranks} ranks x {args.threads} threads, precond "
          f"{args.precond}; one iteration's SpMV + M^-1 t_w = {work * 1e6:.0f} us; CPU {cpu}; "
          f"load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    variants = [("pipecg-iar", ["--solver", "pipecg", "--reduction", "iar"], 1.0)]
    variants += [(f"plcg-l{d}", ["--solver", "plcg", "--reduction", "iar", "--pipeline-depth",
                                 str(d)], 1.0) for d in (int(v) for v in args.depths.split(","))]
    variants += [(f"sstep-s{s}", ["--solver", "sstep", "--reduction", "iar", "--sstep", str(s)],
                  1.0 / s) for s in (int(v) for v in args.steps.split(","))]
    variants += [("pcg-ar", ["--solver", "pcg"], 2.0)]
    rows = []
    for name, extra, reductions in variants:
        t0, _ = per_iteration(args, common + extra, out, f"{name}.lat0")
        for k in (float(v) for v in args.k.split(",")):
            lat = k * work
            t1, s = per_iteration(args, common + extra + ["--inject-reduction-latency",
                                                          f"{lat * 1e6:.3f}"], out, f"{name}.k{k:g}")
            exposed = (t1 - t0) / (reductions * lat)
            row = {"series": name, "k": k, "latency_us": lat * 1e6, "t_it_s": t0, "t_it_lat_s": t1,
                   "reductions_per_iteration": reductions, "hidden_fraction": 1.0 - exposed,
                   "paid_per_iteration_in_latencies": (t1 - t0) / lat,
                   "iterations": s["iterations"]}
            rows.append(row)
            print(f"{name:11s} k={k:g} lat {lat * 1e6:7.0f} us: t/it {t0 * 1e3:7.3f} -> "
                  f"{t1 * 1e3:7.3f} ms, paid {row['paid_per_iteration_in_latencies']:5.2f} lat/it, "
                  f"hidden {row['hidden_fraction']:5.2f} of its {reductions:g} reduction(s)/it")
    with open(os.path.join(out, "plcg_latency.json"), "w", encoding="utf-8") as f:
        json.dump({"nx": args.nx, "ny": args.ny, "nz": args.nz, "ranks": args.ranks,
                   "threads": args.threads, "precond": args.precond, "work_s": work, "cpu": cpu,
                   "loadavg": load, "repeat": args.repeat, "rows": rows}, f, indent=1)
    print(f"wrote {os.path.join(out, 'plcg_latency.json')}")


if __name__ == "__main__":
    main()
