#!/usr/bin/env bash
# test_summary_file.sh MPIEXEC CUBECG PYTHON OUTDIR: the printed summary is saved beside the report.
# Checks: --report R.json gives R.summary.txt, equal to the summary on stdout line for line, named by
# the report's summary_file and by a "summary:" line on stdout, no temporary file left; --quiet
# still saves it; a report name without .json gets .summary.txt appended; --report - (stdout)
# saves none and reports summary_file null; a summary name that is a directory is bad input (exit 2).
set -u
mpiexec=$1 cubecg=$(realpath "$2") python=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
run() { OMP_NUM_THREADS=1 "$mpiexec" -n 2 "$cubecg" --nx 6 --ny 5 --nz 4 "$@"; }
json_get() { "$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['summary_file'])" "$1"; }

# 1. beside R.json, the same text as stdout's summary (from its "cubecg " line to the end)
run --solver all --reduction all --report "$out/r.json" >"$out/stdout.txt" || fail "run exited $?"
[ -f "$out/r.summary.txt" ] || fail "$out/r.summary.txt not written"
grep -qx "  summary: $out/r.summary.txt" "$out/stdout.txt" || fail "stdout does not name the summary"
sed -n '/^cubecg /,$p' "$out/stdout.txt" >"$out/stdout_summary.txt"
cmp -s "$out/stdout_summary.txt" "$out/r.summary.txt" ||
  { diff "$out/stdout_summary.txt" "$out/r.summary.txt"; fail "saved summary differs from stdout"; }
grep -q "verification: PASSED" "$out/r.summary.txt" || fail "no verification line in the summary"
grep -qx "  report: $out/r.json" "$out/r.summary.txt" || fail "the summary does not name its report"
[ "$(json_get "$out/r.json")" = "$out/r.summary.txt" ] || fail "report's summary_file is not $out/r.summary.txt"
ls "$out" | grep -q '\.tmp$' && fail "a temporary file was left: $(ls "$out")"

# 2. --quiet prints nothing but still saves the summary
run --quiet --report "$out/q.json" >"$out/quiet.txt" || fail "quiet run exited $?"
[ ! -s "$out/quiet.txt" ] || fail "--quiet printed: $(head -n 3 "$out/quiet.txt")"
grep -q "verification: PASSED" "$out/q.summary.txt" || fail "--quiet: no saved summary"

# 3. a report name without .json: .summary.txt appended
run --quiet --report "$out/plain.out" || fail "run with plain.out exited $?"
[ -f "$out/plain.out.summary.txt" ] || fail "plain.out.summary.txt not written"

# 4. --report - : the report on stdout, no summary file, summary_file null
mkdir -p "$out/dash" && cd "$out/dash" || fail "cannot enter $out/dash"
run --report - >"$out/dash.json" 2>/dev/null || fail "--report - exited $?"
[ "$(json_get "$out/dash.json")" = "None" ] || fail "--report -: summary_file is not null"
[ -z "$(ls "$out/dash")" ] || fail "--report - wrote files: $(ls "$out/dash")"
cd "$out" || fail "cannot enter $out"

# 5. the summary's name taken by a directory: one line naming it, exit 2, nothing written
mkdir -p "$out/d.summary.txt"
run --report "$out/d.json" >/dev/null 2>"$out/d.err"
code=$?
[ "$code" -eq 2 ] || fail "summary name is a directory: exit $code, expected 2"
grep -q "d.summary.txt" "$out/d.err" || fail "the error does not name the summary: $(cat "$out/d.err")"
[ ! -e "$out/d.json" ] || fail "d.json was written"
echo PASS
