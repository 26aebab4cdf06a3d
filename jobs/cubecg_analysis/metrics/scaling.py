"""The study's metrics from the tidy rows (readers.series.solve_rows): speed-up (Figs. 12/18),
performance relative to Alg.1-AR (Figs. 13/16), T(AR) / T(IAR) (Table 7), the reduction share
(Table 4), the progress-thread placements (Table 6) and study.csv's one row per solve (the
checkpoint and I/O metrics: metrics/cost.py). Every comparison of two sets of repeats carries its
noise verdict (readers.series.noise_verdict)."""
import math

from .. import variants as cv
from ..common import PROGRESS_ORDER
from ..readers import published as pub
from ..readers.series import (baseline_variant, config_fields, config_key, index_stats,
                              noise_verdict, plain_rows)

def speedup_data(rows):
    """Figs. 12/18: speedup(v, n) = n0 x T(pcg/ar, n0) / T(v, n) with one baseline per mesh,
    progress setting and placement: Alg.1-AR at the smallest core count n0, taken from the flat
    run (threads = 1) when there is one, the same for the flat and the hybrid panel. Medians over
    repeats; speedup_min / speedup_max from the slowest / fastest repeat of T(v, n)."""
    plain = plain_rows(rows)
    stats = index_stats(plain)
    out = []
    group = ("mesh", "progress", "placement", "mpi", "precision")  # one baseline each
    for grp in sorted({tuple(r[k] for k in group) for r in plain}):
        sel = [r for r in plain if tuple(r[k] for k in group) == grp]
        base = [r for r in sel if r["variant"] == baseline_variant()]
        if not base:
            continue
        n0 = min(r["cores"] for r in base)
        cand = sorted((r for r in base if r["cores"] == n0),
                      key=lambda r: (r["threads"] != 1, r["nodes"], r["ranks"]))
        b = cand[0]
        t0 = stats[config_key(b) + (baseline_variant(),)].med
        seen = set()
        for r in sorted(sel, key=lambda r: (r["cores"], r["nodes"], r["threads"], r["variant"])):
            k = config_key(r) + (r["variant"],)
            if k in seen:
                continue
            seen.add(k)
            st = stats[k]
            out.append(dict(config_fields(r), solver=r["series"], reduction=r["reduction"],
                            speedup=n0 * t0 / st.med, speedup_min=n0 * t0 / st.hi,
                            speedup_max=n0 * t0 / st.lo, repeats=st.n, time_s=st.med,
                            baseline_cores=n0, baseline_rt=b["rt"], baseline_nodes=b["nodes"],
                            baseline_time_s=t0, oversubscribed=r["oversub"]))
    return out


def relative_data(rows):
    """Figs. 13/16: performance relative to Alg.1-AR of the same configuration,
    T(pcg/ar) / T(v) (> 1: faster than Alg.1-AR), medians over repeats."""
    runs = [r for r in rows if not r["ckpt"]]
    stats = index_stats(runs)
    out, seen = [], set()
    for r in sorted(runs, key=lambda r: (r["mesh"], r["latency"], r["cores"], r["nodes"], r["threads"],
                                         r["progress"], r["placement"], r["variant"])):
        k = config_key(r) + (r["variant"],)
        base = stats.get(config_key(r) + (baseline_variant(),))
        if k in seen or base is None:
            continue
        seen.add(k)
        st = stats[k]
        out.append(dict(config_fields(r), solver=r["series"], reduction=r["reduction"],
                        relative=base.med / st.med, relative_min=base.med / st.hi,
                        relative_max=base.med / st.lo, repeats=st.n, oversubscribed=r["oversub"],
                        noise=noise_verdict(base, st) if k[-1] != baseline_variant() else ""))
    return out


