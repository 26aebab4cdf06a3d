#!/usr/bin/env python3
"""check_report.py: assertions on cubecg JSON reports for ctest (standard library only).

  check_report.py expect REPORT EXPR [EXPR ...]   each EXPR is a Python expression over r (the report)
  check_report.py same-iterations A B [--within N]  every solve in A has the iteration count of the
                                                    same solver/reduction in B (within N, default 0)
  check_report.py same-solution A B [--within N] [--rtol R]  as same-iterations, and every solve's
                                                    analytic_max_rel_error and true_rel_residual agree
                                                    within relative R (default 1e-6)
  check_report.py same-answer A B [--within N]     the comparison across MPI libraries: every solve in
                                                    A has the iterations of B's (within N), and in A
                                                    and in B converged, true_rel_residual within its
                                                    check's bound (10 tol) and analytic_max_rel_error
                                                    within --analytic-tol; the two true residuals
                                                    differ by at most tol (both are only resolved to
                                                    tol: digits below it are the library's rounding)
In expect, ncpus('0-3,8') counts the CPUs of a CPU list.
  check_report.py same-history A B [--rtol R]       every solve in A has the iterations and, value by
                                                    value, the residual_history (--residual-history)
                                                    of the same solve in B within relative R (1e-12)
  check_report.py same-values A B KEY [KEY ...]     every solve in A has the same values of KEYs (as
                                                    written, 9 digits) as the same solve in B
  check_report.py iterations-within A B FRACTION    every solve in A converged in at most (1 + FRACTION)
                                                    times the iterations of the same solve in B
Exit 0 when every assertion holds, 1 otherwise (the failing assertion is printed)."""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def ncpus(cpu_list):
    """number of CPUs in a list such as '0-3,8'"""
    count = 0
    for part in cpu_list.split(","):
        lo, _, hi = part.partition("-")
        count += int(hi or lo) - int(lo) + 1
    return count


def expect(path, exprs):
    r = load(path)
    ok = True
    for e in exprs:
        try:
            value = eval(e, {"r": r, "all": all, "any": any, "len": len, "abs": abs, "max": max, "min": min, "ncpus": ncpus})
        except Exception as exc:  # a missing key is a failed assertion, not a crash
            value, e = False, f"{e} raised {exc!r}"
        print(("PASS " if value else "FAIL ") + e)
        ok = ok and bool(value)
    return ok


def same_iterations(a, b, within):
    ra, rb = load(a), load(b)
    index = {(s["solver"], s["reduction"]): s["iterations"] for s in rb["solves"]}
    ok = len(ra["solves"]) > 0
    for s in ra["solves"]:
        key = (s["solver"], s["reduction"])
        other = index.get(key)
        good = other is not None and abs(s["iterations"] - other) <= within
        print(f"{'PASS' if good else 'FAIL'} {key}: {s['iterations']} vs {other} (within {within})")
        ok = ok and good
    return ok


def same_solution(a, b, within, rtol):
    ok = same_iterations(a, b, within)
    ra, rb = load(a), load(b)
    index = {(s["solver"], s["reduction"]): s for s in rb["solves"]}
    ok = ok and len(ra["solves"]) == len(rb["solves"])
    for s in ra["solves"]:
        other = index.get((s["solver"], s["reduction"]))
        for key in ("analytic_max_rel_error", "true_rel_residual"):
            x, y = s[key], other[key] if other else None
            good = y is not None and abs(x - y) <= rtol * max(abs(x), abs(y))
            print(f"{'PASS' if good else 'FAIL'} {s['solver']}/{s['reduction']} {key}: {x} vs {y} (rtol {rtol})")
            ok = ok and good
    return ok


def same_answer(a, b, within):
    """A (a full report) against B (the same run on another library; its solves' results may be all
    B holds): what the solves were computed to, not their rounding digits. The bounds are A's
    parameters, which B's run shares."""
    ok = same_iterations(a, b, within)
    ra, rb = load(a), load(b)
    tol, analytic_tol = ra["parameters"]["tol"], ra["parameters"]["analytic-tol"]
    index = {(s["solver"], s["reduction"]): s for s in rb["solves"]}
    ok = ok and len(ra["solves"]) == len(rb["solves"])
    for s in ra["solves"]:
        name = f"{s['solver']}/{s['reduction']}"
        other = index.get((s["solver"], s["reduction"]))
        if other is None:
            print(f"FAIL {name}: not in {b}")
            ok = False
            continue
        checks = [("converged", s["converged"], True),
                  ("true_rel_residual <= 10 tol", s["true_rel_residual"], 10 * tol),
                  ("reference true_rel_residual <= 10 tol", other["true_rel_residual"], 10 * tol),
                  ("analytic_max_rel_error <= analytic_tol", s["analytic_max_rel_error"],
                   analytic_tol),
                  ("reference analytic_max_rel_error <= analytic_tol",
                   other["analytic_max_rel_error"], analytic_tol),
                  ("|true_rel_residual - reference's| <= tol",
                   abs(s["true_rel_residual"] - other["true_rel_residual"]), tol)]
        for what, x, bound in checks:
            good = x is True if bound is True else x <= bound
            shown = str(x) if bound is True else f"{x:.9g} (bound {bound:.3g})"
            print(f"{'PASS' if good else 'FAIL'} {name} {what}: {shown}")
            ok = ok and good
    return ok


