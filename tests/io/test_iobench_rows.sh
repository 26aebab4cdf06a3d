#!/bin/bash
# test_iobench_rows.sh MPIEXEC IOBENCH WORKDIR: cubecg-iobench at 2 ranks
# reports, for every backend, the rows returned (offload: handover), completed, ior, read-warm and
# read-cold, each with mean/median/min/max; completed never takes less time than returned; a read
# is labelled cold only when the page cache was dropped (CUBECG_IOBENCH_KEEP_CACHE=1 keeps it: the
# row must then say read-not-dropped); --fio adds fio_bytes_per_s and fio_ratio to the write rows
# of posix and uring, and says so when fio is missing.
set -u
mpiexec=$(command -v "$1") iobench=$(realpath "$2") work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
fail=0
backends=$("$iobench" --list-backends | tr , '\n' | grep -v hdf5 | paste -sd, -) # hdf5: slow here
check() # check REPORT KEEP FIO
{
  python3 - "$@" <<'EOF'
import json, sys
path, keep, fio = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
r = json.load(open(path))
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
rows = {}
for x in r["results"]:
    rows.setdefault((x["backend"], x["size_bytes"], x["buffer_bytes"]), {})[x["timing"]] = x
    for obj in ("aggregate_bytes_per_s", "per_rank_bytes_per_s", "seconds"):
        need(set(x[obj]) >= {"mean", "median", "min", "max"}, f"{obj} of {x['backend']} {x['timing']}")
        need(x[obj]["min"] <= x[obj]["mean"] <= x[obj]["max"], f"{obj} mean outside min..max")
need(r["repeat"] == 3, "repeat echoed")
for (b, size, buf), t in rows.items():
    off = b.startswith("offload")
    first = "handover" if off else "returned"
    # cold only when verified: at most 1% of the file cached (O_DIRECT files never are)
    cold = next((k for k in ("read-cold", "read-not-dropped") if k in t), "read-cold")
    want = {first, "completed", "ior", "read-warm", cold}
    if b in ("posix", "fortran"):  # buffered: kept in the cache unless dropped
        need(cold == ("read-not-dropped" if keep else "read-cold"), f"{b}: {cold} with keep={keep}")
    need(set(t) == want, f"{b} {size} {buf}: rows {sorted(t)} != {sorted(want)}")
    if set(t) != want:
        continue
    # every sample of completed ends after returned began the same interval: mean and min agree
    need(t["completed"]["seconds"]["mean"] >= t[first]["seconds"]["mean"],
         f"{b}: completed mean {t['completed']['seconds']['mean']} < {first} mean")
    need(t["completed"]["seconds"]["min"] >= t[first]["seconds"]["min"], f"{b}: completed min < {first} min")
    need(t["completed"]["durable"] and not t[first]["durable"], f"{b}: durable flags")
    c = t[cold]
    if cold == "read-not-dropped":
        need("not dropped" in c["page_cache"], f"{b}: read-not-dropped row does not say why")
        need(c["cached_fraction_before_read"] > 0.01, f"{b}: not dropped yet {c['cached_fraction_before_read']}")
    else:
        need(c["cached_fraction_before_read"] <= 0.01, f"{b}: cold read with {c['cached_fraction_before_read']} cached")
    if b in ("posix", "fortran") and not keep:  # buffered writes: a warm read finds the pages
        need(t["read-warm"]["cached_fraction_before_read"] > 0.5, f"{b}: warm read found no cached pages")
    for k in (first, "completed", "ior"):
        has = "fio_bytes_per_s" in t[k] and "fio_ratio" in t[k]
        if fio == "yes" and b in ("posix", "uring"):
            need(has and t[k]["fio_bytes_per_s"] > 0 and
                 abs(t[k]["fio_ratio"] - t[k]["aggregate_bytes_per_s"]["mean"] / t[k]["fio_bytes_per_s"]) < 1e-6 * t[k]["fio_ratio"],
                 f"{b} {k}: fio_bytes_per_s / fio_ratio")
            need(t[k].get("fio_ratio_median", 0) > 0, f"{b} {k}: fio_ratio_median (paired)")
        else:
            need(not has, f"{b} {k}: fio fields without a fio run")
need(r["page_cache_dropped"] == all("read-cold" in t for t in rows.values()), "page_cache_dropped")
if fio == "missing":
    need(r["fio"].startswith("missing"), f"fio state {r['fio']!r}")
for b in bad:
    print("FAIL", path, b)
print("ok  ", path, len(rows), "configurations") if not bad else None
sys.exit(1 if bad else 0)
EOF
}
run() # run NAME ENV... -- ARGS...
{
  local name=$1 envs=()
  shift
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  if env OMP_NUM_THREADS=1 "${envs[@]}" "$mpiexec" -n 2 "$iobench" --dir "$work/files" --repeat 3 \
    --report "$work/$name.json" "$@" >"$work/$name.out" 2>&1; then
    echo "ok   $name ran"
  else
    echo "FAIL $name exit $?"; cat "$work/$name.out"; fail=1
  fi
}
run rows -- --sizes 64k,256k --buffers 8k,512k --backends "$backends"
check rows.json 0 no || fail=1
# the table names the rows
for t in returned handover completed ior read-warm read-cold; do
  grep -Eq " $t +[0-9]" rows.out || { echo "FAIL the table has no '$t' row"; fail=1; }
