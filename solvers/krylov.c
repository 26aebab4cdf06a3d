/* krylov.c: registry of the CG variants (name -> entry, PETSc style), the one solve call that
 * runs an entry (set-up, the variant's iteration, end) and the helpers the variants share
 * (krylov_impl.h): work vectors, timer snapshots, reductions, breakdown and stopping tests. The
 * spectrum estimate is in spectrum.c, the end of an iteration with checkpoint and restart of the
 * solver state in solver_state.c, the algorithms in krylov_<name>.c.
 */
#include "krylov_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* The registry: one line per variant, in the order of --help, the report and jobs/. Each entry,
 * const cc_krylov cc_krylov_<name>, ends its krylov_<name>.c (the sources are globbed). */
#define CC_KRYLOV_VARIANTS(X)                                                                      \
  X(pcg)                                                                                           \
  X(cgcg)                                                                                          \
  X(pipecg)                                                                                        \
  X(gropp)                                                                                         \
  X(plcg)                                                                                          \
  X(sstep)

#define CC_KRYLOV_DECLARE(name) extern const cc_krylov cc_krylov_##name;
#define CC_KRYLOV_ENTRY(name) &cc_krylov_##name,
CC_KRYLOV_VARIANTS(CC_KRYLOV_DECLARE)
const cc_krylov *const cc_krylov_list[] = {CC_KRYLOV_VARIANTS(CC_KRYLOV_ENTRY) NULL};

const cc_mode_kind cc_sstep_basis_list[CC_SSTEP_BASIS_COUNT] = {
    [CC_SSTEP_CHEBYSHEV] = {"chebyshev", "Chebyshev polynomials on [lambda_min, lambda_max]"},
    [CC_SSTEP_NEWTON]    = {"newton", "Newton polynomials, Leja-ordered Ritz values as shifts"},
    [CC_SSTEP_MONOMIAL]  = {"monomial", "powers of M^-1 A (the reference; ill-conditioned)"},
};

const cc_mode_kind cc_reduction_list[CC_REDUCTION_COUNT] = {
    [CC_REDUCTION_AR]  = {"ar", "blocking MPI_Allreduce"},
    [CC_REDUCTION_IAR] = {"iar", "MPI_Iallreduce overlapped with the next kernels"},
};
const cc_mode_kind cc_progress_list[CC_PROGRESS_COUNT] = {
    [CC_PROGRESS_NONE] = {"none", "MPI progresses inside MPI calls only"},
    [CC_PROGRESS_POLL] = {"poll", "kernels call MPI_Test on the pending reduction"},
};

const cc_krylov *cc_krylov_find(const char *name)
{
  if (!name) return NULL;
  for (int i = 0; cc_krylov_list[i]; i++)
    if (strcmp(cc_krylov_list[i]->name, name) == 0) return cc_krylov_list[i];
  return NULL;
}

/* What is wrong with a value that must be a positive normal number. */
static const char *krylov_value_problem(double v)
{
  if (isnan(v)) return "NaN";
  if (isinf(v)) return "overflow (Inf)";
  if (v == 0.0) return "zero";
  if (v < 0.0) return "negative";
  if (v < DBL_MIN) return "subnormal (underflow)";
  return NULL;
}

/* ------------------------------------------------------------------------------------------------
 * Begin / end of a solve
 * ---------------------------------------------------------------------------------------------- */
/* The options every variant takes, then the variant's own (its check hook): refused before
 * anything is allocated, reduced or timed. */
