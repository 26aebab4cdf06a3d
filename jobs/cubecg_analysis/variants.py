"""The CG variants of cubecg as its registry lists them (solvers/krylov*.c: name, description,
reductions, Table 1, vector traffic per iteration fused / unfused), the one list the analysis and
the model read.

Every run report carries the registry as "available" (docs/report-schema.md);
readers.reports.load_reports hands the reports to use_reports(), which replaces the built-in copy
(data/variants.json) by the report's list (a build with another set of variants needs no edit
here). The built-in copy serves when no run report
is at hand (the model's fit to the published tables); the ctest jobs_variants_match checks that it
equals what cubecg writes, so it cannot drift.

A solve's series is its "label" when the report gives one (a variant with a parameter, e.g.
plcg-l2, sstep-s4), else its solver name; solver_of() maps a series back to its registry entry.
"""
import json
import os

# the built-in copy: the registry's fields as cubecg writes them
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "variants.json"),
          encoding="utf-8") as _f:
    BUILTIN = json.load(_f)
PALETTE = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
           "tab:pink", "tab:gray")

# Filled (in place, so that every importer sees a change) by use():
NAMES = []     # registry order; NAMES[0] with "ar" is the baseline (Alg.1-AR)
LABEL = {}     # name -> description, e.g. "Alg.1 original PCG"
SHORT = {}     # name -> "Alg.1"
COLOR = {}     # name -> matplotlib colour, by registry position
TABLE1 = {}    # name -> {"spmv", "precond", "dot", "axpy", "reductions"} per iteration
REDUCTIONS = {}  # name -> ["ar", "iar"] the variant has


class VariantsError(ValueError):
    pass


def use(variants, source="built-in list"):
    """Make variants (a report's available.variants) the list every importer sees."""
    try:
        entries = [(v["name"], v["description"], list(v["reductions"]),
                    {k: v["table1"][k] for k in ("spmv", "precond", "dot", "axpy", "reductions")})
                   for v in variants]
    except (KeyError, TypeError) as e:
        raise VariantsError(f"{source}: malformed available.variants ({e})") from None
    if not entries:
        raise VariantsError(f"{source}: available.variants is empty")
    for d in (LABEL, SHORT, COLOR, TABLE1, REDUCTIONS):
        d.clear()
    NAMES[:] = [e[0] for e in entries]
    for i, (name, description, reductions, table1) in enumerate(entries):
        LABEL[name] = description
        SHORT[name] = description.split()[0] if description else name
        COLOR[name] = PALETTE[i % len(PALETTE)]
        TABLE1[name] = table1
        REDUCTIONS[name] = reductions


def use_reports(reports):
    """The first run report (of (path, dict) pairs) that carries "available" sets the list;
    reports that disagree with it are refused (one study, one build). Older reports without
    "available" leave the built-in list."""
    chosen = None
    for path, report in reports:
        variants = report.get("available", {}).get("variants") if isinstance(report, dict) else None
        if variants is None:
            continue
        if chosen is None:
            chosen = (path, variants)
        elif variants != chosen[1]:
            raise VariantsError(f"{path}: available.variants differs from {chosen[0]} "
                                "(reports of different cubecg builds in one folder)")
    use(chosen[1], chosen[0]) if chosen else use(BUILTIN)


def solver_of(series):
    """The registry name a series belongs to: the series itself, else the longest registered name
    it starts with followed by "-" (plcg-l2 -> plcg); the series when none matches."""
    if series in NAMES:
        return series
    cands = [n for n in NAMES if series.startswith(n + "-")]
    return max(cands, key=len) if cands else series


def short_of(series):
    """"Alg.1" for pcg; "Alg.5 l2" for plcg-l2 (the short name plus the label's parameter)."""
    solver = solver_of(series)
    short = SHORT.get(solver, solver)
    return short if series == solver else f"{short} {series[len(solver) + 1:] or series}"


def color_of(series):
    return COLOR.get(solver_of(series))


def rank_of(series):
    """Registry position of a series (unknown ones last)."""
    solver = solver_of(series)
    return NAMES.index(solver) if solver in NAMES else len(NAMES)


use(BUILTIN)
