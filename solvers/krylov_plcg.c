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

/* How a cycle ended: CYCLE_GO while it runs; CYCLE_DONE ends the solve (converged, breakdown,
 * maxit); CYCLE_RESTART begins a new cycle from x (square-root breakdown, exact checkpoint). */
typedef enum { CYCLE_GO = 0, CYCLE_DONE, CYCLE_RESTART } plcg_outcome;

typedef struct {
  cc_krylov_ctx *k;
  int l;
  double sigma[CC_PLCG_MAX_DEPTH];
  double lmin, lmax; /* the spectrum the shifts cover */
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
  /* across cycles: the global iteration reached, whether the true residual decides (the natural
   * estimate fell below tol), sqrt(b^T B b) */
  int done, confirm;
  double bnat;
  /* the cycle's own: the iteration of the x it starts from, beta = sqrt(r^T B r) of that x,
   * D-Lanczos' pivot eta_a and coefficient zeta_a, a true-residual test passed (x = x_j), and
   * how it ended */
  int base;
  double beta, eta, zeta;
  int stop;
  plcg_outcome outcome;
} plcg_ctx;

/* Iteration i of a cycle: the ring slots it reads and writes, the iterate x_{a+1} it makes once
 * the pipeline is full (a = i - l) and the true-residual test its column carries. */
typedef struct {
  int it;                        /* i */
  double *z_new, *z_cur, *z_old; /* z_{i+1}, z_i, z_{i-1} (NULL at i = 0) */
  double *u_new, *u_cur, *u_old; /* zu likewise */
  int iteration;                 /* base + a + 1, the global index of x_{a+1} (-1 while i < l) */
  int test_iter;                 /* the iteration whose |b - A x|^2 rides in column i + 1, or -1 */
  double tt;                     /* that local |b - A x|^2 */
} plcg_iter;

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
 * (or the residual breaks down), x <- x_j and c->stop = 1. */
static void plcg_test_read(plcg_ctx *c, int j, double tt, double *x)
{
  if (c->stop) return;
  if (cc_krylov_converged(c->k, j, tt)) {
    const double *xj = c->xs[j % (c->l + 1)];
    if (xj != x) memcpy(x, xj, (size_t)c->k->n * sizeof(double));
    c->stop = 1;
  }
}

/* Complete every reduction still in flight (end of a cycle: convergence, restart, stop), oldest
 * column first; with read_tests the true-residual tests among them are read (c->stop = 1 and
 * x = x_j when one passes; 0 when no test can be in flight or none may decide). */
static cc_err plcg_drain(plcg_ctx *c, double *x, int read_tests)
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
    if (c->test_iter[i] >= 0 && read_tests)
      plcg_test_read(c, c->test_iter[i], scratch[c->count[i] - 1], x);
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

/* The cycle ends the solve here (a breakdown, or the recorded |r| decided): every reduction in
 * flight is completed, no test read. */
static cc_err plcg_end_drained(plcg_ctx *c, double *x)
{
  c->outcome = CYCLE_DONE;
  CC_CALL(plcg_drain(c, x, 0));
  return CC_OK;
}

/* A test in flight passed (x = x_j): the solve ends at the iteration the test recorded. */
static void plcg_end_tested(plcg_ctx *c)
{
  c->done    = c->k->result->iterations;
  c->outcome = CYCLE_DONE;
}

/* The start of a cycle from the current x: zu_0 = r = b - A x, z_0 = B r; column 0 of G,
 * (zu_0, z_0) = r^T B r = beta^2, posted with b^T B b's local part (the first cycle) and x's
 * true residual |r|^2 = (zu_0, zu_0) (the test phase, when x's was not taken yet). */
