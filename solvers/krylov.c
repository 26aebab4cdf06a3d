/* krylov.c: registry of the CG variants (name -> solve, PETSc style) and the helpers they share
 * (krylov_impl.h): options, work vectors, timer snapshots, reductions, breakdown and stopping
 * tests, checkpoint/restart of the solver state. The algorithms are in krylov_<name>.c.
 */
#include "krylov_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

const cc_krylov *const cc_krylov_list[] = {&cc_krylov_pcg,
                                           &cc_krylov_cgcg,
                                           &cc_krylov_pipecg,
                                           &cc_krylov_gropp,
                                           &cc_krylov_plcg,
                                           &cc_krylov_sstep,
                                           NULL};

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

/* Test seam (tests only, like CUBECG_IO_INJECT): CUBECG_KRYLOV_INJECT=nan@N or inf@N sets r[0] of
 * rank 0 to NaN / Inf at the end of iteration N, so the driver's breakdown path can be tested on a
 * valid problem; nan@N:SOLVER only in that variant's solves (--solver all: the others go on).
 * Anything else in the variable is refused. */
static cc_err krylov_inject_parse(cc_krylov_ctx *k)
{
  k->inject_it    = -1;
  const char *env = getenv("CUBECG_KRYLOV_INJECT");
  if (!env || !env[0]) return CC_OK;
  char kind[4] = "";
  int it = -1, used = 0;
  int ok = sscanf(env, "%3[a-z]@%d%n", kind, &it, &used) == 2 && it >= 1 &&
           (env[used] == '\0' || (env[used] == ':' && env[used + 1])) &&
           (strcmp(kind, "nan") == 0 || strcmp(kind, "inf") == 0);
  CC_CHECK(ok, CC_ERR_ARG,
           "CUBECG_KRYLOV_INJECT='%s': expected nan@N or inf@N with N >= 1, optionally :SOLVER",
           env);
  if (env[used] == ':' && strcmp(env + used + 1, k->solver) != 0) return CC_OK; /* another's */
  k->inject_it    = it;
  k->inject_value = strcmp(kind, "nan") == 0 ? NAN : INFINITY;
  return CC_OK;
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
cc_err cc_krylov_begin(cc_krylov_ctx *k, const cc_krylov *variant, const cc_bcrs *a,
                       const cc_comm_table *comm, cc_precond *pc, double *b, double *x,
                       const cc_krylov_opts *opts, cc_solve_result *result)
{
  const char *solver     = variant->name;
  const int supports_iar = variant->supports_iar; /* the registry says which have IAR */
  memset(k, 0, sizeof *k);
  CC_CHECK(a && comm && b && x && opts && result, CC_ERR_ARG, "%s: NULL argument", solver);
  CC_CHECK(pc, CC_ERR_ARG, "%s: no preconditioner (use \"none\" for plain CG)", solver);
  memset(result, 0, sizeof *result);
  snprintf(result->solver, sizeof result->solver, "%s", solver);
  snprintf(result->label, sizeof result->label, "%s", solver); /* the deep variants add L / S */
  CC_CHECK(opts->reduction == CC_REDUCTION_AR || opts->reduction == CC_REDUCTION_IAR, CC_ERR_ARG,
           "%s: unknown reduction mode %d", solver, (int)opts->reduction);
  snprintf(result->reduction, sizeof result->reduction, "%s",
           cc_reduction_list[opts->reduction].name);
  CC_CHECK(opts->reduction == CC_REDUCTION_AR || supports_iar, CC_ERR_ARG,
           "%s has no non-blocking variant (reduction iar requested; use ar)", solver);
  CC_CHECK(isfinite(opts->tol) && opts->tol > 0.0, CC_ERR_ARG, "%s: tol = %g must be > 0", solver,
           opts->tol);
  CC_CHECK(opts->maxit >= 0, CC_ERR_ARG, "%s: maxit = %d must be >= 0", solver, opts->maxit);
  CC_CHECK(opts->replace_every >= 0 || opts->replace_every == CC_REPLACE_AUTO, CC_ERR_ARG,
           "%s: replace_every = %d must be >= 0 (or CC_REPLACE_AUTO)", solver, opts->replace_every);
  CC_CHECK(!opts->checkpoint || opts->checkpoint_every >= 1, CC_ERR_ARG,
           "%s: checkpoint_every = %d must be >= 1 with a checkpoint callback", solver,
           opts->checkpoint_every);
  k->solver   = solver;
  k->a        = a;
  k->comm     = comm;
  k->pc       = pc;
  k->opts     = opts;
  k->result   = result;
  k->n        = 3 * (int64_t)a->n_rows;
  k->n_alloc  = 3 * (int64_t)a->n_cols;
  k->first_it = k->last_it = -1;
  k->unfused               = opts->unfused != 0;
  CC_CHECK(!opts->history || opts->history_cap >= 0, CC_ERR_ARG, "%s: history_cap = %d < 0", solver,
           opts->history_cap);
  CC_CHECK(isfinite(opts->inject_latency_us) && opts->inject_latency_us >= 0.0, CC_ERR_ARG,
           "%s: injected reduction latency %g us must be >= 0", solver, opts->inject_latency_us);
  k->timers = opts->timers ? opts->timers : &k->own_timers;
  cc_timers_init(k->timers, opts->count_only);
  CC_CALL(
      cc_reducer_init(&k->reducer, comm->comm, opts->progress, opts->inject_latency_us, k->timers));
  k->exec = (cc_exec){.timers = k->timers, .poll = cc_reduce_poll, .poll_ctx = &k->reducer};
  CC_CALL(krylov_inject_parse(k));
  if (opts->restart) {
    /* a state loaded per rank may be wrong on one rank only: all ranks agree before going on */
    const cc_solver_state *st = opts->restart;
    cc_err local              = CC_OK, global;
    if (strcmp(st->solver, solver) != 0)
      local =
          cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                        "restart state of solver '%s' given to solver '%s'", st->solver, solver);
    else if (st->n_local != k->n)
      local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                            "restart state has %lld doubles per vector, rank %d needs %lld",
                            (long long)st->n_local, comm->rank, (long long)k->n);
    else if (st->iteration < 0 || st->iteration > opts->maxit)
      local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                            "restart state at iteration %d (maxit %d)", st->iteration, opts->maxit);
    CC_CALL(cc_error_agree(comm->comm, local, &global));
    CC_CHECK(global == CC_OK, global, "%s: restart state refused", solver);
    k->start = st->iteration;
  }
  result->start_iteration = k->start;
  result->iterations      = k->start;

  CC_MPI(MPI_Barrier(comm->comm)); /* ranks start the clock together */
  k->solve_region = cc_timer_start(k->timers, CC_T_SOLVE);
  k->t0           = MPI_Wtime();

  /* |b|^2 = (b, b) */
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
  k->gap   = -1.0;
  if (opts->replace_every == CC_REPLACE_AUTO) {
    /* ||A||_inf = max row sum of |a_ij| (the guard's ||A||; >= ||A||_2 for symmetric A) */
    double row_max = 0.0;
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
    CC_MPI(MPI_Allreduce(&row_max, &k->gap_anorm, 1, MPI_DOUBLE, MPI_MAX, comm->comm));
  }
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

