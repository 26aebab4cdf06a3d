#!/usr/bin/python3
"""plcg_petsc.py: cubecg's p(l)-CG against PETSc's KSPPIPELCG on the same matrix.

cubecg exports its matrix (--export-matrix, Matrix Market, global DOF numbering) and solves with
--solver plcg --pipeline-depth L --precond jacobi (3x3 point-block Jacobi); PETSc (petsc4py, the
Debian package, visible to /usr/bin/python3 only) solves the same matrix with KSPPIPELCG, the same
L, the same eigenvalue bounds (those cubecg used: its Lanczos estimate, or --bounds), PCPBJACOBI
with block size 3, the same relative tolerance on the natural norm sqrt(r^T M^-1 r) (PETSc's norm
for PIPELCG; cubecg's natural_norm_iteration is where its estimate fell below tol) and the
right-hand side cubecg solves (its load vector, exported beside the matrix as A.mtx.rhs.mtx).
--pc exported gives PETSc cubecg's own point-block inverse (A.mtx.pbjacobi.mtx, applied by PCMAT)
instead of PCPBJACOBI's: then the two runs differ only in the order of floating-point operations.
--history prints both natural-norm histories (cubecg's from CUBECG_PLCG_TRACE, PETSc's from its
monitor) and the first iteration where they part by more than 1e-10 relative.

  /usr/bin/python3 bench/plcg_petsc.py --cubecg build/src/cubecg [--nx 10 --ny 10 --nz 10]
      [--depths 1,2,3,5] [--tol 1e-8] [--bounds LMIN,LMAX] [--goal 0.05] [--out DIR]
      [--pc pbjacobi|exported] [--history] [--agree N] [--count-depths 1,2]
      [--perturb N [--median-depths 3,5] [--statistic median|mean]]

Prints one line per L (iterations of both, their relative difference) and exits 1 when a
difference exceeds --goal at a depth of --count-depths (default: every depth), or when --agree N
is given and the two natural-norm histories part (by more than 1e-10 relative) within their
first N entries at any depth (same algorithm: only rounding may separate them, and it needs
iterations to grow), or when the medians (--statistic mean: the means) over --perturb N moved
bounds differ by more than --goal at a depth of --median-depths (where square-root breakdowns
fall is chaotic in rounding at L >= 3 on both sides, so a single point does not measure the
algorithm; a distribution does. The counts cluster by the number of restarts, and a median can
jump from one cluster to the next where the means agree: the mean is the expected cost), 77 when petsc4py is not installed (ctest's skip code), 0 otherwise."""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

SKIP = 77


def read_header(f, path, kind):
    """The size line of an open Matrix Market 'KIND real' file (KIND: coordinate or array)."""
    header = f.readline()
    if kind not in header or "real" not in header:
        raise SystemExit(f"{path}: not a real {kind} Matrix Market file: {header.strip()}")
    line = f.readline()
    while line.startswith("%"):
        line = f.readline()
    return [int(v) for v in line.split()]


def read_matrix_market(path):
    """rows, cols, values (0-based) and n of a 'coordinate real general' file."""
    with open(path, encoding="ascii") as f:
        n, m, nnz = read_header(f, path, "coordinate")
        rows, cols, vals = [], [], []
        for _ in range(nnz):
            i, j, v = f.readline().split()
            rows.append(int(i) - 1)
            cols.append(int(j) - 1)
            vals.append(float(v))
    if n != m:
        raise SystemExit(f"{path}: {n} x {m} is not square")
    return n, rows, cols, vals


def read_array(path):
    """The column of a Matrix Market 'array real general' file (n x 1)."""
    with open(path, encoding="ascii") as f:
        n, m = read_header(f, path, "array")
        values = [float(f.readline()) for _ in range(n * m)]
    if m != 1:
        raise SystemExit(f"{path}: {n} x {m} is not a column")
    return values