static cc_err plcg_cycle_start(plcg_ctx *c, double *b, double *x)
{
  cc_krylov_ctx *k = c->k;
  const int base   = c->done;
  double col[CC_PLCG_MAX_DEPTH + 3];
  c->base = base;
  c->beta = 0.0, c->eta = 0.0, c->zeta = 0.0;
  c->stop    = 0;
  c->outcome = CYCLE_GO;
  memset(c->g, 0, sizeof c->g);
  memset(c->gamma, 0, sizeof c->gamma);
  memset(c->delta, 0, sizeof c->delta);
  CC_CALL(cc_krylov_residual(k, b, x, c->zu[0]));
  CC_CALL(cc_precond_apply(k->pc, &k->exec, c->zu[0], c->z[0]));
  plcg_dots(k, c->zu[0], 1, (double *const[]){c->z[0]}, col);
  int n0 = 1, test0 = -1;
  if (c->bnat_pending) col[n0++] = c->bb_nat;
  if (c->confirm && c->tested_upto < base) {
    cc_krylov_dots(k, 1, (const double *const[]){c->zu[0]}, (const double *const[]){c->zu[0]},
                   &col[n0++]);
    memcpy(c->xs[base % (c->l + 1)], x, (size_t)k->n * sizeof(double));
    c->tested_upto = test0 = base;
  }
  CC_CALL(plcg_post(c, 0, col, n0, test0));
  return CC_OK;
}

static plcg_iter plcg_iter_at(const plcg_ctx *c, int it)
{
  const int nz = c->l + 2;
  return (plcg_iter){.it        = it,
                     .z_new     = c->z[(it + 1) % nz],
                     .z_cur     = c->z[it % nz],
                     .z_old     = it >= 1 ? c->z[(it - 1) % nz] : NULL,
                     .u_new     = c->zu[(it + 1) % 3],
                     .u_cur     = c->zu[it % 3],
                     .u_old     = it >= 1 ? c->zu[(it - 1) % 3] : NULL,
                     .iteration = -1,
                     .test_iter = -1,
                     .tt        = 0.0};
}

/* zu_{i+1} = A z_i (- sigma_i zu_i while i < l), z_{i+1} = B zu_{i+1}: overlapped with the
 * reductions of the l columns before. The first cycle's bases between v and z: y^m_0 = z_{l-m}. */
static cc_err plcg_spmv_step(plcg_ctx *c, const plcg_iter *s)
{
  cc_krylov_ctx *k = c->k;
  const int l = c->l, it = s->it;
  CC_CALL(cc_spmv(&k->exec, k->a, k->comm, s->z_cur, s->u_new));
  if (it < l) cc_vec_axpy(&k->exec, k->n, -c->sigma[it], s->u_cur, s->u_new);
  CC_CALL(cc_precond_apply(k->pc, &k->exec, s->u_new, s->z_new));
  if (it < l - 1) memcpy(c->y[l - 1 - it][0], s->z_new, (size_t)k->n * sizeof(double));
  return CC_OK;
}

/* Before the wait (i > l): x_a's D-Lanczos step (its coefficients are known) and, in the test
 * phase, x_a's local true residual |b - A x_a|^2, which rides in column i + 1. */
static cc_err plcg_x_step(plcg_ctx *c, double *b, double *x, plcg_iter *s)
{
  if (s->it <= c->l) return CC_OK;
  plcg_flush_x(c, x);
  const int x_iter = c->base + s->it - c->l;
  if (c->confirm && c->tested_upto < x_iter) {
    CC_CALL(plcg_test_local(c, b, x, x_iter, &s->tt));
    s->test_iter = x_iter;
  }
  return CC_OK;
}

/* Column 0 completes (i = l): beta = sqrt(r^T B r), v_0 = z_0 / beta, and every vector made so
 * far scales by 1/beta; the natural residual of x_base is beta / sqrt(b^T B b). */
