"""The table of every solve, printed on stdout by cubecg-analyze --verbose: one line per solve in
the configuration's order, its time per iteration against Alg.1 AR of the same run."""
import math
import sys

from ..common import PROGRESS_ORDER, fmt_lat
from ..readers.reports import KINDS
from ..readers.series import variant_label, variant_order


def print_table(rows, reports, out=sys.stdout):
    head = (f"{'mesh':>11} {'nodes':>5} {'RxT':>6} {'layout':>6} {'progress':>11} {'placement':>9} "
            f"{'lat_us':>6} {'ckpt':>7} "
            f"{'flags':>7} {'variant':>11} {'iters':>5} {'conv':>4} {'time_s':>9} {'ms/iter':>8} "
            f"{'vs A1':>6}")
    print(head, file=out)
    print("-" * len(head), file=out)
    vorder = variant_order(r["variant"] for r in rows)
    order = sorted(rows, key=lambda r: (r["mesh"], r["cores"], r["nodes"], r["threads"], r["latency"],
                                        r["ckpt"], PROGRESS_ORDER.index(r["progress"])
                                        if r["progress"] in PROGRESS_ORDER else 9, r["progress"],
                                        r["placement"], vorder.index(r["variant"]), r["repeat"]))
    for r in order:
        flags = "oversub" if r["oversub"] else ""
        rel = "" if math.isnan(r["rel"]) or r["rel"] <= 0 else f"{r['rel']:.3f}"  # 0: no Alg.1 in the run
        print(f"{r['mesh']:>11} {r['nodes']:>5} {r['rt']:>6} {r['layout']:>6} {r['progress']:>11} "
              f"{r['placement'] or '-':>9} {fmt_lat(r['latency']):>6} {r['ckpt'] or '-':>7} {flags:>7} "
              f"{variant_label(r['variant']):>11} {r['iterations']:>5} "
              f"{'yes' if r['converged'] else 'NO':>4} {r['time']:>9.4f} {1e3 * r['tpi']:>8.3f} "
              f"{rel:>6}", file=out)
    n = {k: sum(1 for _, r in reports if r["kind"] == k) for k in KINDS}
    print(f"({n['run']} run, {n['iobench']} iobench, {n['kernels']} kernels report(s); "
          f"'vs A1' = time per iteration / Alg.1 AR of the same run; 'oversub' = more ranks x "
          f"threads than cores on a host (version 2: the report's topology.oversubscribed))", file=out)
