/* krylov_plcg.c: p(l)-CG, the deep-pipelined preconditioned CG of Cornelis, Cools & Vanroose
 * ("The communication-hiding conjugate gradient method with deep pipelines", SIAM J. Sci. Comput.
 * 2018) in the preconditioned form of Cools, Cornelis & Vanroose (IEEE TPDS 2019): one reduction
 * of l+1 scalars per iteration, posted after iteration i's SpMV and M^-1 and completed l iterations
 * later; Chebyshev shifts sigma_k on [lambda_min, lambda_max] of M^-1 A; restart from x after a
 * square-root breakdown (the Gram factor's diagonal loses positivity in rounding).
 *
 * Notation (B = M^-1, <a, b>_M = a^T M b):
 *   v_a   Lanczos vectors of BA, M-orthonormal; T tridiagonal (diagonal gamma_a, off delta_a).
 *   z_j   the shifted basis: z_j = P_j(BA) v_0 for j <= l, z_j = P_l(BA) v_{j-l} for j >= l,
 *         P_j(t) = prod_{k<j} (t - sigma_k); zu_j = M z_j its unpreconditioned twin.
 *   y^m_a = P_{l-m}(BA) v_a, m = 1..l-1 (y^0_a = z_{a+l}, y^l_a = v_a): the bases between.
 *   G     Z = V G, upper triangular, band 2l: G(k, j) = <z_j, v_k>_M, k in [j - 2l, j].
 * x is formed by D-Lanczos (T = L D L^T): eta, zeta, p; |zeta| is the natural residual norm
 * sqrt(r^T B r). The stopping test is |r|/|b| < tol on the true residual b - A x, computed once
 * the natural estimate sqrt(r^T B r)/sqrt(b^T B b) falls below tol (and every iteration after).
 *
 * Reductions: besides |b| (every solver's), none is blocking. b^T B b rides in the first cycle's
 * column 0. x_j's D-Lanczos step and, in the test phase, its true residual |b - A x_j|^2 are
 * taken in iteration j + 1 before the wait (they need no value of it); the residual rides as one
 * more value in the column posted in iteration j + 1 and is read l iterations later, when that
 * column completes; x_j is kept (a ring of l + 1 copies) until then. The solve returns the first
 * x_j whose true residual passes and reports iteration j; the pipeline's iterations past j are
 * discarded work. A drain (restart, checkpoint, maxit) reads every test still in flight first;
 * maxit takes x_maxit's own test with one blocking reduction.
 */
#include "krylov_impl.h"

#include <float.h>
#include <math.h>

#define PLCG_DEFAULT_DEPTH 2

static const char *const plcg_vector_names[] = {"x"};
static const char *const plcg_scalar_names[] = {"confirm"};
/* a checkpoint holds x and whether the true-residual test is on; a restart begins a new cycle
 * from x (the pipeline's l+1 reductions in flight and its 4l+5 vectors are not part of the
 * state). With checkpoint_exact the solve drains its pipeline right after every checkpoint and
 * begins a new cycle from x itself (as after a square-root breakdown), so that a restart from
 * the checkpoint continues bit for bit. */
static const cc_state_decl plcg_state = {1, plcg_vector_names, 1, plcg_scalar_names};

typedef struct {
  cc_krylov_ctx *k;
  int l;
  double sigma[CC_PLCG_MAX_DEPTH];
  /* rings by global index: z (l + 2 slots), zu, v, y^m (3 slots each) */
  double *z[CC_PLCG_MAX_DEPTH + 2], *zu[3], *v[3], *y[CC_PLCG_MAX_DEPTH][3];
  double *p, *t;
  /* G's columns (ring of 2l + 2, rows j - 2l .. j), gamma and delta (ring of 2l + 2) */
  double g[(2 * CC_PLCG_MAX_DEPTH + 2) * (2 * CC_PLCG_MAX_DEPTH + 1)];
  double gamma[2 * CC_PLCG_MAX_DEPTH + 2], delta[2 * CC_PLCG_MAX_DEPTH + 2];
  cc_reduction red[CC_PLCG_MAX_DEPTH + 1]; /* column j in red[j % (l + 1)] */
  int posted[CC_PLCG_MAX_DEPTH + 1];
  int count[CC_PLCG_MAX_DEPTH + 1];     /* values in each slot's reduction */
  int test_iter[CC_PLCG_MAX_DEPTH + 1]; /* iteration whose |b - A x|^2 is its last value, or -1 */
  double *xs[CC_PLCG_MAX_DEPTH + 1];    /* x_j of a test in flight: xs[j % (l + 1)] */
  int tested_upto;                      /* the last iteration whose true residual was taken */
  /* the D-Lanczos step of x and p deferred to the next iteration's SpMV-to-wait window */
  int xp_pending, xp_v, xp_first;
  double xp_d, xp_eta, xp_zeta;
  double bb_nat;    /* b^T B b once column 0 of the first cycle is read */
  int bnat_pending; /* b^T B b's local part rides in column 0 */
  int trace;        /* the plcg_trace seam: rank 0 prints each column's numbers to stderr */
} plcg_ctx;