static cc_err krylov_check(const cc_krylov *variant, const cc_krylov_opts *opts)
{
  const char *solver = variant->name;
  CC_CHECK(opts->reduction == CC_REDUCTION_AR || opts->reduction == CC_REDUCTION_IAR, CC_ERR_ARG,
           "%s: unknown reduction mode %d", solver, (int)opts->reduction);
  CC_CHECK(opts->reduction == CC_REDUCTION_AR || variant->supports_iar, CC_ERR_ARG,
           "%s has no non-blocking variant (reduction iar requested; use ar)", solver);
  CC_CHECK(isfinite(opts->tol) && opts->tol > 0.0, CC_ERR_ARG, "%s: tol = %g must be > 0", solver,
           opts->tol);
  CC_CHECK(opts->maxit >= 0, CC_ERR_ARG, "%s: maxit = %d must be >= 0", solver, opts->maxit);
  CC_CHECK(opts->replace_every >= 0 || opts->replace_every == CC_REPLACE_AUTO, CC_ERR_ARG,
           "%s: replace_every = %d must be >= 0 (or CC_REPLACE_AUTO)", solver, opts->replace_every);
  CC_CHECK(!opts->checkpoint || opts->checkpoint_every >= 1, CC_ERR_ARG,
           "%s: checkpoint_every = %d must be >= 1 with a checkpoint callback", solver,
           opts->checkpoint_every);
  CC_CHECK(!opts->history || opts->history_cap >= 0, CC_ERR_ARG, "%s: history_cap = %d < 0", solver,
           opts->history_cap);
  CC_CHECK(isfinite(opts->inject_latency_us) && opts->inject_latency_us >= 0.0, CC_ERR_ARG,
           "%s: injected reduction latency %g us must be >= 0", solver, opts->inject_latency_us);
  if (variant->check) CC_CALL(variant->check(opts));
  return CC_OK;
}

/* The test seam (cc_krylov_opts.inject): r poisoned after that iteration, in this variant */
static void krylov_inject(cc_krylov_ctx *k)
{
  const cc_krylov_inject *inject = k->opts->inject;
  int here                       = inject && inject->iteration >= 1;
  here            = here && (!inject->solver[0] || strcmp(inject->solver, k->solver) == 0);
  k->inject_it    = here ? inject->iteration : -1;
  k->inject_value = inject ? inject->value : 0.0;
}

/* k->start from opts->restart. A state loaded per rank may be wrong on one rank only: all ranks
 * agree before going on. */
static cc_err krylov_restart_start(cc_krylov_ctx *k)
{
  const cc_solver_state *st = k->opts->restart;
  const char *solver        = k->solver;
  cc_err local              = CC_OK, global;
  if (strcmp(st->solver, solver) != 0)
    local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                          "restart state of solver '%s' given to solver '%s'", st->solver, solver);
  else if (st->n_local != k->n)
    local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                          "restart state has %lld doubles per vector, rank %d needs %lld",
                          (long long)st->n_local, k->comm->rank, (long long)k->n);
  else if (st->iteration < 0 || st->iteration > k->opts->maxit)
    local =
        cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                      "restart state at iteration %d (maxit %d)", st->iteration, k->opts->maxit);
  CC_CALL(cc_error_agree(k->comm->comm, local, &global));
  CC_CHECK(global == CC_OK, global, "%s: restart state refused", solver);
  k->start = st->iteration;
  return CC_OK;
}

/* |b| = sqrt((b, b)), the first timed reduction (the CC_T_SOLVE region is stopped on a refusal) */
static cc_err krylov_bnorm(cc_krylov_ctx *k, const double *b)
{
  const char *solver = k->solver;
  double bb;
  cc_krylov_dots(k, 1, (const double *const[]){b}, (const double *const[]){b}, &bb);
  cc_err err = cc_reduce_blocking(&k->reducer, &bb, 1);
  /* b = 0 is allowed here (x = 0 at once; the driver refuses a zero load as bad input) */
  if (!err && isnan(bb))
    err = cc_error_push(CC_ERR_NUMERIC, __FILE__, __LINE__, __func__, "%s: |b|^2 = %g: b holds NaN",
                        solver, bb);
  else if (!err && isinf(bb))
    err = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                        "%s: |b|^2 overflows (Inf): b is too large or holds Inf", solver);
  else if (!err && bb > 0.0 && bb < DBL_MIN)
    err = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                        "%s: |b|^2 = %g is subnormal: b is too small for CG's squared norms",
                        solver, bb);
  if (err) {
    cc_timer_stop(k->timers, k->solve_region);
    CC_CALL(err);
  }
  k->bnorm = sqrt(bb);
  return CC_OK;
}