done
run keep CUBECG_IOBENCH_KEEP_CACHE=1 -- --sizes 64k --buffers 512k --backends posix,uring,offload
check keep.json 1 no || fail=1
if command -v fio >/dev/null; then
  run fio -- --sizes 256k --buffers 64k --backends posix,uring,offload --fio
  check fio.json 0 yes || fail=1
  # the table gives fio's own rate (GB/s, the report's fio_bytes_per_s), not only the ratio
  python3 - fio.json fio.out <<'EOF' || fail=1
import json, sys
rows = [x for x in json.load(open(sys.argv[1]))["results"] if x.get("fio_bytes_per_s")]
lines = open(sys.argv[2]).read().splitlines()
col = next(l.split() for l in lines if l.startswith("backend ")).index("fio-GB/s")
seen = 0
for w in (l.split() for l in lines):
    if len(w) > col and w[1] == "write" and w[col] not in ("-", "fio-GB/s"):
        want = [x["fio_bytes_per_s"] / 1e9 for x in rows if x["backend"] == w[0] and x["timing"] == w[4]]
        if not want or min(abs(float(w[col]) - v) for v in want) > 5e-4 + 1e-3 * max(want):
            sys.exit(print(f"FAIL table fio-GB/s {w[col]} of {w[0]} {w[4]}: report {want}") or 1)
        seen += 1
if not seen:
    sys.exit(print("FAIL no write row with fio-GB/s in the table") or 1)
print(f"ok   the table's fio-GB/s column equals the report's fio_bytes_per_s ({seen} rows)")
EOF
else
  echo "skip the fio twin: fio not installed"
fi
# without fio in PATH: said on stdout and in the report, no fio fields
mkdir -p "$work/nofio-bin" # a PATH with the tools the benchmark calls, fio left out
for tool in sh rm mkdir; do ln -sf "$(command -v $tool)" "$work/nofio-bin/$tool"; done
run nofio PATH="$work/nofio-bin" -- --sizes 64k --buffers 64k --backends posix --fio
grep -q "fio is not installed" nofio.out || { echo "FAIL --fio without fio says nothing"; fail=1; }
check nofio.json 0 missing || fail=1
# bad input: exit 2, one line naming the value
for bad in "--mapping diagonal" "--dirs a,b --backends hdf5"; do
  # shellcheck disable=SC2086
  env OMP_NUM_THREADS=1 "$mpiexec" -n 1 "$iobench" --dir "$work/files" $bad >bad.out 2>&1
  rc=$?
  if [[ $rc == 2 ]] && grep -Eq "diagonal|hdf5" bad.out; then echo "ok   '$bad' refused"; else
    echo "FAIL '$bad': exit $rc"; cat bad.out; fail=1; fi
done
rm -rf "$work/files"
exit $fail
