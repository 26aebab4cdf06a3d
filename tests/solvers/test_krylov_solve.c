/* test_krylov_solve.c: the four CG variants (Alg.1-4) on the GeoFEM/Cube problem.
 *   --mode variants : every variant x reduction converges to the analytic solution, true residual
 *                     <= 10 tol, iterations within max(2%, 5) of Alg.1; with --replace 0 the
 *                     per-iteration operation counts of Table 1 (measured between checkpoints).
 *   --mode accuracy : tol 1e-13, pipecg / gropp with residual replacement keep the true residual
 *                     within 10x of the recursive one (the gap without replacement is printed).
 *   --mode latency  : injected reduction latency: IAR hides part of it in pipecg / gropp, AR pays
 *                     all of it; progress=poll polls.
 *   --mode restart  : a restart from a checkpointed state reaches the uninterrupted result.
 *   --mode errors   : breakdown (indefinite A), NaN, maxit, bad options, pcg with IAR.
 *   --mode interleave: a second solve with other settings runs inside the first's monitor; both
 *                     give exactly what they give alone (no process-wide solver state).
 * Options: --nx --ny --nz (8 6 7) --precond NAME (asdd) --tol (1e-8) --replace N (0)
 *          --latency-us (2000) --analytic-tol (1e-6)
 */
#include "test_krylov_util.h"

typedef struct {
  const char *precond;
  double tol;
  int replace;
  double analytic_tol;
  double latency_us;
} tk_config;

static tk_config cfg;

/* Table 1 per iteration: AXPY-type updates and reductions of each variant. */
static void table1(const char *solver, int *axpy, int *reductions, int *n_state)
{
  *axpy = *reductions = *n_state = -1;
  if (!strcmp(solver, "pcg")) *axpy = 3, *reductions = 2, *n_state = 3;
  if (!strcmp(solver, "cgcg")) *axpy = 4, *reductions = 1, *n_state = 6;
  if (!strcmp(solver, "pipecg")) *axpy = 8, *reductions = 1, *n_state = 8;
  if (!strcmp(solver, "gropp")) *axpy = 5, *reductions = 2, *n_state = 5;
}

/* Checkpoint callback: op counts at the first and the last call, and optionally a deep copy of the
 * state at the first call (for the restart test). */
typedef struct {
  int calls, first_it, last_it, bad_state;
  int64_t first[CC_T_COUNT], last[CC_T_COUNT];
  cc_timers timers; /* the solve's timers (opts.timers), read at each checkpoint */
  int keep;
  double red_prev, red_min; /* CC_T_REDUCTION seconds at the last call, min per interval */
  cc_solver_state saved;
} tk_ckpt;

static cc_err tk_checkpoint(void *ctx, const cc_solver_state *st)
{
  tk_ckpt *c = ctx;
  int axpy, red, n_state;
  table1(st->solver, &axpy, &red, &n_state);
  if (st->n_vectors != n_state || st->n_local <= 0) c->bad_state++;
  if (c->calls == 0) {
    c->first_it = st->iteration;
    memcpy(c->first, c->timers.count, sizeof c->first);
    if (c->keep) {
      c->saved = *st;
      for (int j = 0; j < st->n_vectors; j++) { /* the names are copied with *st */
        CC_CALL(cc_malloc((size_t)st->n_local, sizeof(double), &c->saved.vector[j]));
        memcpy(c->saved.vector[j], st->vector[j], (size_t)st->n_local * sizeof(double));
      }
    }
  }
  double t_red = c->timers.seconds[CC_T_REDUCTION];
  if (c->calls == 0)
    c->red_min = INFINITY;
  else
    c->red_min = fmin(c->red_min, t_red - c->red_prev);
  c->red_prev = t_red;
  c->last_it  = st->iteration;
  memcpy(c->last, c->timers.count, sizeof c->last);
  c->calls++;
  return CC_OK;
}

static void tk_ckpt_free(tk_ckpt *c)
{
  if (c->keep)
    for (int j = 0; j < c->saved.n_vectors; j++) cc_free(&c->saved.vector[j]);
}

static void default_opts(cc_krylov_opts *o, cc_reduction_mode mode)
{
  memset(o, 0, sizeof *o);
  o->tol           = cfg.tol;
  o->maxit         = 2000;
  o->reduction     = mode;
  o->replace_every = cfg.replace;
}

