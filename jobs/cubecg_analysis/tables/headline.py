"""The study's answer first: the short headline that cubecg-analyze prints before anything else and
tables.md opens with. Each line is one comparison with its noise verdict ("within noise" when the
repeats' ranges of its two sides overlap, "single run" when a side ran once, nothing when the
difference is larger than the run-to-run spread):

  - what the progress thread bought: T(off) / T(on) per variant and layout (> 1: it helped);
  - AR / IAR: T(AR) / T(IAR) per variant (> 1: the non-blocking reduction helped);
  - the measured overlap, when the reports carry it (solves[].overlap), else "not measured";
  - the checkpoint share: the stall of the solve spent in checkpoints, per backend.
"""
import math
import statistics

from ..common import fmt_noisy
from ..metrics.cost import checkpoint_overheads
from ..metrics.scaling import table7_data
from ..readers.series import (config_key, index_stats, noise_verdict, plain_rows, rt_label,
                              variant_label)
from .. import variants as cv


def progress_gains(rows):
    """[dict(variant, layout, ratio, lo, hi, n, noise)]: T(off) / T(on) of the same variant and
    configuration (no checkpoint, no injected latency), one per variant and configuration."""
    runs = plain_rows(rows)
    stats = index_stats(runs)
    out, seen = [], set()
    for r in sorted(runs, key=lambda r: (r["mesh"], r["cores"], r["threads"], r["placement"])):
        k = config_key(r) + (r["variant"],)
        if r["progress"] != "on" or k in seen:
            continue
        seen.add(k)
        on, off = stats[k], stats.get(config_key(r, progress="off", placement="") + (r["variant"],))
        if off is None or not on.med:
            continue
        out.append(dict(variant=r["variant"], layout=rt_label(dict(r, oversubscribed=r["oversub"])),
                        mesh=r["mesh"], placement=r["placement"], ratio=off.med / on.med,
                        lo=off.lo / on.hi, hi=off.hi / on.lo, n=min(off.n, on.n),
                        noise=noise_verdict(off, on)))
    return out


def measured_overlap(reports):
    """{variant: [overlap values]} from the reports' solves[].overlap (a number, or an object with
    "measured" / "fraction"); empty when no report carries it."""
    out = {}
    for _, rep in reports:
        if rep.get("kind") != "run":
            continue
        for s in rep.get("solves", []):
            v = s.get("overlap")
            if isinstance(v, dict):
                v = next((v[k] for k in ("measured", "fraction", "value")
                          if isinstance(v.get(k), (int, float))), None)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                out.setdefault(f"{s['solver']}/{s['reduction']}", []).append(float(v))
    return out


def _order(variants):
    return sorted(variants, key=lambda v: (cv.rank_of(v.split("/")[0]), v))


def headline_lines(rows, reports):
    """The headline as plain lines (the printed form; tables.md makes them a list)."""
    lines = []
    gains = progress_gains(rows)
    for v in _order({g["variant"] for g in gains}):
        parts = [f"{fmt_noisy(g['ratio'], g['lo'], g['hi'], g['n'], g['noise'])} at {g['layout']}"
                 + (f" {g['placement']}" if g["placement"] else "")
                 for g in gains if g["variant"] == v]
        lines.append(f"progress thread, T(off)/T(on), {variant_label(v)}: " + "; ".join(parts))
    if not gains:
        lines.append("progress thread, T(off)/T(on): not measured (no configuration ran with the "
                     "progress thread both off and on)")
    t7 = table7_data(rows)
    for s in sorted({d["solver"] for d in t7}, key=cv.rank_of):
        parts = [f"{fmt_noisy(d['ar_over_iar'], d['ar_over_iar_min'], d['ar_over_iar_max'], min(d['repeats_ar'], d['repeats_iar']), d['noise'])}"
                 f" at {rt_label(d)}, progress {d['progress']}" for d in t7 if d["solver"] == s]
        lines.append(f"AR/IAR, T(AR)/T(IAR), {cv.short_of(s)}: " + "; ".join(parts))
    if not t7:
        lines.append("AR/IAR: not measured (no run with both AR and IAR of a variant)")
    ov = measured_overlap(reports)
    if ov:
        lines.append("measured overlap: " + "; ".join(
            f"{variant_label(v)} {statistics.median(x):.2f}"
            + (f" [{min(x):.2f}-{max(x):.2f}]" if len(x) > 1 else " (single run)")
            for v, x in ((v, ov[v]) for v in _order(ov))))
    else:
        lines.append("measured overlap: not measured (the reports carry no solves[].overlap)")
    ck = checkpoint_overheads(rows)
    for d in ck:
        share = "-" if math.isnan(d["stall_share"]) else f"{100 * d['stall_share']:.1f}%"
        over = "-" if math.isnan(d["overhead"]) else f"{100 * d['overhead']:+.1f}%"
        lines.append(f"checkpoint share, {d['row']['ckpt']} {variant_label(d['row']['variant'])} at "
                     f"{rt_label(d['row'])}: {share} of the solve, overhead {over} ({d['verdict']})")
    if not ck:
        lines.append("checkpoint share: not measured (no run with checkpoints)")
    return lines


def print_headline(rows, reports, out):
    print("The study's answer (noise verdict in parentheses; --verbose lists every run):", file=out)
    for line in headline_lines(rows, reports):
        print(f"  {line}", file=out)


def headline_md(rows, reports):
    return ["\n## The answer first\n\n"
            "Each line with its noise verdict: *(within noise)* when the repeats' ranges of its two "
            "sides overlap, *(single run)* when a side ran once, none when the difference is larger "
            "than the run-to-run spread. > 1: the progress thread (first lines) or IAR helped.\n\n"] + \
        [f"- {line}\n" for line in headline_lines(rows, reports)]
