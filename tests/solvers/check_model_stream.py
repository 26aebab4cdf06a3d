#!/usr/bin/env python3
"""check_model_stream.py BENCH DOUBLE SINGLE HALF: cubecg-bench --model-stream's report BENCH has
its rows, each stream touched exactly the modelled bytes, and the modelled bytes are the traffic
block of cubecg's reports (modelled_bytes_per_iteration) of the same mesh in each precision,
compared exactly: SpMV, the preconditioner (ASDD), the vector passes and the whole iteration.
Exit 0 when every check holds, 1 otherwise (the failing check printed)."""
import json
import sys

NAMES = ["spmv", "sgs-double", "sgs-single", "sgs-half", "asdd-double", "asdd-single",
         "asdd-half", "dot", "axpy", "iteration-double", "iteration-single", "iteration-half"]


def main(bench_path, driver_paths):
    with open(bench_path) as f:
        ms = json.load(f)["model_stream"]
    rows = {row["name"]: row for row in ms["rows"]}
    checks = [([row["name"] for row in ms["rows"]] == NAMES, "row names %s" % list(rows))]
    for row in ms["rows"]:
        name = row["name"]
        checks.append((row["bytes_stream"] == row["bytes_model"] > 0,
                       "%s: stream %r bytes, model %r" % (name, row["bytes_stream"], row["bytes_model"])))
        checks.append((row["seconds_real"] > 0 and row["seconds_stream"] > 0
                       and row["real_over_stream"] > 0 and row["stream_fraction_of_triad"] > 0,
                       "%s: times %r" % (name, row)))
        checks.append((row["composed"] == name.startswith("iteration-"), "%s: composed" % name))
    for prec, path in zip(["double", "single", "half"], driver_paths):
        with open(path) as f:
            rep = json.load(f)
        checks.append((rep["preconditioner"]["precision"] == prec, "%s: precision" % path))
        m = rep["solves"][0]["modelled_bytes_per_iteration"]
        checks.append((m["spmv"] == rows["spmv"]["bytes_model"],
                       "%s spmv: driver %r, bench %r" % (prec, m["spmv"], rows["spmv"]["bytes_model"])))
        checks.append((m["precond"] == rows["asdd-" + prec]["bytes_model"],
                       "%s precond: driver %r, bench %r" % (prec, m["precond"],
                                                           rows["asdd-" + prec]["bytes_model"])))
        checks.append((m["vector_passes"] == ms["vector_passes"],
                       "%s vector passes: driver %r, bench %r" % (prec, m["vector_passes"],
                                                                 ms["vector_passes"])))
        checks.append((m["total"] == rows["iteration-" + prec]["bytes_model"],
                       "%s total: driver %r, bench %r" % (prec, m["total"],
                                                         rows["iteration-" + prec]["bytes_model"])))
    failed = [what for ok, what in checks if not ok]
    for what in failed:
        print("FAILED:", what)
    print("%d checks, %d failed" % (len(checks), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