static double *plcg_g(plcg_ctx *c, int k, int j)
{
  const int l = c->l, cols = 2 * l + 2;
  return &c->g[(j % cols) * (2 * l + 1) + (k - j + 2 * l)];
}
#define G(k, j) (*plcg_g(c, (k), (j)))
#define RING(j) ((j) % (2 * c->l + 2))

/* Debugging aid (opts->inject->plcg_trace, from CUBECG_PLCG_TRACE=1 in the driver): rank 0
 * prints, per completed column of G, the global iteration, the square-root argument of G's
 * diagonal and, once T's row is known, the natural residual norm |zeta| of the new iterate
 * (absolute, as KSPPIPELCG's monitor prints it). */
static void plcg_trace(const plcg_ctx *c, const char *what, int iteration, double value)
{
  if (c->trace && c->k->comm->rank == 0)
    fprintf(stderr, "plcg-trace %s %d %.17g\n", what, iteration, value);
}

/* y <- s (w + c1 y1 + c2 y2): one pass, one AXPY-type update; y2 NULL when c2 = 0. y may be w
 * (z and zu are corrected in place), element by element, hence no restrict. */
static void plcg_combine(cc_krylov_ctx *k, double *y, double s, const double *w, double c1,
                         const double *y1, double c2, const double *y2)
{
  const int64_t n   = k->n;
  cc_timer_token t0 = cc_timer_start(k->timers, CC_T_AXPY);
  if (y2 && c2 != 0.0) {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) y[i] = s * (w[i] + c1 * y1[i] + c2 * y2[i]);
    cc_krylov_traffic_add(k, 1, 3, 1);
  } else {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) y[i] = s * (w[i] + c1 * y1[i]);
    cc_krylov_traffic_add(k, 1, 2, 1);
  }
  cc_timer_stop(k->timers, t0);
}

/* y <- s y (the first cycle's normalisation by 1/beta, once) */
static void plcg_scale(cc_krylov_ctx *k, double s, double *y)
{
  const int64_t n = k->n;
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) y[i] *= s;
}

/* p <- (v - d p) / eta (p <- v / eta when first); x <- x + zeta p: one pass, 2 updates */
static void plcg_update_xp(cc_krylov_ctx *k, const double *restrict v, double d, double eta,
                           double zeta, double *restrict p, double *restrict x, int first)
{
  const int64_t n   = k->n;
  const double dd   = first ? 0.0 : d;
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_AXPY, 2);
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) {
    double pi = (v[i] - dd * p[i]) / eta; /* p_a = (v_a - delta_{a-1} p_{a-1}) / eta_a */
    p[i]      = pi;
    x[i] += zeta * pi; /* x_{a+1} = x_a + zeta_a p_a */
  }
  cc_timer_stop(k->timers, t0);
  cc_krylov_traffic_add(k, 1, 3, 2);
}

/* Local dots out[j] = (u, w[j]), j < m <= 4, in one pass, each compensated (Ogita, Rump & Oishi's
 * Dot2: the product's error by fma, the sum's by TwoSum, carried beside it): nearly as accurate
 * as if computed in twice the precision. G's column enters the square-root argument of the Gram
 * factor, where p(l)-CG amplifies rounding by about 2x per iteration until a breakdown; a smaller
 * seed puts the breakdowns later. Measured (10^3 nodes, point-block Jacobi, 41 bounds 1e-7
 * apart, docs/deep-pipelines.md): L = 3 restarts 1.93 -> 1.32 per solve, L = 5 2.61 -> 2.46. */
static void plcg_dot2(cc_krylov_ctx *k, const double *restrict u, int m, double *const w[],
                      double out[])
{
  const int64_t n = k->n;
  /* unused pairs point at the first one; their sums are discarded */
  const double *restrict w0 = w[0], *restrict w1 = m > 1 ? w[1] : w0;
  const double *restrict w2 = m > 2 ? w[2] : w0, *restrict w3 = m > 3 ? w[3] : w0;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, e0 = 0.0, e1 = 0.0, e2 = 0.0, e3 = 0.0;
#define PLCG_DOT2_STEP(s, e, wi)                                                                   \
  do {                                                                                             \
    const double p_ = u[i] * (wi), t_ = (s) + p_, z_ = t_ - (s);                                   \
    (e) += ((s) - (t_ - z_)) + (p_ - z_) + fma(u[i], (wi), -p_);                                   \
    (s) = t_;                                                                                      \
  } while (0)
#pragma omp parallel for simd schedule(static) reduction(+ : s0, s1, s2, s3, e0, e1, e2, e3)       \
    if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) {
    PLCG_DOT2_STEP(s0, e0, w0[i]);
    PLCG_DOT2_STEP(s1, e1, w1[i]);
    PLCG_DOT2_STEP(s2, e2, w2[i]);
    PLCG_DOT2_STEP(s3, e3, w3[i]);
  }