cc_err cc_krylov_end(cc_krylov_ctx *k, double *b, double *x, cc_err err)
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
  if (k->opts->replace_every != CC_REPLACE_AUTO) return 0;
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

/* ------------------------------------------------------------------------------------------------
 * Spectrum of M^-1 A (p(l)-CG's shifts, s-step's basis)
 * ---------------------------------------------------------------------------------------------- */
/* Eigenvalues of the symmetric tridiagonal (diag d, off-diagonal e) below x: Sturm count. */
static int tridiag_count_below(int n, const double *d, const double *e, double x)
{
  int count = 0;
  double q  = 1.0;
  for (int i = 0; i < n; i++) {
    q = d[i] - x - (i ? e[i - 1] * e[i - 1] / q : 0.0);
    if (q == 0.0) q = -DBL_EPSILON * (fabs(d[i]) + fabs(x) + DBL_MIN);
    if (q < 0.0) count++;
  }
  return count;
}

/* All n eigenvalues (ascending) by bisection inside the Gershgorin interval. */
static void tridiag_eigenvalues(int n, const double *d, const double *e, double *lambda)
{
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < n; i++) {
    double radius = (i ? fabs(e[i - 1]) : 0.0) + (i < n - 1 ? fabs(e[i]) : 0.0);
    lo            = fmin(lo, d[i] - radius);
    hi            = fmax(hi, d[i] + radius);
  }
  for (int j = 0; j < n; j++) { /* the (j+1)-th smallest: count_below(x) <= j < count_below(y) */
    double a = lo, c = hi;
    for (int it = 0; it < 200 && c - a > 1e-14 * fmax(fabs(a), fabs(c)); it++) {
      double mid = 0.5 * (a + c);
      if (tridiag_count_below(n, d, e, mid) <= j)
        a = mid;
      else
        c = mid;
    }
    lambda[j] = 0.5 * (a + c);
  }
}

