#!/bin/bash
# test_jobs_analyze.sh REPO FIXTURES WORKDIR: jobs/analyze.py and jobs/model.py on the reports of a
# real quick run produce every figure (PNG of the expected pixel size), tables.md and model.md,
# and a second run never overwrites a figure silently.
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

python3 "$repo/jobs/analyze.py" "$work" >"$work/analyze.out" 2>&1
rc=$?
cat "$work/analyze.out"
[[ $rc == 0 ]] || { echo "FAIL analyze.py exit $rc"; fail=1; }
if grep -q "skipped" "$work/analyze.out"; then echo "FAIL a figure was skipped"; fail=1; fi
for f in fig1_speedup fig2_ar_vs_iar fig3_progress fig4_breakdown fig5_io_bandwidth fig6_checkpoint; do
  png_ok "$work/$f.png"
done
# the printed table has every variant x reduction and the progress settings of the fixtures
for pat in "Alg.1 AR" "Alg.2 IAR" "Alg.3 IAR" "Alg.4 AR" " on " " poll " " posix "; do
  grep -q -- "$pat" "$work/analyze.out" || { echo "FAIL table lacks '$pat'"; fail=1; }
done
if [[ -s $work/tables.md ]] && grep -q "Table 7" "$work/tables.md" &&
  grep -Eq '^\| 8x8x8 \| 2 \| 2x1 \| 0 \| [0-9.]+ \|' "$work/tables.md"; then
  echo "ok   tables.md has the async on/off speed-up table"
else
  echo "FAIL tables.md missing or without a 2x1 speed-up row"; fail=1
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
