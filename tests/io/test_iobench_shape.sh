#!/bin/bash
# test_iobench_shape.sh MPIEXEC IOBENCH WORKDIR: the posix backend's system calls
# are shaped by --buffers as fio's by --bs (transfer size = buffer size): under strace, every
# write(2) to a rank file moves exactly one buffer, except the file's last one (<= a buffer), and a
# file of S bytes takes ceil(S / buffer) writes; reads likewise. Exit 77 (skipped) without strace
# or when ptrace is not allowed here.
set -u
mpiexec=$(command -v "$1") iobench=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
command -v strace >/dev/null || { echo "skip: strace is not installed"; exit 77; }
strace -o /dev/null true 2>/dev/null || { echo "skip: strace cannot trace here (ptrace)"; exit 77; }
# LeakSanitizer stops the world with ptrace, which a traced process cannot: leaks are checked by
# the untraced iobench tests
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fail=0
size=$((256 * 1024)) repeat=2 header=4096 # rank file = 4096-byte header + the vector
for ranks in 1 2; do
  for buffer in 8192 65536; do
    name=n$ranks-b$buffer
    mkdir -p "$name"
    if ! env OMP_NUM_THREADS=1 "$mpiexec" -n $ranks strace -ff -y -e trace=write,read,pwrite64,pread64 \
      -o "$work/$name/trace" "$iobench" --dir "$work/files" --backends posix --sizes $size \
      --buffers $buffer --repeat $repeat >"$work/$name.out" 2>&1; then
      echo "FAIL $name: iobench under strace failed"; cat "$work/$name.out"; fail=1; continue
    fi
    python3 - "$work/$name" $ranks $buffer $size $header $repeat <<'EOF' || fail=1
import glob, re, sys
d, ranks, buf, size, header, repeat = sys.argv[1], *map(int, sys.argv[2:])
calls = {"write": {}, "read": {}}  # op -> rank -> sizes of completed calls on rank.<r>.bin
pat = re.compile(r'^(?:\d+\s+)?(p?)(write|read)(?:64)?\(\d+<([^>]*/rank\.(\d+)\.bin)>.*= (\d+)$')
for path in glob.glob(d + "/trace*"):
    for line in open(path, errors="replace"):
        m = pat.match(line.strip())
        if m:
            calls[m[2]].setdefault(int(m[4]), []).append(int(m[5]))
bad = []
file_bytes = header + size
per_file = -(-file_bytes // buf)  # ceil
for op, files in (("write", 1), ("read", 2)):  # each repetition reads its file warm and cold
    for r in range(ranks):
        got = [n for n in calls[op].get(r, []) if n > 0]  # a read at the end of file returns 0
        want = repeat * files * per_file
        if len(got) != want:
            bad.append(f"rank {r}: {len(got)} {op}(2) calls of its file, want {want} (= {repeat * files} x ceil({file_bytes} / {buf}))")
        if sum(got) != repeat * files * file_bytes:
            bad.append(f"rank {r}: {op}(2) moved {sum(got)} bytes, want {repeat * files * file_bytes}")
        whole = sum(1 for n in got if n == buf)
        if whole < want - repeat * files or any(n > buf for n in got):
            bad.append(f"rank {r}: {op}(2) sizes {sorted(set(got))}: not one buffer of {buf} each")
for b in bad:
    print("FAIL", d, b)
if not bad:
    print("ok  ", d, "every write(2)/read(2) of a rank file moves one buffer")
sys.exit(1 if bad else 0)
EOF
  done
done
rm -rf "$work/files"
exit $fail