def petsc_matrix(PETSc, path):
    """A sequential AIJ matrix (block size 3) from a sorted coordinate Matrix Market file."""
    n, rows, cols, vals = read_matrix_market(path)
    indptr, indices, data = [0] * (n + 1), [0] * len(rows), [0.0] * len(rows)
    for r in rows:
        indptr[r + 1] += 1
    for i in range(n):
        indptr[i + 1] += indptr[i]
    fill = indptr[:-1].copy()
    for r, c, v in zip(rows, cols, vals):  # the file is sorted by (row, col): CSR as read
        indices[fill[r]], data[fill[r]] = c, v
        fill[r] += 1
    A = PETSc.Mat().createAIJ(size=(n, n), csr=(indptr, indices, data), bsize=3,
                              comm=PETSc.COMM_SELF)
    A.assemble()
    return A


def first_parting(ours, theirs, rel=1e-10):
    """The first index where two histories differ by more than rel (relative), or None."""
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if abs(a - b) > rel * max(abs(a), abs(b)):
            return i
    return None


def petsc_solve(PETSc, A, b, depth, bounds, tol, pinv=None, history=None):
    """KSPPIPELCG's iterations, converged reason and square-root breakdown restarts (counted from
    its -ksp_pipelcg_monitor lines, which PETSc prints to stdout: fd 1 is captured meanwhile).
    pinv: the preconditioner as a matrix (PCMAT), else PCPBJACOBI; history: a list that receives
    the monitor's natural norms."""
    ksp = PETSc.KSP().create(comm=PETSc.COMM_SELF)
    ksp.setOperators(A, pinv if pinv is not None else A)
    ksp.setType("pipelcg")
    ksp.getPC().setType("mat" if pinv is not None else "pbjacobi")
    if history is not None:
        ksp.setMonitor(lambda _ksp, _its, rnorm: history.append(rnorm))
    opts = PETSc.Options()
    values = {"ksp_pipelcg_pipel": depth, "ksp_pipelcg_lmin": bounds[0],
              "ksp_pipelcg_lmax": bounds[1], "ksp_pipelcg_monitor": 1}
    for key, value in values.items():
        opts[key] = value
    ksp.setNormType(PETSc.KSP.NormType.NATURAL)
    ksp.setTolerances(rtol=tol, atol=0.0, max_it=20000)
    ksp.setFromOptions()
    x = A.createVecRight()
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as cap:
        os.dup2(cap.fileno(), 1)
        try:
            ksp.solve(b, x)
            PETSc.Sys.syncFlush()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        cap.seek(0)
        restarts = cap.read().decode(errors="replace").count("Sqrt breakdown")
    for key in values:
        opts.delValue(key)
    return ksp.getIterationNumber(), int(ksp.getConvergedReason()), restarts


