#!/usr/bin/env python3
"""model.py: a latency-bandwidth MODEL of one CG iteration and of the published Table 7,
T(Alg.x-AR) / T(Alg.x-IAR) with the asynchronous progress thread on in both runs (x = 3, 4).

  python3 jobs/model.py --preset oakforest-pacs --out DIR [--force]
  python3 jobs/model.py DIR [--alpha-us 2] [--beta-gbs 12.5] [--node-bw-gbs 490|local]
                            [--cores-per-node 64] [--ranks-per-node 8] [--mesh 512x256x256]
                            [--nodes 128,256,...,4096] [--eta-off 0] [--eta-on H] [--force]

One model for both uses. Per iteration of variant v (Table 1: its AXPY count and its reductions,
algorithms.md: the work each reduction overlaps):

  T_AR(v)  = C(v) + sum_j a                            every reduction j waits its full time a
  T_IAR(v) = C(v) + sum_j (a - min(h^n_j * a, W_j))    W_j = the work overlapped with reduction j
  Table 7  = T_AR(v) / T_IAR(v)                        progress thread on in both runs

n_j = the halo exchanges the main thread makes inside window j (algorithms.md: SpMV 1, ASDD with
N iterations N - 1, solvers/precond_asdd.c): each is a call into the MPI library while the
reduction is pending, where the main thread and the progress thread contend for it; the reduction
keeps the fraction h of its hidden part across each. Alg.3: one window M^-1 + SpMV, n = 2; Alg.4:
M^-1 (n = 1), then SpMV (n = 1). h, the fraction of a reduction the progress thread really hides
across one such exchange (as far as its window reaches), is the one parameter no published number
gives. Everything else is an input:

--preset oakforest-pacs: a and C come from the published Table 4 (Alg.1 strong scaling: a =
  Allreduce / 2 reductions, C = CG loop - Allreduce), split into kernels by the bytes of the
  traffic model (README, Benchmarks); 262,144 cores lies beyond Table 4: extrapolated (marked).
  h is fitted to Table 7 leave-one-out: each core count is predicted with h fitted on the other
  five. Writes DIR/model_table7.csv and DIR/model.md.
DIR (local reports): C from the kernel benchmark and the local runs (bytes per DOF, efficiency,
  calibration kappa), a = alpha * ceil(log2 P) (+ --extra-latency-us) on the target machine given
  by the options, h = --eta-on (default: h fitted to the published Table 7 on all six points).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze as an  # noqa: E402  (same folder)

import cubecg_variants as cv  # noqa: E402  (same folder)

# Table 1 of the study: per iteration SpMV, preconditioner, dot products, AXPY, reductions, as
# cubecg's registry states it (the reports' "available"; refreshed in place by an.load_reports)
TABLE1 = cv.TABLE1
# which work each IAR reduction overlaps (algorithms.md)
OVERLAP = {"pcg": [[], []], "cgcg": [[]], "pipecg": [["precond", "spmv"]],
           "gropp": [["precond"], ["spmv"]]}


def halos_in(work, precond_halos):
    """Halo exchanges (MPI calls of the main thread) inside an overlap window: one per SpMV,
    precond_halos per M^-1 (ASDD with N iterations: N - 1, solvers/precond_asdd.c)."""
    return sum(1 if k == "spmv" else precond_halos if k == "precond" else 0 for k in work)
PRECOND_KERNEL = {"asdd": "asdd", "sgs": "sgs", "jacobi": "axpy", "none": None}


class ModelError(Exception):
    pass


# ---------------------------------------------------------------- inputs from the local runs


def kernel_model(reports):
    """bytes per DOF and efficiency per kernel from the kernels report with the most ranks."""
    ks = [(p, r) for p, r in reports if r["kind"] == "kernels"]
    if not ks:
        raise ModelError("no kernels report in the folder (run cubecg-bench --report FILE)")
    path, k = max(ks, key=lambda pr: (pr[1]["ranks"] * pr[1]["threads"], pr[0]))
    dof = 3 * k["nx"] * k["ny"] * k["nz"]
    stream = an.num(k["stream_triad_bytes_per_s"])
    out = {}
    for e in k["kernels"]:
        bw = an.num(e["bytes_per_s"])
        if math.isnan(bw) or bw <= 0:
            bw = e["bytes"] / e["seconds"] if an.num(e["seconds"]) > 0 else math.nan
        eff = an.num(e.get("fraction_of_stream"))
        if math.isnan(eff) and stream > 0:
            eff = bw / stream
        # a small benchmark mesh may run from cache (> STREAM); a large node's share will not
        eff = min(eff, 1.0)
        out[e["name"]] = dict(bpd=e["bytes"] / dof, bw=bw, eff=eff)
    if math.isnan(stream) or stream <= 0:
        stream = max(v["bw"] for v in out.values())
    return dict(file=path, cores=k["ranks"] * k["threads"], stream=stream, kernels=out)


def ops_of(row):
    o = dict(TABLE1.get(row["solver"], TABLE1[cv.NAMES[0]]))
    for key in o:
        v = an.num(row["ops"].get(key))
        if not math.isnan(v) and v > 0:
            o[key] = v
    return o


def compute_time(ops, km, precond, dof_per_node, node_bw, kappa=1.0, parts=None):
    """Memory-bound time of the kernels in parts (default all) for one iteration on one node."""
    names = {"spmv": "spmv", "precond": PRECOND_KERNEL.get(precond, precond), "dot": "dot",
             "axpy": "axpy"}
    t = 0.0
    for op in parts or names:
        kname = names[op]
        if kname is None:
            continue
        if kname not in km["kernels"]:
            raise ModelError(f"kernels report {km['file']} has no '{kname}' kernel (needed for {op})")
        k = km["kernels"][kname]
        eff = k["eff"] if k["eff"] > 0 else 1.0
        t += ops[op] * k["bpd"] * dof_per_node / (eff * node_bw)
    return kappa * t


def box_split(p, mesh):
    """px*py*pz = p with the smallest interface (as a box partition would choose)."""
    best = None
    for px in range(1, p + 1):
        if p % px:
            continue
        for py in range(1, p // px + 1):
            if (p // px) % py:
                continue
            pz = p // px // py
            a, b, c = mesh[0] / px, mesh[1] / py, mesh[2] / pz
            cost = a * b * (pz > 1) + b * c * (px > 1) + a * c * (py > 1)
            if best is None or cost < best[0]:
                best = (cost, (px, py, pz))
    return best[1]


def halo(p, mesh):
    """(messages, bytes) one interior rank sends per halo exchange (27-point stencil, 3 DOF)."""
    split = box_split(p, mesh)
    a, b, c = (m / s for m, s in zip(mesh, split))
    sizes = (a, b, c)
    msgs, nbytes = 0, 0.0
    # neighbours at offsets in {-1,0,1}^3 \ 0: the shared face / edge / corner
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dz in (-1, 0, 1):
                d = (dx, dy, dz)
                if d == (0, 0, 0) or any(di != 0 and s == 1 for di, s in zip(d, split)):
                    continue
                nodes = 1.0
                for di, n in zip(d, sizes):
                    nodes *= 1 if di else n
                msgs += 1
                nbytes += nodes * 3 * 8
    return msgs, nbytes


# ---------------------------------------------------------------- the model


def iteration_time(solver, reduction, eta, ctx, ranks_total, nodes):
    """Modelled seconds per iteration and its parts."""
    ops = ctx["ops"][solver]
    dof_node = ctx["dof"] / nodes
    comp = compute_time(ops, ctx["km"], ctx["precond"], dof_node, ctx["node_bw"], ctx["kappa"])
    msgs, nbytes = halo(ranks_total, ctx["mesh"]) if ranks_total > 1 else (0, 0.0)
    exch = ops["spmv"] + (ops["precond"] if ctx["precond_halo"] else 0)
    t_halo_one = msgs * ctx["alpha"] + nbytes * ctx["rpn"] / ctx["beta"]
    t_halo = exch * t_halo_one
    lat = ctx["alpha"] * math.ceil(math.log2(ranks_total)) if ranks_total > 1 else 0.0
    lat += ctx["extra_lat"]
    red = 0.0
    for work in OVERLAP[solver][:max(1, round(ops["reductions"]))]:
        w = None
        if reduction == "iar" and work:
            w = compute_time(ops, ctx["km"], ctx["precond"], dof_node, ctx["node_bw"], ctx["kappa"],
                             parts=work) + (t_halo_one if "spmv" in work else 0.0)
        n = halos_in(work, ctx["precond_halos"]) if ranks_total > 1 else 0
        red += exposed(lat, w, eta, n=n)  # the same per-reduction model as --preset
    return dict(total=comp + t_halo + red, comp=comp, halo=t_halo, red=red, lat=lat)


def fit(rows, km, args):
    """kappa (compute calibration) from the local plain run with the most cores."""
    plain = [r for r in an.pick_reference(rows) if r["progress"] == "off"]
    if not plain:
        plain = an.pick_reference(rows)
    if not plain:
        raise ModelError("no local run report without checkpoint / injected latency to fit on")
    top = max(r["cores"] for r in plain)
    ref = [r for r in plain if r["cores"] == top]
    ranks_ref = max(r["ranks"] for r in ref)
    ref = [r for r in ref if r["ranks"] == ranks_ref]
    kappas = []
    for r in ref:
        it = max(1, r["iterations"])
        measured = sum(an.num(r["breakdown"].get(k)) for k in ("spmv", "precond", "axpy", "dot")) / it
        dof = 3 * math.prod(int(x) for x in r["mesh"].split("x"))
        node_bw = km["stream"] * min(1.0, top / km["cores"])  # fewer cores than the bench: less bw
        model = compute_time(ops_of(r), km, args.precond_of(r), dof, node_bw)
        if measured > 0 and model > 0:
            kappas.append(measured / model)
    if not kappas:
        raise ModelError("local runs have no compute breakdown to fit kappa on")
    precond_halo = any(an.num(r["breakdown"].get("precond_halo")) > 0 for r in ref if r["ranks"] > 1)
    return statistics.median(kappas), ref, precond_halo


def local_overlap_check(rows, ctx_local):
    """Injected-latency runs: measured extra time per iteration vs the overlap model (eta = 1 for
    the simulated part, which completes by wall clock)."""
    out = []
    base = {an.config_key(r, "latency") + (r["variant"],): r for r in rows
            if not r["ckpt"] and r["latency"] == 0}
    for r in rows:
        if r["ckpt"] or not r["latency"] or math.isnan(r["latency"]):
            continue
        b = base.get(an.config_key(r, "latency") + (r["variant"],))
        if not b:
            continue
        lat = r["latency"] * 1e-6
        dof = 3 * math.prod(int(x) for x in r["mesh"].split("x"))
        ops = ops_of(r)
        predicted = 0.0
        for work in OVERLAP[r["solver"]][:max(1, round(ops["reductions"]))]:
            if r["reduction"] == "iar" and work:
                w = compute_time(ops, ctx_local["km"], ctx_local["precond"], dof,
                                 ctx_local["node_bw"], ctx_local["kappa"], parts=work)
                predicted += max(0.0, lat - w)
            else:
                predicted += lat
        out.append(dict(row=r, measured=r["tpi"] - b["tpi"], predicted=predicted))
    return out


# ---------------------------------------------------------------- Table 7 from Table 4 (preset)

# Published inputs and the check (../shared/reference-results.md). Table 4: Alg.1 strong scaling
# on Oakforest-PACS, cores -> (CG loop [s], MPI_Allreduce [s]).
PUBLISHED_TABLE4 = {8192: (15.34, 2.26), 16384: (9.89, 1.56), 32768: (7.29, 1.89),
                    65536: (5.93, 2.32), 131072: (6.53, 3.88)}
# Table 7: T(Alg.x-AR) / T(Alg.x-IAR), progress thread on in both runs. The CHECK, never an input.
PUBLISHED_TABLE7 = {"pipecg": {8192: 1.03, 16384: 1.13, 32768: 1.05, 65536: 1.06, 131072: 1.08,
                               262144: 1.19},
                    "gropp": {8192: 1.06, 16384: 1.21, 32768: 1.20, 65536: 1.25, 131072: 1.34,
                              262144: 1.38}}
PRESETS = {"oakforest-pacs": dict(
    machine="Oakforest-PACS: Xeon Phi 7250, 8 MPI x 8 OpenMP per node, Intel MPI 2019 with "
            "I_MPI_ASYNC_PROGRESS=on, Omni-Path fat tree; mesh 512x256x256 (100,663,296 DOF)",
    cores=[8192, 16384, 32768, 65536, 131072, 262144], asdd_iterations=2, replace_every=50)}
ALG_NAME = cv.SHORT  # "Alg.1", ... from the registry's descriptions
# residual replacement (algorithms.md): SpMV and M^-1 applications every `replace_every` iterations
REPLACEMENT = {"pipecg": dict(spmv=4, precond=2), "gropp": dict(spmv=2, precond=2)}


def traffic_bytes_per_row(asdd_iterations):
    """Bytes per block row (3 DOF) of each kernel, the traffic model of README.md (Benchmarks):
    27-point stencil, 26 off-diagonal blocks of 76 B (9 doubles + int32 column), half below."""
    block, nblocks, noff = 76, 27, 26
    spmv = block * nblocks + 16 + 24 + 24              # blocks + row_ptr/l_ptr + x + y
    sgs = block * noff + 272                            # forward (L) + backward (U) sweep
    precond = asdd_iterations * sgs + (asdd_iterations - 1) * (spmv + 144)  # ASDD(N)
    return dict(spmv=spmv, precond=precond, dot=48, axpy=72)


def fit_compute_scaling(table4=None):
    """C(P) = CG loop - Allreduce of Table 4 as c0 * P0 / P + c1 (P0 its smallest core count),
    least squares on its rows: c0 * P0 / P strong-scales (memory traffic), c1 does not (halo
    latency, thread synchronisation). (c0, c1); c0 = C(P0), c1 = 0 with a single row."""
    table4 = table4 or PUBLISHED_TABLE4
    ps = sorted(table4)
    if len(ps) < 2:
        return table4[ps[0]][0] - table4[ps[0]][1], 0.0
    xs = [ps[0] / p for p in ps]
    ys = [table4[p][0] - table4[p][1] for p in ps]
    n, sx, sy = len(xs), sum(xs), sum(ys)
    sxx, sxy = sum(x * x for x in xs), sum(x * y for x, y in zip(xs, ys))
    c0 = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    return c0, (sy - c0 * sx) / n


def extrapolate_table4(cores):
    """Table 4 at a core count beyond it. C = CG loop - Allreduce as c0 * 8192 / P + c1 (a part
    that strong-scales and one that does not: halo latency, thread synchronisation), least squares
    on all five rows; the Allreduce time as a power law A = k * P^b through the three largest
    rows (32,768-131,072 cores, where it grows), least squares in log-log."""
    ps = sorted(PUBLISHED_TABLE4)
    c0, c1 = fit_compute_scaling()
    top = ps[-3:]
    lx = [math.log(p) for p in top]
    ly = [math.log(PUBLISHED_TABLE4[p][1]) for p in top]
    mx, my = sum(lx) / 3, sum(ly) / 3
    b = sum((x - mx) * (y - my) for x, y in zip(lx, ly)) / sum((x - mx) ** 2 for x in lx)
    allreduce = math.exp(my + b * (math.log(cores) - mx))
    comp = c0 * 8192 / cores + c1
    return comp + allreduce, allreduce, dict(c0=c0, c1=c1, exponent=b)


def exposed(a, w, h, form="reduction", n=0):
    """Exposed time of one reduction of time a: blocking (w None) or overlapped with work w that
    contains n halo exchanges. The progress thread hides the fraction h^n of the reduction, as far
    as the window w reaches (form "reduction", the model); form "window" (h^n of min(a, w)) and
    form "plain" (h, whatever the window contains: the first attempt) are sensitivities."""
    if w is None:
        return a
    if form == "plain":
        return a - min(h * a, w)
    f = h ** n
    return a - (min(f * a, w) if form == "reduction" else f * min(a, w))


def preset_inputs(preset, halo_in_spmv=False, table4=None, bpr=None, precond_halos=None):
    """Per core count and variant: C(v), a and the overlap windows, all from Table 4 + Table 1.
    C is split into kernels by bytes (halo and thread synchronisation in the same proportion).
    halo_in_spmv (sensitivity only): the part of C that does not strong-scale (c1 of
    fit_compute_scaling) is taken as the SpMV's halo exchange, in the SpMV's window."""
    bpr = bpr or traffic_bytes_per_row(preset["asdd_iterations"])
    table4 = table4 or PUBLISHED_TABLE4
    base = TABLE1[cv.NAMES[0]]
    bytes_alg1 = sum(base[k] * bpr[k] for k in ("spmv", "precond", "dot", "axpy"))
    c0, _ = fit_compute_scaling(table4)
    out = {}
    for cores in preset["cores"]:
        if cores in table4:
            loop, allreduce = table4[cores]
            extrap = None
        else:
            loop, allreduce, extrap = extrapolate_table4(cores)
        comp1 = loop - allreduce                       # compute + halo left in Alg.1's loop
        a = allreduce / base["reductions"]             # one reduction (Alg.1 has two)
        memory = min(comp1, c0 * min(table4) / cores) if halo_in_spmv else comp1
        halo_t = comp1 - memory                        # the rest: the SpMV's halo exchange
        per_byte = memory / bytes_alg1                 # time per byte/row: Table 4 calibrates
        for s in ("pipecg", "gropp"):
            ops = TABLE1[s]
            rep = REPLACEMENT[s]
            extra = (ops["axpy"] - base["axpy"]) * bpr["axpy"]
            extra += sum(n * bpr[k] for k, n in rep.items()) / preset["replace_every"]
            comp = comp1 + per_byte * extra + halo_t * rep["spmv"] / preset["replace_every"]
            windows = [per_byte * sum(bpr[k] for k in work) + (halo_t if "spmv" in work else 0)
                       for work in OVERLAP[s]]
            ph = preset["asdd_iterations"] - 1 if precond_halos is None else precond_halos
            halos = [halos_in(work, ph) for work in OVERLAP[s]]
            out[(cores, s)] = dict(loop=loop, allreduce=allreduce, comp=comp, a=a,
                                   windows=windows, halos=halos, extrapolated=extrap is not None,
                                   extrap=extrap, share=allreduce / loop)
    return out, bpr


def preset_gain(inp, h, form="reduction"):
    t_ar = inp["comp"] + sum(exposed(inp["a"], None, h) for _ in inp["windows"])
    t_iar = inp["comp"] + sum(exposed(inp["a"], w, h, form, n)
                              for w, n in zip(inp["windows"], inp["halos"]))
    return t_ar / t_iar


def fit_hidden(inputs, cores_list, form="reduction"):
    """h in [0, 1] minimising the squared gain error over both variants at cores_list."""
    def sse(h):
        return sum((preset_gain(inputs[(c, s)], h, form) - PUBLISHED_TABLE7[s][c]) ** 2
                   for c in cores_list for s in ("pipecg", "gropp"))
    best = min((i / 200 for i in range(201)), key=sse)  # a grid, then a golden section
    lo, hi = max(0.0, best - 0.005), min(1.0, best + 0.005)
    for _ in range(60):                                # golden-section refinement
        m1, m2 = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        if sse(m1) < sse(m2):
            hi = m2
        else:
            lo = m1
    return (lo + hi) / 2


def required_hidden(inp, published):
    """h that reproduces the published gain exactly; None when even h = 1 falls short."""
    if preset_gain(inp, 1.0) < published:
        return None
    lo, hi = 0.0, 1.0                                  # the gain grows with h: bisection
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if preset_gain(inp, mid) < published else (lo, mid)
    return (lo + hi) / 2


def loo_rms(inputs, cores, form):
    """RMS of the leave-one-out gain error with the given exposure form (sensitivity)."""
    err = []
    for c in cores:
        h = fit_hidden(inputs, [x for x in cores if x != c], form)
        err += [preset_gain(inputs[(c, s)], h, form) - PUBLISHED_TABLE7[s][c]
                for s in ("pipecg", "gropp")]
    return math.sqrt(sum(e * e for e in err) / len(err))


def preset_model(name):
    preset = PRESETS[name]
    inputs, bpr = preset_inputs(preset)
    cores = preset["cores"]
    h_all = fit_hidden(inputs, cores)
    rows = []
    for c in cores:
        h_loo = fit_hidden(inputs, [x for x in cores if x != c])
        for s in ("pipecg", "gropp"):
            inp = inputs[(c, s)]
            mod = preset_gain(inp, h_loo)
            pub = PUBLISHED_TABLE7[s][c]
            rows.append(dict(cores=c, solver=s, modelled=mod, published=pub,
                             gain_error=(mod - 1) - (pub - 1), extrapolated=inp["extrapolated"],
                             hidden_fraction=h_loo, in_sample=preset_gain(inp, h_all),
                             ceiling=preset_gain(inp, 1.0), required=required_hidden(inp, pub),
                             inp=inp))
    halo = preset_inputs(preset, True)[0]
    sens = {"one h for every reduction, whatever its window contains: min(h * a, W) (the first "
            "attempt)": loo_rms(inputs, cores, "plain"),
            "hidden h^n * min(a, W) instead of min(h^n * a, W)": loo_rms(inputs, cores, "window"),
            "the non-scaling part of C (c1) as SpMV halo, in the SpMV window":
                loo_rms(halo, cores, "reduction"),
            "a halo exchange per ASDD iteration (M^-1: n = 2; Alg.3 n = 3, Alg.4 2 / 1)":
                loo_rms(preset_inputs(preset, precond_halos=2)[0], cores, "reduction"),
            "M^-1's halo exchange not counted (Alg.3 n = 1, Alg.4 0 / 1)":
                loo_rms(preset_inputs(preset, precond_halos=0)[0], cores, "reduction")}
    return dict(name=name, preset=preset, rows=rows, h_all=h_all, bpr=bpr, inputs=inputs,
                sensitivity=sens)


def preset_goals(res):
    rows = res["rows"]
    rms = math.sqrt(sum(r["gain_error"] ** 2 for r in rows) / len(rows))
    g = {(r["cores"], r["solver"]): r["modelled"] for r in rows}
    cores = res["preset"]["cores"]
    a4_above = [c for c in cores if g[(c, "gropp")] > g[(c, "pipecg")]]
    grows = {s: g[(cores[-1], s)] > g[(cores[0], s)] for s in ("pipecg", "gropp")}
    def rms_of(rs, key="gain_error"):
        if key == "in":
            return math.sqrt(sum((r["in_sample"] - r["published"]) ** 2 for r in rs) / len(rs))
        return math.sqrt(sum(r[key] ** 2 for r in rs) / len(rs))
    saved = []
    for c in cores:
        r3, r4 = (next(r for r in rows if r["cores"] == c and r["solver"] == s)
                  for s in ("pipecg", "gropp"))
        def sv(r, g):
            t_ar = r["inp"]["comp"] + r["inp"]["a"] * len(r["inp"]["windows"])
            return t_ar - t_ar / g
        p3, p4 = sv(r3, r3["published"]), sv(r4, r4["published"])
        m3, m4 = sv(r3, r3["modelled"]), sv(r4, r4["modelled"])
        saved.append([f"{c:,}", f"{p3:.3f}", f"{p4:.3f}", f"{p4 / p3:.1f}", f"{m4 / m3:.1f}"])
    return dict(rms=rms, rms_ok=rms <= 0.06, a4_above=a4_above,
                rms_in=rms_of(rows, "in"),
                rms_in10=rms_of([r for r in rows if not r["extrapolated"]], "in"),
                rms_wo_16k=rms_of([r for r in rows if r["cores"] != 16384]), saved=saved,
                a4_above_ok=len(a4_above) == len(cores), grows=grows,
                grows_ok=all(grows.values()))


def unexplained(r):
    """One sentence on what the model cannot explain at this point (empty when it fits)."""
    if r["published"] > r["ceiling"] + 1e-9:
        return (f"published {r['published']:.2f} exceeds the gain of hiding every overlappable "
                f"reduction ({r['ceiling']:.2f}): Table 4's allreduce share (Alg.1's runs) is too "
                "small for it; the variation between the runs of Table 4 and Table 7 is not "
                "modelled")
    if abs(r["gain_error"]) <= 0.03:
        return ""
    need = r["required"]
    if need is None:
        return (f"published {r['published']:.2f} above what hiding every reduction as far as "
                f"the windows reach gives ({r['ceiling']:.2f})")
    side = "more" if r["gain_error"] < 0 else "less"
    return (f"needs h = {need:.2f} (LOO fit {r['hidden_fraction']:.2f}): the run hid {side} of "
            "its reductions than the other points say")


def fmt_need(h):
    return "> 1" if h is None else f"{h:.2f}"


def preset_report(res):
    """(stdout lines, model.md text)"""
    goals = preset_goals(res)
    pre = res["preset"]
    bpr = res["bpr"]
    ex = next(r["inp"]["extrap"] for r in res["rows"] if r["extrapolated"])
    head = ["cores", "solver", "modelled (LOO)", "published", "gain_error", "h used (LOO)",
            "in-sample", "ceiling h=1", "h needed", "extrapolated", "what the model cannot explain"]
    body = [[f"{r['cores']:,}", ALG_NAME[r["solver"]], f"{r['modelled']:.3f}",
             f"{r['published']:.2f}", f"{r['gain_error']:+.3f}", f"{r['hidden_fraction']:.3f}",
             f"{r['in_sample']:.3f}", f"{r['ceiling']:.3f}", fmt_need(r["required"]),
             "yes" if r["extrapolated"] else "no", unexplained(r) or "-"] for r in res["rows"]]
    inp_rows = []
    for c in pre["cores"]:
        i3, i4 = res["inputs"][(c, "pipecg")], res["inputs"][(c, "gropp")]
        inp_rows.append([f"{c:,}", f"{i3['loop']:.2f}", f"{i3['allreduce']:.2f}",
                         f"{100 * i3['share']:.1f}%", f"{i3['a']:.3f}", f"{i3['comp']:.3f}",
                         f"{i3['windows'][0]:.3f}", f"{i4['comp']:.3f}",
                         " / ".join(f"{w:.3f}" for w in i4["windows"]),
                         "extrapolated" if i3["extrapolated"] else "Table 4"])
    ok = lambda b: "met" if b else "NOT met"  # noqa: E731
    h_all = res["h_all"]
    lim = []
    for c in pre["cores"]:
        i4 = res["inputs"][(c, "gropp")]
        if any(w < h_all ** n * i4["a"] for w, n in zip(i4["windows"], i4["halos"])):
            lim.append(c)
    limited = ", ".join(f"{c:,}" for c in lim) + " cores" if lim else "no core count"
    ratios = [(c, float(s[3])) for c, s in zip(pre["cores"], goals["saved"])]
    cores_lo, ratio_lo = min(ratios, key=lambda x: x[1] if x[0] != 16384 else 9)
    cores_hi, ratio_hi = max(ratios, key=lambda x: x[1])
    need_hi = next(r["required"] for r in res["rows"]
                   if r["cores"] == cores_hi and r["solver"] == "pipecg")
    alt = [v for k, v in res["sensitivity"].items() if "first attempt" not in k]
    goal_lines = [
        f"- RMS of gain_error over the {len(res['rows'])} points: {goals['rms']:.3f} "
        f"(goal <= 0.06: {ok(goals['rms_ok'])})",
        f"- Alg.4's modelled gain above Alg.3's at {len(goals['a4_above'])} of "
        f"{len(pre['cores'])} core counts (goal: all; {ok(goals['a4_above_ok'])})",
        f"- gain at {pre['cores'][-1]:,} above {pre['cores'][0]:,} cores: Alg.3 "
        f"{'yes' if goals['grows']['pipecg'] else 'no'}, Alg.4 "
        f"{'yes' if goals['grows']['gropp'] else 'no'} ({ok(goals['grows_ok'])})",
        f"- in-sample h (all six core counts): {res['h_all']:.3f}; in-sample RMS "
        f"{goals['rms_in']:.3f} over the 12 points, {goals['rms_in10']:.3f} over the 10 points "
        "Table 4 covers (the issue quotes about 0.076 for one h hiding every reduction)"]
    md = [
        f"# Model of Table 7 from Table 4 (a MODEL, not a measurement): preset {res['name']}\n\n",
        "Generated by `jobs/model.py --preset " + res["name"] + "`. Target: the published Table 7 "
        "of the study, T(Alg.x-AR) / T(Alg.x-IAR) for x = 3, 4 with the asynchronous progress "
        "thread on in both runs (not time(progress off) / time(progress on), not a speed-up "
        "over Alg.1). Table 7 is only the check; the inputs are below.\n\n",
        f"Machine: {pre['machine']}.\n\n",
        "## The model\n\n```\n"
        "T_AR(v)  = C(v) + R(v) * a\n"
        "T_IAR(v) = C(v) + sum_j (a - min(h^n_j * a, W_j))\n"
        "gain(v)  = T_AR(v) / T_IAR(v)          (Table 7)\n```\n\n"
        "Reduction j of variant v takes a (Table 4); blocking (AR) it is exposed whole. Posted "
        "non-blocking (IAR), the progress thread hides part of it behind the work W_j the "
        "algorithm places between the post and the wait. That window is not pure compute: it "
        "contains n_j halo exchanges (the ASDD's and the SpMV's MPI_Isend/Irecv/Waitall), calls "
        "of the main thread into the MPI library while the reduction is pending, where the main "
        "thread and the progress thread contend for the library (Intel MPI 2019 with "
        "I_MPI_ASYNC_PROGRESS runs MPI_THREAD_MULTIPLE). The model: across each such exchange "
        "the reduction keeps the fraction h of its hidden part, so the window hides h^n_j of "
        "the reduction, at most W_j. The physical difference between the variants follows from "
        "algorithms.md: Alg.3 posts one fused reduction and runs M^-1 and SpMV, two halo "
        "exchanges (n = 2), before its wait; Alg.4 splits them, one exchange per window "
        "(n = 1, 1). With one h, Alg.4 saves up to 2 h / h^2 = 2 / h times what Alg.3 saves "
        "(the first attempt, h for every reduction, capped this ratio at 2; the published "
        "ratio is about 4 at 32,768-131,072 cores).\n\n",
        "## Parameters and their sources\n\n",
        an.md_table(["parameter", "value", "source"], [
            ["a, time of one reduction", "Allreduce / 2",
             "Table 4 (Alg.1, two reductions per iteration: algorithms.md, Table 1)"],
            ["C(Alg.1), compute + halo left in the loop", "CG loop - Allreduce", "Table 4"],
            ["kernel split of C", ", ".join(f"{k} {v} B/row" for k, v in bpr.items()),
             "traffic model of README.md (Benchmarks): 3x3 blocks of 76 B, 27-point stencil; "
             f"ASDD with {pre['asdd_iterations']} SGS iterations (reference-results.md); halo "
             "time spread over the kernels in the same proportion"],
            ["C(v) = C(Alg.1) + extra", "Alg.3: +5 AXPY, Alg.4: +2 AXPY; residual replacement "
             f"every {pre['replace_every']} iterations (Alg.3: 4 SpMV + 2 M^-1, Alg.4: 2 SpMV + "
             "2 M^-1)", "Table 1 (AXPY 3/8/5), algorithms.md (replacement), reference-results.md "
             "(every 50)"],
            ["R(v), reductions per iteration", "Alg.3: 1, Alg.4: 2", "Table 1, algorithms.md"],
            ["W_j, overlap windows", "Alg.3: M^-1 + SpMV (one window); Alg.4: M^-1, then SpMV",
             "algorithms.md (Alg.3, Alg.4)"],
            ["n_j, halo exchanges inside window j",
             f"SpMV 1, M^-1 {pre['asdd_iterations'] - 1} (ASDD with "
             f"{pre['asdd_iterations']} iterations); Alg.3: 2, Alg.4: 1 / 1",
             "algorithms.md (what each window contains), reference-results.md (ASDD, 2 "
             "iterations), solvers/precond_asdd.c (N - 1 halo exchanges in ASDD(N))"],
            ["progress thread's cost", "in both runs of a Table 7 ratio: its core and its "
             "Table 6 gain (4.5-6.7 %) cancel; what it costs per reduction (hand-off, contention "
             "for the MPI library at the halo exchanges) is not published and is inside "
             "1 - h^n_j", "Table 6, Table 7 caption (thread on in both runs)"],
            [f"{pre['cores'][-1]:,} cores (beyond Table 4)",
             f"C = {ex['c0']:.3f} * 8192/P + {ex['c1']:.3f} s (least squares, five rows); "
             f"Allreduce = k * P^{ex['exponent']:.3f} (least squares in log-log through "
             "32,768-131,072)", "Table 4, extrapolated; marked `extrapolated` in the CSV"],
            ["h, fraction of a reduction the progress thread hides across one halo exchange "
             "of its window (h^n_j over the window, up to W_j)",
             f"fitted to Table 7, leave-one-out (one h per held-out core count, "
             f"{min(r['hidden_fraction'] for r in res['rows']):.3f}-"
             f"{max(r['hidden_fraction'] for r in res['rows']):.3f})",
             "the one non-derivable parameter; `modelled` uses the fit on the other five core "
             "counts only"]]),
        "\n## Inputs per core count (seconds of the CG loop, as Table 4)\n\n",
        an.md_table(["cores", "CG loop", "Allreduce", "share", "a", "C Alg.3", "W Alg.3",
                     "C Alg.4", "W Alg.4 (M^-1 / SpMV)", "from"], inp_rows),
        "\n## Per point (`model_table7.csv`)\n\n",
        an.md_table(head, body),
        "\n## Goals\n\n" + "\n".join(goal_lines) + "\n",
        "\n## What the model cannot explain\n\n",
        "- Points whose published gain is above `ceiling h=1` cannot be reached by any hidden "
        "fraction: Table 4's allreduce share there is too small (Table 7 at 16,384 cores: Alg.4 "
        "jumps 1.06 -> 1.21 while the share moves 14.8 % -> 15.7 %). "
        f"Without the two 16,384-core points the RMS would be {goals['rms_wo_16k']:.3f}.\n",
        "- `h needed` is the h each published point implies. Where it differs between Alg.3 "
        "and Alg.4 at the same core count, one h per machine cannot reproduce both. The halo "
        "exchanges in the windows give Alg.4 up to 2 / h times Alg.3's saved time per iteration "
        f"(less where a window is shorter than h^n a: Alg.4's SpMV window at {limited}); "
        "the published saved time (T_AR - T_AR / Table 7, in seconds of Table 4's loop) moves "
        "between 1.6 and 4.7 times, which no constant ratio follows:\n\n",
        an.md_table(["cores", "saved Alg.3 published", "saved Alg.4 published", "ratio published",
                     "ratio modelled"], goals["saved"]),
        f"\n- So at {cores_lo:,} cores (published ratio {ratio_lo:.1f}) the model gives Alg.4 "
        f"too much and Alg.3 too little, and at {cores_hi:,} cores (published ratio "
        f"{ratio_hi:.1f}) Alg.3 too much: the published Alg.3 hid less there (h needed "
        f"{fmt_need(need_hi)}) than any constant h says. What else moves the "
        "ratio (noise absorbed differently with one synchronisation point per iteration, the "
        "placement of the progress threads, run-to-run variation between Table 4's and Table "
        "7's runs) is not in Table 1, Table 4 or Table 6, and a second fitted parameter is not "
        "allowed.\n",
        "- The 262,144-core inputs are extrapolated; its errors carry that uncertainty too.\n",
        "- The residue is not tuned away: `modelled` is the leave-one-out prediction, and the "
        "goals above say which are met.\n",
        "\n## Sensitivity (leave-one-out RMS of the alternatives, not used)\n\n",
        "The model's form (h^n_j: contention at the halo exchanges in the window) comes from "
        "what algorithms.md puts in each window, but it was chosen after the first attempt's "
        "form had been checked against Table 7, and it is the best of the forms below: the "
        "leave-one-out RMS above is optimistic by that choice. Its neighbours, computed the "
        "same way (h fitted leave-one-out), show how narrowly the goal is met: counting the "
        "halo exchanges differently or bounding the hidden part differently gives "
        f"{min(alt):.3f}-{max(alt):.3f}.\n\n",
        an.md_table(["alternative", "RMS (LOO, 12 points)"],
                    [[k, f"{v:.3f}"] for k, v in res["sensitivity"].items()])]
    out = ["MODEL (latency-bandwidth) of Table 7 from Table 4, not a measurement: preset "
           + res["name"],
           "  Table 7 = T(Alg.x-AR) / T(Alg.x-IAR), progress thread on in both runs; "
           "modelled = leave-one-out prediction",
           "  " + " | ".join(head[:10])]
    out += ["  " + " | ".join(b[:10]) for b in body]
    out += ["  " + g[2:] for g in goal_lines]
    out += ["  cannot explain:"]
    out += [f"    {r['cores']:,} {ALG_NAME[r['solver']]}: {unexplained(r)}"
            for r in res["rows"] if unexplained(r)]
    return out, "".join(md)


def write_preset_csv(path, res):
    import csv
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["cores", "solver", "modelled", "published", "gain_error", "extrapolated",
                    "hidden_fraction", "modelled_in_sample", "ceiling", "hidden_fraction_needed"])
        for r in res["rows"]:
            w.writerow([r["cores"], r["solver"], f"{r['modelled']:.6f}", f"{r['published']:.2f}",
                        f"{r['gain_error']:.6f}", "true" if r["extrapolated"] else "false",
                        f"{r['hidden_fraction']:.6f}", f"{r['in_sample']:.6f}",
                        f"{r['ceiling']:.6f}",
                        "" if r["required"] is None else f"{r['required']:.6f}"])


def run_preset(args):
    res = preset_model(args.preset)
    out, md = preset_report(res)
    print("\n".join(out))
    os.makedirs(args.out, exist_ok=True)
    fw = an.FigureWriter(args.out, args.force)
    path = fw.target("model_table7.csv")
    write_preset_csv(path, res)
    print(f"  wrote {path}: modelled vs published Table 7 (leave-one-out)")
    fw.text("model.md", md, "model of Table 7 from Table 4 (Markdown)")
    return 0


def local_table7(rows, km, precond, h, replace_every=50, precond_halos=1):
    """The Table 7 model on the user's own runs: their Alg.1-AR runs with the progress thread on
    play Table 4 (time per iteration, reduction wait per iteration), kernel bytes from their
    kernel benchmark; modelled T(AR) / T(IAR) beside the measured ratio of the same runs."""
    names = {"spmv": "spmv", "precond": PRECOND_KERNEL.get(precond, precond), "dot": "dot",
             "axpy": "axpy"}
    if any(k not in km["kernels"] for k in names.values() if k):
        return []
    bpr = {op: (km["kernels"][k]["bpd"] if k else 0.0) for op, k in names.items()}
    plain = [r for r in rows if r["progress"] == "on" and not r["ckpt"]
             and (r["latency"] == 0 or math.isnan(r["latency"])) and r["converged"]]
    groups = {}
    for r in plain:
        groups.setdefault((r["mesh"], r["ranks"], r["threads"]), []).append(r)
    out = []
    for (mesh, ranks, threads), rs in sorted(groups.items(), key=lambda kv: kv[0][1] * kv[0][2]):
        def med(solver, red, f):
            v = [f(r) for r in rs if r["solver"] == solver and r["reduction"] == red]
            v = [x for x in v if not math.isnan(x)]
            return statistics.median(v) if v else math.nan
        tpi = med("pcg", "ar", lambda r: r["tpi"])
        red = med("pcg", "ar", lambda r: r["breakdown"].get("reduction", math.nan)
                  / max(1, r["iterations"]))
        if math.isnan(tpi) or math.isnan(red) or ranks < 2:
            continue
        cores = ranks * threads
        preset = dict(cores=[cores], asdd_iterations=2, replace_every=replace_every)
        inp = preset_inputs(preset, table4={cores: (tpi, red)}, bpr=bpr,
                            precond_halos=precond_halos)[0]
        for s in ("pipecg", "gropp"):
            ar, iar = med(s, "ar", lambda r: r["time"]), med(s, "iar", lambda r: r["time"])
            out.append(dict(mesh=mesh, rt=f"{ranks}x{threads}", cores=cores, solver=s,
                            share=red / tpi, modelled=preset_gain(inp[(cores, s)], h),
                            measured=ar / iar if ar > 0 and iar > 0 else math.nan))
    return out


# ---------------------------------------------------------------- output


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
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
    ap.add_argument("--node-bw-gbs", default="490",
                    help="memory bandwidth (STREAM) per node [GB/s]; default 490 = Oakforest-PACS "
                         "MCDRAM, like the other defaults; 'local' = the local kernels report's")
    ap.add_argument("--cores-per-node", type=int, default=64, help="(default 64)")
    ap.add_argument("--ranks-per-node", type=int, default=8, help="(default 8; hybrid 8 x 8)")
    ap.add_argument("--mesh", default="512x256x256",
                    help="global mesh nodes NXxNYxNZ (default 512x256x256, Table 7)")
    ap.add_argument("--nodes", default="128,256,512,1024,2048,4096", help="(default 128,...,4096)")
    ap.add_argument("--extra-latency-us", type=float, default=0.0,
                    help="constant added to every allreduce (OS noise, software) [us]")
    ap.add_argument("--eta-off", type=float, default=0.0,
                    help="overlap achieved without a progress thread, 0..1 (default 0)")
    ap.add_argument("--eta-on", type=float, default=None,
                    help="fraction h of a reduction hidden (up to its overlap window) with the "
                         "progress thread on (default: h fitted to the published Table 7)")
    ap.add_argument("--figdir", help="write model_projection.png and model.md here instead of DIR")
    ap.add_argument("--force", action="store_true", help="overwrite model_projection.png/model.md")
    args = ap.parse_args(argv)
    if args.preset:
        if not args.out or args.dir:
            print("model.py: --preset NAME needs --out DIR and no report folder", file=sys.stderr)
            return 2
        return run_preset(args)
    if not args.dir:
        print("model.py: give a folder of local reports, or --preset NAME --out DIR",
              file=sys.stderr)
        return 2
    h_published = preset_model("oakforest-pacs")["h_all"]
    if args.eta_on is None:
        args.eta_on = h_published
    try:
        mesh = tuple(int(x) for x in args.mesh.lower().split("x"))
        nodes_list = [int(x) for x in args.nodes.split(",")]
        assert len(mesh) == 3 and min(mesh) > 0 and min(nodes_list) > 0
        assert args.node_bw_gbs == "local" or float(args.node_bw_gbs) > 0
        assert 0 <= args.eta_off <= 1 and 0 <= args.eta_on <= 1
    except (ValueError, AssertionError):
        print("model.py: --mesh NXxNYxNZ, --nodes n1,n2,... positive, --node-bw-gbs > 0 or local, "
              "--eta-* in [0, 1]",
              file=sys.stderr)
        return 2
    try:
        reports = an.load_reports(args.dir)
        rows = an.solve_rows(reports)
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
    except (an.ReportError, ModelError) as e:
        print(f"model.py: {e}", file=sys.stderr)
        return 2

    precond = args.precond_of(ref[0])
    # halo exchanges inside M^-1 (n_j of the model): ASDD(N) makes N - 1, measured in the runs
    precond_halos = (max(1, asdd_of.get(ref[0]["file"], 2) - 1) if precond == "asdd" else 1) \
        if precond_halo else 0
    ops = {}
    for s in TABLE1:
        rs = [r for r in ref if r["solver"] == s]
        ops[s] = ops_of(rs[0]) if rs else dict(TABLE1[s])
    node_bw = km["stream"] if args.node_bw_gbs == "local" else float(args.node_bw_gbs) * 1e9
    ctx = dict(ops=ops, km=km, precond=precond, kappa=kappa, mesh=mesh,
               dof=3 * math.prod(mesh), node_bw=node_bw, alpha=args.alpha_us * 1e-6,
               beta=args.beta_gbs * 1e9, rpn=args.ranks_per_node, precond_halo=precond_halo,
               precond_halos=precond_halos,
               extra_lat=args.extra_latency_us * 1e-6)
    local_ctx = dict(ctx, node_bw=km["stream"] * min(1.0, ref[0]["cores"] / km["cores"]))

    print("MODEL (latency-bandwidth), not a measurement")
    print(f"  fitted on {args.dir}: kernel bytes/DOF and efficiency from {km['file']} "
          f"(STREAM {km['stream'] / 1e9:.1f} GB/s on {km['cores']} core(s))")
    print("  " + ", ".join(f"{n} {k['bpd']:.0f} B/DOF eff {k['eff']:.2f}"
                           for n, k in sorted(km["kernels"].items())))
    print(f"  kappa = {kappa:.2f} (measured / modelled compute time per iteration, local "
          f"{ref[0]['rt']} run, mesh {ref[0]['mesh']}); preconditioner {precond}"
          f"{', with halo' if precond_halo else ''}")
    checks = local_overlap_check(rows, local_ctx)
    if checks:
        print("  overlap check on the injected-latency runs (extra time per iteration, measured / "
              "model [us]; AR: every reduction waits, IAR: only what the overlapped work leaves):")
        keys = sorted({(c["row"]["rt"], c["row"]["progress"], c["row"]["latency"]) for c in checks},
                      key=lambda k: (k[2], k[0], k[1]))
        for k in keys:
            cs = sorted((c for c in checks if (c["row"]["rt"], c["row"]["progress"], c["row"]["latency"]) == k),
                        key=lambda c: an.variant_order([x["row"]["variant"] for x in checks]).index(c["row"]["variant"]))
            print(f"    {k[0]} progress {k[1]}, lat {an.fmt_lat(k[2])} us: " + ", ".join(
                f"{an.variant_label(c['row']['variant'])} {1e6 * c['measured']:.0f}/{1e6 * c['predicted']:.0f}"
                for c in cs))
    print(f"  target: mesh {args.mesh} ({ctx['dof']:,} DOF), {args.cores_per_node} cores and "
          f"{args.ranks_per_node} ranks per node, node bandwidth {node_bw / 1e9:.1f} GB/s, "
          f"alpha {args.alpha_us} us, beta {args.beta_gbs} GB/s, eta off/on "
          f"{args.eta_off}/{args.eta_on:.3f}")

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

    lines = ["# Model vs measurement (a MODEL, not a measurement)\n",
             "Generated by `jobs/model.py`. Latency-bandwidth model of one CG iteration fitted on "
             f"the local runs in `{args.dir}` (kernel report {os.path.basename(km['file'])}, "
             f"calibration run {ref[0]['rt']} on mesh {ref[0]['mesh']}) and projected with the "
             "network parameters below; "
             "the modelled Table 7 is T(Alg.x-AR) / T(Alg.x-IAR), progress thread on in both "
             "runs (hidden fraction h = eta on), beside the published Table 7 (same ratio).\n",
             f"\nParameters: mesh {args.mesh}, {args.cores_per_node} cores / "
             f"{args.ranks_per_node} ranks per node, node memory bandwidth "
             f"{node_bw / 1e9:.1f} GB/s, alpha {args.alpha_us} us, beta {args.beta_gbs} GB/s, "
             f"extra allreduce latency {args.extra_latency_us} us, overlap eta off "
             f"{args.eta_off} / on {args.eta_on:.3f}, compute calibration kappa {kappa:.2f}.\n\n",
             an.md_table(TABLE_HEAD, [table_row(r) for r in proj]),
             "\nThe paper's Table 4 (Alg.1 strong scaling on Oakforest-PACS) gives the measured share of "
             "MPI_Allreduce in the CG loop; where the modelled share is far below it, the real "
             "allreduce at scale costs more than alpha * log2(P) (OS noise, contention, load "
             "imbalance surfacing in the reduction): raise --alpha-us or --extra-latency-us to "
             "explore that regime. Table 7 columns: time per iteration of Alg.x-AR / Alg.x-IAR, both "
             "with the progress thread on (the published Table 7's ratio; the thread changes "
             "only the IAR run in this model).\n\n"]
    lt7 = local_table7(rows, km, precond, args.eta_on, precond_halos=precond_halos)
    lt7_head = ["mesh", "ranks x threads", "solver", "Alg.1-AR reduction share",
                "modelled T(AR) / T(IAR)", "measured T(AR) / T(IAR)"]
    lt7_body = [[t["mesh"], t["rt"], ALG_NAME[t["solver"]], f"{100 * t['share']:.1f}%",
                 f"{t['modelled']:.3f}", f"{t['measured']:.3f}"] for t in lt7]
    lines.append("## Table 7 on the local runs (the same model, your runs as Table 4)\n\n"
                 "The local Alg.1-AR runs with the progress thread on give a and C as Table 4 "
                 "does (reduction wait and time per iteration), the local kernel benchmark the "
                 f"kernel split; h = {args.eta_on:.3f}. Beside it, the measured ratio of the same "
                 "runs (median solve times, progress thread on in both).\n\n"
                 + (an.md_table(lt7_head, lt7_body) if lt7 else
                    "(no local Alg.1-AR run with the progress thread on and 2+ ranks)\n") + "\n")
    res = preset_model("oakforest-pacs")
    lines.append(preset_report(res)[1].replace("# Model of Table 7", "## Model of Table 7"))
    if not an.use_agg():
        return 3
    outdir = args.figdir or args.dir
    os.makedirs(outdir, exist_ok=True)
    fw = an.FigureWriter(outdir, args.force)
    plot(proj, args, kappa, fw)
    fw.text("model.md", "".join(lines), "model projection table (Markdown)")
    path = fw.target("model_projection.csv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("nodes,cores,solver,t_ar_us,t_iar_on_us,t_iar_off_us,modelled,published\n")
        for r in proj:
            for s in ("pipecg", "gropp"):
                pub = paper_gain(r["cores"], s)
                f.write(f"{r['nodes']},{r['cores']},{s},{1e6 * r[(s, 'ar', 'on')]['total']:.3f},"
                        f"{1e6 * r[(s, 'iar', 'on')]['total']:.3f},"
                        f"{1e6 * r[(s, 'iar', 'off')]['total']:.3f},{table7_of(r, s):.6f},"
                        f"{pub if pub else ''}\n")
    print(f"  wrote {path}: data of model_projection.png")
    path = fw.target("model_table7.csv")
    write_preset_csv(path, res)
    print(f"  wrote {path}: the Table 7 model from Table 4 (leave-one-out), as --preset")
    print("  " + " | ".join(TABLE_HEAD))
    for r in proj:
        print("  " + " | ".join(str(c) for c in table_row(r)))
    if lt7:
        print(f"  Table 7 on the local runs (their Alg.1-AR as Table 4, h = {args.eta_on:.3f}): "
              + " | ".join(lt7_head))
        for b in lt7_body:
            print("    " + " | ".join(b))
    return 0


# Table 4 of the study: share of MPI_Allreduce in Alg.1's CG loop (Oakforest-PACS) [%]
PAPER_TABLE4 = {c: 100 * a / t for c, (t, a) in PUBLISHED_TABLE4.items()}
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
    fig, axes = an.new_figure(1, 2)
    ax1, ax2 = axes[0]
    cores = [r["cores"] for r in proj]
    for s, red, setting, style in (("pcg", "ar", "off", "-"), ("cgcg", "ar", "off", "-"),
                                   ("pipecg", "ar", "off", "-"), ("pipecg", "iar", "off", "--"),
                                   ("pipecg", "iar", "on", ":"), ("gropp", "ar", "off", "-"),
                                   ("gropp", "iar", "off", "--"), ("gropp", "iar", "on", ":")):
        ax1.plot(cores, [1e6 * r[(s, red, setting)]["total"] for r in proj], marker="o",
                 linestyle=style, color=an.SOLVER_COLOR[s],
                 label=f"{an.SOLVER_SHORT[s]} {red.upper()}"
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
        ax2.plot(cores, gain, marker="o", color=an.SOLVER_COLOR[s],
                 label=f"model {an.SOLVER_SHORT[s]}: AR / IAR, thread on in both")
        pc = sorted(PUBLISHED_TABLE7[s])
        ax2.plot(pc, [PUBLISHED_TABLE7[s][c] for c in pc], marker="s", linestyle="none",
                 markersize=8, markerfacecolor="none", color=an.SOLVER_COLOR[s],
                 label=f"published Table 7 ({an.SOLVER_SHORT[s]} AR / IAR)")
        loo = sorted((r["cores"], r["modelled"]) for r in preset["rows"] if r["solver"] == s)
        ax2.plot([c for c, _ in loo], [m for _, m in loo], marker="x", linestyle="--",
                 color=an.SOLVER_COLOR[s],
                 label=f"model from Table 4, leave-one-out ({an.SOLVER_SHORT[s]})")
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


if __name__ == "__main__":
    sys.exit(main())