static cc_err plcg_normalise(plcg_ctx *c, double *x)
{
  cc_krylov_ctx *k = c->k;
  const int l = c->l, nz = l + 2, base = c->base;
  double c0[3], t0v;
  int tested0;
  CC_CALL(plcg_wait(c, 0, c0, &tested0, &t0v));
  if (tested0 >= 0) { /* x_base's true residual, taken at the cycle's start */
    plcg_test_read(c, tested0, t0v, x);
    if (c->stop) {
      c->bnat_pending = 0;
      CC_CALL(plcg_end_drained(c, x));
      c->done = tested0;
      return CC_OK;
    }
  }
  if (c->bnat_pending) { /* sqrt(b^T B b): the natural norm the estimate is relative to */
    c->bnat_pending = 0;
    if (cc_krylov_breakdown(k, k->start, "(b, M^-1 b)", c0[1])) return plcg_end_drained(c, x);
    c->bnat = sqrt(c0[1]);
  }
  const double g00 = c0[0];
  if (cc_krylov_breakdown(k, base, "(r, M^-1 r)", g00)) return plcg_end_drained(c, x);
  const double beta = c->beta = sqrt(g00);
  for (int j = 0; j < nz; j++) plcg_scale(k, 1.0 / beta, c->z[j]);
  for (int j = 0; j < 3; j++) plcg_scale(k, 1.0 / beta, c->zu[j]);
  for (int m = 1; m < l; m++) plcg_scale(k, 1.0 / beta, c->y[m][0]);
  memcpy(c->v[0], c->z[0], (size_t)k->n * sizeof(double));
  G(0, 0) = 1.0;
  /* the cycle's start: natural residual beta of x (iteration `base` in the history) */
  const double rel0 = beta / c->bnat;
  plcg_trace(c, "natural-norm", base, beta);
  if (rel0 < k->opts->tol && !c->confirm) { /* below tol already: the true test decides */
    c->confirm                   = 1;
    k->result->natural_iteration = base;
  } else if (!c->confirm && cc_krylov_converged(k, base, rel0 * rel0 * k->bnorm * k->bnorm)) {
    return plcg_end_drained(c, x); /* a breakdown of the recorded |r| */
  }
  return CC_OK;
}

/* Column cc of G, posted l iterations ago: rows max(0, cc - l) .. cc, <z_cc, v_{cc-l}>_M and
 * <z_cc, z_j>_M (dots of vectors scaled by beta each when posted before the normalisation). The
 * true residual that rode with it is read first: when it passes, the solve ends at x_tested. */
static cc_err plcg_read_column(plcg_ctx *c, double *x, int cc)
{
  const int l         = c->l;
  const int first_row = cc - l > 0 ? cc - l : 0;
  double col[CC_PLCG_MAX_DEPTH + 3], tv = 0.0;
  int tested = -1;
  CC_CALL(plcg_wait(c, cc, col, &tested, &tv));
  if (tested >= 0) { /* the true residual of x_tested, posted l iterations ago */
    plcg_test_read(c, tested, tv, x);
    if (c->stop) {
      c->xp_pending = 0; /* x = x_tested */
      CC_CALL(plcg_end_drained(c, x));
      c->done = tested;
      return CC_OK;
    }
  }
  for (int r = first_row; r <= cc; r++) G(r, cc) = col[r - first_row];
  if (cc <= l)
    for (int r = first_row; r <= cc; r++) G(r, cc) /= c->beta * c->beta;
  return CC_OK;
}

/* The rest of G's column cc and the square of its diagonal (Cornelis et al. 2018, Z = V G): rows
 * below cc - l by symmetry of P_l(BA) in <,>_M, <z_cc, v_j> = <v_{cc-l}, z_{j+l}>; rows
 * cc-l+1 .. cc-1 turn <z_cc, z_j> into <z_cc, v_j> by G's own columns (Gram-Schmidt,
 * G(j,cc) = (G(j,cc) - sum_{q<j} G(q,j) G(q,cc)) / G(j,j)); returns
 * G(cc,cc)^2 = |z_cc - sum_q G(q,cc) v_q|_M^2. */