#undef PLCG_DOT2_STEP
  const double sums[4] = {s0 + e0, s1 + e1, s2 + e2, s3 + e3};
  for (int j = 0; j < m; j++) out[j] = sums[j];
}

/* Local dots out[j] = (u, w[j]), j < count, four per pass, compensated (plcg_dot2); counted
 * and timed as cc_krylov_dots counts its fused dots (u is never one of w). */
static void plcg_dots(cc_krylov_ctx *k, const double *u, int count, double *const w[], double out[])
{
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_DOT, 0);
  for (int j = 0; j < count; j += 4) {
    int m = count - j < 4 ? count - j : 4;
    plcg_dot2(k, u, m, w + j, out + j);
    cc_count_op(cc_exec_timers(&k->exec), CC_T_DOT, m);
    cc_krylov_traffic_add(k, 1, m + 1, 0);
  }
  cc_timer_stop(k->timers, t0);
}

/* A true-residual test read from its column: records |r_j|/|b| for iteration j; when it passes
 * (or the residual breaks down), x <- x_j and *stop = 1. */
static void plcg_test_read(plcg_ctx *c, int j, double tt, double *x, int *stop)
{
  if (*stop) return;
  if (cc_krylov_converged(c->k, j, tt)) {
    const double *xj = c->xs[j % (c->l + 1)];
    if (xj != x) memcpy(x, xj, (size_t)c->k->n * sizeof(double));
    *stop = 1;
  }
}

/* Complete every reduction still in flight (end of a cycle: convergence, restart, stop), oldest
 * column first; the true-residual tests among them are read (*stop = 1 and x = x_j when one
 * passes; stop may be NULL when no test can be in flight). */
static cc_err plcg_drain(plcg_ctx *c, double *x, int *stop)
{
  int order[CC_PLCG_MAX_DEPTH + 1], n = 0;
  for (int i = 0; i <= c->l; i++)
    if (c->posted[i] || c->test_iter[i] >= 0) order[n++] = i;
  for (int a = 1; a < n; a++) /* tests by iteration: the oldest decides */
    for (int b = a; b > 0 && c->test_iter[order[b]] < c->test_iter[order[b - 1]]; b--) {
      int t    = order[b];
      order[b] = order[b - 1], order[b - 1] = t;
    }
  for (int q = 0; q < n; q++) {
    const int i = order[q];
    double scratch[CC_REDUCE_MAX];
    if (c->posted[i]) {
      c->posted[i] = 0;
      CC_CALL(cc_krylov_wait(c->k, scratch, c->count[i], &c->red[i]));
    } else {
      memcpy(scratch, c->red[i].buffer, (size_t)c->count[i] * sizeof(double));
    }
    if (c->test_iter[i] >= 0 && stop)
      plcg_test_read(c, c->test_iter[i], scratch[c->count[i] - 1], x, stop);
    c->test_iter[i] = -1;
  }
  return CC_OK;
}

static cc_err plcg_post(plcg_ctx *c, int column, double *values, int n, int test_iter)
{
  const int slot = column % (c->l + 1);
  CC_CALL(cc_krylov_post(c->k, values, n, &c->red[slot]));
  c->count[slot]     = n;
  c->test_iter[slot] = test_iter;
  c->posted[slot]    = c->k->opts->reduction == CC_REDUCTION_IAR;
  if (!c->posted[slot]) memcpy(c->red[slot].buffer, values, (size_t)n * sizeof(double));
  return CC_OK;
}

/* the column's values; *test_iter (may be NULL) the iteration of the test in its last value or -1,
 * *test_value that value */
static cc_err plcg_wait(plcg_ctx *c, int column, double *values, int *test_iter, double *test_value)
{
  const int slot = column % (c->l + 1), n = c->count[slot];
  if (c->posted[slot]) {
    c->posted[slot] = 0;
    CC_CALL(cc_krylov_wait(c->k, values, n, &c->red[slot]));
  } else {
    memcpy(values, c->red[slot].buffer, (size_t)n * sizeof(double));
  }
  if (test_iter) *test_iter = c->test_iter[slot];
  if (test_value) *test_value = c->test_iter[slot] >= 0 ? values[n - 1] : 0.0;
  c->test_iter[slot] = -1;
  return CC_OK;
}

