#!/usr/bin/env python3
"""check_overlap_probe.py MODE OUT [--sizes N,N..] -- COMMAND...: runs COMMAND (a cubecg or
cubecg-bench launch that writes the report OUT), then checks the report's overlap probe for MODE,
in every row (one per reduction size; --sizes: the sizes expected, ascending):
  longer   work (one SpMV) longer than the injected latency: all of it hidden, IMB-NBC 100 %
  shorter  work shorter than the injected latency L: the work's share W / L hidden, L - W waited
  sizes    only the rows' sizes (and `result`'s pick) against --sizes
  off      --overlap-probe off: recorded as skipped, and the summary says so
  not-run  the probe cannot run (1 rank, or no iar solve): recorded with why, and the summary
  bench    cubecg-bench --overlap: a row per (setting this launch has, size), the other settings
           not run with why (report and one line each), the sizes those of the variants"""
import json
import subprocess
import sys

SLACK = 0.02  # of the injected latency: the timer's and the spin loop's granularity


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def contains(spread, value, slack):
    return spread["min"] - slack <= value <= spread["max"] + slack


def check_run(mode, report, stdout, sizes):
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
    r, rows = probe["result"], probe["results"]
    got = [row["values"] for row in rows]
    if sizes is not None and got != sizes:
        fail("probed sizes %r, expected %r" % (got, sizes))
    if got != sorted(set(got)) or not all(row["posted_by"] for row in rows):
        fail("rows not one per size ascending with posted_by: %r" % rows)
    # result: the row of 3 doubles when probed (the model's), else the largest
    want = 3 if 3 in got else got[-1]
    if r["values"] != want or r not in rows:
        fail("result is the row of %d doubles, expected %d" % (r["values"], want))
    for other in rows:
        if other["values"] != r["values"] and "%d doubles %.0f %%" % (
                other["values"], other["hidden_pct"]["median"]) not in lines[0]:
            fail("summary %r lacks the %d-double row" % (lines[0], other["values"]))
    if r["setting"] not in lines[0] or "%.0f %%" % r["hidden_pct"]["median"] not in lines[0]:
        fail("summary line %r does not give setting %s and hidden %.0f %%" %
             (lines[0], r["setting"], r["hidden_pct"]["median"]))
    if mode == "sizes":
        print("overlap probe sizes %r posted by %r" % (got, [row["posted_by"] for row in rows]))
        return
    for row in rows:
        check_row(mode, row)


def check_row(mode, r):
    latency = r["injected_latency_us"] * 1e-6
    if latency <= 0:
        fail("the test needs --inject-reduction-latency")
    hidden, cpu, pure = r["hidden_pct"], r["t_cpu_s"], r["t_pure_s"]
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
    print("overlap probe %s, %d doubles: hidden %.1f..%.1f %% (median %.1f), t_CPU %.3g..%.3g s, "
          "L %g s" % (mode, r["values"], hidden["min"], hidden["max"], hidden["median"],
                      cpu["min"], cpu["max"], latency))


def check_settings(report, stdout):
    """The four settings: this launch's measured, the others not run with why, one line each."""
    thread = report["progress_thread"]
    want = {"none": not thread, "poll": not thread, "thread": thread, "thread+poll": thread}
    got = {s["setting"]: s["status"] == "measured" for s in report["settings"]}
    if got != want:
        fail("settings %r, expected measured %r" % (report["settings"], want))
    for s in report["settings"]:
        if s["status"] == "measured":
            continue
        if s["status"] != "not_run" or not s["why"]:
            fail("setting %r: status %r why %r" % (s["setting"], s["status"], s["why"]))
        said = [l for l in stdout.splitlines() if l.split()[:1] == [s["setting"]] and s["why"] in l]
        if len(said) != 1:
            fail("no one line saying setting %s was not run: %r" % (s["setting"], s["why"]))
    return [s for s in want if want[s]]


def check_bench(report, stdout, sizes):
    if report.get("kind") != "overlap":
        fail("kind %r" % report.get("kind"))
    rows = report["rows"]
    settings = check_settings(report, stdout)
    values = [s["values"] for s in report["sizes"]]
    if sizes is not None and values != sizes:
        fail("sizes %r, expected %r" % (values, sizes))
    got = [(r["setting"], r["values"], r["posted_by"]) for r in rows]
    want = [(s, z["values"], z["posted_by"]) for s in settings for z in report["sizes"]]
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
    dash = sys.argv.index("--")
    cmd, sizes = sys.argv[dash + 1:], None
    if "--sizes" in sys.argv[3:dash]:
        sizes = [int(v) for v in sys.argv[sys.argv.index("--sizes") + 1].split(",")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=280)
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr)
        fail("exit code %d of %s" % (proc.returncode, " ".join(cmd)))
    with open(out) as f:
        report = json.load(f)
    if mode == "bench":
        check_bench(report, proc.stdout, sizes)
    else:
        check_run(mode, report, proc.stdout, sizes)


main()
