"""The model on the local reports: kernel bytes per DOF and efficiency from the kernel benchmark,
the compute calibration kappa from the local runs, the modelled time of one iteration on a target
machine, the check against the injected-latency runs, and Table 7 with the local Alg.1-AR runs
playing Table 4."""
import math
import statistics

from .. import variants as cv
from ..common import num
from ..readers.series import config_key, pick_reference
from .preset import (OVERLAP, PRECOND_KERNEL, TABLE1, ModelError, exposed, halos_in,
                           preset_gain, preset_inputs, reduction_weight)

def kernel_model(reports):
    """bytes per DOF and efficiency per kernel from the kernels report with the most ranks."""
    ks = [(p, r) for p, r in reports if r["kind"] == "kernels"]
    if not ks:
        raise ModelError("no kernels report in the folder (run cubecg-bench --report FILE)")
    path, k = max(ks, key=lambda pr: (pr[1]["ranks"] * pr[1]["threads"], pr[0]))
    dof = 3 * k["nx"] * k["ny"] * k["nz"]
    stream = num(k["stream_triad_bytes_per_s"])
    out = {}
    for e in k["kernels"]:
        bw = num(e["bytes_per_s"])
        if math.isnan(bw) or bw <= 0:
            bw = e["bytes"] / e["seconds"] if num(e["seconds"]) > 0 else math.nan
        eff = num(e.get("fraction_of_stream"))
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
        v = num(row["ops"].get(key))
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
        red += reduction_weight(ops) * exposed(lat, w, eta, n=n)  # the same model as --preset
    return dict(total=comp + t_halo + red, comp=comp, halo=t_halo, red=red, lat=lat)


def fit(rows, km, args):
    """kappa (compute calibration) from the local plain run with the most cores."""
    plain = [r for r in pick_reference(rows) if r["progress"] == "off"]
    if not plain:
        plain = pick_reference(rows)
    if not plain:
        raise ModelError("no local run report without checkpoint / injected latency to fit on")
    top = max(r["cores"] for r in plain)
    ref = [r for r in plain if r["cores"] == top]
    ranks_ref = max(r["ranks"] for r in ref)
    ref = [r for r in ref if r["ranks"] == ranks_ref]
    kappas = []
    for r in ref:
        it = max(1, r["iterations"])
        measured = sum(num(r["breakdown"].get(k)) for k in ("spmv", "precond", "axpy", "dot")) / it
        dof = 3 * math.prod(int(x) for x in r["mesh"].split("x"))
        node_bw = km["stream"] * min(1.0, top / km["cores"])  # fewer cores than the bench: less bw
        model = compute_time(ops_of(r), km, args.precond_of(r), dof, node_bw)
        if measured > 0 and model > 0:
            kappas.append(measured / model)
    if not kappas:
        raise ModelError("local runs have no compute breakdown to fit kappa on")
    precond_halo = any(num(r["breakdown"].get("precond_halo")) > 0 for r in ref if r["ranks"] > 1)
    return statistics.median(kappas), ref, precond_halo


def local_overlap_check(rows, ctx_local):
    """Injected-latency runs: measured extra time per iteration vs the overlap model (eta = 1 for
    the simulated part, which completes by wall clock)."""
    out = []
    base = {config_key(r, "latency") + (r["variant"],): r for r in rows
            if not r["ckpt"] and r["latency"] == 0}
    for r in rows:
        if r["ckpt"] or not r["latency"] or math.isnan(r["latency"]):
            continue
        b = base.get(config_key(r, "latency") + (r["variant"],))
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
                predicted += reduction_weight(ops) * max(0.0, lat - w)
            else:
                predicted += reduction_weight(ops) * lat
        out.append(dict(row=r, measured=r["tpi"] - b["tpi"], predicted=predicted))
    return out


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
