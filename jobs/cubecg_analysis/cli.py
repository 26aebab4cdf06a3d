"""cubecg-analyze: tables and figures from cubecg JSON reports (docs/report-schema.md, versions 1, 2).

Reproduces the figures of Nakajima's pipelined-CG / asynchronous-progress study (Figs. 12-18,
Table 7) and of the checkpoint I/O study for the reports under one folder:

  cubecg-analyze DIR [--force] [--figdir OUT] [--no-figures] [--verbose] [--timeline TRACEDIR]
  python3 -m cubecg_analysis.cli DIR ...   (from jobs/, or with PYTHONPATH=jobs)

Reads every *.json under DIR (recursively), refuses malformed or unknown-version reports (exit 2,
naming the file; version 1 is read and what it lacks is said), prints the study's answer first (a
short headline, each line with its noise verdict: what the progress thread bought per variant and
layout, AR/IAR per variant, the measured overlap, the checkpoint share; tables/headline.py), with
--verbose then a table of every solve, and writes into DIR (or OUT), every figure with the data it
draws as a CSV of the same stem:
  fig1_speedup.png       speed-up vs cores (Figs. 12/18): every variant against one baseline,
                         Alg.1-AR at the smallest core count n0: n0 x T(pcg/ar, n0) / T(v, n)
  fig2_ar_vs_iar.png     Table 7: median T(AR) / median T(IAR) of each series, published Table 7 beside
  fig3_progress.png      time of each variant relative to Alg.1-AR by progress (off, on, poll)
  fig4_breakdown.png     time breakdown (SpMV, precond, halo, reduction, AXPY, dot, other)
  fig5_io_bandwidth.png  I/O bandwidth vs file size per backend and rank count (iobench reports)
  io1_size.png ... io5_mapping.png  the I/O study's figures (figures/io_study.py)
  fig6_checkpoint.png    checkpoint overhead per backend, median with min-max, "within noise"
  fig7_placement.png     Table 6 / Fig. 17: one bar per progress-thread placement, never merged
  fig8_progress_gain.png what the progress thread buys: T(off) / T(on) per variant and layout
  timeline.png           with --timeline TRACEDIR: a few iterations per rank of a cubecg --trace
                         archive (figures/timeline.py; also the console script cubecg-timeline)
  study.csv              one row per solve of every run report (long format, for pandas)
  speedup.csv, relative.csv, table7.csv, table4.csv, table6.csv   the metrics behind the figures
  tables.md              the tables; published values at their own core counts, labelled published
  gas_fig*.png, gas_summary.md   the global store's figures (figures/store.py), for gasbench reports
Repeated reports of one configuration (jobs/run-local.sh --repeat N, CUBECG_REPEAT) are drawn as
the median with min-max bars. A configuration is mesh, nodes, ranks, threads, progress setting,
progress-thread placement, injected latency, checkpoint backend, MPI implementation and the
preconditioner's precision: runs that differ in any of these are never merged. A comparison whose
repeats' ranges overlap says "within noise"; a point measured once says "single run".
An existing file is never overwritten silently: without --force the new one gets a free name
(fig1_speedup-2.png, ...) and the output says so. Python 3 + matplotlib (Agg) only.
"""

import os
import sys

from .figures import io_study, store
from .figures.cost import fig_breakdown, fig_checkpoint, fig_io
from .figures.output import report_args, report_writer, skip
from .figures.scaling import fig_ar_iar, fig_placement, fig_progress, fig_progress_gain, fig_speedup
from .figures.timeline import timeline
from .metrics.scaling import (relative_data, speedup_data, study_data, table4_data, table6_data,
                              table7_data)
from .readers.reports import load_or_complain, version_notes
from .readers.series import solve_rows
from .tables.console import print_table
from .tables.headline import print_headline
from .tables.markdown import tables_md


def write_figures(rows, reports, fw):
    """Every figure the reports allow; the ones they do not are skipped with the reason."""
    for fn, n in ((fig_speedup, 1), (fig_ar_iar, 2), (fig_progress, 3), (fig_breakdown, 4)):
        if rows:
            fn(rows, fw)
        else:
            skip(n, "no run reports")
    fig_io(reports, fw)
    io_study.figures(reports, fw)
    gas = [(p, r) for p, r in reports if r["kind"] == "gasbench"]
    if gas:
        store.make_figures(gas, fw)
    fig_checkpoint(rows, fw)
    if rows:
        fig_placement(rows, fw)
        fig_progress_gain(rows, fw)
    else:
        skip(7, "no run reports")
        skip(8, "no run reports")


def write_tables(rows, reports, fw):
    if rows:
        fw.csv("study.csv", study_data(rows), "one row per solve (long format)")
        fw.csv("speedup.csv", speedup_data(rows), "speed-up against Alg.1 AR at n0 (Figs. 12/18)")
        fw.csv("relative.csv", relative_data(rows), "performance relative to Alg.1 AR (Figs. 13/16)")
        fw.csv("table7.csv", table7_data(rows), "T(AR) / T(IAR) of the same solver (Table 7)")
        fw.csv("table4.csv", table4_data(rows), "reduction share of the solve (Table 4)")
        fw.csv("table6.csv", table6_data(rows), "progress-thread placements (Table 6)")
    fw.text("tables.md", tables_md(rows, reports), "the tables, published values at their core counts "
            "(Markdown)")


def main(argv=None):
    ap = report_args("cubecg-analyze", __doc__, "cubecg", "figures, CSVs and tables.md")
    ap.add_argument("--no-figures", action="store_true", help="print the headline (and table) only")
    ap.add_argument("--verbose", action="store_true", help="also list every solve of every run")
    ap.add_argument("--timeline", metavar="TRACEDIR",
                    help="also draw timeline.png from TRACEDIR/traces.otf2 (cubecg --trace)")
    args = ap.parse_args(argv)
    reports = load_or_complain("cubecg-analyze", args.dir)
    if reports is None:
        return 2
    rows = solve_rows(reports)
    if rows:
        print_headline(rows, reports, sys.stdout)
    for line in version_notes(reports):  # after the answer: what older reports lack
        print(line)
    if rows:
        if args.verbose:
            print()
            print_table(rows, reports, sys.stdout)
    else:
        print("cubecg-analyze: no run reports (only benchmark reports); no headline, no solve table")
    if args.no_figures:
        return 0
    fw = report_writer(args, "\nfigures")
    if fw is None:
        return 3
    write_figures(rows, reports, fw)
    write_tables(rows, reports, fw)
    if args.timeline:
        try:
            print(f"  timeline: {timeline(args.timeline, os.path.join(fw.outdir, 'timeline.png'), force=args.force)}")
        except (OSError, RuntimeError) as e:
            print(f"cubecg-analyze: --timeline {args.timeline}: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