static double plcg_gram_column(plcg_ctx *c, int cc)
{
  const int l = c->l, low = cc - 2 * l > 0 ? cc - 2 * l : 0;
  for (int j = low; j < cc - l; j++) G(j, cc) = G(cc - l, j + l);
  for (int j = cc - l + 1 > 0 ? cc - l + 1 : 0; j < cc; j++) {
    double sum = 0.0;
    for (int q = low; q < j; q++) sum += G(q, j) * G(q, cc);
    G(j, cc) = (G(j, cc) - sum) / G(j, j);
  }
  double sum = 0.0;
  for (int q = low; q < cc; q++) sum += G(q, cc) * G(q, cc);
  return G(cc, cc) - sum;
}

/* G(cc, cc) = sqrt(diag2), cc = a + 1. NaN or overflow: a breakdown no restart mends (the guide's
 * exit 1). Not positive: the square-root breakdown, a new cycle from x (x_a holds every step
 * taken) unless a test in flight passes. */
static cc_err plcg_sqrt_step(plcg_ctx *c, double *x, const plcg_iter *s, int a, double diag2)
{
  cc_krylov_ctx *k = c->k;
  plcg_trace(c, "sqrt-argument", c->base + a, diag2);
  if (!isfinite(diag2)) {
    (void)cc_krylov_breakdown(k, c->base + a, "G(j,j)^2 (Gram factor)", diag2);
    return plcg_end_drained(c, x);
  }
  if (!(diag2 > 0.0)) {
    CC_CALL(plcg_drain(c, x, 1));
    if (c->stop) {
      plcg_end_tested(c);
      return CC_OK;
    }
    k->result->sqrt_breakdowns++;
    /* the new cycle's column 0 takes the test of this iteration's column */
    if (s->test_iter >= 0) c->tested_upto = s->test_iter - 1;
    c->done    = c->base + a;
    c->outcome = CYCLE_RESTART;
    return CC_OK;
  }
  G(a + 1, a + 1) = sqrt(diag2);
  return CC_OK;
}

/* T's row a from G (Cornelis et al. 2018, eq. for gamma_a and delta_a):
 *   a < l:  gamma_a = (G(a,a+1) + sigma_a G(a,a) - delta_{a-1} G(a-1,a)) / G(a,a),
 *           delta_a = G(a+1,a+1) / G(a,a)
 *   a >= l: gamma_a = (G(a,a) gamma_{a-l} + G(a,a+1) delta_{a-l} - delta_{a-1} G(a-1,a)) / G(a,a),
 *           delta_a = G(a+1,a+1) delta_{a-l} / G(a,a)
 * A delta_a that is not a positive normal number or a gamma_a not finite ends the solve (a
 * breakdown; nothing drained). */
static void plcg_tridiag_row(plcg_ctx *c, int a)
{
  cc_krylov_ctx *k = c->k;
  const int l      = c->l;
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
  if (cc_krylov_breakdown(k, c->base + a, "delta (Lanczos)", del)) {
    c->outcome = CYCLE_DONE;
  } else if (!isfinite(gam)) {
    (void)cc_krylov_breakdown(k, c->base + a, "gamma (Lanczos)", gam);
    c->outcome = CYCLE_DONE;
  }
}

/* D-Lanczos (T = L D L^T): eta_0 = gamma_0, zeta_0 = beta; lambda_a = delta_{a-1} / eta_{a-1},
 * eta_a = gamma_a - lambda_a delta_{a-1}, zeta_a = -lambda_a zeta_{a-1}. The step
 * x_{a+1} = x_a + zeta_a p_a waits for the next iteration's window (plcg_flush_x). A pivot that
 * is not a positive normal number ends the solve (a breakdown; nothing drained). */