/* x <- x_{a+1}: the deferred D-Lanczos step (done before anything reads x) */
static void plcg_flush_x(plcg_ctx *c, double *x)
{
  if (!c->xp_pending) return;
  c->xp_pending = 0;
  plcg_update_xp(c->k, c->v[c->xp_v], c->xp_d, c->xp_eta, c->xp_zeta, c->p, x, c->xp_first);
}

/* the local |b - A x_j|^2 of the true-residual test; x_j kept until the test is read */
static cc_err plcg_test_local(plcg_ctx *c, double *b, double *x, int j, double *tt)
{
  cc_krylov_ctx *k = c->k;
  CC_CALL(cc_krylov_residual(k, b, x, c->t));
  cc_krylov_dots(k, 1, (const double *const[]){c->t}, (const double *const[]){c->t}, tt);
  memcpy(c->xs[j % (c->l + 1)], x, (size_t)k->n * sizeof(double));
  c->tested_upto = j;
  return CC_OK;
}

typedef enum { CYCLE_DONE, CYCLE_RESTART } plcg_outcome;

/* One cycle of p(l)-CG from the current x (global iteration *done on entry and exit). */
static cc_err plcg_cycle(plcg_ctx *c, double *b, double *x, double *bnat_io, int *done,
                         int *confirm, plcg_outcome *outcome)
{
  cc_krylov_ctx *k          = c->k;
  const int l               = c->l;
  const int nz              = l + 2;
  const cc_bcrs *a_mat      = k->a;
  const cc_comm_table *comm = k->comm;
  const int maxit           = k->opts->maxit;
  const int base            = *done;
  double beta = 0.0, eta = 0.0, zeta = 0.0, bnat = *bnat_io;
  double col[CC_PLCG_MAX_DEPTH + 3];
  int stop = 0;
  *outcome = CYCLE_DONE;
  memset(c->g, 0, sizeof c->g);
  memset(c->gamma, 0, sizeof c->gamma);
  memset(c->delta, 0, sizeof c->delta);

  /* zu_0 = r = b - A x, z_0 = B r; column 0: (zu_0, z_0) = r^T B r = beta^2 */
  CC_CALL(cc_krylov_residual(k, b, x, c->zu[0]));
  CC_CALL(cc_precond_apply(k->pc, &k->exec, c->zu[0], c->z[0]));
  plcg_dots(k, c->zu[0], 1, (double *const[]){c->z[0]}, col);
  int n0 = 1, test0 = -1;
  if (c->bnat_pending) col[n0++] = c->bb_nat; /* the first cycle: b^T B b's local part */
  if (*confirm && c->tested_upto < base) {    /* x's true residual r = zu_0, not taken yet */
    cc_krylov_dots(k, 1, (const double *const[]){c->zu[0]}, (const double *const[]){c->zu[0]},
                   &col[n0++]);
    memcpy(c->xs[base % (l + 1)], x, (size_t)k->n * sizeof(double));
    c->tested_upto = test0 = base;
  }
  CC_CALL(plcg_post(c, 0, col, n0, test0));

  for (int it = 0;; it++) {
    double *z_new = c->z[(it + 1) % nz], *z_cur = c->z[it % nz];
    double *z_old = it >= 1 ? c->z[(it - 1) % nz] : NULL;
    double *u_new = c->zu[(it + 1) % 3], *u_cur = c->zu[it % 3];
    double *u_old = it >= 1 ? c->zu[(it - 1) % 3] : NULL;
    int iteration = -1, test_iter = -1;
    double tt = 0.0;
    /* SpMV and M^-1 of this iteration: overlapped with the reductions of the l columns before */
    CC_CALL(cc_spmv(&k->exec, a_mat, comm, z_cur, u_new)); /* zu_{i+1} = A z_i (- sigma_i zu_i) */
    if (it < l) cc_vec_axpy(&k->exec, k->n, -c->sigma[it], u_cur, u_new);
    CC_CALL(cc_precond_apply(k->pc, &k->exec, u_new, z_new)); /* z_{i+1} = B zu_{i+1} */
    if (it < l - 1) /* y^m_0 = z_{l-m}: the first cycle's bases between v and z */
      memcpy(c->y[l - 1 - it][0], z_new, (size_t)k->n * sizeof(double));
    if (it > l) { /* before the wait: x_a's step (its coefficients are known) and its test */
      plcg_flush_x(c, x);
      const int x_iter = base + it - l;
      if (*confirm && c->tested_upto < x_iter) {
        CC_CALL(plcg_test_local(c, b, x, x_iter, &tt));
        test_iter = x_iter;
      }
    }

    if (it >= l) {
      const int a = it - l, cc = a + 1; /* column cc of G completes: T's row a */
      if (it == l) {
        /* beta = sqrt(r^T B r): v_0 = z_0 / beta, and every vector made so far scales by 1/beta */
        double c0[3], t0v;
        int tested0;
        CC_CALL(plcg_wait(c, 0, c0, &tested0, &t0v));
        if (tested0 >= 0) { /* x_base's true residual, taken at the cycle's start */
          plcg_test_read(c, tested0, t0v, x, &stop);
          if (stop) {
            c->bnat_pending = 0;
            CC_CALL(plcg_drain(c, x, NULL));
            *done = tested0;
            return CC_OK;
          }
        }
        if (c->bnat_pending) { /* sqrt(b^T B b): the natural norm the estimate is relative to */
          c->bnat_pending = 0;
          if (cc_krylov_breakdown(k, k->start, "(b, M^-1 b)", c0[1])) {
            CC_CALL(plcg_drain(c, x, NULL));
            return CC_OK;
          }
          bnat = *bnat_io = sqrt(c0[1]);
        }
        const double g00 = c0[0];
        if (cc_krylov_breakdown(k, base, "(r, M^-1 r)", g00)) {
          CC_CALL(plcg_drain(c, x, NULL));
          return CC_OK;
        }
        beta = sqrt(g00);
        for (int j = 0; j < nz; j++) plcg_scale(k, 1.0 / beta, c->z[j]);
        for (int j = 0; j < 3; j++) plcg_scale(k, 1.0 / beta, c->zu[j]);
        for (int m = 1; m < l; m++) plcg_scale(k, 1.0 / beta, c->y[m][0]);
        memcpy(c->v[0], c->z[0], (size_t)k->n * sizeof(double));
        G(0, 0) = 1.0;
        /* the cycle's start: natural residual beta of x (iteration `base` in the history) */
        const double rel0 = beta / bnat;
        plcg_trace(c, "natural-norm", base, beta);
        if (rel0 < k->opts->tol && !*confirm) { /* below tol already: the true test decides */
          *confirm                     = 1;
          k->result->natural_iteration = base;
        } else if (!*confirm && cc_krylov_converged(k, base, rel0 * rel0 * k->bnorm * k->bnorm)) {
          CC_CALL(plcg_drain(c, x, NULL));
          return CC_OK; /* a breakdown of the recorded |r| */
        }
      }
      /* the column posted l iterations ago: rows max(0, cc - l) .. cc */
      const int first_row = cc - l > 0 ? cc - l : 0;
      int tested          = -1;
      double tv           = 0.0;
      CC_CALL(plcg_wait(c, cc, col, &tested, &tv));
      if (tested >= 0) { /* the true residual of x_tested, posted l iterations ago */
        plcg_test_read(c, tested, tv, x, &stop);
        if (stop) {
          c->xp_pending = 0; /* x = x_tested */
          CC_CALL(plcg_drain(c, x, NULL));
          *done = tested;
          return CC_OK;
        }
      }
      for (int r = first_row; r <= cc; r++) G(r, cc) = col[r - first_row];
      if (cc <= l) /* posted before the normalisation: dots of vectors scaled by beta each */
        for (int r = first_row; r <= cc; r++) G(r, cc) /= beta * beta;
      /* rows below cc - l by symmetry of P_l(BA) in <,>_M: <z_cc, v_j> = <v_{cc-l}, z_{j+l}> */
      for (int j = cc - 2 * l > 0 ? cc - 2 * l : 0; j < cc - l; j++) G(j, cc) = G(cc - l, j + l);
      /* rows cc-l+1 .. cc-1: <z_cc, z_j> -> <z_cc, v_j> (Gram-Schmidt by G's own columns) */
      const int low = cc - 2 * l > 0 ? cc - 2 * l : 0;
      for (int j = cc - l + 1 > 0 ? cc - l + 1 : 0; j < cc; j++) {
        double sum = 0.0;
        for (int q = low; q < j; q++) sum += G(q, j) * G(q, cc);
        G(j, cc) = (G(j, cc) - sum) / G(j, j);
      }
      double sum = 0.0;
      for (int q = low; q < cc; q++) sum += G(q, cc) * G(q, cc);
      const double diag2 = G(cc, cc) - sum; /* |z_cc - sum_q G(q,cc) v_q|_M^2 */
      plcg_trace(c, "sqrt-argument", base + a, diag2);
      if (!isfinite(diag2)) { /* NaN or overflow: no restart mends it (the guide's exit 1) */
        (void)cc_krylov_breakdown(k, base + a, "G(j,j)^2 (Gram factor)", diag2);
        CC_CALL(plcg_drain(c, x, NULL));
        return CC_OK;
      }
      if (!(diag2 > 0.0)) {
        /* square-root breakdown: restart from x (x_a holds every step taken) unless a test in
         * flight passes */
        CC_CALL(plcg_drain(c, x, &stop));
        if (stop) {
          *done = k->result->iterations;
          return CC_OK;
        }
        k->result->sqrt_breakdowns++;
        if (test_iter >= 0) c->tested_upto = test_iter - 1; /* the new cycle's column 0 takes it */
        *done    = base + a;
        *outcome = CYCLE_RESTART;
        return CC_OK;
      }
      G(cc, cc) = sqrt(diag2);
      /* T's row a from G (Cornelis et al. 2018, eq. for gamma_a and delta_a) */
      double gam, del;
      const double dprev = a > 0 ? c->delta[RING(a - 1)] : 0.0;
      if (a < l) {
        gam = (G(a, a + 1) + c->sigma[a] * G(a, a) - (a > 0 ? dprev * G(a - 1, a) : 0.0)) / G(a, a);
        del = G(a + 1, a + 1) / G(a, a);
      } else {
        gam = (G(a, a) * c->gamma[RING(a - l)] + G(a, a + 1) * c->delta[RING(a - l)] -
               dprev * G(a - 1, a)) /
              G(a, a);
        del = G(a + 1, a + 1) * c->delta[RING(a - l)] / G(a, a);
      }
      c->gamma[RING(a)] = gam;
      c->delta[RING(a)] = del;
      if (cc_krylov_breakdown(k, base + a, "delta (Lanczos)", del)) return CC_OK;
      if (!isfinite(gam)) {
        (void)cc_krylov_breakdown(k, base + a, "gamma (Lanczos)", gam);
        return CC_OK;
      }
      /* D-Lanczos: T = L D L^T; x_{a+1} = x_a + zeta_a p_a */
      if (a == 0) {
        eta  = gam;
        zeta = beta;
      } else {
        const double lambda = dprev / eta; /* lambda_a = delta_{a-1} / eta_{a-1} */
        eta                 = gam - lambda * dprev;
        zeta                = -lambda * zeta;
      }
      if (cc_krylov_breakdown(k, base + a, "eta (D-Lanczos pivot)", eta)) return CC_OK;
      /* x_{a+1} = x_a + zeta_a p_a: in the next iteration's window (plcg_flush_x) */
      c->xp_pending = 1, c->xp_v = a % 3, c->xp_first = a == 0;
      c->xp_d = dprev, c->xp_eta = eta, c->xp_zeta = zeta;

      /* v_{a+1} = (y^{l-1}_a + (sigma_0 - gamma_a) v_a - delta_{a-1} v_{a-1}) / delta_a */
      const double *ytop = l > 1 ? c->y[l - 1][a % 3] : z_cur;
      plcg_combine(k, c->v[(a + 1) % 3], 1.0 / del, ytop, c->sigma[0] - gam, c->v[a % 3], -dprev,
                   a > 0 ? c->v[(a + 2) % 3] : NULL);
      /* y^m_{a+1} = (y^{m-1}_a + (sigma_{l-m} - gamma_a) y^m_a - delta_{a-1} y^m_{a-1}) / delta_a
       */
      for (int m = 1; m < l; m++) {
        const double *below = m > 1 ? c->y[m - 1][a % 3] : z_cur;
        plcg_combine(k, c->y[m][(a + 1) % 3], 1.0 / del, below, c->sigma[l - m] - gam,
                     c->y[m][a % 3], -dprev, a > 0 ? c->y[m][(a + 2) % 3] : NULL);
      }
      /* z_{i+1} = (B A z_i - gamma_a z_i - delta_{a-1} z_{i-1}) / delta_a, zu likewise */
      plcg_combine(k, z_new, 1.0 / del, z_new, -gam, z_cur, -dprev, a > 0 ? z_old : NULL);
      plcg_combine(k, u_new, 1.0 / del, u_new, -gam, u_cur, -dprev, a > 0 ? u_old : NULL);

      /* the iterate x_{a+1}: natural residual |zeta_{a+1}| = |zeta_a| delta_a / |eta_a| */
      iteration  = base + a + 1;
      double rel = fabs(zeta) * del / fabs(eta) / bnat;
      plcg_trace(c, "natural-norm", iteration, rel * bnat);
      if (rel < k->opts->tol && !*confirm) {
        *confirm                     = 1;
        k->result->natural_iteration = iteration;
      }
      /* from here on, the stopping test on the true residual (taken before the next wait) */
      if (!*confirm && cc_krylov_converged(k, iteration, rel * rel * k->bnorm * k->bnorm)) {
        plcg_flush_x(c, x);
        CC_CALL(plcg_drain(c, x, NULL)); /* a breakdown of the recorded |r| */
        *done = iteration;
        return CC_OK;
      }
    }

    /* column it+1 of G: <z_{i+1}, v_{a+1}>_M and <z_{i+1}, z_j>_M, j = a+2 .. i+1 (before the
     * first cycle's v exist: <z_{i+1}, z_j>_M, j = 0 .. i+1); the true-residual test last */
    double *partners[CC_PLCG_MAX_DEPTH + 2];
    int count = 0;
    if (it < l) {
      for (int j = 0; j <= it + 1; j++) partners[count++] = c->z[j % nz];
    } else {
      const int a       = it - l;
      partners[count++] = c->v[(a + 1) % 3];
      for (int j = a + 2; j <= it + 1; j++) partners[count++] = c->z[j % nz];
    }
    plcg_dots(k, u_new, count, partners, col);
    if (test_iter >= 0) col[count++] = tt;
    CC_CALL(plcg_post(c, it + 1, col, count, test_iter));

    if (it >= l) {
      if (iteration >= maxit) { /* the tests in flight first: the oldest passing one decides */
        plcg_flush_x(c, x);
        CC_CALL(plcg_drain(c, x, &stop));
        if (!stop && *confirm && c->tested_upto < iteration) { /* x_maxit's own: blocking */
          double tt_last;
          CC_CALL(plcg_test_local(c, b, x, iteration, &tt_last));
          CC_CALL(cc_reduce_blocking(&k->reducer, &tt_last, 1));
          plcg_test_read(c, iteration, tt_last, x, &stop);
        }
        *done = stop ? k->result->iterations : iteration;
        if (!stop) cc_krylov_maxit(k, iteration);
        return CC_OK;
      }
      const int exact_due = k->opts->checkpoint && k->opts->checkpoint_exact &&
                            iteration % k->opts->checkpoint_every == 0;
      if (k->opts->checkpoint) plcg_flush_x(c, x); /* a checkpoint (due or on a signal) holds x */
      if (exact_due) { /* tests in flight read before the checkpoint: a restart sees the same */
        CC_CALL(plcg_drain(c, x, &stop));
        if (stop) {
          *done = k->result->iterations;
          return CC_OK;
        }
      }
      /* the test seam: z_{i+1}, the basis vector the next SpMV and every later column read */
      cc_krylov_poison(k, iteration, z_new);
      double confirm_state = *confirm;
      cc_err ended =
          cc_krylov_iteration_end(k, iteration, &plcg_state, (double *const[]){x}, &confirm_state);
      if (ended == CC_ERR_INTERRUPTED) plcg_flush_x(c, x); /* the solve stops at x_iteration */
      CC_CALL(ended);
      if (exact_due) {
        /* checkpointed: a new cycle from x, as a restart from this checkpoint begins one */
        *done    = iteration;
        *outcome = CYCLE_RESTART;
        return CC_OK;
      }
    }
  }
}