def table7_data(rows):
    """Table 7: ar_over_iar = median T(Alg.x-AR) / median T(Alg.x-IAR) of the same solver, mesh,
    layout, nodes, progress setting and placement; min/max from the extreme repeats."""
    runs = [r for r in rows if not r["ckpt"]]
    stats = index_stats(runs)
    out, seen = [], set()
    for r in sorted(runs, key=lambda r: (r["mesh"], r["latency"], r["cores"], r["nodes"], r["threads"],
                                         PROGRESS_ORDER.index(r["progress"])
                                         if r["progress"] in PROGRESS_ORDER else 9, r["placement"])):
        for s in sorted({x["series"] for x in runs}, key=cv.rank_of):
            k = config_key(r) + (s,)
            ar, iar = stats.get(config_key(r) + (f"{s}/ar",)), stats.get(config_key(r) + (f"{s}/iar",))
            if k in seen or ar is None or iar is None:
                continue
            seen.add(k)
            out.append(dict(cores=r["cores"], nodes=r["nodes"], progress=r["progress"], solver=s,
                            ar_over_iar=ar.med / iar.med, ar_over_iar_min=ar.lo / iar.hi,
                            ar_over_iar_max=ar.hi / iar.lo, mesh=r["mesh"], layout=r["layout"],
                            ranks=r["ranks"], threads=r["threads"], placement=r["placement"],
                            latency_us=0.0 if math.isnan(r["latency"]) else r["latency"],
                            time_ar_s=ar.med, time_iar_s=iar.med, repeats_ar=ar.n, repeats_iar=iar.n,
                            oversubscribed=r["oversub"], mpi=r["mpi"], precision=r["precision"],
                            noise=noise_verdict(ar, iar)))
    return out


def table4_data(rows):
    """Table 4: share of the reduction wait in the solve per variant and configuration,
    median over repeats of breakdown_mean.reduction / time_s; the published Alg.1 share beside it
    where the core count is one of Table 4's."""
    runs = [dict(r, share=r["breakdown"].get("reduction", math.nan) / r["time"]
                 if r["time"] else math.nan,
                 red_s=r["breakdown"].get("reduction", math.nan)) for r in rows if not r["ckpt"]]
    share, red = index_stats(runs, "share"), index_stats(runs, "red_s")
    times = index_stats(runs)
    out, seen = [], set()
    for r in sorted(runs, key=lambda r: (r["mesh"], r["latency"], r["cores"], r["nodes"], r["threads"],
                                         r["progress"], r["placement"], r["variant"])):
        k = config_key(r) + (r["variant"],)
        if k in seen:
            continue
        seen.add(k)
        t4 = pub.TABLE4.get(r["cores"]) if r["variant"] == baseline_variant() else None
        out.append(dict(config_fields(r), solver=r["series"], reduction=r["reduction"],
                        reduction_s=red[k].med, solve_s=times[k].med, reduction_share=share[k].med,
                        reduction_share_min=share[k].lo, reduction_share_max=share[k].hi,
                        repeats=share[k].n, published_share=t4[2] if t4 else math.nan))
    return out


def table6_data(rows):
    """Table 6 / Fig. 17: one entry per progress-thread placement, never merged:
    gain = median T(progress off) / median T(progress on, placement) of the same configuration
    and variant; the off run itself is mapping 1 (gain 1)."""
    runs = [r for r in rows if not r["ckpt"]]
    stats = index_stats(runs)
    out, seen = [], set()
    for r in sorted(runs, key=lambda r: (r["mesh"], r["latency"], r["cores"], r["nodes"], r["threads"],
                                         r["variant"], r["placement"])):
        if r["progress"] != "on":
            continue
        k = config_key(r) + (r["variant"],)
        off = stats.get(config_key(r, progress="off", placement="") + (r["variant"],))
        if k in seen or off is None:
            continue
        seen.add(k)
        st = stats[k]
        out.append(dict(config_fields(r), solver=r["series"], reduction=r["reduction"],
                        placement_name=r["placement"] or "default (not given)",
                        gain_over_off=off.med / st.med, gain_min=off.lo / st.hi,
                        gain_max=off.hi / st.lo, time_s=st.med, time_off_s=off.med, repeats=st.n,
                        repeats_off=off.n, noise=noise_verdict(off, st)))
    return out


def study_data(rows):
    """study.csv: one row per solve of every run report."""
    return [dict(file=r["file"], mesh=r["mesh"], nodes=r["nodes"], ranks=r["ranks"], threads=r["threads"],
                 cores=r["cores"], ranks_per_node=r["ranks_per_node"], layout=r["layout"],
                 progress=r["progress"], placement=r["placement"],
                 latency_us=0.0 if math.isnan(r["latency"]) else r["latency"], checkpoint=r["ckpt"],
                 solver=r["solver"], series=r["series"], reduction=r["reduction"],
                 repeat=r["repeat"], mpi=r["mpi"], precision=r["precision"],
                 iterations=r["iterations"], converged=r["converged"], time_s=r["time"],
                 time_per_iter_s=r["tpi"], reduction_s=r["breakdown"].get("reduction", math.nan),
                 oversubscribed=r["oversub"], cores_per_node=r["cores_per_node"],
                 report_version=r["version"])
            for r in sorted(rows, key=lambda r: (r["file"], cv.rank_of(r["series"]), r["series"],
                                                 r["reduction"]))]