/* ||A||_inf = max row sum of |a_ij| (the residual-gap guard's ||A||; >= ||A||_2 for symmetric A) */
static cc_err krylov_anorm(cc_krylov_ctx *k)
{
  const cc_bcrs *a = k->a;
  double row_max   = 0.0;
  for (int32_t i = 0; i < a->n_rows; i++)
    for (int d = 0; d < 3; d++) {
      double sum = 0.0;
      for (int64_t e = a->row_ptr[i]; e < a->row_ptr[i + 1]; e++)
        for (int c = 0; c < 3; c++) sum += fabs(a->val[9 * e + 3 * d + c]);
      if (a->l_ptr) /* the split-off lower blocks */
        for (int64_t e = a->l_ptr[i]; e < a->l_ptr[i + 1]; e++)
          for (int c = 0; c < 3; c++) sum += fabs(a->l_val[9 * e + 3 * d + c]);
      if (sum > row_max) row_max = sum;
    }
  CC_MPI(MPI_Allreduce(&row_max, &k->gap_anorm, 1, MPI_DOUBLE, MPI_MAX, k->comm->comm));
  return CC_OK;
}

/* Check the options, set up the solve's own timers and reducer (k must not move afterwards:
 * k->exec points into it), start CC_T_SOLVE and compute |b| (one reduction). */
static cc_err krylov_begin(cc_krylov_ctx *k, const cc_krylov *variant, const cc_bcrs *a,
                           const cc_comm_table *comm, cc_precond *pc, double *b, double *x,
                           const cc_krylov_opts *opts, cc_solve_result *result)
{
  const char *solver = variant->name;
  CC_CHECK(a && comm && b && x && opts && result, CC_ERR_ARG, "%s: NULL argument", solver);
  CC_CHECK(pc, CC_ERR_ARG, "%s: no preconditioner (use \"none\" for plain CG)", solver);
  memset(result, 0, sizeof *result);
  snprintf(result->solver, sizeof result->solver, "%s", solver);
  snprintf(result->label, sizeof result->label, "%s", solver); /* the deep variants add L / S */
  CC_CALL(krylov_check(variant, opts));
  snprintf(result->reduction, sizeof result->reduction, "%s",
           cc_reduction_list[opts->reduction].name);
  *k = (cc_krylov_ctx){.solver   = solver,
                       .a        = a,
                       .comm     = comm,
                       .pc       = pc,
                       .opts     = opts,
                       .result   = result,
                       .n        = 3 * (int64_t)a->n_rows, /* the internal DOFs */
                       .n_alloc  = 3 * (int64_t)a->n_cols, /* and the halo's scratch */
                       .first_it = -1,
                       .last_it  = -1,
                       .unfused  = opts->unfused != 0};

  k->timers = opts->timers ? opts->timers : &k->own_timers;
  cc_timers_init(k->timers, opts->count_only);
  k->timers->trace = opts->trace; /* the region hooks (cc_timer_start / stop) */
  CC_CALL(
      cc_reducer_init(&k->reducer, comm->comm, opts->progress, opts->inject_latency_us, k->timers));
  k->exec = (cc_exec){.timers = k->timers, .poll = cc_reduce_poll, .poll_ctx = &k->reducer};
  krylov_inject(k);
  if (opts->restart) CC_CALL(krylov_restart_start(k));
  result->start_iteration = k->start;
  result->iterations      = k->start;
  if (k->inject_it <= k->start) k->inject_it = -1; /* a restart past the seam's iteration */

  CC_MPI(MPI_Barrier(comm->comm)); /* ranks start the clock together */
  k->solve_region = cc_timer_start(k->timers, CC_T_SOLVE);
  k->t0           = MPI_Wtime();
  CC_CALL(krylov_bnorm(k, b));
  k->gap = -1.0;
  if (opts->replace_every == CC_REPLACE_AUTO) CC_CALL(krylov_anorm(k));
  return CC_OK;
}

cc_err cc_krylov_vectors(cc_krylov_ctx *k, int count, double **v[])
{
  CC_CHECK(k->n_vec + count <= CC_KRYLOV_MAX_VECTORS, CC_ERR_ARG, "%s: %d work vectors (max %d)",
           k->solver, k->n_vec + count, CC_KRYLOV_MAX_VECTORS);
  for (int i = 0; i < count; i++) {
    CC_CALL(cc_malloc((size_t)k->n_alloc + 1, sizeof(double), &k->vec[k->n_vec]));
    cc_vec_zero(k->n_alloc, k->vec[k->n_vec]);
    *v[i] = k->vec[k->n_vec++];
  }
  return CC_OK;
}

static void krylov_free(cc_krylov_ctx *k)
{
  for (int i = 0; i < k->n_vec; i++) cc_free(&k->vec[i]);
  k->n_vec = 0;
}

