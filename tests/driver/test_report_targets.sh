#!/usr/bin/env bash
# test_report_targets.sh MPIEXEC CUBECG DIR: --report - writes the JSON report to stdout; a fifo as
# the report target is written directly and is still a fifo afterwards (never renamed over).
set -u
mpiexec=$1 cubecg=$2 dir=$3
export OMP_NUM_THREADS=1
rm -rf "$dir" && mkdir -p "$dir"
run=("$mpiexec" -n 1 "$cubecg" --nx 4 --ny 4 --nz 4)
"${run[@]}" --report - >"$dir/stdout.json" 2>"$dir/stderr.txt" || { echo "FAIL: --report - exit $?"; exit 1; }
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['kind']=='run'" "$dir/stdout.json" \
  || { echo "FAIL: stdout is not the JSON report"; head -c 300 "$dir/stdout.json"; exit 1; }
grep -q "verification" "$dir/stderr.txt" || { echo "FAIL: summary not on stderr"; exit 1; }
[ ! -e ./- ] || { echo "FAIL: a file named '-' was created"; exit 1; }
mkfifo "$dir/fifo"
cat "$dir/fifo" >"$dir/from_fifo.json" &
reader=$!
"${run[@]}" --report "$dir/fifo" --quiet || { echo "FAIL: --report fifo exit $?"; exit 1; }
wait "$reader"
[ -p "$dir/fifo" ] || { echo "FAIL: the fifo was replaced"; exit 1; }
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$dir/from_fifo.json" \
  || { echo "FAIL: fifo did not carry the report"; exit 1; }
echo PASS
