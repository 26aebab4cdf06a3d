"""cubecg-model: a latency-bandwidth MODEL of one CG iteration and of the published Table 7,
T(Alg.x-AR) / T(Alg.x-IAR) with the asynchronous progress thread on in both runs (x = 3, 4). Also python3 -m cubecg_analysis.model.cli.

  cubecg-model --preset oakforest-pacs --out DIR [--overlap-from REPORT] [--force]
  cubecg-model DIR [--alpha-us 2] [--beta-gbs 12.5] [--node-bw-gbs 490|local]
                       [--cores-per-node 64] [--ranks-per-node 8] [--mesh 512x256x256]
                       [--nodes 128,256,...,4096] [--eta-off 0] [--eta-on H]
                       [--overlap-from REPORT] [--force]

One model for both uses. Per iteration of variant v (Table 1: its AXPY count and its reductions,
docs/algorithms.md: the work each reduction overlaps):

  T_AR(v)  = C(v) + sum_j a                            every reduction j waits its full time a
  T_IAR(v) = C(v) + sum_j (a - min(h^n_j * a, W_j))    W_j = the work overlapped with reduction j
  Table 7  = T_AR(v) / T_IAR(v)                        progress thread on in both runs

n_j = the halo exchanges the main thread makes inside window j (SpMV 1, ASDD with
N iterations N - 1, solvers/precond_asdd.c): each is a call into the MPI library while the
reduction is pending, where the main thread and the progress thread contend for it; the reduction
keeps the fraction h of its hidden part across each. Alg.3: one window M^-1 + SpMV, n = 2; Alg.4:
M^-1 (n = 1), then SpMV (n = 1). h, the fraction of a reduction the progress thread really hides
across one such exchange (as far as its window reaches), is the one parameter no published number
gives. Everything else is an input:

--preset oakforest-pacs: a and C come from the published Table 4 (Alg.1 strong scaling: a =
  Allreduce / 2 reductions, C = CG loop - Allreduce), split into kernels by the bytes of the
  traffic model (docs/benchmarks.md); 262,144 cores lies beyond Table 4: extrapolated (marked).
  h is fitted to Table 7 leave-one-out: each core count is predicted with h fitted on the other
  five. Writes DIR/model_table7.csv and DIR/model.md.
DIR (local reports): C from the kernel benchmark and the local runs (bytes per DOF, efficiency,
  calibration kappa), a = alpha * ceil(log2 P) (+ --extra-latency-us) on the target machine given
  by the options, h = --eta-on (default: the h measured by --overlap-from's probe when it ran
  with the progress thread, else h fitted to the published Table 7 on all six points).
--overlap-from REPORT: h measured by a cubecg run's start-up probe (report key overlap_probe) or
  by cubecg-bench --overlap, reported as measured beside the fitted h, with Table 7's RMS for
  both (model/overlap.py); the output says which h each table uses.
  Writes model_projection.png, model_projection.csv and model.md into DIR (or --figdir).

Local model of the compute (DIR path):
  C      = kappa * sum_k ops_k * bytes_per_dof_k * dof_per_node / (eff_k * node_bw)   (memory)
         + halo_exchanges * (messages * alpha + halo_bytes * ranks_per_node / beta)   (halo)
bytes_per_dof_k and eff_k (= fraction of STREAM, capped at 1: a small benchmark mesh may run from
cache) from the kernel benchmark report; kappa = measured compute time per iteration / modelled,
from the local run at the largest core count; ops_k and reductions per iteration from the run
reports. The injected-latency runs (--inject-reduction-latency) check the overlap model locally.
"""
import argparse
import math
import os
import statistics
import sys

from .. import variants as cv
from ..common import fmt_lat, md_table
from ..figures.output import FigureWriter, new_figure, use_agg
from ..readers import published as pub
from ..readers.reports import ReportError, load_reports
from ..readers.series import solve_rows, variant_label, variant_order
from .local import (fit, iteration_time, kernel_model, local_overlap_check, local_table7,
                          ops_of)
from .preset import (ALG_NAME, PRESETS, PUBLISHED_TABLE4, PUBLISHED_TABLE7, TABLE1, ModelError,
                           preset_model)
from .preset import write_preset_csv
from .overlap import OverlapError, comparison, comparison_lines, load_overlap
from .report import preset_report, run_preset

# Table 4 of the study: share of MPI_Allreduce in Alg.1's CG loop (Oakforest-PACS) [%]
PAPER_TABLE4 = {c: 100 * share for c, (_, _, share) in pub.TABLE4.items()}

