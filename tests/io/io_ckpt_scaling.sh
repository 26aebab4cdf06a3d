#!/bin/bash
# io_ckpt_scaling.sh MPIEXEC CUBECG PYTHON NP BACKEND DIR: a checkpoint's file-system work per
# process does not grow with the rank count. The same problem per rank (4 x 4 x 4 nodes) runs at a
# baseline rank count (1 for NP = 2, else 2) and at NP, each writing checkpoints (every 2
# iterations, --checkpoint-keep 1: retention at every commit) and then restarting from them, under
# strace -f -y (one trace per rank, its threads included). Per rank and per checkpoint it counts the
# unlinks (unlink, unlinkat, rmdir) and opens (open, openat) of paths in the checkpoint directory,
# and over the restart the bytes read from checkpoint data (files in ckpt.<n>/ other than the
# manifest). The largest of each over NP's ranks must stay within the baseline's largest plus a
# constant (counts + 2 per checkpoint, bytes x 1.25 + 8 KiB): a rank doing every rank's removals,
# opens or reads fails at NP = 8 and 16. Counts and bytes, never times. Exit 77 (skipped, said
# loudly) when strace is missing or ptrace is not allowed.
set -u
mpiexec=$1 cubecg=$2 python=$3 np=$4 backend=$5 base=$6
export OMP_NUM_THREADS=1
fail() { echo "io_ckpt_scaling.sh np$np $backend: FAIL: $*"; exit 1; }
skip() { echo "io_ckpt_scaling.sh np$np $backend: SKIPPED: $*"; exit 77; }
command -v strace >/dev/null 2>&1 || skip "strace is not installed (setup.sh installs it)"
strace -f -qq -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not allowed)"
rm -rf "$base" && mkdir -p "$base" || exit 1
every=2 maxit=8
# run P PHASE ARGS...: cubecg at P ranks under strace, one trace per rank in base/P/PHASE/
run() {
  local p=$1 phase=$2
  shift 2
  local traces=$base/$p/$phase
  mkdir -p "$traces"
  # the same nodes per rank at every P: 4 x 4 x 4P, split along z; a tolerance no run reaches: every run stops at maxit
  "$mpiexec" -n "$p" env TRACE_DIR="$traces" bash -c \
    'exec strace -f -y -qq -e trace=open,openat,unlink,unlinkat,rmdir,read,pread64 \
       -o "$TRACE_DIR/trace.${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}" "$@"' strace-rank \
    "$cubecg" --nx 4 --ny 4 --nz $((4 * p)) --partition box --px 1 --py 1 --pz "$p" --tol 1e-300 --quiet \
    --checkpoint "$backend" --checkpoint-dir "$base/$p/ck" --checkpoint-every $every \
    --checkpoint-keep 1 "$@" >"$traces.out" 2>&1
  local code=$?
  [ "$code" -eq 3 ] || { cat "$traces.out"; fail "$p ranks, $phase: exit $code, expected 3 (maxit)"; }
  [ "$(ls "$traces" | wc -l)" -eq "$p" ] || fail "$p ranks, $phase: expected $p traces in $traces"
}
baseline=2
[ "$np" -le 2 ] && baseline=1
for p in $baseline $np; do
  run "$p" write --maxit $maxit
  run "$p" restart --maxit $((2 * maxit)) --restart "$base/$p/ck"
done
"$python" - "$base" "$baseline" "$np" "$every" "$maxit" <<'PY'
import os, re, sys
base, baseline, np, every, maxit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
call = re.compile(r'^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)')
def rank_counts(p, phase):
    """per rank: unlinks and opens in the checkpoint directory, bytes of checkpoint data read"""
    ck = os.path.join(base, str(p), "ck") + "/"
    out = []
    for r in range(p):
        unlinks = opens = data = 0
        for line in open(os.path.join(base, str(p), phase, "trace.%d" % r), errors="replace"):
            m = call.match(line)
            if not m: continue
            name, args, ret = m.group(1), m.group(2), int(m.group(3))
            if ret < 0 or ck not in args: continue
            if name in ("unlink", "unlinkat", "rmdir"): unlinks += 1
            elif name in ("open", "openat"): opens += 1
            elif name in ("read", "pread64"):
                path = re.match(r'\d+<([^>]*)>', args)
                if path and "/ckpt." in path.group(1) and not path.group(1).endswith("manifest.json"):
                    data += ret
        out.append((unlinks, opens, data))
    return out
ok = True
checkpoints = {"write": maxit // every, "restart": maxit // every}
for phase in ("write", "restart"):
    b, n = rank_counts(baseline, phase), rank_counts(np, phase)
    for k, what in enumerate(("unlinks", "opens")):
        bmax = max(c[k] for c in b) / checkpoints[phase]
        nmax = max(c[k] for c in n) / checkpoints[phase]
        worst = max(range(np), key=lambda r: n[r][k])
        print("%s: %s per checkpoint, largest over ranks: %.2f at %d ranks, %.2f at %d ranks (rank %d)"
              % (phase, what, bmax, baseline, nmax, np, worst))
        if nmax > bmax + 2: ok = False; print("  FAIL: grows with the rank count")
    if phase == "restart":
        bmax, nmax = max(c[2] for c in b), max(c[2] for c in n)
        worst = max(range(np), key=lambda r: n[r][2])
        print("restart: checkpoint data bytes read, largest over ranks: %d at %d ranks, %d at %d ranks (rank %d)"
              % (bmax, baseline, nmax, np, worst))
        if nmax > 1.25 * bmax + 8192: ok = False; print("  FAIL: grows with the rank count")
        if bmax == 0: ok = False; print("  FAIL: no checkpoint data read at all (the trace saw nothing)")
sys.exit(0 if ok else 1)
PY
code=$?
[ $code -eq 0 ] || fail "a process's checkpoint file work grows with the rank count"
echo "io_ckpt_scaling.sh np$np $backend: PASS"