static void plcg_dlanczos(plcg_ctx *c, int a)
{
  const double gam = c->gamma[RING(a)], dprev = a > 0 ? c->delta[RING(a - 1)] : 0.0;
  if (a == 0) {
    c->eta  = gam;
    c->zeta = c->beta;
  } else {
    const double lambda = dprev / c->eta; /* lambda_a = delta_{a-1} / eta_{a-1} */
    c->eta              = gam - lambda * dprev;
    c->zeta             = -lambda * c->zeta;
  }
  if (cc_krylov_breakdown(c->k, c->base + a, "eta (D-Lanczos pivot)", c->eta)) {
    c->outcome = CYCLE_DONE;
    return;
  }
  c->xp_pending = 1, c->xp_v = a % 3, c->xp_first = a == 0;
  c->xp_d = dprev, c->xp_eta = c->eta, c->xp_zeta = c->zeta;
}

/* The three-term recurrences of T's row a, each one pass:
 *   v_{a+1} = (y^{l-1}_a + (sigma_0 - gamma_a) v_a - delta_{a-1} v_{a-1}) / delta_a
 *   y^m_{a+1} = (y^{m-1}_a + (sigma_{l-m} - gamma_a) y^m_a - delta_{a-1} y^m_{a-1}) / delta_a
 *   z_{i+1} = (B A z_i - gamma_a z_i - delta_{a-1} z_{i-1}) / delta_a, zu likewise
 * (y^0_a = z_{a+l} = z_i, y^l = v). */
static void plcg_recurrences(plcg_ctx *c, const plcg_iter *s, int a)
{
  cc_krylov_ctx *k = c->k;
  const int l      = c->l;
  const double gam = c->gamma[RING(a)], del = c->delta[RING(a)];
  const double dprev = a > 0 ? c->delta[RING(a - 1)] : 0.0;
  const double *ytop = l > 1 ? c->y[l - 1][a % 3] : s->z_cur;
  plcg_combine(k, c->v[(a + 1) % 3], 1.0 / del, ytop, c->sigma[0] - gam, c->v[a % 3], -dprev,
               a > 0 ? c->v[(a + 2) % 3] : NULL);
  for (int m = 1; m < l; m++) {
    const double *below = m > 1 ? c->y[m - 1][a % 3] : s->z_cur;
    plcg_combine(k, c->y[m][(a + 1) % 3], 1.0 / del, below, c->sigma[l - m] - gam, c->y[m][a % 3],
                 -dprev, a > 0 ? c->y[m][(a + 2) % 3] : NULL);
  }
  plcg_combine(k, s->z_new, 1.0 / del, s->z_new, -gam, s->z_cur, -dprev, a > 0 ? s->z_old : NULL);
  plcg_combine(k, s->u_new, 1.0 / del, s->u_new, -gam, s->u_cur, -dprev, a > 0 ? s->u_old : NULL);
}

/* The iterate x_{a+1}: natural residual |zeta_{a+1}| = |zeta_a| delta_a / |eta_a|, relative to
 * sqrt(b^T B b). Once below tol the stopping test is on the true residual (taken before the next
 * wait); until then the natural estimate is the recorded |r|. */
static cc_err plcg_natural_test(plcg_ctx *c, double *x, plcg_iter *s, int a)
{
  cc_krylov_ctx *k    = c->k;
  s->iteration        = c->base + a + 1;
  const int iteration = s->iteration;
  double rel          = fabs(c->zeta) * c->delta[RING(a)] / fabs(c->eta) / c->bnat;
  plcg_trace(c, "natural-norm", iteration, rel * c->bnat);
  if (rel < k->opts->tol && !c->confirm) {
    c->confirm                   = 1;
    k->result->natural_iteration = iteration;
  }
  if (!c->confirm && cc_krylov_converged(k, iteration, rel * rel * k->bnorm * k->bnorm)) {
    plcg_flush_x(c, x);
    CC_CALL(plcg_end_drained(c, x)); /* a breakdown of the recorded |r| */
    c->done = iteration;
  }
  return CC_OK;
}