TABLE_HEAD = ["nodes", "cores", "Alg.1 AR [us/it]", "Alg.3 AR", "Alg.3 IAR", "Alg.4 AR",
              "Alg.4 IAR", "allreduce share Alg.1", "paper (Table 4)",
              "model Table 7 Alg.3 (AR/IAR, thread on)", "model Table 7 Alg.4",
              "paper Alg.3 (AR/IAR)", "paper Alg.4"]


def paper_gain(cores, solver):
    return PUBLISHED_TABLE7[solver].get(cores)


def table7_of(r, s):
    """T(Alg.x-AR) / T(Alg.x-IAR), progress thread on in both runs (the published Table 7)."""
    return r[(s, "ar", "on")]["total"] / r[(s, "iar", "on")]["total"]


def table_row(r):
    def us(key):
        return f"{1e6 * r[key]['total']:.1f}"
    a1 = r[("pcg", "ar", "on")]
    g3, g4 = table7_of(r, "pipecg"), table7_of(r, "gropp")
    p3, p4 = paper_gain(r["cores"], "pipecg"), paper_gain(r["cores"], "gropp")
    return [r["nodes"], f"{r['cores']:,}", us(("pcg", "ar", "on")), us(("pipecg", "ar", "on")),
            us(("pipecg", "iar", "on")), us(("gropp", "ar", "on")), us(("gropp", "iar", "on")),
            f"{100 * a1['red'] / a1['total']:.0f}%",
            f"{PAPER_TABLE4[r['cores']]:.0f}%" if r["cores"] in PAPER_TABLE4 else "-",
            f"{g3:.2f}", f"{g4:.2f}",
            f"{p3:.2f}" if p3 else "-", f"{p4:.2f}" if p4 else "-"]