/* |b - A x|^2 (global), in a scratch vector of its own: the variants' vectors stay untouched. */
static cc_err krylov_true_residual(cc_krylov_ctx *k, double *b, double *x, double *tt)
{
  double *t = NULL;
  CC_CALL(cc_malloc((size_t)k->n_alloc + 1, sizeof(double), &t));
  cc_err err = cc_spmv(NULL, k->a, k->comm, x, t); /* t <- A x (after the solve: not counted) */
  double sum = 0.0;
  if (!err) {
    const int64_t n = k->n;
#pragma omp parallel for simd schedule(static) reduction(+ : sum) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) sum += (b[i] - t[i]) * (b[i] - t[i]); /* |b - A x|^2 */
  }
  cc_free(&t);
  CC_CALL(err);
  CC_MPI(MPI_Allreduce(&sum, tt, 1, MPI_DOUBLE, MPI_SUM, k->comm->comm));
  return CC_OK;
}

/* End of the solve: stop the timers, fill result->seconds/count/time_s, then (outside the timed
 * window) the true residual |b - A x|/|b|; frees the work vectors. err is the iteration's error:
 * when nonzero everything is released and err is returned. */
static cc_err krylov_end(cc_krylov_ctx *k, double *b, double *x, cc_err err)
{
  cc_timer_stop(k->timers, k->solve_region);
  double elapsed       = MPI_Wtime() - k->t0;
  cc_solve_result *res = k->result;
  memcpy(res->seconds, k->timers->seconds, sizeof res->seconds);
  memcpy(res->count, k->timers->count, sizeof res->count);
  res->polls                   = k->reducer.polls;
  res->reductions_blocking     = k->reducer.blocking;
  res->reductions_posted       = k->reducer.posted;
  res->reductions_waited_early = k->reducer.waited_early;
  res->reductions_waited       = k->reducer.waited;
  if (k->last_it > k->first_it)
    for (int i = 0; i < 3; i++)
      res->reductions_per_iteration[i] =
          (double)(k->last_red[i] - k->first_red[i]) / (k->last_it - k->first_it);
  if (k->last_it > k->first_it)
    for (int id = 0; id < CC_T_COUNT; id++)
      res->ops_per_iteration[id] =
          (double)(k->last_count[id] - k->first_count[id]) / (k->last_it - k->first_it);
  if (k->last_it > k->first_it) {
    const double its                 = k->last_it - k->first_it;
    res->vector_passes_per_iteration = (double)(k->last_traffic[0] - k->first_traffic[0]) / its;
    res->vector_reads_per_iteration  = (double)(k->last_traffic[1] - k->first_traffic[1]) / its;
    res->vector_writes_per_iteration = (double)(k->last_traffic[2] - k->first_traffic[2]) / its;
  }
  krylov_free(k);
  if (err == CC_ERR_INTERRUPTED && res->interrupted) {
    cc_error_clear(); /* the frames the variant's CC_CALL pushed: not an error */
    err = CC_OK;
  }
  if (err)
    return cc_error_push(err, __FILE__, __LINE__, __func__, "%s solve (iteration %d)", k->solver,
                         res->iterations);
  /* outside the timed window: the time of the slowest rank, and the true residual */
  CC_MPI(MPI_Allreduce(&elapsed, &res->time_s, 1, MPI_DOUBLE, MPI_MAX, k->comm->comm));
  double tt;
  CC_CALL(krylov_true_residual(k, b, x, &tt));
  res->true_rel_residual = sqrt(tt) / (k->bnorm > 0.0 ? k->bnorm : 1.0);
  return CC_OK;
}

cc_err cc_krylov_solve(const cc_krylov *variant, const cc_bcrs *a, const cc_comm_table *comm,
                       cc_precond *pc, double *b, double *x, const cc_krylov_opts *opts,
                       cc_solve_result *result)
{
  CC_CHECK(variant && variant->iterate, CC_ERR_ARG, "cc_krylov_solve: no variant");
  cc_krylov_ctx k;
  CC_CALL(krylov_begin(&k, variant, a, comm, pc, b, x, opts, result));
  CC_CALL(krylov_end(&k, b, x, variant->iterate(&k, b, x)));
  return CC_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Building blocks
 * ---------------------------------------------------------------------------------------------- */
cc_err cc_krylov_residual(cc_krylov_ctx *k, double *b, double *x, double *r)
{
  CC_CALL(cc_spmv(&k->exec, k->a, k->comm, x, r)); /* r <- A x */
  cc_timer_token t0 = cc_timer_start(k->timers, CC_T_AXPY);
  /* r <- b - r */
  const int64_t n = k->n;
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) r[i] = b[i] - r[i];
  cc_timer_stop(k->timers, t0);
  cc_krylov_traffic_add(k, 1, 2, 1); /* reads b, A x; writes r */
  return CC_OK;
}

