"""The study's scaling figures: speed-up (fig1, Figs. 12/18), AR against IAR beside the published
Table 7 (fig2), performance by progress setting (fig3, Figs. 13/16) and the progress-thread
placements (fig7, Table 6 / Fig. 17). Medians of repeats with min-max bars; a comparison whose
repeats' ranges overlap is labelled "within noise", a point that ran once "single run"."""
import math

from .. import variants as cv
from ..common import PROGRESS_COLOR, PROGRESS_ORDER, distinct, fmt_lat
from ..metrics.scaling import relative_data, speedup_data, table6_data, table7_data
from ..readers import published as pub
from ..readers.series import most_common_setup, variant_label, variant_order
from .output import (FIGURES, NOISE_LABEL, mark_noise, new_figure, noise_handle, panel_grid, skip,
                     yerr)

def fig_speedup(rows, fw):
    data = speedup_data(rows)
    progress = "off" if any(d["progress"] == "off" for d in data) else None
    sel = [d for d in data if progress is None or d["progress"] == progress]
    counts = {}
    for d in sel:
        counts.setdefault(d["mesh"], set()).add(d["cores"])
    mesh = max(sorted(counts), key=lambda m: len(counts[m])) if counts else None
    sel = [d for d in sel if d["mesh"] == mesh and not d["placement"]] or \
        [d for d in sel if d["mesh"] == mesh]
    sel = most_common_setup(sel)
    if len({d["cores"] for d in sel}) < 2:
        return skip(1, "needs plain runs (no latency, no checkpoint) at two or more core counts")
    layouts = [lay for lay in ("flat", "hybrid") if any(d["layout"] == lay and d["cores"] > 1 for d in sel)]
    fig, axes = new_figure(1, len(layouts))
    variants = variant_order(f"{d['solver']}/{d['reduction']}" for d in sel)
    drawn = []
    for ax, lay in zip(axes[0], layouts):
        # a 1x1 run belongs to both layouts' series
        pts = [d for d in sel if d["layout"] == lay or d["cores"] == 1]
        cores_all = sorted({d["cores"] for d in pts})
        for v in variants:
            s, red = v.split("/")
            mine = [d for d in pts if (d["solver"], d["reduction"]) == (s, red)]
            # the line: at each core count the fewest nodes (the best ranks x threads there);
            # other node counts at the same core count are drawn apart, never merged
            line, apart = [], []
            for c in cores_all:
                at = [d for d in mine if d["cores"] == c]
                if not at:
                    continue
                fewest = min(d["nodes"] for d in at)
                best = max((d for d in at if d["nodes"] == fewest), key=lambda d: d["speedup"])
                line.append(best)
                apart += [d for d in at if d["nodes"] != fewest]
            if not line:
                continue
            color = cv.color_of(s)
            style = "-" if red == "ar" else "--"
            xs = [d["cores"] for d in line]
            ys = [d["speedup"] for d in line]
            ax.errorbar(xs, ys, yerr=yerr(ys, [d["speedup_min"] for d in line],
                                          [d["speedup_max"] for d in line]),
                        marker="o", capsize=3, color=color, linestyle=style, label=variant_label(v))
            drawn += [dict(d, panel=lay, drawn_as="line") for d in line]
            for d in apart:
                ax.errorbar([d["cores"]], [d["speedup"]],
                            yerr=yerr([d["speedup"]], [d["speedup_min"]], [d["speedup_max"]]),
                            marker="s", mfc="none", capsize=3, color=color, linestyle="none")
                ax.annotate(f"{d['nodes']} nodes", (d["cores"], d["speedup"]), fontsize=6,
                            xytext=(4, -8), textcoords="offset points")
                drawn.append(dict(d, panel=lay, drawn_as=f"apart ({d['nodes']} nodes)"))
        c0, c1 = cores_all[0], cores_all[-1]
        ax.plot([c0, c1], [c0, c1], color="black", linewidth=1, label="ideal")
        over = [c for c in cores_all if any(d["oversubscribed"] for d in pts if d["cores"] == c)]
        if over:
            ax.axvspan(min(over) - 0.5, c1 + 0.5, color="grey", alpha=0.15, label="oversubscribed")
        if c1 / c0 >= 8:
            ax.set_xscale("log", base=2)
            ax.set_yscale("log", base=2)
        b = sel[0]
        ax.set_xlabel("cores (ranks x threads)")
        ax.set_ylabel(f"speed-up: {b['baseline_cores']} x T(Alg.1 AR, {b['baseline_rt']}) / T", fontsize=8)
        ax.set_title(f"{lay}{' MPI' if lay == 'flat' else ' MPI+OpenMP'}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    reps = max(d["repeats"] for d in sel)
    fig.suptitle(f"Strong scaling, mesh {mesh} nodes, progress {progress or 'any'}: every variant against "
                 f"Alg.1 AR at {sel[0]['baseline_cores']} core(s) (cf. Figs. 12/18)\n"
                 + (f"median of up to {reps} repeats, bars min-max" if reps > 1 else
                    "one run per point (no repeats: no spread shown)"), fontsize=10)
    fw.save(fig, FIGURES[1], "speed-up vs cores, one Alg.1-AR baseline for every variant",
            [dict(d, source="measured") for d in drawn] + published_speedup(fig))


def published_speedup(fig):
    """The published speed-up of Figs. 12/18 (other machine, far beyond this one's core counts)
    written under the panels; its rows for the CSV."""
    top = pub.SPEEDUP["rows"][-1]
    fig.text(0.01, 0.005, f"published (other machine, {pub.SPEEDUP['mesh']}, baseline "
             f"{pub.SPEEDUP['baseline_cores']} cores): {top['note']}, at {top['cores']:,} cores",
             fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return [dict(source=pub.SPEEDUP["source"], mesh=pub.SPEEDUP["mesh"], cores=r["cores"], solver=s,
                 speedup=r[s], baseline_cores=pub.SPEEDUP["baseline_cores"])
            for r in pub.SPEEDUP["rows"] for s in pub.TABLE7_SOLVERS if s in r]


AR_IAR_KEY = ("mesh", "cores", "nodes", "ranks", "threads", "latency_us", "progress", "placement",
              "mpi", "precision")
# one panel of figures 3 and 7: a layout (never merged across MPIs or precisions)
LAYOUT_KEY = ("mesh", "nodes", "ranks", "threads", "latency_us", "mpi", "precision")


def ar_iar_bars(ax, data, configs):
    """One bar per series and configuration: median T(AR) / median T(IAR), min-max, and the noise
    verdict above each bar."""
    series = sorted({d["solver"] for d in data}, key=cv.rank_of)
    w = 0.8 / len(series)
    for i, s in enumerate(series):
        xs, ys, lo, hi, notes = [], [], [], [], []
        for j, c in enumerate(configs):
            m = [d for d in data if d["solver"] == s and tuple(d[k] for k in AR_IAR_KEY) == c]
            if m:
                xs.append(j + (i - (len(series) - 1) / 2) * w)
                ys.append(m[0]["ar_over_iar"])
                lo.append(m[0]["ar_over_iar_min"])
                hi.append(m[0]["ar_over_iar_max"])
                notes.append(m[0]["noise"])
        bars = ax.bar(xs, ys, width=w, color=cv.color_of(s), label=cv.short_of(s), capsize=2,
                      yerr=yerr(ys, lo, hi))
        mark_noise(ax, bars, xs, ys, notes)
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xticks(range(len(configs)))
    ax.set_xticklabels([f"{c[3]}x{c[4]}" + (f" {c[2]}n" if c[2] > 1 else "") + f"\n{c[6]}"
                        + (f" {c[7]}" if c[7] else "") + (f"\nlat {fmt_lat(c[5])}" if c[5] else "")
                        for c in configs], fontsize=7 if len(configs) > 8 else 9)
    ax.set_ylabel("median T(AR) / median T(IAR)  (> 1: IAR faster)")
    ax.set_xlabel("ranks x threads (nodes), progress (placement), injected latency [us]", fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)


def published_table7(ax):
    """The published Table 7 against cores, at the core counts it was measured at; its rows as
    CSV rows (source = the table)."""
    rows = []
    for s in pub.TABLE7_SOLVERS:
        cores = sorted(pub.TABLE7[s])
        ax.plot(cores, [pub.TABLE7[s][c] for c in cores], marker="s", color=cv.color_of(s),
                label=f"{cv.short_of(s)} (published)")
        rows += [dict(source=pub.SOURCE["table7"], solver=s, cores=c, ar_over_iar=pub.TABLE7[s][c])
                 for c in cores]
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("cores (Oakforest-PACS)")
    ax.set_title(f"published Table 7 (other machine):\n{pub.MACHINE['mesh']}, progress on "
                 "in both runs", fontsize=7)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return rows


def variant_bars(ax, picks, keys, offset, w, drawn, **kw):
    """One setting's bars at x = j + offset, one per variant j: the first row of picks[j] (keys:
    its value, min and max) with min-max error bars, faint and hatched when not a measured
    difference (mark_noise); the rows drawn are appended to drawn."""
    ys, lo, hi, notes = [], [], [], []
    for m in picks:
        notes.append(m[0]["noise"] if m else "")
        ys.append(m[0][keys[0]] if m else math.nan)
        lo.append(m[0][keys[1]] if m else math.nan)
        hi.append(m[0][keys[2]] if m else math.nan)
        drawn += m
    xs = [j + offset for j in range(len(picks))]
    bars = ax.bar(xs, ys, width=w, yerr=yerr(ys, lo, hi), capsize=2, **kw)
    mark_noise(ax, bars, xs, ys, notes)


def layout_panel(ax, variants, ranks, threads, nodes, lat, ylabel):
    """A layout's panel: one tick per variant, the title "RxT on N nodes, lat L us", ylabel."""
    ax.set_xticks(range(len(variants)))
    ax.set_xticklabels([variant_label(v) for v in variants], rotation=30, ha="right", fontsize=7)
    ax.set_title(f"{ranks}x{threads}" + (f" on {nodes} nodes" if nodes > 1 else "")
                 + f", lat {fmt_lat(lat)} us", fontsize=9)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)


def fig_ar_iar(rows, fw):
    data = table7_data(rows)
    if not data:
        return skip(2, "no run with both AR and IAR of one solver (--reduction all)")
    configs = distinct(data, AR_IAR_KEY)
    fig, axes = new_figure(1, 2, gridspec_kw={"width_ratios": [3, 1]})
    ar_iar_bars(axes[0][0], data, configs)
    published = published_table7(axes[0][1])
    single = all(d["noise"] == "single run" for d in data)
    axes[0][0].set_title("this machine: AR vs IAR of the same series (cf. Table 7)\n"
                         + ("one run each: no spread, every bar a single run" if single else
                            "bars min-max over repeats; hatched: ranges overlap (within noise) "
                            "or a single run"), fontsize=9)
    fig.tight_layout()
    fw.save(fig, FIGURES[2], "T(AR)/T(IAR) per series and configuration, published Table 7 beside",
            [dict(d, source="measured") for d in data] + published)


def fig_progress(rows, fw):
    rel = relative_data(rows)
    groups = {}
    for d in rel:
        groups.setdefault(tuple(d[k] for k in LAYOUT_KEY), set()).add((d["progress"], d["placement"]))
    chosen = [g for g in groups if len(groups[g]) >= 2]
    chosen.sort(key=lambda g: (g[4] != 0, -(g[2] * g[3]), g[1], g[3], g[4]))
    if not chosen:
        return skip(3, "no configuration run with two or more progress settings (off/on/poll)")
    dropped = chosen[6:]
    chosen = chosen[:6]
    fig, flat_axes = panel_grid(len(chosen))
    legend, drawn = {}, []
    for ax, g in zip(flat_axes, chosen):
        mesh, nodes, ranks, threads, lat = g[:5]
        settings = sorted(groups[g], key=lambda p: (PROGRESS_ORDER.index(p[0])
                                                    if p[0] in PROGRESS_ORDER else 9, p))
        sel = [d for d in rel if tuple(d[k] for k in LAYOUT_KEY) == g]
        variants = variant_order(f"{d['solver']}/{d['reduction']}" for d in sel)
        w = 0.8 / len(settings)
        for i, (p, pl) in enumerate(settings):
            label = f"progress {p}" + (f" ({pl})" if pl else "")
            picks = [[d for d in sel if (d["progress"], d["placement"]) == (p, pl)
                      and f"{d['solver']}/{d['reduction']}" == v] for v in variants]
            variant_bars(ax, picks, ("relative", "relative_min", "relative_max"),
                         (i - (len(settings) - 1) / 2) * w, w, drawn, label=label,
                         color=PROGRESS_COLOR.get(p) if not pl else None)
            legend[label] = ax.containers[-1]
        ax.axhline(1.0, color="black", linewidth=0.8)
        layout_panel(ax, variants, ranks, threads, nodes, lat, "T(Alg.1 AR) / T, within one setting")
    fig.legend(list(legend.values()) + [noise_handle()], list(legend) + [NOISE_LABEL],
               loc="upper right", fontsize=8)
    fig.suptitle("Relative within one setting: each variant against Alg.1 AR of the same run and "
                 "progress setting\n(cf. Figs. 13/16; > 1: faster; compare bars of one colour, not "
                 "across settings)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.86, 1))
    fw.save(fig, FIGURES[3], "performance relative to Alg.1 AR per variant and progress setting", drawn)
    if dropped:
        print(f"  figure 3: {len(dropped)} further configuration(s) not drawn (see relative.csv)")


def fig_placement(rows, fw):
    data = table6_data(rows)
    if not data:
        return skip(7, "no run with the progress thread on beside the same run with it off")
    groups = distinct(data, LAYOUT_KEY)
    groups = sorted(groups, key=lambda g: (g[4] != 0, -(g[2] * g[3]), g[1]))[:4]
    fig, flat_axes = panel_grid(len(groups))
    drawn = []
    for ax, g in zip(flat_axes, groups):
        sel = [d for d in data if tuple(d[k] for k in LAYOUT_KEY) == g]
        variants = variant_order(f"{d['solver']}/{d['reduction']}" for d in sel)
        places = sorted({d["placement_name"] for d in sel})
        w = 0.8 / len(places)
        for i, pl in enumerate(places):
            picks = [[d for d in sel if d["placement_name"] == pl
                      and f"{d['solver']}/{d['reduction']}" == v] for v in variants]
            variant_bars(ax, picks, ("gain_over_off", "gain_min", "gain_max"),
                         (i - (len(places) - 1) / 2) * w, w, drawn, label=pl)
        ax.axhline(1.0, color="black", linewidth=0.8, label="no progress thread (mapping 1)")
        lo_gain, hi_gain = pub.RAW["table6"]["gain_free_cores"]
        ax.axhspan(1 + lo_gain, 1 + hi_gain, color="grey", alpha=0.2,
                   label="published gain, threads on free cores (Table 6, KNL)")
        layout_panel(ax, variants, g[2], g[3], g[1], g[4], "T(progress off) / T(on, placement)")
    handles, labels = flat_axes[0].get_legend_handles_labels()
    fig.legend(handles + [noise_handle()], labels + [NOISE_LABEL], loc="center right", fontsize=7,
               title="placement", title_fontsize=7)
    fig.suptitle("Progress-thread placement (cf. Table 6 / Fig. 17): one bar per placement, "
                 "median with min-max over repeats.\nGrey band: published gain of threads on cores "
                 "free of compute (Table 6, KNL)", fontsize=9)
    fig.tight_layout(rect=(0, 0, 0.68, 1))
    fw.save(fig, FIGURES[7], "gain of the progress thread per placement (Table 6)", drawn)


def fig_progress_gain(rows, fw):
    """What the progress thread buys: T(off) / T(on) per variant (bars) and layout (one colour
    each), median with min-max over the repeats, hatched when within noise or a single run."""
    from ..tables.headline import progress_gains
    gains = progress_gains(rows)
    if not gains:
        return skip(8, "no configuration run with the progress thread both off and on")
    layouts = []
    for g in gains:
        key = (g["mesh"], g["layout"], g["placement"])
        if key not in layouts:
            layouts.append(key)
    layouts = layouts[:6]
    variants = variant_order(g["variant"] for g in gains)
    fig, axes = new_figure()
    ax = axes[0][0]
    w = 0.8 / len(layouts)
    for i, key in enumerate(layouts):
        ys, lo, hi, notes = [], [], [], []
        for v in variants:
            m = [g for g in gains if (g["mesh"], g["layout"], g["placement"]) == key
                 and g["variant"] == v]
            ys.append(m[0]["ratio"] if m else math.nan)
            lo.append(m[0]["lo"] if m else math.nan)
            hi.append(m[0]["hi"] if m else math.nan)
            notes.append(m[0]["noise"] if m else "")
        xs = [j + (i - (len(layouts) - 1) / 2) * w for j in range(len(variants))]
        label = f"{key[1]}, mesh {key[0]}" + (f", {key[2]}" if key[2] else "")
        bars = ax.bar(xs, ys, width=w, label=label, yerr=yerr(ys, lo, hi), capsize=2)
        mark_noise(ax, bars, xs, ys, notes)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(variants)))
    ax.set_xticklabels([variant_label(v) for v in variants], rotation=30, ha="right", fontsize=8)
    ax.set_yscale("log")  # a ratio: 2x faster and 2x slower stand equally far from 1
    ax.set_ylabel("T(progress off) / T(progress on), log scale", fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles + [noise_handle()], labels + [NOISE_LABEL], loc="upper left",
              bbox_to_anchor=(1.01, 1.0), fontsize=7, title="layout", title_fontsize=7)
    ax.set_title("What the progress thread buys: T(off) / T(on) of the same variant and layout\n"
                 "(> 1: it helped; median with min-max over the repeats)", fontsize=10)
    fig.tight_layout()
    fw.save(fig, FIGURES[8], "T(off) / T(on) per variant and layout", gains)