def plot(proj, args, kappa, fw):
    fig, axes = new_figure(1, 2)
    ax1, ax2 = axes[0]
    cores = [r["cores"] for r in proj]
    for s, red, setting, style in (("pcg", "ar", "off", "-"), ("cgcg", "ar", "off", "-"),
                                   ("pipecg", "ar", "off", "-"), ("pipecg", "iar", "off", "--"),
                                   ("pipecg", "iar", "on", ":"), ("gropp", "ar", "off", "-"),
                                   ("gropp", "iar", "off", "--"), ("gropp", "iar", "on", ":")):
        ax1.plot(cores, [1e6 * r[(s, red, setting)]["total"] for r in proj], marker="o",
                 linestyle=style, color=cv.color_of(s),
                 label=f"{cv.short_of(s)} {red.upper()}"
                       + (f", progress {setting}" if red == "iar" else ""))
    ax1.set_xscale("log", base=2)
    ax1.set_yscale("log")
    ax1.set_xlabel("cores")
    ax1.set_ylabel("modelled time per iteration [us]")
    ax1.set_title(f"MODEL: time per iteration, mesh {args.mesh}", fontsize=9)
    ax1.grid(True, alpha=0.3)
    ax1.legend(fontsize=7)
    preset = preset_model("oakforest-pacs")
    for s in ("pipecg", "gropp"):
        gain = [table7_of(r, s) for r in proj]
        ax2.plot(cores, gain, marker="o", color=cv.color_of(s),
                 label=f"model {cv.short_of(s)}: AR / IAR, thread on in both")
        pc = sorted(PUBLISHED_TABLE7[s])
        ax2.plot(pc, [PUBLISHED_TABLE7[s][c] for c in pc], marker="s", linestyle="none",
                 markersize=8, markerfacecolor="none", color=cv.color_of(s),
                 label=f"published Table 7 ({cv.short_of(s)} AR / IAR)")
        loo = sorted((r["cores"], r["modelled"]) for r in preset["rows"] if r["solver"] == s)
        ax2.plot([c for c, _ in loo], [m for _, m in loo], marker="x", linestyle="--",
                 color=cv.color_of(s),
                 label=f"model from Table 4, leave-one-out ({cv.short_of(s)})")
    ax2.axvspan(max(PUBLISHED_TABLE4) * 1.41, max(PUBLISHED_TABLE7["gropp"]) * 1.2, color="grey",
                alpha=0.12, label="beyond Table 4: inputs extrapolated")
    ax2.axhline(1.0, color="black", linewidth=0.8)
    ax2.set_xscale("log", base=2)
    ax2.set_xlabel("cores")
    ax2.set_ylabel("T(AR) / T(IAR)")
    ax2.set_title("MODEL Table 7 (AR / IAR, progress on) vs published", fontsize=9)
    ax2.grid(True, alpha=0.3)
    ax2.legend(fontsize=7)
    fig.suptitle(f"Latency-bandwidth MODEL (not a measurement): alpha {args.alpha_us} us, beta "
                 f"{args.beta_gbs} GB/s, {args.ranks_per_node} ranks x "
                 f"{args.cores_per_node // args.ranks_per_node} cores per node, kappa {kappa:.2f}",
                 fontsize=10)
    fig.tight_layout()
    fw.save(fig, "model_projection.png", "MODEL projection beside the paper's Table 7")


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="cubecg-model", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="This is a model: it says where a machine should gain, "
                                        "not what it measures.")
    ap.add_argument("dir", nargs="?", help="folder with local cubecg reports (run + kernels)")
    ap.add_argument("--preset", choices=sorted(PRESETS),
                    help="model the published Table 7 from the published Table 4 of this machine "
                         "(no local reports needed); writes OUT/model_table7.csv and OUT/model.md")
    ap.add_argument("--out", help="output folder of --preset")
    ap.add_argument("--alpha-us", type=float, default=2.0,
                    help="network latency per message / per allreduce stage [us] (default 2)")
    ap.add_argument("--beta-gbs", type=float, default=12.5,
                    help="injection bandwidth per node [GB/s] (default 12.5 = 100 Gb/s)")
    ap.add_argument("--node-bw-gbs", default=f"{pub.MACHINE['stream_bytes_per_s'] / 1e9:g}",
                    help="memory bandwidth (STREAM) per node [GB/s]; default: Oakforest-PACS's "
                         "MCDRAM (published), like the other defaults; 'local' = the local kernels "
                         "report's")
    ap.add_argument("--cores-per-node", type=int, default=pub.MACHINE["cores_per_node"],
                    help="(default: Oakforest-PACS's)")
    ap.add_argument("--ranks-per-node", type=int, default=pub.MACHINE["ranks_per_node"],
                    help="(default: Oakforest-PACS's, hybrid 8 x 8)")
    ap.add_argument("--mesh", default=pub.MACHINE["mesh"],
                    help="global mesh nodes NXxNYxNZ (default: Table 7's)")
    ap.add_argument("--nodes", default="128,256,512,1024,2048,4096", help="(default 128,...,4096)")
    ap.add_argument("--extra-latency-us", type=float, default=0.0,
                    help="constant added to every allreduce (OS noise, software) [us]")
    ap.add_argument("--eta-off", type=float, default=None,
                    help="overlap achieved without a progress thread, 0..1 (default 0, or the "
                         "--overlap-from probe's when it ran without the thread)")
    ap.add_argument("--eta-on", type=float, default=None,
                    help="fraction h of a reduction hidden (up to its overlap window) with the "
                         "progress thread on (default: the --overlap-from probe's when it ran "
                         "with the thread, else h fitted to the published Table 7)")
    ap.add_argument("--overlap-from", metavar="REPORT",
                    help="a cubecg run report (its start-up overlap_probe) or a cubecg-bench "
                         "--overlap report of the machine projected from: h measured there, the "
                         "fitted h beside it, and Table 7's RMS with each")
    ap.add_argument("--figdir", help="write model_projection.png and model.md here instead of DIR")
    ap.add_argument("--force", action="store_true", help="overwrite model_projection.png/model.md")
    return ap.parse_args(argv)


def check_target(args):
    """The target machine's options as numbers; None after one line on stderr when bad."""
    try:
        mesh = tuple(int(x) for x in args.mesh.lower().split("x"))
        nodes_list = [int(x) for x in args.nodes.split(",")]
        assert len(mesh) == 3 and min(mesh) > 0 and min(nodes_list) > 0
        assert args.node_bw_gbs == "local" or float(args.node_bw_gbs) > 0
        assert 0 <= args.eta_off <= 1 and 0 <= args.eta_on <= 1
    except (ValueError, AssertionError):
        print("cubecg-model: --mesh NXxNYxNZ, --nodes n1,n2,... positive, --node-bw-gbs > 0 or "
              "local, --eta-* in [0, 1]", file=sys.stderr)
        return None
    return mesh, nodes_list