/* distinct vectors among the count pairs (x[j], y[j]): what one pass over them streams in */
static int krylov_distinct(int count, const double *const x[], const double *const y[])
{
  const double *seen[8];
  int n = 0;
  for (int j = 0; j < 2 * count && j < 8; j++) {
    const double *v = j % 2 ? y[j / 2] : x[j / 2];
    int dup         = 0;
    for (int i = 0; i < n; i++) dup |= seen[i] == v;
    if (!dup) seen[n++] = v;
  }
  return n;
}

void cc_krylov_dots(cc_krylov_ctx *k, int count, const double *const x[], const double *const y[],
                    double out[])
{
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_DOT, 0);
  if (k->unfused) {
    /* the reference: one pass per dot product (each counts one CC_T_DOT) */
    for (int j = 0; j < count; j++) {
      out[j] = cc_dot_local(&k->exec, k->n, x[j], y[j]);
      cc_krylov_traffic_add(k, 1, x[j] == y[j] ? 1 : 2, 0);
    }
  } else {
    cc_dot_local_multi(&k->exec, k->n, count, x, y, out); /* counts `count` CC_T_DOT */
    cc_krylov_traffic_add(k, 1, krylov_distinct(count, x, y), 0);
  }
  cc_timer_stop(k->timers, t0);
}

void cc_krylov_axpy(cc_krylov_ctx *k, double alpha, const double *x, double *y)
{
  cc_vec_axpy(&k->exec, k->n, alpha, x, y); /* y <- y + alpha x */
  cc_krylov_traffic_add(k, 1, 2, 1);
}

void cc_krylov_xpby(cc_krylov_ctx *k, const double *x, double beta, double *y)
{
  cc_vec_xpby(&k->exec, k->n, x, beta, y); /* y <- x + beta y */
  cc_krylov_traffic_add(k, 1, 2, 1);
}

void cc_krylov_copy(cc_krylov_ctx *k, const double *x, double *y)
{
  cc_vec_copy(&k->exec, k->n, x, y); /* y <- x */
  cc_krylov_traffic_add(k, 1, 1, 1);
}

cc_err cc_krylov_post(cc_krylov_ctx *k, double *values, int n, cc_reduction *red)
{
  if (k->opts->reduction == CC_REDUCTION_AR)
    CC_CALL(cc_reduce_blocking(&k->reducer, values, n));
  else
    CC_CALL(cc_reduce_begin(&k->reducer, values, n, red));
  return CC_OK;
}

