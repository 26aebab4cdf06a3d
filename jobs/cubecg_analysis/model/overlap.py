"""The model's overlap parameter h measured instead of fitted: read from a cubecg report's start-up
probe (key overlap_probe) or a cubecg-bench --overlap report, and the Table 7 model's error with it
beside the error with the fitted h (docs/study.md "Your cluster's own overlap").

The probes measure IMB-NBC's quantities (t_pure, t_CPU, t_ovrl, the wait after the work) and the
share of the reduction the work hid, hidden = (t_pure - wait) / t_pure. In the model a window with
n halo exchanges hides h^n of a reduction, at most its work W (preset.exposed); so a probe
whose work holds n exchanges and is longer than the reduction measures h = hidden^(1/n). The
start-up probe's work is one SpMV (n = 1); cubecg-bench's is SpMV + ASDD(N) (n = 1 + N - 1 = N).
A probe whose work was shorter than its reduction measured min(h a, W) / a: a lower bound of h."""
import json
import math

from .preset import PUBLISHED_TABLE7, preset_gain

THREAD_SETTINGS = ("thread", "thread+poll")


class OverlapError(Exception):
    pass


def _from_result(r, n_halos, source, where):
    hidden = r["hidden_pct"]
    frac = min(1.0, max(0.0, hidden["median"] / 100.0))
    return dict(h=frac ** (1.0 / n_halos), hidden_pct=hidden, overlap_pct=r["overlap_pct"],
                setting=r["setting"], values=r["values"], repeats=r["repeats"], n_halos=n_halos,
                window_limited=r["t_cpu_s"]["median"] < r["t_pure_s"]["median"],
                t_pure_s=r["t_pure_s"]["median"], t_cpu_s=r["t_cpu_s"]["median"],
                injected_latency_us=r.get("injected_latency_us", 0), source=source, where=where,
                thread=r["setting"] in THREAD_SETTINGS)


def load_overlap(path):
    """The measured h of the report at path; raises OverlapError with one line saying why not."""
    try:
        with open(path, encoding="utf-8") as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        raise OverlapError(f"--overlap-from {path}: {e}") from None
    kind = rep.get("kind") if isinstance(rep, dict) else None
    try:
        if kind == "run":
            probe = rep.get("overlap_probe")
            if not probe:
                raise OverlapError(f"--overlap-from {path}: the run report has no overlap_probe "
                                   "(a cubecg older than the probe)")
            if probe["status"] != "measured":
                raise OverlapError(f"--overlap-from {path}: its overlap probe was {probe['status']}"
                                   f" ({probe['why']})")
            return _from_result(probe["result"], 1, "start-up probe (one SpMV)", path)
        if kind == "overlap":
            rows = rep["rows"]
            # Alg.3's reduction (3 doubles); the thread setting when the launch had one
            pick = sorted((r for r in rows if r["values"] == 3),
                          key=lambda r: (r["setting"] not in THREAD_SETTINGS,
                                         r["setting"] != "none"))
            if not pick:
                raise OverlapError(f"--overlap-from {path}: no row of 3 doubles")
            n = int(rep.get("asdd_iters", 2))
            return _from_result(pick[0], n, f"cubecg-bench --overlap (SpMV + ASDD({n}))", path)
    except (KeyError, TypeError) as e:
        raise OverlapError(f"--overlap-from {path}: missing key {e}") from None
    raise OverlapError(f"--overlap-from {path}: kind {json.dumps(kind)}, expected a cubecg run "
                       "report (overlap_probe) or a cubecg-bench --overlap report")


def fixed_h_rms(inputs, cores, h):
    """RMS over the preset's points of the gain error with one given h: nothing is fitted, so
    every point is out of sample (the leave-one-out RMS of a measured h)."""
    err = [preset_gain(inputs[(c, s)], h) - PUBLISHED_TABLE7[s][c]
           for c in cores for s in ("pipecg", "gropp")]
    return math.sqrt(sum(e * e for e in err) / len(err))


def comparison(res, measured):
    """The fitted and the measured h against Table 7: dict(fitted_h, fitted_loo_rms, measured_h,
    measured_rms)."""
    rows = res["rows"]
    loo = math.sqrt(sum(r["gain_error"] ** 2 for r in rows) / len(rows))
    cores = res["preset"]["cores"]
    return dict(fitted_h=res["h_all"], fitted_loo_rms=loo, measured_h=measured["h"],
                measured_rms=fixed_h_rms(res["inputs"], cores, measured["h"]))


def describe(m):
    """One line: what was measured, where, under which setting."""
    hid = m["hidden_pct"]
    bound = (" (work shorter than the reduction: a lower bound of h)" if m["window_limited"]
             else "")
    sim = (f", injected latency {m['injected_latency_us']:g} us (SIMULATED)"
           if m["injected_latency_us"] else "")
    return (f"h = {m['h']:.3f} MEASURED by the {m['source']} in {m['where']}: setting "
            f"{m['setting']}, a {m['values']}-double reduction {hid['median']:.0f} % hidden "
            f"(min {hid['min']:.0f}, max {hid['max']:.0f}, {m['repeats']} rounds, "
            f"{m['n_halos']} halo exchange(s) in the work){bound}{sim}")


def comparison_lines(cmp, measured):
    """Lines for stdout and model.md: both h and their Table 7 RMS, and which one each table uses."""
    note = ("" if measured["thread"] else
            f"; measured under '{measured['setting']}', not with the progress thread the "
            "published runs had: a comparison of machines and settings, not a check of the fit")
    return [f"overlap h: {describe(measured)}",
            f"overlap h: fitted to Table 7 (all six core counts) {cmp['fitted_h']:.3f}, kept as "
            "the comparison",
            f"Table 7 RMS of gain_error: fitted h leave-one-out {cmp['fitted_loo_rms']:.3f}; "
            f"measured h {cmp['measured_rms']:.3f} (nothing fitted: every point out of "
            f"sample){note}"]