def fit_local(args):
    """The local reports' rows, kernel model and calibration; raises ReportError / ModelError."""
    reports = load_reports(args.dir)
    rows = solve_rows(reports)
    if not rows:
        raise ModelError("no run reports to fit on")
    km = kernel_model(reports)
    precond_of, asdd_of = {}, {}
    for p, r in reports:
        if r["kind"] == "run":
            pc = (r.get("preconditioner") or {}).get("name") or r["parameters"].get("precond", "asdd")
            precond_of[p] = pc
            asdd_of[p] = int((r.get("preconditioner") or {}).get("asdd_iters") or 2)
    args.precond_of = lambda row: precond_of.get(row["file"], "asdd")
    kappa, ref, precond_halo = fit(rows, km, args)
    precond = args.precond_of(ref[0])
    # halo exchanges inside M^-1 (n_j of the model): ASDD(N) makes N - 1, measured in the runs
    precond_halos = (max(1, asdd_of.get(ref[0]["file"], 2) - 1) if precond == "asdd" else 1) \
        if precond_halo else 0
    return dict(rows=rows, km=km, kappa=kappa, ref=ref, precond=precond, precond_halo=precond_halo,
                precond_halos=precond_halos)


def model_context(args, fitted, mesh):
    ops = {}
    for s in TABLE1:
        rs = [r for r in fitted["ref"] if r["solver"] == s]
        ops[s] = ops_of(rs[0]) if rs else dict(TABLE1[s])
    km = fitted["km"]
    node_bw = km["stream"] if args.node_bw_gbs == "local" else float(args.node_bw_gbs) * 1e9
    return dict(ops=ops, km=km, precond=fitted["precond"], kappa=fitted["kappa"], mesh=mesh,
                dof=3 * math.prod(mesh), node_bw=node_bw, alpha=args.alpha_us * 1e-6,
                beta=args.beta_gbs * 1e9, rpn=args.ranks_per_node,
                precond_halo=fitted["precond_halo"], precond_halos=fitted["precond_halos"],
                extra_lat=args.extra_latency_us * 1e-6)


def print_fit(args, fitted, ctx):
    km, ref, kappa = fitted["km"], fitted["ref"], fitted["kappa"]
    print("MODEL (latency-bandwidth), not a measurement")
    print(f"  fitted on {args.dir}: kernel bytes/DOF and efficiency from {km['file']} "
          f"(STREAM {km['stream'] / 1e9:.1f} GB/s on {km['cores']} core(s))")
    print("  " + ", ".join(f"{n} {k['bpd']:.0f} B/DOF eff {k['eff']:.2f}"
                           for n, k in sorted(km["kernels"].items())))
    print(f"  kappa = {kappa:.2f} (measured / modelled compute time per iteration, local "
          f"{ref[0]['rt']} run, mesh {ref[0]['mesh']}); preconditioner {fitted['precond']}"
          f"{', with halo' if fitted['precond_halo'] else ''}")
    local_ctx = dict(ctx, node_bw=km["stream"] * min(1.0, ref[0]["cores"] / km["cores"]))
    checks = local_overlap_check(fitted["rows"], local_ctx)
    if checks:
        print("  overlap check on the injected-latency runs, one line per configuration (extra "
              "time per iteration, measured median [min-max over repeats] against the model, us; "
              "AR: every reduction waits, IAR: only what the overlapped work leaves):")
        for line in overlap_check_lines(checks):
            print(f"    {line}")
    print(f"  target: mesh {args.mesh} ({ctx['dof']:,} DOF), {args.cores_per_node} cores and "
          f"{args.ranks_per_node} ranks per node, node bandwidth {ctx['node_bw'] / 1e9:.1f} GB/s, "
          f"alpha {args.alpha_us} us, beta {args.beta_gbs} GB/s, eta off/on "
          f"{args.eta_off}/{args.eta_on:.3f}")


def overlap_check_verdict(measured, predicted):
    """Whether the model's extra time lies within the repeats' range of the measured one."""
    if len(measured) < 2:
        return "single run"
    if min(measured) <= predicted <= max(measured):
        return "model within the repeats' range"
    med = statistics.median(measured)
    how = "more" if predicted < min(measured) else "less"
    return f"measured {how} than the model ({med / predicted:.2f}x)" if predicted > 0 else \
        f"measured {how} than the model"