def run_cubecg(args, depth, bounds, report, matrix=None, history=None):
    """cubecg's solve record; history: a list that receives its natural norms (CUBECG_PLCG_TRACE)."""
    cmd = [args.cubecg, "--nx", str(args.nx), "--ny", str(args.ny), "--nz", str(args.nz),
           "--solver", "plcg", "--reduction", "iar", "--pipeline-depth", str(depth),
           "--precond", "jacobi", "--tol", str(args.tol), "--quiet", "--report", report]
    if bounds:
        cmd += ["--spectrum-bounds", f"{bounds[0]!r},{bounds[1]!r}"]
    if matrix:
        cmd += ["--export-matrix", matrix]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if history is not None:
        env["CUBECG_PLCG_TRACE"] = "1"
    done = subprocess.run(cmd, check=True, env=env, stderr=subprocess.PIPE, text=True)
    sys.stderr.write("".join(line + "\n" for line in done.stderr.splitlines()
                             if not line.startswith("plcg-trace ")))
    if history is not None:
        history += [float(line.split()[3]) for line in done.stderr.splitlines()
                    if line.startswith("plcg-trace natural-norm ")]
    with open(report, encoding="utf-8") as f:
        return json.load(f)["solves"][0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cubecg", required=True)
    parser.add_argument("--nx", type=int, default=10)
    parser.add_argument("--ny", type=int, default=10)
    parser.add_argument("--nz", type=int, default=10)
    parser.add_argument("--depths", default="1,2,3,5")
    parser.add_argument("--tol", type=float, default=1e-8)
    parser.add_argument("--bounds", default="", help="LMIN,LMAX (default: cubecg's estimate)")
    parser.add_argument("--goal", type=float, default=0.05)
    parser.add_argument("--out", default="")
    parser.add_argument("--perturb", type=int, default=0,
                        help="N > 0: also solve with the bounds moved by 1e-7 i relative "
                             "(i = 1..N, lmin down, lmax up) on both sides and print the medians "
                             "(where square-root breakdowns fall moves with such rounding-size "
                             "changes); the check stays on the given bounds")
    parser.add_argument("--pc", choices=("pbjacobi", "exported"), default="pbjacobi",
                        help="PETSc's preconditioner: its own PCPBJACOBI, or cubecg's exported "
                             "point-block inverse through PCMAT")
    parser.add_argument("--agree", type=int, default=0,
                        help="N > 0: fail when the natural-norm histories part within N entries")
    parser.add_argument("--count-depths", default="",
                        help="the depths held to --goal (default: every one of --depths)")
    parser.add_argument("--median-depths", default="",
                        help="with --perturb: the depths whose medians (or means) are held to --goal")
    parser.add_argument("--statistic", choices=("median", "mean"), default="median",
                        help="what --median-depths holds to --goal")
    parser.add_argument("--history", action="store_true",
                        help="print both natural-norm histories and where they first part")
    args = parser.parse_args()
    if not os.environ.get("PETSC_DIR"):
        # Debian's petsc4py.pth finds the package through PETSC_DIR or the /usr/lib/petsc
        # alternative, which only the -dev package sets: point it at the installed PETSc
        found = sorted(glob.glob("/usr/lib/petscdir/petsc*/x86_64-linux-gnu-real"))
        if found:
            os.environ["PETSC_DIR"] = found[-1]
            site = os.path.join(found[-1], "lib/python3/dist-packages")
            if site not in sys.path:
                sys.path.append(site)
    try:
        import petsc4py
        petsc4py.init([])
        from petsc4py import PETSc
    except ImportError:
        print("SKIP: petsc4py is not installed (apt-get install python3-petsc4py; /usr/bin/python3)")
        return SKIP
    out = args.out or tempfile.mkdtemp(prefix="plcg_petsc_")
    os.makedirs(out, exist_ok=True)
    matrix = os.path.join(out, "A.mtx")
    bounds = tuple(float(v) for v in args.bounds.split(",")) if args.bounds else None
    first = run_cubecg(args, 2, bounds, os.path.join(out, "estimate.json"), matrix)
    if not bounds:  # the bounds cubecg estimated, for both sides below
        bounds = (first["spectrum"]["lambda_min"], first["spectrum"]["lambda_max"])

    A = petsc_matrix(PETSc, matrix)
    n = A.getSize()[0]
    pinv = petsc_matrix(PETSc, matrix + ".pbjacobi.mtx") if args.pc == "exported" else None
    b = A.createVecLeft()
    b.setArray(read_array(matrix + ".rhs.mtx"))  # cubecg's own load vector

    failures, lines = 0, []
    print(f"{args.nx}x{args.ny}x{args.nz} nodes, {n} DOF, tol {args.tol:g}, point-block Jacobi, "
          f"bounds [{bounds[0]:.6g}, {bounds[1]:.6g}], PETSc's preconditioner: {args.pc}")
    for depth in (int(d) for d in args.depths.split(",")):
        ours_h, theirs_h = ([], []) if args.history or args.agree else (None, None)
        mine = run_cubecg(args, depth, bounds, os.path.join(out, f"cubecg_l{depth}.json"),
                          history=ours_h)
        petsc_its, reason, petsc_restarts = petsc_solve(PETSc, A, b, depth, bounds, args.tol,
                                                        pinv, theirs_h)
        part = first_parting(ours_h, theirs_h) if ours_h is not None else None
        parted = args.agree > 0 and (part is not None and part < args.agree
                                     or min(len(ours_h), len(theirs_h)) < args.agree)
        if args.agree:
            print(f"L={depth}: natural-norm histories first part (> 1e-10 relative) at entry "
                  f"{part if part is not None else 'none'} of {min(len(ours_h), len(theirs_h))}"
                  f" (required: none before {args.agree}) {'FAIL' if parted else 'ok'}")
        if args.history:
            print(f"L={depth} natural norms (entry: cubecg, PETSc):")
            for i in range(max(len(ours_h), len(theirs_h))):
                o = ours_h[i] if i < len(ours_h) else float("nan")
                t = theirs_h[i] if i < len(theirs_h) else float("nan")
                print(f"  {i:4d} {o:.17g} {t:.17g} {abs(o - t) / max(abs(o), abs(t)):.2e}"
                      f"{'  <- first parting (> 1e-10 relative)' if i == part else ''}")
        ours = mine["natural_norm_iteration"]
        diff = (ours - petsc_its) / petsc_its if petsc_its else float("inf")
        counted = not args.count_depths or str(depth) in args.count_depths.split(",")
        ok = (abs(diff) <= args.goal or not counted) and reason > 0
        failures += (not ok) + parted
        line = (f"L={depth}: cubecg plcg {ours} iterations (natural norm; {mine['iterations']} to the "
                f"true-residual test, {mine['sqrt_breakdown_restarts']} restarts), PETSc KSPPIPELCG "
                f"{petsc_its} (reason {reason}, {petsc_restarts} restarts), difference {100 * diff:+.1f} %"
                f" {('ok' if ok else 'FAIL') if counted else '(not held to the goal)'}")
        print(line)
        lines.append({"depth": depth, "cubecg": ours, "cubecg_true_test": mine["iterations"],
                      "cubecg_restarts": mine["sqrt_breakdown_restarts"], "petsc": petsc_its,
                      "petsc_restarts": petsc_restarts,
                      "relative_difference": diff, "first_parting": part})
    for depth in (int(d) for d in args.depths.split(",")) if args.perturb > 0 else ():
        ours_all, petsc_all = [], []
        for i in range(args.perturb + 1):
            moved = (bounds[0] * (1 - 1e-7 * i), bounds[1] * (1 + 1e-7 * i))
            mine = run_cubecg(args, depth, moved, os.path.join(out, f"cubecg_l{depth}_p{i}.json"))
            its, _, restarts = petsc_solve(PETSc, A, b, depth, moved, args.tol, pinv)
            ours_all.append((mine["natural_norm_iteration"], mine["sqrt_breakdown_restarts"]))
            petsc_all.append((its, restarts))
        med_o = statistics.median(v for v, _ in ours_all)
        med_p = statistics.median(v for v, _ in petsc_all)
        held = str(depth) in args.median_depths.split(",")
        mean_o = statistics.mean(v for v, _ in ours_all)
        mean_p = statistics.mean(v for v, _ in petsc_all)
        held_o, held_p = (mean_o, mean_p) if args.statistic == "mean" else (med_o, med_p)
        ok = abs(held_o - held_p) <= args.goal * held_p
        failures += held and not ok
        mean_r_o = statistics.mean(r for _, r in ours_all)
        mean_r_p = statistics.mean(r for _, r in petsc_all)
        print(f"L={depth} over {args.perturb + 1} bounds 1e-7 apart: cubecg median {med_o:g}, mean "
              f"{mean_o:.1f} (mean restarts {mean_r_o:.2f}; iterations, restarts {ours_all}), "
              f"PETSc median {med_p:g}, mean {mean_p:.1f} (mean restarts {mean_r_p:.2f}; "
              f"{petsc_all}), difference of the medians {100 * (med_o - med_p) / med_p:+.1f} %, "
              f"of the means {100 * (mean_o - mean_p) / mean_p:+.1f} % "
              f"{('ok' if ok else 'FAIL') + ' (' + args.statistic + 's)' if held else '(not held to the goal)'}")
        lines.append({"depth": depth, "perturbed": {"cubecg": ours_all, "petsc": petsc_all,
                                                    "median_cubecg": med_o,
                                                    "median_petsc": med_p,
                                                    "mean_cubecg": mean_o,
                                                    "mean_petsc": mean_p}})
    with open(os.path.join(out, "plcg_petsc.json"), "w", encoding="utf-8") as f:
        json.dump({"nx": args.nx, "ny": args.ny, "nz": args.nz, "tol": args.tol,
                   "bounds": bounds, "goal": args.goal, "runs": lines}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
