/* test_krylov_deep.c: p(l)-CG (plcg) and s-step CG (sstep) on the GeoFEM/Cube problem, and the
 * residual-gap guard (--replace-every auto).
 *   --mode pipecg   : p(1)-CG's iterates equal pipecg's (both CG's in exact arithmetic): x after
 *                     10 and 20 iterations within 1e-8 relative, same iteration count (+-1).
 *   --mode every    : every L in 1..8 and S in 1..10 (chebyshev, newton) converges, analytic
 *                     check, true residual <= 10 tol and within 10x of Alg.1's, iterations
 *                     within +10 % of Alg.1 for L <= 3 and S <= 5 (s-step sees convergence at
 *                     block ends: run it where Alg.1 takes enough iterations, e.g. Jacobi);
 *                     operations per iteration: plcg 1 SpMV, 1 M^-1, L+1 dots, 1 reduction;
 *                     sstep 1 SpMV, 1 M^-1, 1/S reductions.
 *                     (--mode ranks: the first half of the histories to 1e-6, iterations to
 *                     max(2, 3 %).)
 *   --mode ranks    : the same residual history and iterations on this communicator as on one
 *                     rank (MPI_COMM_SELF; point-block Jacobi, whose M^-1 does not depend on the
 *                     partition), 1e-6 relative per iteration.
 *   --mode guard    : pipecg at tol 1e-13, no preconditioner: without replacement the true
 *                     residual drifts above 10x the recursive one; with --replace-every auto the
 *                     guard replaces (listed iterations) and the true residual reaches tol.
 *   --mode restart  : a checkpoint mid-solve restarts the solve bit for bit (x and the residual
 *                     history of the checkpointing run), and the answer is the one without
 *                     checkpoints to 1e-6 relative.
 *   --mode refuse   : pipeline depth 0 / 9, S 0 / 11, spectrum bounds [1, 0.5] and [-1, 2]: the
 *                     solve refuses with CC_ERR_ARG naming the value.
 * Options: --nx --ny --nz (8 6 7) --precond NAME (asdd) --tol (1e-8)
 */
#include "test_krylov_util.h"

#include <omp.h>

static const char *precond_name = "asdd";
static double tol               = 1e-8;

static void opts_default(cc_krylov_opts *o, cc_reduction_mode mode)
{
  memset(o, 0, sizeof *o);
  o->tol       = tol;
  o->maxit     = 3000;
  o->reduction = mode;
}

static cc_err run(const tk_problem *p, cc_precond *pc, const char *name, const cc_krylov_opts *o,
                  double *x, cc_solve_result *res)
{
  memset(x, 0, 3 * (size_t)p->mesh.n_total * sizeof(double));
  return cc_krylov_solve(cc_krylov_find(name), &p->a, &p->mesh.comm, pc, p->b, x, o, res);
}

static double analytic(const tk_problem *p, const double *x)
{
  double err;
  TEST_CALL(cc_mesh_analytic_error(&p->mesh, &p->params, x, &err));
  return err;
}

/* max |x - y| / max |y| over every rank */
static double rel_diff(const tk_problem *p, const double *x, const double *y)
{
  double d = 0.0, m = 0.0;
  for (int64_t i = 0; i < 3 * (int64_t)p->a.n_rows; i++) {
    d = fmax(d, fabs(x[i] - y[i]));
    m = fmax(m, fabs(y[i]));
  }
  MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return d / (m > 0.0 ? m : 1.0);
}