cc_err cc_krylov_wait(cc_krylov_ctx *k, double *values, int n, cc_reduction *red)
{
  if (k->opts->reduction == CC_REDUCTION_IAR) CC_CALL(cc_reduce_end(&k->reducer, red, values, n));
  return CC_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Stopping, breakdown, replacement
 * ---------------------------------------------------------------------------------------------- */
int cc_krylov_breakdown(cc_krylov_ctx *k, int iteration, const char *what, double value)
{
  const char *problem = krylov_value_problem(value);
  if (!problem) return 0;
  cc_solve_result *res = k->result;
  res->converged       = 0;
  res->breakdown       = 1;
  res->iterations      = iteration;
  snprintf(res->failure, sizeof res->failure,
           "breakdown at iteration %d: %s = %.6g is %s (must be a positive normal number)",
           iteration, what, value, problem);
  return 1;
}

int cc_krylov_converged(cc_krylov_ctx *k, int iteration, double rr)
{
  cc_solve_result *res = k->result;
  /* |r|/|b|; with b = 0 the absolute |r| (x0 = 0 is then converged at once) */
  res->rel_residual = sqrt(fabs(rr)) / (k->bnorm > 0.0 ? k->bnorm : 1.0);
  res->iterations   = iteration;
  const int64_t h   = (int64_t)iteration - k->start; /* one call per iteration checked */
  if (k->opts->history && h >= 0 && h < k->opts->history_cap) {
    k->opts->history[h] = res->rel_residual;
    res->history_len    = (int)h + 1;
  }
  if (!isfinite(rr)) {
    res->converged = 0;
    res->breakdown = 1;
    snprintf(res->failure, sizeof res->failure, "breakdown at iteration %d: |r|^2 = %g is %s",
             iteration, rr, krylov_value_problem(rr));
    return 1;
  }
  if (res->rel_residual < k->opts->tol) {
    res->converged  = 1;
    res->failure[0] = '\0';
    return 1;
  }
  if (rr < DBL_MIN) { /* 0 or subnormal, yet not below tol |b|: the digits are gone */
    res->converged = 0;
    res->breakdown = 1;
    snprintf(res->failure, sizeof res->failure,
             "breakdown at iteration %d: |r|^2 = %g is %s while |r|/|b| = %.3g >= tol", iteration,
             rr, rr == 0.0 ? "zero (underflow)" : "subnormal (underflow)", res->rel_residual);
    return 1;
  }
  return 0;
}

void cc_krylov_maxit(cc_krylov_ctx *k, int iteration)
{
  cc_solve_result *res = k->result;
  res->converged       = 0;
  res->iterations      = iteration;
  snprintf(res->failure, sizeof res->failure,
           "no convergence in maxit = %d iterations: |r|/|b| = %.3e > tol = %.3e", k->opts->maxit,
           res->rel_residual, k->opts->tol);
}

int cc_krylov_replace_due(cc_krylov_ctx *k, int iteration)
{
  int due = k->opts->replace_every == CC_REPLACE_AUTO
                ? k->gap_due
                : k->opts->replace_every > 0 && iteration % k->opts->replace_every == 0;
  if (due) cc_krylov_replaced(k, iteration);
  if (due) k->gap_due = 0, k->gap = -1.0; /* the estimate restarts at the next update */
  return due;
}

int cc_krylov_gap_dot(cc_krylov_ctx *k, const double *x, double *slot)
{
  if (!cc_krylov_gap_values(k->opts)) return 0;
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_DOT, 0);
  *slot             = cc_dot_local(&k->exec, k->n, x, x); /* (x, x) */
  cc_timer_stop(k->timers, t0);
  cc_krylov_traffic_add(k, 1, 1, 0);
  return 1;
}

void cc_krylov_gap_update(cc_krylov_ctx *k, int recurrences, double xx, double rr)
{
  if (k->opts->replace_every != CC_REPLACE_AUTO) return;
  const double eps = DBL_EPSILON / 2.0, xnorm = sqrt(fabs(xx)), rnorm = sqrt(fabs(rr));
  const double local = eps * (k->gap_anorm * xnorm + rnorm); /* one iteration's rounding */
  if (k->gap < 0.0) {                                        /* start, or just replaced */
    k->gap = k->gap_init = local;
  } else {
    k->gap_prev = k->gap;
    k->gap += recurrences * local;
    const double bound = sqrt(eps);
    /* the crossing, and a gap grown past 1.1 times its value after the last replacement (Van der
     * Vorst & Ye's d_init: replacing again could not make it smaller) */
    if (k->gap_prev <= bound * k->gap_rnorm_prev && k->gap > bound * rnorm &&
        k->gap > 1.1 * k->gap_init)
      k->gap_due = 1;
  }
  k->gap_rnorm_prev = rnorm;
  const double rel  = k->gap / (k->bnorm > 0.0 ? k->bnorm : 1.0);
  if (rel > k->result->gap_estimate_max) k->result->gap_estimate_max = rel;
}

void cc_krylov_replaced(cc_krylov_ctx *k, int iteration)
{
  cc_solve_result *res = k->result;
  if (res->replacements < CC_MAX_REPLACEMENTS)
    res->replacement_iteration[res->replacements] = iteration;
  res->replacements++;
}

void cc_krylov_label(cc_krylov_ctx *k, int pipeline_depth, int sstep, const char *basis)
{
  cc_solve_result *res = k->result;
  res->pipeline_depth  = pipeline_depth;
  res->sstep           = sstep;
  snprintf(res->sstep_basis, sizeof res->sstep_basis, "%s", basis ? basis : "");
  if (pipeline_depth > 0)
    snprintf(res->label, sizeof res->label, "%s-l%d", k->solver, pipeline_depth);
  else if (sstep > 0)
    snprintf(res->label, sizeof res->label, "%s-s%d", k->solver, sstep);
}