def overlap_check_lines(checks):
    """One line per configuration (layout, progress, latency, variant) with its verdict."""
    order = variant_order([x["row"]["variant"] for x in checks])
    groups = {}
    for c in checks:
        r = c["row"]
        groups.setdefault((r["latency"], r["rt"], r["progress"], order.index(r["variant"])),
                          []).append(c)
    lines = []
    for (lat, rt, progress, vi), cs in sorted(groups.items()):
        m = [c["measured"] for c in cs]
        pred = statistics.median(c["predicted"] for c in cs)
        rng = f" [{1e6 * min(m):.0f}-{1e6 * max(m):.0f}]" if len(m) > 1 else ""
        lines.append(f"{rt} progress {progress}, lat {fmt_lat(lat)} us, {variant_label(order[vi])}: "
                     f"measured {1e6 * statistics.median(m):.0f}{rng}, model {1e6 * pred:.0f}: "
                     f"{overlap_check_verdict(m, pred)}")
    return lines


def project(args, ctx, nodes_list):
    variants = [("pcg", "ar"), ("cgcg", "ar"), ("cgcg", "iar"), ("pipecg", "ar"), ("pipecg", "iar"),
                ("gropp", "ar"), ("gropp", "iar")]
    proj = []
    for n in nodes_list:
        p = n * args.ranks_per_node
        row = dict(nodes=n, cores=n * args.cores_per_node, ranks=p)
        for s, red in variants:
            for setting, eta in (("off", args.eta_off), ("on", args.eta_on)):
                row[(s, red, setting)] = iteration_time(s, red, eta, ctx, p, n)
        proj.append(row)
    return proj


def local_md(args, fitted, ctx, proj, lt7):
    km, ref, kappa = fitted["km"], fitted["ref"], fitted["kappa"]
    lines = ["# Model vs measurement (a MODEL, not a measurement)\n",
             "Generated by `cubecg-model`. Latency-bandwidth model of one CG iteration fitted on "
             f"the local runs in `{args.dir}` (kernel report {os.path.basename(km['file'])}, "
             f"calibration run {ref[0]['rt']} on mesh {ref[0]['mesh']}) and projected with the "
             "network parameters below; the modelled Table 7 is T(Alg.x-AR) / T(Alg.x-IAR), "
             "progress thread on in both runs (hidden fraction h = eta on), beside the published "
             "Table 7 (same ratio).\n",
             f"\nParameters: mesh {args.mesh}, {args.cores_per_node} cores / "
             f"{args.ranks_per_node} ranks per node, node memory bandwidth "
             f"{ctx['node_bw'] / 1e9:.1f} GB/s, alpha {args.alpha_us} us, beta {args.beta_gbs} GB/s, "
             f"extra allreduce latency {args.extra_latency_us} us, overlap eta off "
             f"{args.eta_off} / on {args.eta_on:.3f}, compute calibration kappa {kappa:.2f}.\n\n",
             "".join(f"- {line}\n" for line in args.overlap_lines) + "\n",
             md_table(TABLE_HEAD, [table_row(r) for r in proj]),
             "\nThe paper's Table 4 (Alg.1 strong scaling on Oakforest-PACS) gives the measured share "
             "of MPI_Allreduce in the CG loop; where the modelled share is far below it, the real "
             "allreduce at scale costs more than alpha * log2(P) (OS noise, contention, load "
             "imbalance surfacing in the reduction): raise --alpha-us or --extra-latency-us to "
             "explore that regime. Table 7 columns: time per iteration of Alg.x-AR / Alg.x-IAR, both "
             "with the progress thread on (the published Table 7's ratio; the thread changes "
             "only the IAR run in this model).\n\n"]
    lines.append("## Table 7 on the local runs (the same model, your runs as Table 4)\n\n"
                 "The local Alg.1-AR runs with the progress thread on give a and C as Table 4 "
                 "does (reduction wait and time per iteration), the local kernel benchmark the "
                 f"kernel split; h = {args.eta_on:.3f}. Beside it, the measured ratio of the same "
                 "runs (median solve times, progress thread on in both).\n\n"
                 + (md_table(LT7_HEAD, lt7_body(lt7)) if lt7 else
                    "(no local Alg.1-AR run with the progress thread on and 2+ ranks)\n") + "\n")
    lines.append(preset_report(preset_model("oakforest-pacs"))[1]
                 .replace("# Model of Table 7", "## Model of Table 7"))
    return "".join(lines)


LT7_HEAD = ["mesh", "ranks x threads", "solver", "Alg.1-AR reduction share",
            "modelled T(AR) / T(IAR)", "measured T(AR) / T(IAR)"]