static void mode_pipecg(const tk_problem *p, cc_precond *pc, double *x)
{
  double *xp = NULL;
  TEST_CALL(cc_malloc(3 * (size_t)p->mesh.n_total, sizeof(double), &xp));
  cc_krylov_opts o;
  cc_solve_result rp, rl;
  for (int maxit = 10; maxit <= 20; maxit += 10) {
    opts_default(&o, CC_REDUCTION_IAR);
    o.maxit = maxit;
    TEST_CALL(run(p, pc, "pipecg", &o, xp, &rp));
    o.pipeline_depth = 1;
    TEST_CALL(run(p, pc, "plcg", &o, x, &rl));
    double d = rel_diff(p, x, xp);
    if (test_rank == 0)
      printf("p(1)-CG vs pipecg after %d iterations: x differs by %.2e\n", maxit, d);
    TEST_EXPECT(rp.iterations == maxit && rl.iterations == maxit && d <= 1e-8,
                "after %d iterations (pipecg %d, plcg %d): x differs by %g relative", maxit,
                rp.iterations, rl.iterations, d);
  }
  opts_default(&o, CC_REDUCTION_IAR);
  TEST_CALL(run(p, pc, "pipecg", &o, xp, &rp));
  o.pipeline_depth = 1;
  TEST_CALL(run(p, pc, "plcg", &o, x, &rl));
  if (test_rank == 0)
    printf("converged: pipecg %d iterations, p(1)-CG %d (natural-norm estimate below tol at %d)\n",
           rp.iterations, rl.iterations, rl.natural_iteration);
  TEST_EXPECT(rp.converged && rl.converged && abs(rp.iterations - rl.iterations) <= 1,
              "pipecg %d iterations, p(1)-CG %d", rp.iterations, rl.iterations);
  TEST_EXPECT(rel_diff(p, x, xp) <= 10 * tol, "converged answers differ by %g", rel_diff(p, x, xp));
  cc_free(&xp);
}

static void check_solve(const tk_problem *p, const double *x, const cc_solve_result *r,
                        const char *what, int n_pcg, double true_pcg, int iteration_goal)
{
  double err = analytic(p, x);
  if (test_rank == 0)
    printf("%-22s %4d it (pcg %d)  true %.2e (pcg %.2e)  analytic %.2e  ops/it spmv %.2f precond "
           "%.2f dot %.2f red %.3f axpy %.2f  %s\n",
           what, r->iterations, n_pcg, r->true_rel_residual, true_pcg, err,
           r->ops_per_iteration[CC_T_SPMV], r->ops_per_iteration[CC_T_PRECOND],
           r->ops_per_iteration[CC_T_DOT], r->ops_per_iteration[CC_T_REDUCTION],
           r->ops_per_iteration[CC_T_AXPY], r->label);
  TEST_EXPECT(r->converged, "%s: not converged: %s", what, r->failure);
  TEST_EXPECT(err < 1e-6, "%s: analytic error %g", what, err);
  TEST_EXPECT(r->true_rel_residual <= 10 * tol && r->true_rel_residual <= 10 * true_pcg,
              "%s: true residual %g (tol %g, pcg %g)", what, r->true_rel_residual, tol, true_pcg);
  if (iteration_goal)
    TEST_EXPECT(r->iterations <= 1.1 * n_pcg, "%s: %d iterations > 1.1 x pcg's %d", what,
                r->iterations, n_pcg);
}

