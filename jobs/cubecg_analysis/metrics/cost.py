"""The checkpoint and I/O metrics from the tidy rows (readers.series.solve_rows) and the iobench
reports: the checkpoint overhead with its noise verdict (the run-to-run spread of both sides) and
the I/O benchmark rows per op and timing."""
import math

from ..common import BACKEND_COLOR, num
from ..readers.series import Stat, config_fields, config_key, index_stats


def checkpoint_overheads(rows):
    """Per checkpointed configuration and variant: overhead = median T(checkpoint) / median
    T(same settings without checkpoint) - 1, its min-max range, and the run-to-run spread of both
    (max - min over median). An overhead not larger than that spread is "within noise"; with a
    single run on either side the spread is unknown and the overhead is marked so."""
    stats = index_stats(rows)
    out, seen = [], set()
    for r in sorted(rows, key=lambda r: (r["file"])):
        if not r["ckpt"]:
            continue
        k = config_key(r) + (r["variant"],)
        if k in seen:
            continue
        seen.add(k)
        mine = [x for x in rows if config_key(x) + (x["variant"],) == k]
        st = stats[k]
        base = stats.get(config_key(r, ckpt="") + (r["variant"],))
        infos = [x["ckpt_info"] for x in mine if x["ckpt_info"]]
        stall = Stat([num(i.get("stall_s")) / x["time"] for x, i in
                      ((x, x["ckpt_info"]) for x in mine if x["ckpt_info"]) if x["time"]])
        bw = Stat([i["bytes"] / num(i.get("write_s")) for i in infos
                   if num(i.get("write_s")) > 0])
        d = dict(row=r, time=st, base=base, count=infos[0]["count"] if infos else 0,
                 bytes=infos[0]["bytes"] if infos else 0, stall_share=stall.med, bw=bw.med,
                 overhead=math.nan, overhead_min=math.nan, overhead_max=math.nan, noise=math.nan,
                 verdict="no run without checkpoint")
        if base is not None and base.med:
            d["overhead"] = st.med / base.med - 1
            d["overhead_min"] = st.lo / base.med - 1
            d["overhead_max"] = st.hi / base.med - 1
            d["noise"] = max(base.spread(), st.spread()) if base.n >= 2 and st.n >= 2 else math.nan
            if math.isnan(d["noise"]):
                d["verdict"] = "single run: spread unknown"
            elif abs(d["overhead"]) <= d["noise"]:
                d["verdict"] = "within noise"
            else:
                d["verdict"] = "measured"
        out.append(d)
    return out


def checkpoint_data(ck):
    return [dict(config_fields(d["row"]), solver=d["row"]["series"], reduction=d["row"]["reduction"],
                 backend=d["row"]["ckpt"], checkpoints=d["count"], bytes=d["bytes"],
                 time_s=d["time"].med, time_min_s=d["time"].lo, time_max_s=d["time"].hi,
                 repeats=d["time"].n, without_s=d["base"].med if d["base"] else math.nan,
                 repeats_without=d["base"].n if d["base"] else 0, overhead=d["overhead"],
                 overhead_min=d["overhead_min"], overhead_max=d["overhead_max"],
                 run_to_run_spread=d["noise"], verdict=d["verdict"], stall_share=d["stall_share"],
                 write_bytes_per_s=d["bw"]) for d in ck]


IO_MODES = ("write/barrier", "write/ior", "read/barrier", "read/ior",
            # the per-rank timings of the I/O study (figures/io_study.py draws them in full)
            "write/returned", "write/completed", "read/read-cold", "read/read-warm")


IO_MODE_LABEL = {"write/barrier": "write+flush", "write/ior": "write+fsync (IOR)",
                 "read/barrier": "read", "read/ior": "read (IOR)",
                 "write/returned": "write returned (seeds)", "write/completed": "write completed (fsync)",
                 "read/read-cold": "read, cold", "read/read-warm": "read, warm"}


def io_rows(reports):
    """iobench results; mode = op/timing. Reads are timed the same way under both timings, so
    read/ior is dropped where read/barrier exists for the same point."""
    rows = []
    for path, r in reports:
        if r["kind"] != "iobench":
            continue
        for x in r["results"]:
            agg = x["aggregate_bytes_per_s"]
            timing = x.get("timing") or "barrier"
            rows.append(dict(file=path, backend=x["backend"], op=x["op"], size=x["size_bytes"],
                             ranks=x["ranks"], buffer=x["buffer_bytes"], med=num(agg["median"]),
                             lo=num(agg.get("min")), hi=num(agg.get("max")),
                             durable=x.get("durable"), timing=timing, mode=f"{x['op']}/{timing}",
                             cache_dropped=r.get("page_cache_dropped")))
    have = {(r["file"], r["backend"], r["size"], r["ranks"], r["buffer"]) for r in rows
            if r["mode"] == "read/barrier"}
    return [r for r in rows if not (r["mode"] == "read/ior" and
                                    (r["file"], r["backend"], r["size"], r["ranks"], r["buffer"]) in have)]


def backend_order(names):
    known = list(BACKEND_COLOR)
    return sorted(set(names), key=lambda b: (known.index(b) if b in known else 9, b))