/* Solve from x0 = 0 (or the restart state); returns the error code, x holds the solution. */
static cc_err solve(const tk_problem *p, cc_precond *pc, const cc_krylov *kv,
                    const cc_krylov_opts *o, double *x, cc_solve_result *res)
{
  memset(x, 0, 3 * (size_t)p->mesh.n_total * sizeof(double));
  return cc_krylov_solve(kv, &p->a, &p->mesh.comm, pc, p->b, x, o, res);
}

static double analytic(const tk_problem *p, const double *x)
{
  double err;
  TEST_CALL(cc_mesh_analytic_error(&p->mesh, &p->params, x, &err));
  return err;
}

static void mode_variants(const tk_problem *p, cc_precond *pc, double *x)
{
  cc_krylov_opts o;
  cc_solve_result res;
  default_opts(&o, CC_REDUCTION_AR);
  TEST_CALL(solve(p, pc, cc_krylov_find("pcg"), &o, x, &res));
  const int n_pcg = res.iterations;
  TEST_EXPECT(res.converged && n_pcg > 5, "pcg reference: converged %d in %d iterations (%s)",
              res.converged, n_pcg, res.failure);
  for (int v = 0; cc_krylov_list[v]; v++) {
    const cc_krylov *kv = cc_krylov_list[v];
    if (kv->deep) continue; /* p(l)-CG, s-step: test_krylov_deep.c */
    for (int mode = CC_REDUCTION_AR; mode <= CC_REDUCTION_IAR; mode++) {
      if (mode == CC_REDUCTION_IAR && !kv->supports_iar) continue;
      default_opts(&o, (cc_reduction_mode)mode);
      tk_ckpt ck;
      memset(&ck, 0, sizeof ck);
      o.checkpoint       = tk_checkpoint;
      o.checkpoint_ctx   = &ck;
      o.timers           = &ck.timers;
      o.checkpoint_every = 4;
      TEST_CALL(solve(p, pc, kv, &o, x, &res));
      double err       = analytic(p, x);
      const char *name = kv->name, *red = mode == CC_REDUCTION_AR ? "ar" : "iar";
      if (test_rank == 0)
        printf("%-6s %-3s %4d iterations (pcg %d), |r|/|b| %.2e, true %.2e, analytic %.2e, "
               "%.2e s\n",
               name, red, res.iterations, n_pcg, res.rel_residual, res.true_rel_residual, err,
               res.time_s);
      TEST_EXPECT(res.converged && res.failure[0] == '\0', "%s %s: not converged: %s", name, red,
                  res.failure);
      TEST_EXPECT(!strcmp(res.solver, name) && !strcmp(res.reduction, red),
                  "result names '%s' '%s' for %s %s", res.solver, res.reduction, name, red);
      TEST_EXPECT(err < cfg.analytic_tol, "%s %s: analytic error %g >= %g", name, red, err,
                  cfg.analytic_tol);
      TEST_EXPECT(res.true_rel_residual <= 10 * cfg.tol, "%s %s: true residual %g > 10 tol", name,
                  red, res.true_rel_residual);
      TEST_EXPECT(res.rel_residual < cfg.tol, "%s %s: recursive residual %g >= tol", name, red,
                  res.rel_residual);
      double slack = fmax(0.02 * n_pcg, 5.0);
      TEST_EXPECT(fabs((double)(res.iterations - n_pcg)) <= slack,
                  "%s %s: %d iterations vs pcg %d (allowed +-%g)", name, red, res.iterations, n_pcg,
                  slack);
      TEST_EXPECT(res.time_s > 0 && res.count[CC_T_SOLVE] == 1 && res.start_iteration == 0,
                  "%s %s: time %g, solve count %lld, start %d", name, red, res.time_s,
                  (long long)res.count[CC_T_SOLVE], res.start_iteration);
      /* the converging iteration checkpoints only in pipecg (it learns |r| one reduction later) */
      TEST_EXPECT(ck.bad_state == 0 &&
                      (ck.calls == res.iterations / 4 || ck.calls == (res.iterations - 1) / 4),
                  "%s %s: %d checkpoints (%d bad) for %d iterations every 4", name, red, ck.calls,
                  ck.bad_state, res.iterations);
      if (cfg.replace == 0 && ck.calls >= 2) {
        /* Table 1, measured between two checkpoints of the same run, and as the solver reports it
         */
        int axpy, reductions, n_state;
        double its = ck.last_it - ck.first_it;
        table1(name, &axpy, &reductions, &n_state);
        double per[CC_T_COUNT];
        for (int t = 0; t < CC_T_COUNT; t++) per[t] = (ck.last[t] - ck.first[t]) / its;
        if (test_rank == 0)
          printf("       per iteration: spmv %g precond %g dot %g axpy %g reductions %g\n",
                 per[CC_T_SPMV], per[CC_T_PRECOND], per[CC_T_DOT], per[CC_T_AXPY],
                 per[CC_T_REDUCTION]);
        for (int src = 0; src < 2; src++) {
          const double *q = src ? res.ops_per_iteration : per;
          TEST_EXPECT(q[CC_T_SPMV] == 1 && q[CC_T_PRECOND] == 1 && q[CC_T_DOT] == 3 &&
                          q[CC_T_AXPY] == axpy && q[CC_T_REDUCTION] == reductions,
                      "%s %s per iteration (%s): spmv %g precond %g dot %g axpy %g (Table 1: %d) "
                      "reductions %g (expected %d)",
                      name, red, src ? "result" : "checkpoints", q[CC_T_SPMV], q[CC_T_PRECOND],
                      q[CC_T_DOT], q[CC_T_AXPY], axpy, q[CC_T_REDUCTION], reductions);
        }
      }
    }
  }
}