static void mode_every(const tk_problem *p, cc_precond *pc, double *x)
{
  cc_krylov_opts o;
  cc_solve_result r;
  opts_default(&o, CC_REDUCTION_AR);
  TEST_CALL(run(p, pc, "pcg", &o, x, &r));
  const int n_pcg       = r.iterations;
  const double true_pcg = r.true_rel_residual;
  TEST_EXPECT(r.converged && n_pcg > 10, "pcg: %d iterations", n_pcg);
  int table1_checked = 0;
  for (int l = 1; l <= CC_PLCG_MAX_DEPTH; l++) {
    opts_default(&o, l % 2 ? CC_REDUCTION_IAR : CC_REDUCTION_AR);
    o.pipeline_depth = l;
    TEST_CALL(run(p, pc, "plcg", &o, x, &r));
    char what[32];
    snprintf(what, sizeof what, "plcg L=%d %s", l, r.reduction);
    check_solve(p, x, &r, what, n_pcg, true_pcg, l <= 3);
    char label[24];
    snprintf(label, sizeof label, "plcg-l%d", l);
    TEST_EXPECT(!strcmp(r.label, label) && r.pipeline_depth == l, "%s: label '%s'", what, r.label);
    /* Table 1 as run, while the natural-norm estimate decides: the same solve stopped at the
     * iteration before natural_iteration (once the estimate is below tol, each iteration also
     * computes the true residual, 1 SpMV and 1 dot more, and the pipeline runs l - 1 iterations
     * past the x it returns until that x's test completes); without square-root restarts, each of
     * which drains the pipeline and fills it again (1 + L SpMV and M^-1 more) */
    if (r.natural_iteration > 2) {
      cc_krylov_opts o_nat = o;
      cc_solve_result r_nat;
      o_nat.maxit = r.natural_iteration - 1;
      TEST_CALL(run(p, pc, "plcg", &o_nat, x, &r_nat));
      const double *q = r_nat.ops_per_iteration;
      if (r_nat.sqrt_breakdowns == 0) table1_checked++;
      TEST_EXPECT(r_nat.sqrt_breakdowns > 0 || /* a restart refills the pipeline: 1 + L more */
                      (!r_nat.converged && r_nat.iterations == o_nat.maxit && q[CC_T_SPMV] == 1 &&
                       q[CC_T_PRECOND] == 1 && q[CC_T_REDUCTION] == 1 && q[CC_T_DOT] == l + 1),
                  "%s per iteration (maxit %d: %d iterations): spmv %g precond %g reductions %g "
                  "dots %g (L+1 = %d)",
                  what, o_nat.maxit, r_nat.iterations, q[CC_T_SPMV], q[CC_T_PRECOND],
                  q[CC_T_REDUCTION], q[CC_T_DOT], l + 1);
      /* the modelled vector traffic is the one counted at this L (the model once held L = 2's
       * 6 passes, 19 reads, 6 writes at every depth) */
      const cc_krylov_traffic m = cc_krylov_vector_traffic_at(cc_krylov_find("plcg"), 0, l);
      TEST_EXPECT(r_nat.sqrt_breakdowns > 0 || (r_nat.vector_passes_per_iteration == m.passes &&
                                                r_nat.vector_reads_per_iteration == m.reads &&
                                                r_nat.vector_writes_per_iteration == m.writes),
                  "%s vector traffic per iteration: %g passes %g reads %g writes counted, model "
                  "%d %d %d",
                  what, r_nat.vector_passes_per_iteration, r_nat.vector_reads_per_iteration,
                  r_nat.vector_writes_per_iteration, m.passes, m.reads, m.writes);
      TEST_CALL(run(p, pc, "plcg", &o, x, &r)); /* x and r of the converged solve again */
    }
    TEST_EXPECT(!strcmp(r.spectrum_source, "lanczos") && r.spectrum_max > r.spectrum_min &&
                    r.spectrum_min > 0.0,
                "%s: spectrum [%g, %g] from '%s'", what, r.spectrum_min, r.spectrum_max,
                r.spectrum_source);
  }
  printf("plcg: Table 1 checked as run at %d of %d depths\n", table1_checked, CC_PLCG_MAX_DEPTH);
  TEST_EXPECT(table1_checked >= 1, "plcg: Table 1 checked at no depth (every solve restarted?)");
  for (int basis = CC_SSTEP_CHEBYSHEV; basis <= CC_SSTEP_NEWTON; basis++)
    for (int s = 1; s <= CC_SSTEP_MAX; s++) {
      opts_default(&o, s % 2 ? CC_REDUCTION_IAR : CC_REDUCTION_AR);
      o.sstep       = s;
      o.sstep_basis = (cc_sstep_basis)basis;
      TEST_CALL(run(p, pc, "sstep", &o, x, &r));
      char what[40];
      snprintf(what, sizeof what, "sstep S=%d %s %s", s, cc_sstep_basis_list[basis].name,
               r.reduction);
      check_solve(p, x, &r, what, n_pcg, true_pcg, s <= 5);
      const double *q = r.ops_per_iteration;
      TEST_EXPECT(q[CC_T_SPMV] == 1 && q[CC_T_PRECOND] == 1 &&
                      fabs(q[CC_T_REDUCTION] - 1.0 / s) < 1e-12,
                  "%s per iteration: spmv %g precond %g reductions %g (1/S = %g)", what,
                  q[CC_T_SPMV], q[CC_T_PRECOND], q[CC_T_REDUCTION], 1.0 / s);
      TEST_EXPECT(r.sstep == s && r.basis_condition >= 1.0 && isfinite(r.basis_condition),
                  "%s: S %d, basis condition %g", what, r.sstep, r.basis_condition);
    }
}

