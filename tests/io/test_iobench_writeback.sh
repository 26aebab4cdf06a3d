#!/bin/bash
# test_iobench_writeback.sh MPIEXEC IOBENCH WORKDIR: a durable posix write starts the kernel's
# writeback every --writeback bytes: under strace, each rank file of 4096 + 1 MiB bytes written in
# 64 KiB transfers with --writeback 256k gets exactly 4 sync_file_range(SYNC_FILE_RANGE_WRITE)
# calls, on the consecutive ranges [0, 256k), [256k, 512k), ... (the 4 KiB tail is left to the
# fsync); --writeback 0 and --no-durable make none. The report's row detail says how many started.
# Exit 77 (skipped) without strace or when ptrace is not allowed here.
set -u
mpiexec=$(command -v "$1") iobench=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
command -v strace >/dev/null || { echo "skip: strace is not installed"; exit 77; }
strace -o /dev/null true 2>/dev/null || { echo "skip: strace cannot trace here (ptrace)"; exit 77; }
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 # see test_iobench_shape.sh
fail=0
size=$((1024 * 1024)) repeat=2
for case in "on 2 --writeback=256k" "off 1 --writeback=0" "nodurable 1 --no-durable"; do
  set -- $case
  name=$1 ranks=$2 opt=$3
  mkdir -p "$name"
  if ! "$mpiexec" -n "$ranks" strace -ff -y -e trace=sync_file_range -o "$work/$name/trace" \
    "$iobench" --dir "$work/files" --backends posix --sizes $size --buffers 64k --repeat $repeat \
    "$opt" --report "$work/$name.json" >"$work/$name.out" 2>&1; then
    echo "FAIL $name: iobench under strace failed"; cat "$work/$name.out"; fail=1; continue
  fi
  python3 - "$work/$name" "$name" "$ranks" $repeat "$work/$name.json" <<'PY' || fail=1
import glob, json, re, sys
d, name, ranks, repeat, report = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
pat = re.compile(r'^sync_file_range\(\d+<([^>]*/rank\.(\d+)\.bin)>, (\d+), (\d+), SYNC_FILE_RANGE_WRITE\) = 0$')
calls = []
for path in glob.glob(d + "/trace*"):
    for line in open(path, errors="replace"):
        m = pat.match(line.strip())
        if m:
            calls.append((int(m[2]), int(m[3]), int(m[4])))
        elif line.startswith("sync_file_range"):
            sys.exit(f"FAIL {name}: unexpected call {line.strip()}")
rows = [r for r in json.load(open(report))["results"] if r["op"] == "write"]
details = {r.get("detail", "") for r in rows}
if name == "on":
    want = sorted((r, k * 262144, 262144) for r in range(ranks) for k in range(4)) * repeat
    if sorted(calls) != sorted(want):
        sys.exit(f"FAIL {name}: sync_file_range calls {sorted(calls)} != {sorted(want)}")
    if not all("writeback started every 256 KiB (4 times)" in x for x in details):
        sys.exit(f"FAIL {name}: report details {details}")
else:
    if calls:
        sys.exit(f"FAIL {name}: {len(calls)} sync_file_range calls, expected none")
    if not all("no early writeback" in x for x in details):
        sys.exit(f"FAIL {name}: report details {details}")
print(f"ok {name}: {len(calls)} sync_file_range calls")
PY
done
exit $fail