static void mode_accuracy(const tk_problem *p, cc_precond *pc, double *x)
{
  const char *names[] = {"pcg", "cgcg", "pipecg", "gropp"};
  for (int v = 0; v < 4; v++)
    for (int replace = 0; replace <= 1; replace++) {
      cc_krylov_opts o;
      cc_solve_result res;
      default_opts(&o, CC_REDUCTION_AR);
      o.tol           = 1e-13;
      o.replace_every = replace ? (cfg.replace > 0 ? cfg.replace : 10) : 0;
      TEST_CALL(solve(p, pc, cc_krylov_find(names[v]), &o, x, &res));
      double gap = res.true_rel_residual / res.rel_residual;
      if (test_rank == 0)
        printf("%-6s replace %3d: %4d iterations, converged %d, |r|/|b| recursive %.2e true %.2e "
               "(ratio %.1f) %s\n",
               names[v], o.replace_every, res.iterations, res.converged, res.rel_residual,
               res.true_rel_residual, gap, res.failure);
      int pipelined = v >= 2;
      if (pipelined && replace) {
        TEST_EXPECT(res.converged, "%s with replacement every %d: %s", names[v], o.replace_every,
                    res.failure);
        TEST_EXPECT(res.true_rel_residual <= 10 * res.rel_residual,
                    "%s with replacement every %d: true %g > 10 x recursive %g", names[v],
                    o.replace_every, res.true_rel_residual, res.rel_residual);
      }
    }
}