/* Iteration i >= l: column a + 1 of G completes (a = i - l) and gives T's row a, x_{a+1}'s
 * coefficients and the next basis vectors. */
static cc_err plcg_lanczos_step(plcg_ctx *c, double *x, plcg_iter *s)
{
  const int a = s->it - c->l;
  if (s->it == c->l) CC_CALL(plcg_normalise(c, x));
  if (c->outcome == CYCLE_GO) CC_CALL(plcg_read_column(c, x, a + 1));
  if (c->outcome == CYCLE_GO) CC_CALL(plcg_sqrt_step(c, x, s, a, plcg_gram_column(c, a + 1)));
  if (c->outcome == CYCLE_GO) plcg_tridiag_row(c, a);
  if (c->outcome == CYCLE_GO) plcg_dlanczos(c, a);
  if (c->outcome != CYCLE_GO) return CC_OK;
  plcg_recurrences(c, s, a);
  return plcg_natural_test(c, x, s, a);
}

/* Column i + 1 of G, posted now and completed l iterations later: <z_{i+1}, v_{a+1}>_M and
 * <z_{i+1}, z_j>_M, j = a+2 .. i+1 (before the first cycle's v exist: <z_{i+1}, z_j>_M,
 * j = 0 .. i+1), the true-residual test last. */
static cc_err plcg_post_column(plcg_ctx *c, const plcg_iter *s)
{
  const int l = c->l, nz = l + 2, it = s->it;
  double *partners[CC_PLCG_MAX_DEPTH + 2], col[CC_PLCG_MAX_DEPTH + 3];
  int count = 0;
  if (it < l) {
    for (int j = 0; j <= it + 1; j++) partners[count++] = c->z[j % nz];
  } else {
    const int a       = it - l;
    partners[count++] = c->v[(a + 1) % 3];
    for (int j = a + 2; j <= it + 1; j++) partners[count++] = c->z[j % nz];
  }
  plcg_dots(c->k, s->u_new, count, partners, col);
  if (s->test_iter >= 0) col[count++] = s->tt;
  CC_CALL(plcg_post(c, it + 1, col, count, s->test_iter));
  return CC_OK;
}

/* maxit reached at x_iteration: the tests in flight first (the oldest passing one decides), then
 * x_maxit's own, blocking. */
static cc_err plcg_maxit(plcg_ctx *c, double *b, double *x, int iteration)
{
  cc_krylov_ctx *k = c->k;
  c->outcome       = CYCLE_DONE;
  plcg_flush_x(c, x);
  CC_CALL(plcg_drain(c, x, 1));
  if (!c->stop && c->confirm && c->tested_upto < iteration) {
    double tt_last;
    CC_CALL(plcg_test_local(c, b, x, iteration, &tt_last));
    CC_CALL(cc_reduce_blocking(&k->reducer, &tt_last, 1));
    plcg_test_read(c, iteration, tt_last, x);
  }
  c->done = c->stop ? k->result->iterations : iteration;
  if (!c->stop) cc_krylov_maxit(k, iteration);
  return CC_OK;
}

/* The end of iteration x_iteration: a checkpoint (due or on a signal) holds x; with
 * checkpoint_exact the tests in flight are read before it (a restart sees the same) and a new
 * cycle begins from x after it, as a restart from this checkpoint begins one. */