static cc_err plcg_iterate(cc_krylov_ctx *k, double *b, double *x)
{
  const cc_krylov_opts *o = k->opts;
  plcg_ctx *c             = NULL;
  CC_CALL(cc_calloc(1, sizeof *c, &c));
  cc_err err  = CC_OK;
  c->k        = k;
  c->trace    = o->inject && o->inject->plcg_trace;
  c->l        = o->pipeline_depth ? o->pipeline_depth : PLCG_DEFAULT_DEPTH;
  const int l = c->l;
  cc_krylov_label(k, l, 0, NULL);
  if (l < 1 || l > CC_PLCG_MAX_DEPTH)
    err = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                        "plcg: pipeline depth %d must be in 1..%d", l, CC_PLCG_MAX_DEPTH);
  if (!err && !(o->spectrum_max == 0.0 && o->spectrum_min == 0.0) &&
      !(o->spectrum_min >= 0.0 && o->spectrum_max > o->spectrum_min && isfinite(o->spectrum_max)))
    err = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                        "plcg: spectrum bounds [%g, %g] must satisfy 0 <= min < max",
                        o->spectrum_min, o->spectrum_max);
  /* vectors: z (l + 2), zu, v (3 each), y (3 (l - 1)), p, t, xs (l + 1) */
  double **slots[CC_KRYLOV_MAX_VECTORS];
  int n_slots = 0;
  if (!err) { /* l is in range only now */
    for (int j = 0; j < l + 2; j++) slots[n_slots++] = &c->z[j];
    for (int j = 0; j < 3; j++) slots[n_slots++] = &c->zu[j], slots[n_slots++] = &c->v[j];
    for (int m = 1; m < l; m++)
      for (int j = 0; j < 3; j++) slots[n_slots++] = &c->y[m][j];
    slots[n_slots++] = &c->p;
    slots[n_slots++] = &c->t;
    for (int j = 0; j <= l; j++) slots[n_slots++] = &c->xs[j];
    err = cc_krylov_vectors(k, n_slots, slots);
  }
  double lmin = 0.0, lmax = 0.0, ritz[CC_SPECTRUM_LANCZOS_STEPS];
  int n_ritz = 0;
  if (!err) err = cc_krylov_spectrum(k, b, &lmin, &lmax, ritz, &n_ritz);
  if (!err && k->result->breakdown) {
    cc_free(&c);
    return CC_OK;
  }
  /* Chebyshev nodes of [lmin, lmax]: sigma_i = (lmax + lmin)/2 + (lmax - lmin)/2 cos((2i+1) pi/2l)
   */
  for (int i = 0; i < l && !err; i++)
    c->sigma[i] =
        0.5 * (lmax + lmin) + 0.5 * (lmax - lmin) * cos(acos(-1.0) * (2.0 * i + 1.0) / (2.0 * l));
  /* b^T B b's local part: reduced with the first cycle's column 0 (sqrt: the natural norm the
   * estimate is relative to) */
  double bnat = 0.0;
  for (int i = 0; i <= CC_PLCG_MAX_DEPTH; i++) c->test_iter[i] = -1;
  c->tested_upto = k->start - 1;
  if (!err) err = cc_precond_apply(k->pc, &k->exec, b, c->t);
  if (!err) {
    cc_krylov_dots(k, 1, (const double *const[]){b}, (const double *const[]){c->t}, &c->bb_nat);
    c->bnat_pending = 1;
  }
  double confirm_state = 0.0;
  if (!err) {
    int exact;
    err = cc_krylov_restart_exact(k, x, &exact);
    if (!err && exact)
      err = cc_krylov_restore(k, &plcg_state, (double *const[]){x}, &confirm_state);
  }
  int done = k->start, confirm = confirm_state != 0.0, stalled = 0;
  while (!err) {
    plcg_outcome outcome;
    const int before = done;
    err              = plcg_cycle(c, b, x, &bnat, &done, &confirm, &outcome);
    if (err || outcome == CYCLE_DONE) break;
    stalled = done == before ? stalled + 1 : 0;
    if (stalled >= 3) { /* three restarts without a step: the shifts do not fit the spectrum */
      cc_solve_result *res = k->result;
      res->converged = 0, res->breakdown = 1, res->iterations = done;
      snprintf(res->failure, sizeof res->failure,
               "breakdown at iteration %d: 3 square-root breakdowns without progress (spectrum "
               "bounds [%g, %g] do not fit M^-1 A?)",
               done, lmin, lmax);
      break;
    }
  }
  if (err == CC_ERR_INTERRUPTED) (void)plcg_drain(c, x, NULL); /* every rank stops: collective */
  cc_free(&c);
  return err;
}

