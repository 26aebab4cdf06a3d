#!/bin/bash
# test_iosweep.sh REPO BUILD WORKDIR [real]: the I/O sweep and its analysis.
#  dry run: jobs/iosweep.sh lists the rank / size / buffer / backend / mapping grid (8 cores, two
#    directories, 2 emulated nodes) and creates nothing; bad options exit 2;
#  real: a real quick sweep (64k and 1M per rank, 1-2 ranks, two directories) and
#    jobs/analyze_io.py draw every I/O figure (io1-io5) with its CSV beside it, the published
#    SX-Aurora values labelled in each CSV; jobs/analyze.py draws them too.
set -u
repo=$1 build=$2 work=$3 mode=${4:-dry}
rm -rf "$work" && mkdir -p "$work"
fail=0
export CUBECG_BUILD=$build
expect() # expect FILE REGEX WHAT
{
  if grep -Eq -- "$2" "$1"; then echo "ok   $3"; else echo "FAIL $3: no line matches /$2/ in $1"; fail=1; fi
}
if [[ $mode == dry ]]; then
  CUBECG_MAX_CORES=8 bash "$repo/jobs/iosweep.sh" --dry-run --out "$work/out" --dirs /d1,/d2 \
    --emulate-nodes 2 >"$work/dry.txt" 2>&1 || { echo "FAIL dry run exit $?"; fail=1; }
  cat "$work/dry.txt"
  [[ ! -e $work/out ]] || { echo "FAIL the dry run created $work/out"; fail=1; }
  sizes='--sizes 1M,8M,32M,128M,512M,1G --buffers 8k,512k --repeat 10'
  # every backend built in, the Fortran one when built
  built=$("$build/bench/cubecg-iobench" --list-backends) || { echo "FAIL --list-backends"; fail=1; }
  expect "$work/dry.txt" "--dir /d1 --backends $built " "every built backend ($built)"
  for n in 1 2 4 8; do
    expect "$work/dry.txt" "mpiexec.mpich -n $n .*--dir /d1 --backends [^ ]* $sizes --report [^ ]*/iobench_${n}x1_one-dir" "$n ranks, one directory, every size and buffer"
  done
  for n in 2 4 8; do
    for m in block cyclic; do
      expect "$work/dry.txt" "mpiexec.mpich -n $n .*--dirs /d1,/d2 --mapping $m --backends posix[^ ]* $sizes" "$n ranks, $m mapping over two directories"
    done
  done
  expect "$work/dry.txt" "-n 4 -bind-to none -launcher fork -hosts node1:2,node2:2 " "--emulate-nodes 2"
  if grep -E -- "--dirs .*--backends [^ ]*hdf5" "$work/dry.txt"; then echo "FAIL hdf5 in a mapping run"; fail=1; fi
  n=$(grep -c "cubecg-iobench" "$work/dry.txt")
  [[ $n == 10 ]] && echo "ok   10 launch lines (4 rank counts + 3 x 2 mappings)" || { echo "FAIL $n launch lines, expected 10"; fail=1; }
  for bad in "--emulate-nodes x" "--repeat 0" "--bogus"; do
    # shellcheck disable=SC2086
    bash "$repo/jobs/iosweep.sh" --dry-run $bad >/dev/null 2>&1
    rc=$?
    [[ $rc == 2 ]] && echo "ok   '$bad' exit 2" || { echo "FAIL '$bad' exit $rc"; fail=1; }
  done
  exit $fail
fi

# real quick sweep
if ! bash "$repo/jobs/iosweep.sh" --quick --out "$work/sweep" >"$work/sweep.txt" 2>&1; then
  echo "FAIL the quick sweep failed"; cat "$work/sweep.txt"; for l in "$work"/sweep/logs/*.log; do tail -5 "$l"; done; exit 1
fi
cat "$work/sweep.txt"
grep -q "skipped" "$work/sweep.txt" && { echo "FAIL an I/O figure was skipped"; fail=1; }
for f in io1_size io2_c_fortran io3_modes io4_ranks io5_mapping; do
  png=$work/sweep/$f.png csv=$work/sweep/$f.csv
  if [[ $(od -An -tx1 -N8 "$png" 2>/dev/null | tr -d ' \n') == 89504e470d0a1a0a ]]; then echo "ok   $f.png"; else echo "FAIL $f.png missing or not a PNG"; fail=1; fi
  if [[ -s $csv ]] && (($(grep -vc "published, SX-Aurora" "$csv") >= 2)) && grep -q "published, SX-Aurora" "$csv"; then
    echo "ok   $f.csv: measured rows and the published values, labelled"
  else
    echo "FAIL $f.csv lacks measured rows or the labelled published values"; fail=1
  fi
done
# io5 compares the mappings; io2 has both languages; io4 two rank counts
python3 - "$work/sweep" <<'EOF' || fail=1
import csv, sys, os
d = sys.argv[1]
rows = lambda f: [r for r in csv.DictReader(open(os.path.join(d, f))) if not r["source"].startswith("published")]
bad = []
if {r["mapping"] for r in rows("io5_mapping.csv")} != {"one-dir", "block", "cyclic"}: bad.append("io5 mappings")
if {r["backend"] for r in rows("io2_c_fortran.csv")} != {"posix", "fortran"}: bad.append("io2 backends")
if {r["ranks"] for r in rows("io4_ranks.csv")} != {"1", "2"}: bad.append("io4 ranks")
if not {"returned", "handover", "completed", "read-warm"} <= {r["timing"] for r in rows("io1_size.csv")}: bad.append("io1 timings")
print("\n".join(f"FAIL {b}" for b in bad) or "ok   the CSVs hold the grid")
sys.exit(1 if bad else 0)
EOF
python3 "$repo/jobs/analyze.py" "$work/sweep" --figdir "$work/all" >"$work/analyze.txt" 2>&1 || { echo "FAIL analyze.py"; cat "$work/analyze.txt"; fail=1; }
for f in io1_size io2_c_fortran io3_modes io4_ranks io5_mapping; do
  [[ -s $work/all/$f.png && -s $work/all/$f.csv ]] || { echo "FAIL analyze.py did not draw $f"; fail=1; }
done
exit $fail