static cc_err plcg_iteration_end(plcg_ctx *c, double *x, const plcg_iter *s)
{
  cc_krylov_ctx *k        = c->k;
  const cc_krylov_opts *o = k->opts;
  const int iteration     = s->iteration;
  const int exact_due =
      o->checkpoint && o->checkpoint_exact && iteration % o->checkpoint_every == 0;
  if (o->checkpoint) plcg_flush_x(c, x);
  if (exact_due) {
    CC_CALL(plcg_drain(c, x, 1));
    if (c->stop) {
      plcg_end_tested(c);
      return CC_OK;
    }
  }
  /* the test seam: z_{i+1}, the basis vector the next SpMV and every later column read */
  cc_krylov_poison(k, iteration, s->z_new);
  double confirm_state = c->confirm;
  cc_err ended =
      cc_krylov_iteration_end(k, iteration, &plcg_state, (double *const[]){x}, &confirm_state);
  if (ended == CC_ERR_INTERRUPTED) plcg_flush_x(c, x); /* the solve stops at x_iteration */
  CC_CALL(ended);
  if (exact_due) {
    c->done    = iteration;
    c->outcome = CYCLE_RESTART;
  }
  return CC_OK;
}

/* One cycle of p(l)-CG from the current x (global iteration c->done on entry and exit; c->outcome
 * says how it ended). Iteration i: SpMV and M^-1 of z_i; once the pipeline is full (i >= l) the
 * column posted l iterations ago completes and gives T's row a = i - l, x_{a+1} and the next
 * basis vectors; column i + 1 is posted; x_{a+1}'s iteration ends. */
static cc_err plcg_cycle(plcg_ctx *c, double *b, double *x)
{
  CC_CALL(plcg_cycle_start(c, b, x));
  for (int it = 0;; it++) {
    plcg_iter s = plcg_iter_at(c, it);
    CC_CALL(plcg_spmv_step(c, &s));
    CC_CALL(plcg_x_step(c, b, x, &s));
    if (it >= c->l) {
      CC_CALL(plcg_lanczos_step(c, x, &s));
      if (c->outcome != CYCLE_GO) return CC_OK;
    }
    CC_CALL(plcg_post_column(c, &s));
    if (it >= c->l) {
      if (s.iteration >= c->k->opts->maxit) return plcg_maxit(c, b, x, s.iteration);
      CC_CALL(plcg_iteration_end(c, x, &s));
      if (c->outcome != CYCLE_GO) return CC_OK;
    }
  }
}

/* the pipeline depth L and the spectrum bounds (before anything is allocated) */
static cc_err plcg_check(const cc_krylov_opts *o)
{
  const int l = o->pipeline_depth ? o->pipeline_depth : PLCG_DEFAULT_DEPTH;
  CC_CHECK(l >= 1 && l <= CC_PLCG_MAX_DEPTH, CC_ERR_ARG, "plcg: pipeline depth %d must be in 1..%d",
           l, CC_PLCG_MAX_DEPTH);
  CC_CALL(cc_krylov_check_spectrum("plcg", o));
  return CC_OK;
}

/* The vectors: z (l + 2), zu, v (3 each), y (3 (l - 1)), p, t, xs (l + 1); the spectrum of BA
 * and the Chebyshev shifts on it (a breakdown of its estimate ends the solve); b^T B b's local
 * part, which rides in the first cycle's column 0; the restart state. */
