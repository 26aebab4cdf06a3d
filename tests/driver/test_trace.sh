#!/usr/bin/env bash
# test_trace.sh: --trace DIR read back with otf2-print. Modes:
#   counts DIR-BASE MPIEXEC CUBECG   pipecg + IAR (poll) at 2 ranks, every iteration traced: the
#       archive's events against the report (posted and waited reductions per rank, rank 0's tests,
#       one iteration marker per iteration and rank, as many leaves as enters); the analysis
#       package's timeline of it is a PNG
#   bound DIR-BASE MPIEXEC CUBECG    --trace-iterations 3: 3 markers per rank, fewer posts than the
#       solve made, the report's trace counts equal to the archive's; a second run replaces it
#   refuse DIR-BASE MPIEXEC CUBECG   a directory that is not cubecg's, a file, --trace-iterations
#       alone: exit 2 with one line, nothing written
#   absent DIR-BASE MPIEXEC CUBECG   (a build without OTF2) --trace is refused in one line
set -euo pipefail
mode=$1 base=$2 mpiexec=$3 cubecg=$4
py=${PYTHON:-python3}
jobs=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../jobs" && pwd)
rm -rf "$base" && mkdir -p "$base"
run=("$mpiexec" -n 2 "$cubecg" --nx 6 --ny 6 --nz 6 --solver pipecg --reduction iar --progress poll
     --quiet)
fail() { echo "FAIL: $*" >&2; exit 1; }
# events of kind $2 (on location $3) in the otf2-print listing of archive $1 (printed once)
count() {
  [[ -f $1.txt ]] || otf2-print "$1" >"$1.txt"
  awk -v e="$2" -v l="${3:-}" '$1 == e && (l == "" || $2 == l)' "$1.txt" | wc -l
}
json() { "$py" -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
# exit code and stderr of a refused run: 2 and exactly one line naming $2
refused() {
  local pattern=$1; shift
  local rc=0
  "$@" 2>"$base/err" >"$base/out" || rc=$?
  [[ $rc == 2 ]] || fail "exit $rc (expected 2) for: $*"
  [[ $(wc -l <"$base/err") == 1 ]] || fail "not one line: $(cat "$base/err")"
  grep -q -- "$pattern" "$base/err" || fail "no '$pattern' in: $(cat "$base/err")"
}

case $mode in
counts)
  "${run[@]}" --trace "$base/t" --trace-iterations 0 --report "$base/r.json"
  a=$base/t/traces.otf2
  [[ -f $base/t/cubecg-trace.txt ]] || fail "no marker file"
  posted=$(json "$base/r.json" "r['solves'][0]['reductions']['posted']")
  waited=$(json "$base/r.json" "r['solves'][0]['reductions']['waited']")
  tests=$(json "$base/r.json" "r['solves'][0]['reductions']['tests']")
  its=$(json "$base/r.json" "r['solves'][0]['iterations']")
  ((posted > 10 && waited == posted && tests > 0)) || fail "report: posted $posted waited $waited tests $tests"
  for loc in 0 1; do
    [[ $(count "$a" NON_BLOCKING_COLLECTIVE_REQUEST $loc) == "$posted" ]] || fail "rank $loc posts"
    [[ $(count "$a" NON_BLOCKING_COLLECTIVE_COMPLETE $loc) == "$waited" ]] || fail "rank $loc waits"
    [[ $(count "$a" PARAMETER_INT64 $loc) == "$its" ]] || fail "rank $loc iteration markers"
  done
  [[ $(count "$a" MPI_REQUEST_TEST 0) == "$tests" ]] || fail "rank 0 tests"
  [[ $(count "$a" ENTER) == $(count "$a" LEAVE) ]] || fail "enters and leaves differ"
  for region in spmv precond halo halo_wait dot axpy reduction; do
    grep -q "Region: \"$region\"" "$a.txt" || fail "no region $region"
  done
  # the report's sums over ranks are the archive's
  [[ $(json "$base/r.json" "r['trace']['reductions_posted']") == $((2 * posted)) ]] || fail "trace.reductions_posted"
  [[ $(json "$base/r.json" "r['trace']['reductions_waited']") == $((2 * waited)) ]] || fail "trace.reductions_waited"
  [[ $(json "$base/r.json" "r['trace']['reduction_tests']") == $(count "$a" MPI_REQUEST_TEST) ]] || fail "trace.reduction_tests"
  # each wait says whether the reduction had completed: one "completed" attribute per test and wait
  [[ $(grep -c '"completed"' "$a.txt") == $(($(count "$a" MPI_REQUEST_TEST) + 2 * waited)) ]] ||
    fail "completed attributes"
  # the analysis package draws its timeline (a PNG), reading the archive through python3-otf2
  if "$py" -c "import matplotlib" 2>/dev/null; then
    PYTHONPATH="$jobs${PYTHONPATH:+:$PYTHONPATH}" "$py" -m cubecg_analysis.figures.timeline "$base/t" \
      --out "$base/timeline.png" || fail "cubecg-timeline"
    [[ $(od -An -tx1 -N8 "$base/timeline.png" | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "no PNG"
  else
    echo "note: matplotlib not importable by $py: the timeline is not drawn (jobs/ensure-python.sh)"
  fi
  ;;
bound)
  for pass in 1 2; do # the second run replaces the first one's archive in its own directory
    "${run[@]}" --trace "$base/t" --trace-iterations 3 --report "$base/r.json"
  done
  a=$base/t/traces.otf2
  posted=$(json "$base/r.json" "r['solves'][0]['reductions']['posted']")
  for loc in 0 1; do
    [[ $(count "$a" PARAMETER_INT64 $loc) == 3 ]] || fail "rank $loc: not 3 iteration markers"
    n=$(count "$a" NON_BLOCKING_COLLECTIVE_REQUEST $loc)
    ((n >= 3 && n < posted)) || fail "rank $loc: $n posts traced of $posted"
  done
  [[ $(json "$base/r.json" "r['trace']['iterations']") == 6 ]] || fail "trace.iterations"
  [[ $(json "$base/r.json" "r['trace']['reductions_posted']") == $(count "$a" NON_BLOCKING_COLLECTIVE_REQUEST) ]] ||
    fail "trace.reductions_posted"
  [[ $(json "$base/r.json" "r['trace']['events']") == $(awk '$2 ~ /^[01]$/' "$a.txt" | wc -l) ]] ||
    fail "trace.events"
  ;;
refuse)
  mkdir -p "$base/foreign" && echo data >"$base/foreign/notes.txt"
  refused "not a cubecg trace directory" "${run[@]}" --trace "$base/foreign"
  [[ $(ls "$base/foreign") == notes.txt ]] || fail "the foreign directory was written"
  echo file >"$base/file"
  refused "not a directory" "${run[@]}" --trace "$base/file"
  refused "trace-iterations has no effect" "${run[@]}" --trace-iterations 5
  refused "trace-iterations -1" "${run[@]}" --trace "$base/t" --trace-iterations -1
  [[ ! -e $base/t ]] || fail "a refused run created its trace directory"
  ;;
absent)
  refused "this build has no OTF2" "${run[@]}" --trace "$base/t"
  ;;
*) fail "unknown mode $mode" ;;
esac
echo "PASS: trace $mode"