static cc_err plcg_solve(const cc_bcrs *a, const cc_comm_table *comm, cc_precond *pc, double *b,
                         double *x, const cc_krylov_opts *opts, cc_solve_result *result)
{
  cc_krylov_ctx k;
  CC_CALL(cc_krylov_begin(&k, &cc_krylov_plcg, a, comm, pc, b, x, opts, result));
  CC_CALL(cc_krylov_end(&k, b, x, plcg_iterate(&k, b, x)));
  return CC_OK;
}

/* The vector traffic of an iteration at depth L, as plcg_cycle counts it once the pipeline is
 * full: the combines of v, y^1 .. y^(L-1), z and zu (L + 2 passes, 3 reads and 1 write each), p
 * and x in one pass (3 reads, 2 writes), and G's column of L + 1 dots with the newest zu, four
 * per pass (ceil((L + 1) / 4) passes, each reading zu and its partners): passes L + 3 + q, reads
 * 4L + 10 + q, writes L + 4, q = ceil((L + 1) / 4). L = 2: 6, 19, 6 (the registry's default). */
static cc_krylov_traffic plcg_traffic_at(int l)
{
  const int q = (l + 1 + 3) / 4;
  return (cc_krylov_traffic){l + 3 + q, 4 * l + 10 + q, l + 4};
}

/* column i+1 of G once the pipeline is full (plcg_cycle): <z_{i+1}, v_{a+1}>_M and the L values
 * <z_{i+1}, z_j>_M, j = a+2 .. i+1: L + 1 (the rare true-residual test adds one) */
static int plcg_reduction_sizes(const cc_krylov_opts *o, int sizes[CC_KRYLOV_SIZES_MAX])
{
  sizes[0] = (o->pipeline_depth ? o->pipeline_depth : PLCG_DEFAULT_DEPTH) + 1;
  return 1;
}

const cc_krylov cc_krylov_plcg = {
    "plcg",
    "p(l)-CG deep pipelines (Cornelis, Cools & Vanroose)",
    1,
    plcg_solve,
    {1, 1, 3, 6, 1}, /* L = 2: spmv, precond, dots L+1, axpy L+4 (y^1 v z zu p x), reductions */
    {6, 19, 6},      /* L = 2: plcg_traffic_at(2) */
    {6, 19, 6},      /* one path: fused = unfused */
    1,
    plcg_traffic_at,
    plcg_reduction_sizes};