cc_err cc_krylov_spectrum(cc_krylov_ctx *k, double *b, double *lmin, double *lmax, double ritz[],
                          int *n_ritz)
{
  const cc_krylov_opts *o = k->opts;
  cc_solve_result *res    = k->result;
  const double started    = MPI_Wtime();
  const int64_t blocking0 = k->reducer.blocking;
  if (o->spectrum_max > 0.0) {
    *lmin = o->spectrum_min, *lmax = o->spectrum_max;
    ritz[0] = *lmin, ritz[1] = *lmax, *n_ritz = 2;
    snprintf(res->spectrum_source, sizeof res->spectrum_source, "option");
  } else {
    /* PCG from x = 0 on scratch vectors: alpha_j, beta_j give the Lanczos tridiagonal of M^-1 A
     * (T_jj = 1/alpha_j + beta_j/alpha_{j-1}, T_j,j+1 = sqrt(beta_{j+1})/alpha_j) */
    double *r = NULL, *u = NULL, *p = NULL, *s = NULL;
    cc_err err = CC_OK;
    double alpha[CC_SPECTRUM_LANCZOS_STEPS + 1], beta[CC_SPECTRUM_LANCZOS_STEPS + 1];
    int steps = 0;
    for (int i = 0; i < 4 && !err; i++)
      err = cc_malloc((size_t)k->n_alloc + 1, sizeof(double),
                      i == 0   ? &r
                      : i == 1 ? &u
                      : i == 2 ? &p
                               : &s);
    if (!err) {
      memcpy(r, b, (size_t)k->n * sizeof(double));   /* r0 = b (x0 = 0) */
      err = cc_precond_apply(k->pc, &k->exec, r, u); /* u0 = M^-1 r0 */
    }
    double rho = 0.0;
    if (!err) {
      memcpy(p, u, (size_t)k->n * sizeof(double)); /* p0 = u0 */
      cc_krylov_dots(k, 1, (const double *const[]){r}, (const double *const[]){u}, &rho);
      err = cc_reduce_blocking(&k->reducer, &rho, 1);
    }
    while (!err && steps < CC_SPECTRUM_LANCZOS_STEPS && rho > DBL_MIN) {
      err       = cc_spmv(&k->exec, k->a, k->comm, p, s); /* s = A p */
      double sp = 0.0;
      if (!err) {
        cc_krylov_dots(k, 1, (const double *const[]){s}, (const double *const[]){p}, &sp);
        err = cc_reduce_blocking(&k->reducer, &sp, 1);
      }
      if (err || !(sp > DBL_MIN)) break;
      alpha[steps] = rho / sp;                                   /* alpha_j = (r,u) / (A p, p) */
      cc_vec_axpy(&k->exec, k->n, -alpha[steps], s, r);          /* r <- r - alpha s */
      err             = cc_precond_apply(k->pc, &k->exec, r, u); /* u = M^-1 r */
      double rho_next = 0.0;
      if (!err) {
        cc_krylov_dots(k, 1, (const double *const[]){r}, (const double *const[]){u}, &rho_next);
        err = cc_reduce_blocking(&k->reducer, &rho_next, 1);
      }
      if (err) break;
      beta[steps + 1] = rho_next / rho; /* beta_{j+1} = (r,u)_{j+1} / (r,u)_j */
      rho             = rho_next;
      cc_vec_xpby(&k->exec, k->n, u, beta[steps + 1], p); /* p <- u + beta p */
      steps++;
      if (!(rho_next > 1e-30 * beta[1])) break; /* converged: the Krylov space is exhausted */
    }
    cc_free(&r), cc_free(&u), cc_free(&p), cc_free(&s);
    CC_CALL(err);
    if (steps < 1) { /* A or M^-1 not SPD: a breakdown of the solve, like CG's own */
      res->converged = 0, res->breakdown = 1;
      snprintf(res->failure, sizeof res->failure,
               "breakdown at iteration %d: Lanczos spectrum estimate: (r,u) or (Ap,p) is not "
               "positive",
               k->start);
      *lmin = *lmax = 0.0, *n_ritz = 0;
      return CC_OK;
    }
    double d[CC_SPECTRUM_LANCZOS_STEPS], e[CC_SPECTRUM_LANCZOS_STEPS];
    for (int j = 0; j < steps; j++) {
      d[j] = 1.0 / alpha[j] + (j ? beta[j] / alpha[j - 1] : 0.0);
      e[j] = j + 1 < steps ? sqrt(beta[j + 1]) / alpha[j] : 0.0;
    }
    tridiag_eigenvalues(steps, d, e, ritz);
    *n_ritz = steps;
    /* Ritz values lie inside the spectrum: the largest grows toward lambda_max from below, so
     * the interval is widened by 10 % on that side (a shift past lambda_max is harmless; a
     * spectrum past the interval's end makes the Chebyshev basis grow) */
    *lmin               = ritz[0];
    *lmax               = 1.1 * ritz[steps - 1];
    res->spectrum_steps = steps;
    snprintf(res->spectrum_source, sizeof res->spectrum_source, "lanczos");
  }
  res->spectrum_seconds    = MPI_Wtime() - started;
  res->spectrum_reductions = (int)(k->reducer.blocking - blocking0);
  res->spectrum_min = *lmin, res->spectrum_max = *lmax;
  res->ritz_min = ritz[0], res->ritz_max = ritz[*n_ritz - 1];
  return CC_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Checkpoint / restart
 * ---------------------------------------------------------------------------------------------- */
/* Hand the live state to the checkpoint callback as checkpoint `iteration` (collective). */
static cc_err krylov_checkpoint(cc_krylov_ctx *k, int iteration, const cc_state_decl *decl,
                                double *const vectors[], const double scalars[])
{
  const cc_krylov_opts *o = k->opts;
  CC_CHECK(decl->n_vectors <= CC_STATE_MAX_VECTORS && decl->n_scalars <= CC_STATE_MAX_SCALARS,
           CC_ERR_ARG, "%s: state of %d vectors / %d scalars (at most %d / %d)", k->solver,
           decl->n_vectors, decl->n_scalars, CC_STATE_MAX_VECTORS, CC_STATE_MAX_SCALARS);
  cc_solver_state st;
  memset(&st, 0, sizeof st);
  snprintf(st.solver, sizeof st.solver, "%s", k->solver);
  st.iteration     = iteration;
  st.n_local       = k->n;
  st.same_operator = 1; /* for a callback that hands the state straight back */
  st.n_vectors     = decl->n_vectors;
  for (int j = 0; j < decl->n_vectors; j++) {
    snprintf(st.vector_name[j], sizeof st.vector_name[j], "%s", decl->vector_name[j]);
    st.vector[j] = vectors[j];
  }
  st.n_scalars = decl->n_scalars;
  for (int j = 0; j < decl->n_scalars; j++) {
    snprintf(st.scalar_name[j], sizeof st.scalar_name[j], "%s", decl->scalar_name[j]);
    st.scalar[j] = scalars[j];
  }
  cc_timer_token tok = cc_timer_start(k->timers, CC_T_CHECKPOINT);
  cc_err err         = o->checkpoint(o->checkpoint_ctx, &st);
  cc_timer_stop(k->timers, tok);
  CC_CHECK(err == CC_OK, err, "%s: checkpoint at iteration %d", k->solver, iteration);
  return CC_OK;
}

cc_err cc_krylov_iteration_end(cc_krylov_ctx *k, int iteration, const cc_state_decl *decl,
                               double *const vectors[], const double scalars[])
{
  if (k->first_it < 0) {
    k->first_it = iteration;
    memcpy(k->first_count, k->timers->count, sizeof k->first_count);
  }
  k->last_it = iteration;
  memcpy(k->last_count, k->timers->count, sizeof k->last_count);
  if (k->first_it == iteration) memcpy(k->first_traffic, k->traffic, sizeof k->first_traffic);
  memcpy(k->last_traffic, k->traffic, sizeof k->last_traffic);
  const int64_t red[3] = {k->reducer.blocking, k->reducer.posted, k->reducer.waited_early};
  if (k->first_it == iteration) memcpy(k->first_red, red, sizeof k->first_red);
  memcpy(k->last_red, red, sizeof k->last_red);
  if (iteration == k->inject_it && k->comm->rank == 0 && decl->n_vectors > 1 &&
      strcmp(decl->vector_name[1], "r") == 0)
    vectors[1][0] = k->inject_value; /* test seam: poison r (see krylov_inject_parse) */
  const cc_krylov_opts *o = k->opts;
  int due                 = o->checkpoint && iteration % o->checkpoint_every == 0;
  if (due) CC_CALL(krylov_checkpoint(k, iteration, decl, vectors, scalars));
  if (!o->monitor) return CC_OK;
  int stop = 0;
  CC_CALL(o->monitor(o->monitor_ctx, iteration, k->result->rel_residual, &stop));
  if (!stop) return CC_OK;
  /* stopped from outside (a signal): the state of this iteration is the one to restart from */
  if (o->checkpoint && !due) CC_CALL(krylov_checkpoint(k, iteration, decl, vectors, scalars));
  cc_solve_result *res = k->result;
  res->converged       = 0;
  res->interrupted     = 1;
  res->iterations      = iteration;
  snprintf(res->failure, sizeof res->failure, "interrupted after iteration %d (signal)", iteration);
  /* leaves the variant's loop through its CC_CALL; cc_krylov_end turns it back into CC_OK */
  return CC_ERR_INTERRUPTED;
}

cc_err cc_krylov_restart_exact(cc_krylov_ctx *k, double *x, int *exact)
{
  *exact = 0;
  if (!k->opts->restart) return CC_OK;
  if (k->opts->restart->same_operator) {
    *exact = 1;
    return CC_OK;
  }
  static const char *const x_only[] = {"x"};
  const cc_state_decl decl          = {1, x_only, 0, NULL};
  CC_CALL(cc_krylov_restore(k, &decl, (double *const[]){x}, NULL));
  k->result->restart_rebuilt = 1;
  return CC_OK;
}

cc_err cc_krylov_restore(cc_krylov_ctx *k, const cc_state_decl *decl, double *const vectors[],
                         double scalars[])
{
  const cc_solver_state *st = k->opts->restart;
  cc_err local              = CC_OK, global;
  const char *const *names = decl->vector_name, *const *scalar_names = decl->scalar_name;
  for (int j = 0; j < decl->n_vectors && !local; j++) {
    int found = -1;
    for (int i = 0; i < st->n_vectors; i++)
      if (strcmp(st->vector_name[i], names[j]) == 0) found = i;
    if (found < 0 || !st->vector[found])
      local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                            "restart state of '%s' at iteration %d has no vector '%s'", st->solver,
                            st->iteration, names[j]);
    else
      memcpy(vectors[j], st->vector[found], (size_t)k->n * sizeof(double));
  }
  for (int j = 0; j < decl->n_scalars && !local; j++) {
    int found = -1;
    for (int i = 0; i < st->n_scalars; i++)
      if (strcmp(st->scalar_name[i], scalar_names[j]) == 0) found = i;
    if (found < 0)
      local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                            "restart state of '%s' at iteration %d has no scalar '%s'", st->solver,
                            st->iteration, scalar_names[j]);
    else
      scalars[j] = st->scalar[found];
  }
  /* collective: a rank whose state is incomplete must not leave the others in a reduction */
  CC_CALL(cc_error_agree(k->comm->comm, local, &global));
  CC_CHECK(global == CC_OK, global, "%s: restart state incomplete", k->solver);
  return CC_OK;
}
