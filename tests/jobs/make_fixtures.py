#!/usr/bin/env python3
"""make_fixtures.py OUT_DIR REPORT.json...: the pytest fixtures of the analysis package, cut from
real reports of today's cubecg down to the keys the analysis reads (mpi.library to its first
line's version). How they were made (tests/jobs/fixtures, 6x6x6 nodes, MPICH 4.0.2):

  for np in 1 2; do OMP_NUM_THREADS=1 MPIR_CVAR_ASYNC_PROGRESS=0 mpiexec.mpich -n $np \\
    build/src/cubecg --nx 6 --ny 6 --nz 6 --solver all --reduction all --quiet \\
    --report run_${np}x1_off.json; done
  OMP_NUM_THREADS=1 MPIR_CVAR_ASYNC_PROGRESS=1 mpiexec.mpich -n 2 build/src/cubecg --nx 6 --ny 6 \\
    --nz 6 --solver all --reduction all --quiet --report run_2x1_on.json
  python3 tests/jobs/make_fixtures.py tests/jobs/fixtures run_*.json
"""
import json
import os
import sys

KEEP = ("cubecg_report_version", "kind", "in_progress", "interrupted", "available", "topology",
        "problem", "preconditioner")
KEEP_PARAMETERS = ("checkpoint", "precond", "precond_precision", "solver", "reduction")
KEEP_SOLVE = ("solver", "label", "reduction", "iterations", "converged", "time_s", "time_per_iter_s",
              "relative_to_pcg_ar", "breakdown_mean", "ops_per_iteration", "checkpoint")


def trim(report):
    out = {k: report[k] for k in KEEP if k in report}
    out["parameters"] = {k: v for k, v in report["parameters"].items() if k in KEEP_PARAMETERS}
    mpi = dict(report["mpi"])
    mpi["library"] = mpi["library"].split(" MPICH Release")[0]
    out["mpi"] = mpi
    out["platform"] = {"cores_online": report["platform"]["cores_online"]}
    out["solves"] = [{k: s[k] for k in KEEP_SOLVE if k in s} for s in report["solves"]]
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        with open(os.path.join(argv[1], os.path.basename(path)), "w", encoding="utf-8") as f:
            json.dump(trim(report), f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
