#!/bin/bash
# test_jobs_analyze.sh REPO FIXTURES WORKDIR: jobs/analyze.py and jobs/model.py on the reports of a
# real quick run produce every figure (PNG of the expected pixel size) with its CSV, study.csv,
# speedup.csv, table7.csv (one value of each recomputed by hand here from the reports), tables.md
# and model.md; version-1 reports are read; a second run never overwrites a figure silently.
set -u
repo=$1 fixtures=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cp "$fixtures"/*.json "$work"/
fail=0
W=1000 H=600 # analyze.py FIG_SIZE_IN x FIG_DPI
png_ok() # png_ok FILE: PNG signature, IHDR width and height
{
  local f=$1
  if [[ ! -s $f ]]; then echo "FAIL $f missing or empty"; fail=1; return; fi
  local sig w h
  sig=$(od -An -tx1 -N8 "$f" | tr -d ' \n')
  read -r w h <<<"$(od -An -tu1 -j16 -N8 "$f" | awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}')"
  if [[ $sig == 89504e470d0a1a0a && $w == "$W" && $h == "$H" ]]; then
    echo "ok   $(basename "$f") ${w}x${h}, $(stat -c %s "$f") bytes"
  else
    echo "FAIL $f: signature $sig, ${w}x${h} (expected PNG ${W}x${H})"; fail=1
  fi
}

python3 "$repo/jobs/analyze.py" --verbose "$work" >"$work/analyze.out" 2>&1
rc=$?
cat "$work/analyze.out"
if grep -q "skipped" "$work/analyze.out"; then echo "FAIL a figure was skipped"; fail=1; fi
for f in fig1_speedup fig2_ar_vs_iar fig3_progress fig4_breakdown fig5_io_bandwidth fig6_checkpoint \
  fig7_placement fig8_progress_gain io1_size io2_c_fortran io3_modes io4_ranks io5_mapping; do
  png_ok "$work/$f.png"
  # the data behind every figure, as CSV of the same stem
  if [[ -s $work/$f.csv ]] && (($(wc -l <"$work/$f.csv") >= 2)); then echo "ok   $f.csv beside $f.png"
  else echo "FAIL $f.csv missing or without data rows"; fail=1; fi
done
# the answer first: the headline's first line, each comparison with its verdict
if head -1 "$work/analyze.out" | grep -q "^The study's answer" &&
  grep -Eq '^  progress thread, T\(off\)/T\(on\), Alg.1 AR: [0-9.]+' "$work/analyze.out" &&
  grep -q '^  measured overlap: ' "$work/analyze.out" && grep -q '^  checkpoint share, ' "$work/analyze.out" &&
  grep -q '^## The answer first' "$work/tables.md"; then
  echo "ok   the headline first (stdout and tables.md)"
else
  echo "FAIL no headline first"; fail=1
fi
# the printed table has every variant x reduction and the progress settings of the fixtures
for pat in "Alg.1 AR" "Alg.2 IAR" "Alg.3 IAR" "Alg.4 AR" " on " " poll " " posix "; do
  grep -q -- "$pat" "$work/analyze.out" || { echo "FAIL table lacks '$pat'"; fail=1; }
done
if [[ -s $work/tables.md ]] && grep -q "^## Table 7: T(AR) / T(IAR) of the same solver" "$work/tables.md" &&
  grep -Eq '^\| 2 \| measured \| 8x8x8 \| 2x1 \| 0 \| on \| inherit \| [0-9.]+ \[[0-9.]+-[0-9.]+\]( \(within noise\))? \|' "$work/tables.md" &&
  grep -Eq '^\| 8,192 \| \*published\* \| 512x256x256 \|.* \| 1\.03 \| 1\.06 \|( +\|)*$' "$work/tables.md" &&
  grep -q '^\*Published\* Table 4' "$work/tables.md" &&
  grep -Eq '^\| 131,072 \| \*published\* \| 512x256x256 \| [^|]+ \| - \| 59\.50% \|' "$work/tables.md" &&
  grep -q '^## Table 6: progress-thread placement' "$work/tables.md"; then
  echo "ok   tables.md: Table 7 as AR/IAR with min-max over repeats, published Tables 4 and 7 at their own core counts"
else
  echo "FAIL tables.md lacks Table 7 (AR/IAR, 2x1 progress on with a min-max range), Table 4/6 or published labels"
  fail=1
fi
grep -q "medians over repeated reports" "$work/tables.md" ||
  { echo "FAIL tables.md does not say its values are medians over repeats (the fixtures repeat)"; fail=1; }

# the paper's metrics, recomputed by hand from the reports (not with analyze.py's code)
python3 - "$work" <<'PY' || fail=1
import csv, json, os, statistics, sys
work = sys.argv[1]
def solve_time(name, solver, reduction):
    with open(os.path.join(work, name)) as f:
        d = json.load(f)
    return [s["time_s"] for s in d["solves"] if (s["solver"], s["reduction"]) == (solver, reduction)][0]
def rows(name):
    with open(os.path.join(work, name)) as f:
        return list(csv.DictReader(f))
def close(a, b):
    return abs(a - b) <= 1e-4 * abs(b)
bad = 0
# speed-up of Alg.4 IAR at 2x1 (one node, progress off): n0 x T(Alg.1 AR, 1x1) / median T(Alg.4 IAR, 2x1)
t0 = solve_time("run_1x1_off.json", "pcg", "ar")
t = statistics.median([solve_time(f"run_2x1_off_rep{i}.json", "gropp", "iar") for i in (1, 2)])
want = 1 * t0 / t
got = [r for r in rows("speedup.csv") if (r["solver"], r["reduction"], r["ranks"], r["threads"], r["nodes"],
                                         r["progress"], r["placement"]) == ("gropp", "iar", "2", "1", "1", "off", "")]
if len(got) == 1 and close(float(got[0]["speedup"]), want) and got[0]["baseline_cores"] == "1":
    print(f"ok   speedup.csv Alg.4 IAR 2x1 = 1 x {t0:.6g} / {t:.6g} = {want:.6g} (by hand)")
else:
    print(f"FAIL speedup.csv Alg.4 IAR 2x1: {got} != {want:.6g} (by hand)"); bad = 1
# every variant against the same baseline: Alg.1 AR at 1x1 has speed-up 1
one = [r for r in rows("speedup.csv") if (r["solver"], r["reduction"], r["cores"], r["progress"], r["placement"])
       == ("pcg", "ar", "1", "off", "")]
if len(one) == 1 and close(float(one[0]["speedup"]), 1.0):
    print("ok   speedup.csv: Alg.1 AR at n0 = 1 is 1 (common baseline)")
else:
    print(f"FAIL speedup.csv baseline row {one}"); bad = 1
# Table 7 for Alg.4, progress on (inherit), 2x1: median T(AR) / median T(IAR) over the two repeats
ar = statistics.median([solve_time(f"run_2x1_on_rep{i}.json", "gropp", "ar") for i in (1, 2)])
iar = statistics.median([solve_time(f"run_2x1_on_rep{i}.json", "gropp", "iar") for i in (1, 2)])
got = [r for r in rows("table7.csv") if (r["solver"], r["cores"], r["nodes"], r["progress"], r["placement"],
                                        r["ranks"], r["latency_us"]) == ("gropp", "2", "1", "on", "inherit", "2", "0")]
if len(got) == 1 and close(float(got[0]["ar_over_iar"]), ar / iar) and got[0]["repeats_ar"] == "2":
    print(f"ok   table7.csv Alg.4 2x1 progress on = {ar:.6g} / {iar:.6g} = {ar / iar:.6g} (by hand)")
else:
    print(f"FAIL table7.csv Alg.4 2x1 progress on: {got} != {ar / iar:.6g} (by hand)"); bad = 1
if {r["progress"] for r in rows("table7.csv")} >= {"on", "off", "poll"}:
    print("ok   table7.csv has rows with progress on, off and poll")
else:
    print("FAIL table7.csv lacks a progress setting"); bad = 1
# two emulated nodes x 1 rank: nodes = 2, not oversubscribed, never merged with the 1-node 2x1
st = [r for r in rows("study.csv") if r["file"].endswith("run_2n_2x1_off.json")]
sp = {r["nodes"] for r in rows("speedup.csv") if (r["cores"], r["progress"], r["solver"], r["reduction"], r["ranks"])
      == ("2", "off", "pcg", "ar", "2")}
if st and all(r["nodes"] == "2" and r["oversubscribed"] == "false" for r in st) and sp == {"1", "2"}:
    print("ok   2 nodes x 1 rank: nodes 2, not oversubscribed, apart from the 1-node 2x1 in speedup.csv")
else:
    print(f"FAIL 2-node 2x1 run: study rows {[(r['nodes'], r['oversubscribed']) for r in st]}, speedup nodes {sp}")
    bad = 1
# study.csv: the columns pandas users rely on, one row per solve
need = ("file mesh nodes ranks threads cores ranks_per_node layout progress placement latency_us checkpoint "
        "solver reduction repeat iterations converged time_s time_per_iter_s reduction_s oversubscribed").split()
study = rows("study.csv")
nsolves = 0
for f in os.listdir(work):
    if f.endswith(".json"):
        with open(os.path.join(work, f)) as fh:
            nsolves += len(json.load(fh).get("solves", []))
if study and all(k in study[0] for k in need) and len(study) == nsolves and \
        {r["repeat"] for r in study} >= {"1", "2"}:
    print(f"ok   study.csv: {len(study)} rows (one per solve), every required column, repeats numbered")
else:
    print(f"FAIL study.csv: {len(study)} rows for {nsolves} solves, columns {list(study[0]) if study else []}")
    bad = 1
# Table 6: one entry per placement, never merged
pl = {r["placement_name"] for r in rows("table6.csv") if r["ranks"] == "2" and r["nodes"] == "1"}
if pl == {"inherit", "compute"}:
    print("ok   table6.csv: placements inherit and compute kept apart")
else:
    print(f"FAIL table6.csv placements {pl}"); bad = 1
# checkpoint: repeats with min-max, and the verdict follows from the overhead and the run-to-run spread
ck = rows("fig6_checkpoint.csv")
okck = bool(ck)
for r in ck:
    o, spread = float(r["overhead"]), float(r["run_to_run_spread"])
    okck = okck and r["repeats"] == "2" and r["verdict"] == ("within noise" if abs(o) <= spread else "measured") \
        and float(r["overhead_min"]) <= o <= float(r["overhead_max"])
print(("ok  " if okck else "FAIL") + " fig6_checkpoint.csv (overhead, spread, verdict): "
      + str([(r["overhead"], r["run_to_run_spread"], r["verdict"]) for r in ck]))
bad |= not okck
sys.exit(bad)
PY

# topology.oversubscribed decides, not ranks x threads > rank 0's cores_online: the 2-node 2x1
# report with cores_online 1 (as a 1-core host would say) is still not oversubscribed
mkdir -p "$work/topo"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["platform"]["cores_online"]=1; json.dump(d, open(sys.argv[2],"w"))' \
  "$work/run_2n_2x1_off.json" "$work/topo/run_2n_2x1_off.json"
python3 "$repo/jobs/analyze.py" --no-figures --verbose "$work/topo" >"$work/topo.out" 2>&1
if ! grep -Eq '^ +8x8x8 +2 +2x1 +flat +off .*Alg.1 AR' "$work/topo.out"; then
  echo "FAIL 2-node table row missing"; cat "$work/topo.out"; fail=1
elif grep -E '^ +8x8x8 ' "$work/topo.out" | grep -q oversub; then
  echo "FAIL 2-node 2x1 called oversubscribed"; fail=1
else
  echo "ok   2-node 2x1: the report's topology.oversubscribed (false) decides, not cores_online"
fi

# a version-1 report is read and the analyzer says what it lacks; one report each: no "medians"
mkdir -p "$work/v1"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["cubecg_report_version"]=1; d.pop("topology"); json.dump(d, open(sys.argv[2],"w"))' \
  "$work/run_2x1_off_rep1.json" "$work/v1/run_2x1_off.json"
python3 "$repo/jobs/analyze.py" "$work/v1" >"$work/v1.out" 2>&1
rc=$?
if [[ $rc == 0 ]] && grep -q "1 version-1 report(s) (e.g. run_2x1_off.json) lack topology" "$work/v1.out" &&
  grep -q "Every configuration ran once" "$work/v1/tables.md" && ! grep -q "medians over repeated" "$work/v1/tables.md"; then
  echo "ok   version 1 read, what it lacks said; single runs not called medians"
else
  echo "FAIL version-1 report: exit $rc"; cat "$work/v1.out"; fail=1
fi

# a second run must not overwrite: it writes fig1_speedup-2.png and says so
sum1=$(md5sum <"$work/fig1_speedup.png")
python3 "$repo/jobs/analyze.py" "$work" >"$work/analyze2.out" 2>&1 || { echo "FAIL second analyze.py run"; fail=1; }
if [[ $(md5sum <"$work/fig1_speedup.png") == "$sum1" ]] && [[ -s $work/fig1_speedup-2.png ]] &&
  grep -q "fig1_speedup.png exists; writing .*fig1_speedup-2.png" "$work/analyze2.out"; then
  echo "ok   existing figure kept, new one written as fig1_speedup-2.png"
else
  echo "FAIL overwrite protection"; cat "$work/analyze2.out"; fail=1
fi

python3 "$repo/jobs/model.py" "$work" >"$work/model.out" 2>&1
rc=$?
cat "$work/model.out"
[[ $rc == 0 ]] || { echo "FAIL model.py exit $rc"; fail=1; }
png_ok "$work/model_projection.png"
grep -q "MODEL" "$work/model.out" && grep -q "not a measurement" "$work/model.md" ||
  { echo "FAIL model output not labelled as a model"; fail=1; }
exit $fail