def same_values(a, b, keys):
    ra, rb = load(a), load(b)
    index = {(s["solver"], s["reduction"]): s for s in rb["solves"]}
    ok = len(ra["solves"]) > 0
    for s in ra["solves"]:
        other = index.get((s["solver"], s["reduction"]))
        for k in keys:
            good = other is not None and k in s and s[k] == other.get(k)
            print(f"{'PASS' if good else 'FAIL'} {s['solver']}/{s['reduction']} {k}: "
                  f"{s.get(k)} vs {other.get(k) if other else None}")
            ok = ok and good
    return ok


def same_history(a, b, rtol):
    ra, rb = load(a), load(b)
    index = {(s["solver"], s["reduction"]): s for s in rb["solves"]}
    ok = len(ra["solves"]) > 0 and len(ra["solves"]) == len(rb["solves"])
    for s in ra["solves"]:
        other = index.get((s["solver"], s["reduction"]))
        ha, hb = s.get("residual_history"), other.get("residual_history") if other else None
        good = bool(ha) and hb is not None and len(ha) == len(hb) and \
            s["iterations"] == other["iterations"] and len(ha) == s["iterations"] + 1
        worst = max((abs(x - y) / max(abs(x), abs(y), 1e-300) for x, y in zip(ha or [], hb or [])),
                    default=0.0)
        good = good and worst <= rtol
        print(f"{'PASS' if good else 'FAIL'} {s['solver']}/{s['reduction']}: "
              f"{s['iterations']} vs {other['iterations'] if other else None} iterations, "
              f"{len(ha or [])} vs {len(hb or [])} residuals, max relative difference {worst:.3g} "
              f"(rtol {rtol})")
        ok = ok and good
    return ok


def iterations_within(a, b, fraction):
    ra, rb = load(a), load(b)
    index = {(s["solver"], s["reduction"]): s["iterations"] for s in rb["solves"]}
    ok = len(ra["solves"]) > 0 and len(ra["solves"]) == len(rb["solves"])
    for s in ra["solves"]:
        key = (s["solver"], s["reduction"])
        other = index.get(key)
        good = s["converged"] and other is not None and s["iterations"] <= (1 + fraction) * other
        print(f"{'PASS' if good else 'FAIL'} {key}: {s['iterations']} vs {other} (at most +{fraction:.0%})")
        ok = ok and good
    return ok


def main(argv):
    if len(argv) >= 3 and argv[0] == "expect":
        return 0 if expect(argv[1], argv[2:]) else 1
    if len(argv) >= 3 and argv[0] == "same-iterations":
        within = int(argv[4]) if len(argv) >= 5 and argv[3] == "--within" else 0
        return 0 if same_iterations(argv[1], argv[2], within) else 1
    if len(argv) >= 3 and argv[0] == "same-solution":
        opts = dict(zip(argv[3::2], argv[4::2]))
        return 0 if same_solution(argv[1], argv[2], int(opts.get("--within", 0)),
                                  float(opts.get("--rtol", 1e-6))) else 1
    if len(argv) in (3, 5) and argv[0] == "same-answer":
        within = int(argv[4]) if len(argv) == 5 and argv[3] == "--within" else 0
        return 0 if same_answer(argv[1], argv[2], within) else 1
    if len(argv) >= 3 and argv[0] == "same-history":
        opts = dict(zip(argv[3::2], argv[4::2]))
        return 0 if same_history(argv[1], argv[2], float(opts.get("--rtol", 1e-12))) else 1
    if len(argv) == 4 and argv[0] == "iterations-within":
        return 0 if iterations_within(argv[1], argv[2], float(argv[3])) else 1
    if len(argv) >= 4 and argv[0] == "same-values":
        return 0 if same_values(argv[1], argv[2], argv[3:]) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