static void mode_ranks(const tk_problem *p, cc_precond *pc, double *x)
{
  /* the reference on rank 0 alone: the whole cube on MPI_COMM_SELF */
  const char *names[] = {"plcg", "sstep"};
  /* L = 2: deeper pipelines restart after square-root breakdowns (Jacobi, 8x6x7: L = 3 once on
   * one rank, never on two), whose place moves with the rounding, so their histories part */
  const int depth[] = {2, 0}, steps[] = {0, 4};
  for (int v = 0; v < 2; v++) {
    cc_krylov_opts o;
    cc_solve_result r, r1;
    enum { CAP = 4000 };
    static double h[CAP], h1[CAP];
    opts_default(&o, CC_REDUCTION_IAR);
    o.pipeline_depth = depth[v], o.sstep = steps[v];
    o.history = h, o.history_cap = CAP;
    TEST_CALL(run(p, pc, names[v], &o, x, &r));
    if (test_rank == 0) {
      tk_problem q;
      tk_problem_create_on(p->params.nx, p->params.ny, p->params.nz, MPI_COMM_SELF, &q);
      cc_precond *qc;
      cc_precond_params pp = {.name = precond_name, .asdd_iters = 2, .ordering = NULL};
      TEST_CALL(cc_precond_create(&pp, &q.a, &q.mesh.comm, &qc));
      double *xq = NULL;
      TEST_CALL(cc_calloc(3 * (size_t)q.mesh.n_total, sizeof(double), &xq));
      o.history = h1;
      TEST_CALL(
          cc_krylov_solve(cc_krylov_find(names[v]), &q.a, &q.mesh.comm, qc, q.b, xq, &o, &r1));
      cc_free(&xq);
      cc_precond_destroy(&qc);
      tk_problem_free(&q);
    }
    MPI_Bcast(&r1, sizeof r1, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Bcast(h1, CAP, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    /* rounding differs with the partition (sums in another order) and Krylov methods amplify
     * it as they converge: the first half of the histories agree to 1e-6, the iteration counts
     * to max(2, 3 %) */
    double dh = 0.0;
    int len   = r.history_len < r1.history_len ? r.history_len : r1.history_len;
    for (int i = 0; i < len / 2; i++) dh = fmax(dh, fabs(h[i] - h1[i]) / h1[i]);
    const int slack = (int)fmax(2.0, 0.03 * r1.iterations);
    if (test_rank == 0)
      printf("%-9s %d ranks x %d threads: %d iterations (1 rank: %d), history max rel diff %.2e\n",
             r.label, tk_size, omp_get_max_threads(), r.iterations, r1.iterations, dh);
    TEST_EXPECT(r.converged && r1.converged && abs(r.iterations - r1.iterations) <= slack &&
                    dh <= 1e-6,
                "%s: %d iterations on %d ranks, %d on 1; histories differ by %g", r.label,
                r.iterations, tk_size, r1.iterations, dh);
    TEST_EXPECT(analytic(p, x) < 1e-6, "%s: analytic error %g", r.label, analytic(p, x));
  }
}

static void mode_guard(const tk_problem *p, cc_precond *pc, double *x)
{
  cc_krylov_opts o;
  cc_solve_result off, on;
  opts_default(&o, CC_REDUCTION_IAR);
  o.tol = 1e-13;
  TEST_CALL(run(p, pc, "pipecg", &o, x, &off));
  o.replace_every = CC_REPLACE_AUTO;
  TEST_CALL(run(p, pc, "pipecg", &o, x, &on));
  if (test_rank == 0) {
    printf("pipecg tol 1e-13, no replacement: %d it, recursive %.2e, true %.2e (%s)\n",
           off.iterations, off.rel_residual, off.true_rel_residual,
           off.converged ? "converged" : off.failure);
    printf("pipecg tol 1e-13, --replace-every auto: %d it, recursive %.2e, true %.2e, %d "
           "replacements at",
           on.iterations, on.rel_residual, on.true_rel_residual, on.replacements);
    for (int i = 0; i < on.replacements && i < CC_MAX_REPLACEMENTS; i++)
      printf(" %d", on.replacement_iteration[i]);
    printf(", largest gap estimate %.2e\n", on.gap_estimate_max);
  }
  /* the case loses accuracy: without replacement the true residual drifts from the recursive,
   * or the recurrences break down before tol */
  TEST_EXPECT(off.breakdown || off.true_rel_residual > 10 * fmax(off.rel_residual, o.tol),
              "the case does not lose accuracy: true %g, recursive %g", off.true_rel_residual,
              off.rel_residual);
  TEST_EXPECT(on.converged && on.replacements >= 1 && on.true_rel_residual <= 10 * o.tol &&
                  on.true_rel_residual <= 10 * on.rel_residual,
              "guard: converged %d, %d replacements, true %g, recursive %g", on.converged,
              on.replacements, on.true_rel_residual, on.rel_residual);
  TEST_EXPECT(on.gap_estimate_max > 0.0 && on.replacement_iteration[0] > 0,
              "guard: gap estimate %g, first replacement at %d", on.gap_estimate_max,
              on.replacement_iteration[0]);
}

typedef struct {
  int calls, iteration, keep; /* keep the checkpoint taken at iteration `keep` */
  double *v[CC_STATE_MAX_VECTORS];
  cc_solver_state saved;
} keep_ckpt;

static cc_err keep_one(void *ctx, const cc_solver_state *st)
{
  keep_ckpt *c = ctx;
  c->calls++;
  if (st->iteration == c->keep) {
    c->saved     = *st;
    c->iteration = st->iteration;
    for (int i = 0; i < st->n_vectors; i++) {
      CC_CALL(cc_malloc((size_t)st->n_local, sizeof(double), &c->v[i]));
      memcpy(c->v[i], st->vector[i], (size_t)st->n_local * sizeof(double));
      c->saved.vector[i] = c->v[i];
    }
  }
  return CC_OK;
}

/* o: checkpoints every 8 iterations with checkpoint_exact into ck (keeping iteration `keep`),
 * the residual history into h */
static void exact_checkpoints(cc_krylov_opts *o, keep_ckpt *ck, int keep, double *h, int cap)
{
  memset(ck, 0, sizeof *ck);
  ck->keep            = keep;
  o->checkpoint       = keep_one;
  o->checkpoint_ctx   = ck;
  o->checkpoint_every = 8;
  o->checkpoint_exact = 1;
  memset(h, 0, (size_t)cap * sizeof *h);
  o->history = h, o->history_cap = cap;
}

/* Checkpoints every 8 iterations (a multiple of sstep's S = 4: a block end) with
 * checkpoint_exact; the state of
 * iteration 16 restarts the solve (checkpointing on the same schedule), which must continue bit
 * for bit as the checkpointing run did:
 * the same final x on every rank, the same iterations, the same residual history from 16 on.
 * Also: the answer is the one without checkpoints to 1e-6 (checkpoints restart the recurrence). */
static void mode_restart(const tk_problem *p, cc_precond *pc, double *x)
{
  enum { CAP = 4000 };
  static double hp[CAP], hr[CAP];
  const int64_t n = 3 * (int64_t)p->a.n_rows;
  double *xref = NULL, *xpart = NULL;
  TEST_CALL(cc_malloc(3 * (size_t)p->mesh.n_total, sizeof(double), &xref));
  TEST_CALL(cc_malloc(3 * (size_t)p->mesh.n_total, sizeof(double), &xpart));
  const char *names[] = {"plcg", "plcg", "sstep"};
  const int depth[]   = {2, 3, 0};
  for (int v = 0; v < 3; v++) {
    cc_krylov_opts o;
    cc_solve_result full, part, rest;
    opts_default(&o, CC_REDUCTION_IAR);
    o.pipeline_depth = depth[v];
    TEST_CALL(run(p, pc, names[v], &o, xref, &full));
    keep_ckpt ck;
    exact_checkpoints(&o, &ck, 16, hp, CAP);
    TEST_CALL(run(p, pc, names[v], &o, xpart, &part));
    const int n_vec = !strcmp(names[v], "sstep") ? 2 : 1;
    TEST_EXPECT(ck.iteration == 16 && ck.saved.n_vectors == n_vec &&
                    !strcmp(ck.saved.vector_name[0], "x"),
                "%s: %d checkpoints, kept iteration %d with %d vectors", names[v], ck.calls,
                ck.iteration, ck.saved.n_vectors);
    if (ck.iteration != 16) continue;
    keep_ckpt later; /* the restarted run checkpoints on the same schedule, keeping none */
    opts_default(&o, CC_REDUCTION_IAR);
    o.pipeline_depth = depth[v];
    o.restart        = &ck.saved;
    exact_checkpoints(&o, &later, -1, hr, CAP);
    TEST_CALL(run(p, pc, names[v], &o, x, &rest));
    int64_t differ = 0;
    for (int64_t i = 0; i < n; i++) differ += memcmp(&x[i], &xpart[i], sizeof(double)) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int hist_differ = rest.history_len != part.history_len - 16;
    for (int j = 0; j < rest.history_len && j + 16 < CAP; j++)
      hist_differ += memcmp(&hr[j], &hp[j + 16], sizeof(double)) != 0;
    double d = rel_diff(p, x, xref);
    if (test_rank == 0)
      printf("%-6s %d: uninterrupted %d iterations, with checkpoints %d; restart at %d -> %d, "
             "%lld entries of x and %d of the history differ bitwise; |x - x(no checkpoints)| "
             "%.2e\n",
             names[v], depth[v], full.iterations, part.iterations, ck.iteration, rest.iterations,
             (long long)differ, hist_differ, d);
    TEST_EXPECT(rest.converged && rest.start_iteration == 16 && !rest.restart_rebuilt,
                "%s restart: converged %d from %d (rebuilt %d)", names[v], rest.converged,
                rest.start_iteration, rest.restart_rebuilt);
    TEST_EXPECT(rest.iterations == part.iterations && differ == 0 && hist_differ == 0,
                "%s restart: %d iterations against %d, %lld entries of x and %d of the history "
                "differ bitwise from the checkpointing run's",
                names[v], rest.iterations, part.iterations, (long long)differ, hist_differ);
    TEST_EXPECT(d <= 1e-6 && analytic(p, x) < 1e-6, "%s restart: x differs by %g", names[v], d);
    for (int i = 0; i < CC_STATE_MAX_VECTORS; i++) cc_free(&ck.v[i]);
    /* without checkpoint_exact: checkpoints cost no iteration, a restart reaches the answer */
    memset(&ck, 0, sizeof ck);
    ck.keep = 16;
    opts_default(&o, CC_REDUCTION_IAR);
    o.pipeline_depth = depth[v];
    o.checkpoint = keep_one, o.checkpoint_ctx = &ck, o.checkpoint_every = 8;
    TEST_CALL(run(p, pc, names[v], &o, xpart, &part));
    TEST_EXPECT(part.iterations == full.iterations && ck.iteration == 16,
                "%s: checkpoints without checkpoint_exact: %d iterations against %d", names[v],
                part.iterations, full.iterations);
    if (ck.iteration != 16) continue;
    opts_default(&o, CC_REDUCTION_IAR);
    o.pipeline_depth = depth[v];
    o.restart        = &ck.saved;
    TEST_CALL(run(p, pc, names[v], &o, x, &rest));
    d = rel_diff(p, x, xref);
    if (test_rank == 0)
      printf("%-6s %d: not exact: restart at 16 -> %d iterations (uninterrupted %d), |x - xref| "
             "%.2e\n",
             names[v], depth[v], rest.iterations, full.iterations, d);
    TEST_EXPECT(rest.converged && rest.start_iteration == 16 && d <= 1e-6 && analytic(p, x) < 1e-6,
                "%s restart (not exact): converged %d from %d, x differs by %g", names[v],
                rest.converged, rest.start_iteration, d);
    for (int i = 0; i < CC_STATE_MAX_VECTORS; i++) cc_free(&ck.v[i]);
  }
  cc_free(&xref);
  cc_free(&xpart);
}

static void expect_refusal(const tk_problem *p, cc_precond *pc, double *x, const char *name,
                           const cc_krylov_opts *o, const char *text)
{
  cc_solve_result r;
  cc_err err = run(p, pc, name, o, x, &r);
  TEST_EXPECT(err == CC_ERR_ARG && strstr(cc_error_message(), text),
              "%s: expected a refusal naming '%s', got %d '%s'", name, text, err,
              cc_error_message());
  cc_error_clear();
}

static void mode_refuse(const tk_problem *p, cc_precond *pc, double *x)
{
  cc_krylov_opts o;
  opts_default(&o, CC_REDUCTION_AR);
  o.pipeline_depth = 9;
  expect_refusal(p, pc, x, "plcg", &o, "depth 9");
  o.pipeline_depth = -1;
  expect_refusal(p, pc, x, "plcg", &o, "depth -1");
  opts_default(&o, CC_REDUCTION_AR);
  o.spectrum_min = 1.0, o.spectrum_max = 0.5;
  expect_refusal(p, pc, x, "plcg", &o, "[1, 0.5]");
  o.spectrum_min = -1.0, o.spectrum_max = 2.0;
  expect_refusal(p, pc, x, "sstep", &o, "[-1, 2]");
  opts_default(&o, CC_REDUCTION_AR);
  o.sstep = 11;
  expect_refusal(p, pc, x, "sstep", &o, "S = 11");
  o.sstep = -2;
  expect_refusal(p, pc, x, "sstep", &o, "S = -2");
}

int main(int argc, char **argv)
{
  tk_init(&argc, &argv);
  const char *mode = tk_arg(argc, argv, "--mode", "every");
  precond_name     = tk_arg(argc, argv, "--precond", "asdd");
  tol              = atof(tk_arg(argc, argv, "--tol", "1e-8"));
  tk_problem p;
  tk_problem_create_on(atoi(tk_arg(argc, argv, "--nx", "8")), atoi(tk_arg(argc, argv, "--ny", "6")),
                       atoi(tk_arg(argc, argv, "--nz", "7")), MPI_COMM_WORLD, &p);
  cc_precond *pc;
  cc_precond_params pp = {.name = precond_name, .asdd_iters = 2, .ordering = NULL};
  TEST_CALL(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc));
  double *x = NULL;
  TEST_CALL(cc_calloc(3 * (size_t)p.mesh.n_total, sizeof(double), &x));
  if (test_rank == 0)
    printf("%s: %dx%dx%d, %d ranks x %d threads, precond %s, tol %g\n", mode, p.params.nx,
           p.params.ny, p.params.nz, tk_size, omp_get_max_threads(), precond_name, tol);
  if (!strcmp(mode, "pipecg"))
    mode_pipecg(&p, pc, x);
  else if (!strcmp(mode, "every"))
    mode_every(&p, pc, x);
  else if (!strcmp(mode, "ranks"))
    mode_ranks(&p, pc, x);
  else if (!strcmp(mode, "guard"))
    mode_guard(&p, pc, x);
  else if (!strcmp(mode, "restart"))
    mode_restart(&p, pc, x);
  else if (!strcmp(mode, "refuse"))
    mode_refuse(&p, pc, x);
  else
    TEST_EXPECT(0, "unknown --mode %s", mode);
  cc_free(&x);
  cc_precond_destroy(&pc);
  tk_problem_free(&p);
  return test_finish("krylov_deep");
}