def lt7_body(lt7):
    return [[t["mesh"], t["rt"], ALG_NAME[t["solver"]], f"{100 * t['share']:.1f}%",
             f"{t['modelled']:.3f}", f"{t['measured']:.3f}"] for t in lt7]


def write_projection_csv(fw, proj):
    path = fw.target("model_projection.csv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("nodes,cores,solver,t_ar_us,t_iar_on_us,t_iar_off_us,modelled,published\n")
        for r in proj:
            for s in ("pipecg", "gropp"):
                published = paper_gain(r["cores"], s)
                f.write(f"{r['nodes']},{r['cores']},{s},{1e6 * r[(s, 'ar', 'on')]['total']:.3f},"
                        f"{1e6 * r[(s, 'iar', 'on')]['total']:.3f},"
                        f"{1e6 * r[(s, 'iar', 'off')]['total']:.3f},{table7_of(r, s):.6f},"
                        f"{published if published else ''}\n")
    print(f"  wrote {path}: data of model_projection.png")


def run_local(args):
    target = check_target(args)
    if target is None:
        return 2
    mesh, nodes_list = target
    try:
        fitted = fit_local(args)
    except (ReportError, ModelError) as e:
        print(f"cubecg-model: {e}", file=sys.stderr)
        return 2
    ctx = model_context(args, fitted, mesh)
    print_fit(args, fitted, ctx)
    for line in args.overlap_lines:
        print("  " + line)
    proj = project(args, ctx, nodes_list)
    lt7 = local_table7(fitted["rows"], fitted["km"], fitted["precond"], args.eta_on,
                       precond_halos=fitted["precond_halos"])
    if not use_agg():
        return 3
    outdir = args.figdir or args.dir
    os.makedirs(outdir, exist_ok=True)
    fw = FigureWriter(outdir, args.force)
    plot(proj, args, fitted["kappa"], fw)
    fw.text("model.md", local_md(args, fitted, ctx, proj, lt7), "model projection table (Markdown)")
    write_projection_csv(fw, proj)
    path = fw.target("model_table7.csv")
    write_preset_csv(path, preset_model("oakforest-pacs"))
    print(f"  wrote {path}: the Table 7 model from Table 4 (leave-one-out), as --preset")
    print("  " + " | ".join(TABLE_HEAD))
    for r in proj:
        print("  " + " | ".join(str(c) for c in table_row(r)))
    if lt7:
        print(f"  Table 7 on the local runs (their Alg.1-AR as Table 4, h = {args.eta_on:.3f}): "
              + " | ".join(LT7_HEAD))
        for b in lt7_body(lt7):
            print("    " + " | ".join(b))
    return 0


def overlap_sources(args):
    """Which h each output uses (measured, given, fitted), set into args; lines to print."""
    m = args.overlap
    fitted = preset_model("oakforest-pacs")
    args.eta_on_source = "given (--eta-on)" if args.eta_on is not None else "fitted to Table 7"
    args.eta_off_source = "given (--eta-off)" if args.eta_off is not None else "default 0"
    if m and m["thread"] and args.eta_on is None:
        args.eta_on, args.eta_on_source = m["h"], "measured (--overlap-from)"
    if m and not m["thread"] and args.eta_off is None:
        args.eta_off, args.eta_off_source = m["h"], "measured (--overlap-from)"
    if args.eta_on is None:
        args.eta_on = fitted["h_all"]
    if args.eta_off is None:
        args.eta_off = 0.0
    lines = []
    if m:
        lines = comparison_lines(comparison(fitted, m), m)
    lines.append(f"h used: projection and local Table 7 with the thread on: {args.eta_on:.3f} "
                 f"({args.eta_on_source}); without it: {args.eta_off:.3f} ({args.eta_off_source});"
                 " model_table7.csv (the published machine): the fitted h, leave-one-out")
    return lines


def main(argv=None):
    args = parse_args(argv)
    args.overlap = None
    if args.overlap_from:
        try:
            args.overlap = load_overlap(args.overlap_from)
        except OverlapError as e:
            print(f"cubecg-model: {e}", file=sys.stderr)
            return 2
    if args.preset:
        if not args.out or args.dir:
            print("cubecg-model: --preset NAME needs --out DIR and no report folder", file=sys.stderr)
            return 2
        return run_preset(args)
    if not args.dir:
        print("cubecg-model: give a folder of local reports, or --preset NAME --out DIR",
              file=sys.stderr)
        return 2
    args.overlap_lines = overlap_sources(args)
    return run_local(args)


if __name__ == "__main__":
    sys.exit(main())