static cc_err plcg_setup(plcg_ctx *c, double *b, double *x)
{
  cc_krylov_ctx *k = c->k;
  const int l      = c->l;
  double **slots[CC_KRYLOV_MAX_VECTORS];
  int n_slots = 0;
  for (int j = 0; j < l + 2; j++) slots[n_slots++] = &c->z[j];
  for (int j = 0; j < 3; j++) slots[n_slots++] = &c->zu[j], slots[n_slots++] = &c->v[j];
  for (int m = 1; m < l; m++)
    for (int j = 0; j < 3; j++) slots[n_slots++] = &c->y[m][j];
  slots[n_slots++] = &c->p;
  slots[n_slots++] = &c->t;
  for (int j = 0; j <= l; j++) slots[n_slots++] = &c->xs[j];
  CC_CALL(cc_krylov_vectors(k, n_slots, slots));
  double ritz[CC_SPECTRUM_LANCZOS_STEPS];
  int n_ritz = 0, exact;
  CC_CALL(cc_krylov_spectrum(k, b, &c->lmin, &c->lmax, ritz, &n_ritz));
  if (k->result->breakdown) return CC_OK;
  /* Chebyshev nodes of [lmin, lmax]: sigma_i = (lmax + lmin)/2 + (lmax - lmin)/2 cos((2i+1) pi/2l)
   */
  const double lmin = c->lmin, lmax = c->lmax;
  for (int i = 0; i < l; i++)
    c->sigma[i] =
        0.5 * (lmax + lmin) + 0.5 * (lmax - lmin) * cos(acos(-1.0) * (2.0 * i + 1.0) / (2.0 * l));
  for (int i = 0; i <= CC_PLCG_MAX_DEPTH; i++) c->test_iter[i] = -1;
  c->tested_upto = k->start - 1;
  CC_CALL(cc_precond_apply(k->pc, &k->exec, b, c->t));
  cc_krylov_dots(k, 1, (const double *const[]){b}, (const double *const[]){c->t}, &c->bb_nat);
  c->bnat_pending      = 1;
  double confirm_state = 0.0;
  CC_CALL(cc_krylov_restart_exact(k, x, &exact));
  if (exact) CC_CALL(cc_krylov_restore(k, &plcg_state, (double *const[]){x}, &confirm_state));
  c->done    = k->start;
  c->confirm = confirm_state != 0.0;
  return CC_OK;
}

/* Cycles until one ends the solve; three restarts in a row without a step mean the shifts do not
 * fit the spectrum (a breakdown). */
static cc_err plcg_cycles(plcg_ctx *c, double *b, double *x)
{
  int stalled = 0;
  for (;;) {
    const int before = c->done;
    CC_CALL(plcg_cycle(c, b, x));
    if (c->outcome == CYCLE_DONE) return CC_OK;
    stalled = c->done == before ? stalled + 1 : 0;
    if (stalled >= 3) {
      cc_solve_result *res = c->k->result;
      res->converged = 0, res->breakdown = 1, res->iterations = c->done;
      snprintf(res->failure, sizeof res->failure,
               "breakdown at iteration %d: 3 square-root breakdowns without progress (spectrum "
               "bounds [%g, %g] do not fit M^-1 A?)",
               c->done, c->lmin, c->lmax);
      return CC_OK;
    }
  }
}

static cc_err plcg_iterate(cc_krylov_ctx *k, double *b, double *x)
{
  const cc_krylov_opts *o = k->opts;
  plcg_ctx *c             = NULL;
  CC_CALL(cc_calloc(1, sizeof *c, &c));
  c->k     = k;
  c->trace = o->inject && o->inject->plcg_trace;
  c->l     = o->pipeline_depth ? o->pipeline_depth : PLCG_DEFAULT_DEPTH;
  cc_krylov_label(k, c->l, 0, NULL);
  cc_err err = plcg_setup(c, b, x);
  if (!err && !k->result->breakdown) err = plcg_cycles(c, b, x);
  if (err == CC_ERR_INTERRUPTED) (void)plcg_drain(c, x, 0); /* every rank stops: collective */
  cc_free(&c);
  return err;
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
    .name         = "plcg",
    .description  = "p(l)-CG deep pipelines (Cornelis, Cools & Vanroose)",
    .supports_iar = 1,
    .check        = plcg_check,
    .iterate      = plcg_iterate,
    /* L = 2: dots L+1, axpy L+4 (y^1 v z zu p x) */
    .table1 = {.spmv = 1, .precond = 1, .dot = 3, .axpy = 6, .reductions = 1},
    /* L = 2: plcg_traffic_at(2); one path: fused = unfused */
    .vector_fused      = {.passes = 6, .reads = 19, .writes = 6},
    .vector_unfused    = {.passes = 6, .reads = 19, .writes = 6},
    .deep              = 1,
    .vector_traffic_at = plcg_traffic_at,
    .reduction_sizes   = plcg_reduction_sizes,
};
