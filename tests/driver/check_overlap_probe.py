#!/usr/bin/env python3
"""check_overlap_probe.py MODE OUT -- COMMAND...: runs COMMAND (a cubecg or cubecg-bench launch
that writes the report OUT), then checks the report's overlap probe for MODE:
  longer   work (one SpMV) longer than the injected latency: all of it hidden, IMB-NBC 100 %
  shorter  work shorter than the injected latency L: the work's share W / L hidden, L - W waited
  off      --overlap-probe off: recorded as skipped, and the summary says so
  not-run  the probe cannot run (1 rank, or no iar solve): recorded with why, and the summary
  bench    cubecg-bench --overlap: a row per (setting, size) of this launch"""
import json
import subprocess
import sys

SLACK = 0.02  # of the injected latency: the timer's and the spin loop's granularity


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def contains(spread, value, slack):
    return spread["min"] - slack <= value <= spread["max"] + slack


def check_run(mode, report, stdout):
    probe = report.get("overlap_probe")
    if probe is None:
        fail("report has no overlap_probe")
    lines = [l for l in stdout.splitlines() if l.strip().startswith("overlap probe")]
    if len(lines) != 1:
        fail("summary: expected one 'overlap probe' line, got %r" % lines)
    if mode in ("off", "not-run"):
        want = "off" if mode == "off" else "not_run"
        if probe["status"] != want or not probe["why"] or probe["why"] not in lines[0]:
            fail("status %r why %r, summary %r" % (probe["status"], probe["why"], lines[0]))
        return
    if probe["status"] != "measured":
        fail("status %r (%s)" % (probe["status"], probe["why"]))
    r = probe["result"]
    latency = r["injected_latency_us"] * 1e-6
    if latency <= 0:
        fail("the test needs --inject-reduction-latency")
    hidden, cpu, pure = r["hidden_pct"], r["t_cpu_s"], r["t_pure_s"]
    if r["setting"] not in lines[0] or "%.0f %%" % hidden["median"] not in lines[0]:
        fail("summary line %r does not give setting %s and hidden %.0f %%" %
             (lines[0], r["setting"], hidden["median"]))
    if pure["min"] < latency:
        fail("t_pure %g s below the injected latency %g s" % (pure["min"], latency))
    if mode == "longer":
        if cpu["min"] <= latency:
            fail("the work (min %g s) is not longer than L = %g s: pick a larger mesh" %
                 (cpu["min"], latency))
        if not contains(hidden, 100, 100 * SLACK):
            fail("W > L: hidden %s does not reach 100 %%" % hidden)
        if not contains(r["overlap_pct"], 100, 100 * SLACK):
            fail("W > L: IMB-NBC overlap %s does not reach 100 %%" % r["overlap_pct"])
    else:
        if cpu["median"] >= latency / 2:
            fail("the work (median %g s) is not shorter than L / 2 = %g s" %
                 (cpu["median"], latency / 2))
        lo, hi = 100 * cpu["min"] / pure["max"], min(100, 100 * cpu["max"] / pure["min"])
        if hidden["max"] < lo - 100 * SLACK or hidden["min"] > hi + 100 * SLACK:
            fail("W < L: hidden %s outside the work's share %.2f..%.2f %%" % (hidden, lo, hi))
        wait = r["wait_s"]
        if wait["max"] < latency - cpu["max"] - SLACK * latency or \
                wait["min"] > pure["max"] - cpu["min"] + SLACK * latency:
            fail("W < L: wait %s, expected L - W (%g - %g..%g)" %
                 (wait, latency, cpu["min"], cpu["max"]))
    print("overlap probe %s: hidden %.1f..%.1f %% (median %.1f), t_CPU %.3g..%.3g s, L %g s" %
          (mode, hidden["min"], hidden["max"], hidden["median"], cpu["min"], cpu["max"],
           latency))


def check_bench(report):
    if report.get("kind") != "overlap":
        fail("kind %r" % report.get("kind"))
    rows = report["rows"]
    settings = ["thread", "thread+poll"] if report["progress_thread"] else ["none", "poll"]
    got = [(r["setting"], r["values"]) for r in rows]
    want = [(s, n) for s in settings for n in (1, 2, 3, 41)]
    if got != want:
        fail("rows %r, expected %r" % (got, want))
    for r in rows:
        for key in ("t_pure_s", "t_cpu_s", "t_ovrl_s", "wait_s", "overlap_pct", "hidden_pct"):
            s = r[key]
            if not s["min"] <= s["median"] <= s["max"]:
                fail("%s %s: min/median/max out of order %s" % (r["setting"], key, s))
        if not 0 <= r["overlap_pct"]["min"] and r["overlap_pct"]["max"] <= 100:
            fail("overlap %% outside [0, 100]: %s" % r["overlap_pct"])
    print("bench --overlap: %d rows, settings %s" % (len(rows), settings))


def main():
    mode, out = sys.argv[1], sys.argv[2]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=280)
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr)
        fail("exit code %d of %s" % (proc.returncode, " ".join(cmd)))
    with open(out) as f:
        report = json.load(f)
    if mode == "bench":
        check_bench(report)
    else:
        check_run(mode, report, proc.stdout)


main()