static void mode_latency(const tk_problem *p, cc_precond *pc, double *x)
{
  /* AR pays the whole latency in every reduction (each spins >= latency after its own start); IAR
   * waits the latency minus the overlapped work. Timings on shared cores are noisy (a descheduled
   * spin lasts longer), so the IAR < AR comparison uses the least reduction time of one iteration
   * (checkpoints every iteration read the timer), which a clean iteration of each run attains. The
   * totals are printed: with several ranks the halo exchanges of the overlapped SpMV/ASDD also
   * move waiting between ranks and regions. */
  const double latency_us = cfg.latency_us;
  const char *names[]     = {"pipecg", "gropp"};
  for (int v = 0; v < 2; v++) {
    const cc_krylov *kv = cc_krylov_find(names[v]);
    int axpy, rpi, n_state;
    table1(names[v], &axpy, &rpi, &n_state);
    double per_it[2], total[2];
    /* A run disturbed in every iteration (CI once saw IAR's best iteration at 7.5 ms with other
     * jobs on the cores) is retried: the AR/IAR pair runs again, up to max_attempts times, and
     * the comparison must hold in one pair. The AR floors are lower bounds and hold in all. */
    const int max_attempts = 3;
    int attempt = 0, hidden_all = 0;
    do {
      attempt++;
      for (int mode = 0; mode < 2; mode++) {
        cc_krylov_opts o;
        cc_solve_result res;
        tk_ckpt ck;
        memset(&ck, 0, sizeof ck);
        default_opts(&o, mode ? CC_REDUCTION_IAR : CC_REDUCTION_AR);
        o.checkpoint        = tk_checkpoint;
        o.checkpoint_ctx    = &ck;
        o.timers            = &ck.timers;
        o.checkpoint_every  = 1;
        o.inject_latency_us = latency_us;
        TEST_CALL(solve(p, pc, kv, &o, x, &res));
        TEST_EXPECT(res.converged && analytic(p, x) < cfg.analytic_tol && ck.calls >= 2,
                    "%s with latency: converged %d (%s), %d checkpoints", names[v], res.converged,
                    res.failure, ck.calls);
        total[mode]  = res.seconds[CC_T_REDUCTION];
        per_it[mode] = ck.red_min;
        if (mode == 0) {
          double floor_it  = res.iterations * rpi * latency_us * 1e-6 * 0.999;
          double floor_all = res.count[CC_T_REDUCTION] * latency_us * 1e-6 * 0.999;
          TEST_EXPECT(total[0] >= floor_it && total[0] >= floor_all,
                      "%s AR: %g s in reductions < %d it x %d x %g us (%g s) or %lld x %g us",
                      names[v], total[0], res.iterations, rpi, latency_us, floor_it,
                      (long long)res.count[CC_T_REDUCTION], latency_us);
          TEST_EXPECT(per_it[0] >= rpi * latency_us * 1e-6 * 0.999,
                      "%s AR: an iteration spent %g s in %d reductions", names[v], per_it[0], rpi);
        }
        if (test_rank == 0)
          printf("%-6s %-3s %g us injected: %d it, %lld reductions, %.4f s reducing (rank 0), "
                 "least per iteration %.0f us\n",
                 names[v], mode ? "iar" : "ar", latency_us, res.iterations,
                 (long long)res.count[CC_T_REDUCTION], total[mode], per_it[mode] * 1e6);
      }
      /* every rank takes the same decision (the minima differ between ranks) */
      int hidden = per_it[1] < per_it[0];
      MPI_Allreduce(&hidden, &hidden_all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      if (!hidden_all && attempt < max_attempts && test_rank == 0)
        printf("%s: attempt %d of %d disturbed (IAR %.0f us >= AR %.0f us): again\n", names[v],
               attempt, max_attempts, per_it[1] * 1e6, per_it[0] * 1e6);
    } while (!hidden_all && attempt < max_attempts);
    TEST_EXPECT(per_it[1] < per_it[0],
                "%s: IAR blocked %g us in its best iteration, not less than AR's %g us (totals %g "
                "s, %g s, attempt %d of %d)",
                names[v], per_it[1] * 1e6, per_it[0] * 1e6, total[1], total[0], attempt,
                max_attempts);
  }
  /* progress = poll: the kernels test the posted reduction while it is in flight */
  cc_krylov_opts o;
  cc_solve_result res;
  default_opts(&o, CC_REDUCTION_IAR);
  o.progress          = CC_PROGRESS_POLL;
  o.inject_latency_us = 200.0;
  TEST_CALL(solve(p, pc, cc_krylov_find("pipecg"), &o, x, &res));
  int64_t polls = res.polls;
  if (test_rank == 0)
    printf("pipecg iar poll: %lld polls in %d iterations\n", (long long)polls, res.iterations);
  TEST_EXPECT(res.converged && polls > 0, "pipecg iar with progress=poll: converged %d, %lld polls",
              res.converged, (long long)polls);
}

static void mode_restart(const tk_problem *p, cc_precond *pc, double *x)
{
  int64_t n    = 3 * (int64_t)p->a.n_rows;
  double *xref = NULL;
  TEST_CALL(cc_malloc((size_t)n, sizeof(double), &xref));
  for (int v = 0; cc_krylov_list[v]; v++) {
    const cc_krylov *kv = cc_krylov_list[v];
    if (kv->deep) continue; /* p(l)-CG, s-step: test_krylov_deep.c */
    for (int mode = CC_REDUCTION_AR; mode <= CC_REDUCTION_IAR; mode++) {
      if (mode == CC_REDUCTION_IAR && !kv->supports_iar) continue;
      cc_krylov_opts o;
      cc_solve_result full, part, rest;
      default_opts(&o, (cc_reduction_mode)mode);
      TEST_CALL(solve(p, pc, kv, &o, x, &full));
      memcpy(xref, x, (size_t)n * sizeof(double));
      tk_ckpt ck;
      memset(&ck, 0, sizeof ck);
      ck.keep            = 1;
      o.checkpoint       = tk_checkpoint;
      o.checkpoint_ctx   = &ck;
      o.timers           = &ck.timers;
      o.checkpoint_every = full.iterations / 2 > 0 ? full.iterations / 2 : 1;
      TEST_CALL(solve(p, pc, kv, &o, x, &part));
      TEST_EXPECT(ck.calls >= 1, "%s: no checkpoint taken", kv->name);
      if (ck.calls < 1) continue;
      default_opts(&o, (cc_reduction_mode)mode);
      o.restart = &ck.saved;
      TEST_CALL(solve(p, pc, kv, &o, x, &rest));
      double dx = 0.0, xm = 0.0;
      for (int64_t i = 0; i < n; i++) {
        dx = fmax(dx, fabs(x[i] - xref[i]));
        xm = fmax(xm, fabs(xref[i]));
      }
      MPI_Allreduce(MPI_IN_PLACE, &dx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      MPI_Allreduce(MPI_IN_PLACE, &xm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (test_rank == 0)
        printf(
            "%-6s %-3s: uninterrupted %d iterations; restart at %d -> %d, max|x - xref| = %.2e\n",
            kv->name, mode ? "iar" : "ar", full.iterations, ck.first_it, rest.iterations, dx / xm);
      TEST_EXPECT(rest.converged && rest.start_iteration == ck.first_it,
                  "%s restart: converged %d, start %d (saved at %d)", kv->name, rest.converged,
                  rest.start_iteration, ck.first_it);
      TEST_EXPECT(abs(rest.iterations - full.iterations) <= 1,
                  "%s restart: %d iterations in total vs %d uninterrupted", kv->name,
                  rest.iterations, full.iterations);
      TEST_EXPECT(dx <= 1e-10 * xm, "%s restart: solution differs by %g (relative)", kv->name,
                  dx / xm);
      TEST_EXPECT(analytic(p, x) < cfg.analytic_tol, "%s restart: analytic error %g", kv->name,
                  analytic(p, x));
      /* a state of another solver is refused */
      const char *other = v == 0 ? "gropp" : "pcg";
      o.reduction       = CC_REDUCTION_AR;
      cc_err err =
          cc_krylov_solve(cc_krylov_find(other), &p->a, &p->mesh.comm, pc, p->b, x, &o, &rest);
      TEST_EXPECT(err == CC_ERR_ARG && strstr(cc_error_message(), kv->name),
                  "%s state given to %s: err %d '%s'", kv->name, other, err, cc_error_message());
      cc_error_clear();
      /* a state wrong on one rank only: every rank returns the error (no rank left waiting) */
      o.restart = &ck.saved;
      for (int fault = 0; fault < 2; fault++) {
        int64_t n_saved = ck.saved.n_local;
        char name0[CC_STATE_NAME_LEN];
        memcpy(name0, ck.saved.vector_name[0], sizeof name0);
        if (test_rank == tk_size - 1) {
          if (fault == 0)
            ck.saved.n_local += 3;
          else
            snprintf(ck.saved.vector_name[0], CC_STATE_NAME_LEN, "bogus");
        }
        err = cc_krylov_solve(kv, &p->a, &p->mesh.comm, pc, p->b, x, &o, &rest);
        TEST_EXPECT(err == CC_ERR_ARG, "%s: state %s on the last rank: err %d", kv->name,
                    fault ? "without vector x" : "of the wrong size", err);
        cc_error_clear();
        ck.saved.n_local = n_saved;
        memcpy(ck.saved.vector_name[0], name0, sizeof name0);
      }
      tk_ckpt_free(&ck);
    }
  }
  cc_free(&xref);
}

static void mode_errors(tk_problem *p, double *x)
{
  /* A -> -A (negative definite) with no preconditioner: every variant breaks down */
  cc_precond *none;
  cc_precond_params pp = {.name = "none", .asdd_iters = 1, .ordering = NULL};
  TEST_CALL(cc_precond_create(&pp, &p->a, &p->mesh.comm, &none));
  for (int64_t i = 0; i < 9 * p->a.n_blocks; i++) p->a.val[i] = -p->a.val[i];
  for (int v = 0; cc_krylov_list[v]; v++) {
    cc_krylov_opts o;
    cc_solve_result res;
    default_opts(&o, CC_REDUCTION_AR);
    TEST_CALL(solve(p, none, cc_krylov_list[v], &o, x, &res));
    TEST_EXPECT(!res.converged && res.breakdown && strstr(res.failure, "breakdown"),
                "%s on -A: converged %d, failure '%s'", cc_krylov_list[v]->name, res.converged,
                res.failure);
    if (test_rank == 0) printf("%-6s on -A: %s\n", cc_krylov_list[v]->name, res.failure);
  }
  for (int64_t i = 0; i < 9 * p->a.n_blocks; i++) p->a.val[i] = -p->a.val[i];
  for (int v = 0; cc_krylov_list[v]; v++) {
    const cc_krylov *kv = cc_krylov_list[v];
    cc_krylov_opts o;
    cc_solve_result res;
    /* NaN in x0 on one rank: detected, not iterated on */
    default_opts(&o, CC_REDUCTION_AR);
    memset(x, 0, 3 * (size_t)p->mesh.n_total * sizeof(double));
    if (test_rank == tk_size - 1) x[0] = NAN;
    TEST_CALL(cc_krylov_solve(kv, &p->a, &p->mesh.comm, none, p->b, x, &o, &res));
    TEST_EXPECT(!res.converged && res.breakdown && strstr(res.failure, "NaN"),
                "%s with NaN x0: converged %d, '%s'", kv->name, res.converged, res.failure);
    /* maxit */
    o.maxit = 3;
    TEST_CALL(solve(p, none, kv, &o, x, &res));
    /* s-step CG stops at the last whole block of S (4 by default) within maxit */
    const int maxit_reached = strcmp(kv->name, "sstep") ? 3 : 0;
    TEST_EXPECT(!res.converged && !res.breakdown && res.iterations == maxit_reached &&
                    strstr(res.failure, "maxit"),
                "%s maxit 3: converged %d after %d iterations, '%s'", kv->name, res.converged,
                res.iterations, res.failure);
    /* bad options: a clear error naming the value */
    default_opts(&o, CC_REDUCTION_AR);
    o.tol      = -1.0;
    cc_err err = solve(p, none, kv, &o, x, &res);
    TEST_EXPECT(err == CC_ERR_ARG && strstr(cc_error_message(), "tol"), "%s tol -1: err %d '%s'",
                kv->name, err, cc_error_message());
    cc_error_clear();
    default_opts(&o, CC_REDUCTION_IAR);
    err = solve(p, none, kv, &o, x, &res);
    if (kv->supports_iar)
      TEST_EXPECT(err == CC_OK, "%s with IAR: err %d", kv->name, err);
    else
      TEST_EXPECT(err == CC_ERR_ARG && strstr(cc_error_message(), "non-blocking"),
                  "%s with IAR: err %d '%s'", kv->name, err, cc_error_message());
    cc_error_clear();
    err = cc_krylov_solve(kv, &p->a, &p->mesh.comm, NULL, p->b, x, &o, &res);
    TEST_EXPECT(err == CC_ERR_ARG, "%s without preconditioner: err %d", kv->name, err);
    cc_error_clear();
  }
  TEST_EXPECT(!cc_krylov_find("frobnicate") && !cc_krylov_find(NULL), "unknown solver found");
  int n = 0;
  while (cc_krylov_list[n]) n++;
  TEST_EXPECT(n == 6 && !strcmp(cc_krylov_list[0]->name, "pcg") && !cc_krylov_list[0]->supports_iar,
              "registry: %d variants", n);
  cc_precond_destroy(&none);
}

/* --mode interleave: two solves with different settings in one process, B run entirely inside
 * A's per-iteration monitor (twice). A: pipecg IAR, progress poll, injected latency, timed, on
 * the main problem and preconditioner; B: gropp AR, progress none, count-only timers, on a second
 * problem (own communication table and halo buffers) with SGS. Each interleaved result must equal
 * the one of the same solve run alone: iterations, residuals, solution, operation and timer
 * counts; B's count-only and progress settings must not leak into A (or back). */
typedef struct {
  const tk_problem *p;
  cc_precond *pc;
  const cc_krylov_opts *opts;
  double *x;
  cc_solve_result res[2];
  int at[2]; /* A's iterations after which B runs */
  int runs;
} tk_inner;

static cc_err tk_inner_monitor(void *ctx, int iteration, double rel_residual, int *stop)
{
  (void)rel_residual;
  tk_inner *in = ctx;
  *stop        = 0;
  if (!in || in->runs >= 2 || iteration != in->at[in->runs]) return CC_OK;
  CC_CALL(solve(in->p, in->pc, cc_krylov_find("gropp"), in->opts, in->x, &in->res[in->runs]));
  in->runs++;
  return CC_OK;
}

static int tk_same_result(const char *what, const cc_solve_result *a, const cc_solve_result *b,
                          int same_seconds)
{
  int ok = a->iterations == b->iterations && a->converged == b->converged &&
           a->rel_residual == b->rel_residual && a->true_rel_residual == b->true_rel_residual &&
           !strcmp(a->failure, b->failure);
  TEST_EXPECT(ok, "%s: %d it |r|/|b| %.17g true %.17g vs alone %d it %.17g true %.17g", what,
              a->iterations, a->rel_residual, a->true_rel_residual, b->iterations, b->rel_residual,
              b->true_rel_residual);
  for (int id = 0; id < CC_T_COUNT; id++) {
    TEST_EXPECT(a->count[id] == b->count[id], "%s: %s count %lld vs alone %lld", what,
                cc_timer_name(id), (long long)a->count[id], (long long)b->count[id]);
    TEST_EXPECT(a->ops_per_iteration[id] == b->ops_per_iteration[id],
                "%s: %s per iteration %g vs alone %g", what, cc_timer_name(id),
                a->ops_per_iteration[id], b->ops_per_iteration[id]);
    if (same_seconds)
      TEST_EXPECT(a->seconds[id] == b->seconds[id], "%s: %s seconds %g vs alone %g", what,
                  cc_timer_name(id), a->seconds[id], b->seconds[id]);
  }
  return ok;
}

static void mode_interleave(const tk_problem *p, cc_precond *pc, double *x)
{
  tk_problem q;
  tk_problem_create_on(6, 5, 4, MPI_COMM_WORLD, &q);
  cc_precond *qc;
  cc_precond_params qp = {.name = "sgs", .asdd_iters = 1, .ordering = NULL};
  TEST_CALL(cc_precond_create(&qp, &q.a, &q.mesh.comm, &qc));
  const int64_t np = 3 * (int64_t)p->a.n_rows, nq = 3 * (int64_t)q.a.n_rows;
  double *xa = NULL, *xb = NULL, *xb_alone = NULL;
  TEST_CALL(cc_calloc(3 * (size_t)q.mesh.n_total, sizeof(double), &xb));
  TEST_CALL(cc_calloc((size_t)np + 1, sizeof(double), &xa));
  TEST_CALL(cc_calloc((size_t)nq + 1, sizeof(double), &xb_alone));

  cc_krylov_opts oa, ob;
  default_opts(&oa, CC_REDUCTION_IAR);
  oa.progress          = CC_PROGRESS_POLL;
  oa.inject_latency_us = 100.0;
  default_opts(&ob, CC_REDUCTION_AR);
  ob.progress   = CC_PROGRESS_NONE;
  ob.count_only = 1;

  /* alone: A (with the monitor, B switched off), then B */
  cc_solve_result ra, rb;
  oa.monitor     = tk_inner_monitor;
  oa.monitor_ctx = NULL;
  TEST_CALL(solve(p, pc, cc_krylov_find("pipecg"), &oa, x, &ra));
  memcpy(xa, x, (size_t)np * sizeof(double));
  TEST_CALL(solve(&q, qc, cc_krylov_find("gropp"), &ob, xb, &rb));
  memcpy(xb_alone, xb, (size_t)nq * sizeof(double));
  TEST_EXPECT(ra.converged && rb.converged && ra.iterations >= 5,
              "alone: A converged %d in %d it, B converged %d", ra.converged, ra.iterations,
              rb.converged);

  /* interleaved: B runs inside A's monitor after A's iterations 2 and 4 */
  tk_inner in = {.p = &q, .pc = qc, .opts = &ob, .x = xb, .at = {2, 4}};
  cc_solve_result ra2;
  oa.monitor_ctx = &in;
  TEST_CALL(solve(p, pc, cc_krylov_find("pipecg"), &oa, x, &ra2));
  TEST_EXPECT(in.runs == 2, "B ran %d times inside A's monitor, expected 2", in.runs);
  tk_same_result("A interleaved", &ra2, &ra, 0);
  TEST_EXPECT(memcmp(x, xa, (size_t)np * sizeof(double)) == 0, "A's solution differs");
  for (int r = 0; r < in.runs; r++) {
    tk_same_result(r ? "B (2nd) inside A" : "B inside A", &in.res[r], &rb, 1);
    /* B counts only (never reads the clock) and does not poll, whatever A does */
    for (int id = 0; id < CC_T_COUNT; id++)
      TEST_EXPECT(in.res[r].seconds[id] == 0.0, "B (count-only) has %g s in %s",
                  in.res[r].seconds[id], cc_timer_name(id));
    TEST_EXPECT(in.res[r].polls == 0, "B (progress none) made %lld polls",
                (long long)in.res[r].polls);
  }
  TEST_EXPECT(memcmp(xb, xb_alone, (size_t)nq * sizeof(double)) == 0, "B's solution differs");
  /* A keeps its own settings: timed, and its counts hold none of B's reductions */
  TEST_EXPECT(ra2.seconds[CC_T_SOLVE] > 0.0 && ra2.count[CC_T_SOLVE] == 1,
              "A: solve region %g s, entered %lld times", ra2.seconds[CC_T_SOLVE],
              (long long)ra2.count[CC_T_SOLVE]);
  if (test_rank == 0)
    printf("interleave: A pipecg-iar %d it (%lld polls), B gropp-ar %d it x %d inside A\n",
           ra2.iterations, (long long)ra2.polls, rb.iterations, in.runs);
  cc_free(&xa);
  cc_free(&xb);
  cc_free(&xb_alone);
  cc_precond_destroy(&qc);
  tk_problem_free(&q);
}

int main(int argc, char **argv)
{
  tk_init(&argc, &argv);
  tk_partition     = strcmp(tk_arg(argc, argv, "--partition", "box"), "metis") ? CC_PARTITION_BOX
                                                                               : CC_PARTITION_METIS;
  const char *mode = tk_arg(argc, argv, "--mode", "variants");
  cfg.precond      = tk_arg(argc, argv, "--precond", "asdd");
  cfg.tol          = atof(tk_arg(argc, argv, "--tol", "1e-8"));
  cfg.replace      = atoi(tk_arg(argc, argv, "--replace", "0"));
  cfg.analytic_tol = atof(tk_arg(argc, argv, "--analytic-tol", "1e-6"));
  cfg.latency_us   = atof(tk_arg(argc, argv, "--latency-us", "2000"));
  tk_problem p;
  tk_problem_create_on(atoi(tk_arg(argc, argv, "--nx", "8")), atoi(tk_arg(argc, argv, "--ny", "6")),
                       atoi(tk_arg(argc, argv, "--nz", "7")), MPI_COMM_WORLD, &p);
  cc_precond *pc;
  cc_precond_params pp = {.name = cfg.precond, .asdd_iters = 2, .ordering = NULL};
  TEST_CALL(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc));
  double *x = NULL;
  TEST_CALL(cc_calloc(3 * (size_t)p.mesh.n_total, sizeof(double), &x));
  if (test_rank == 0)
    printf("%s: %dx%dx%d, %d ranks (%s partition, edge cut %lld), precond %s, tol %g, replace %d\n",
           mode, p.params.nx, p.params.ny, p.params.nz, tk_size,
           p.mesh.partition == CC_PARTITION_METIS ? "metis" : "box", (long long)p.mesh.edge_cut,
           cfg.precond, cfg.tol, cfg.replace);
  if (!strcmp(mode, "variants"))
    mode_variants(&p, pc, x);
  else if (!strcmp(mode, "accuracy"))
    mode_accuracy(&p, pc, x);
  else if (!strcmp(mode, "latency"))
    mode_latency(&p, pc, x);
  else if (!strcmp(mode, "restart"))
    mode_restart(&p, pc, x);
  else if (!strcmp(mode, "errors"))
    mode_errors(&p, x);
  else if (!strcmp(mode, "interleave"))
    mode_interleave(&p, pc, x);
  else
    TEST_EXPECT(0, "unknown --mode %s", mode);
  cc_free(&x);
  cc_precond_destroy(&pc);
  tk_problem_free(&p);
  return test_finish("test_krylov_solve");
}
