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
  int trace; /* the plcg_trace seam: rank 0 prints each column's numbers to stderr */
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

/* Complete every reduction still in flight (end of a cycle: convergence, restart, stop). */
static cc_err plcg_drain(plcg_ctx *c)
{
  for (int i = 0; i <= c->l; i++)
    if (c->posted[i]) {
      double scratch[CC_REDUCE_MAX];
      c->posted[i] = 0;
      CC_CALL(cc_krylov_wait(c->k, scratch, 1, &c->red[i]));
    }
  return CC_OK;
}

static cc_err plcg_post(plcg_ctx *c, int column, double *values, int n)
{
  const int slot = column % (c->l + 1);
  CC_CALL(cc_krylov_post(c->k, values, n, &c->red[slot]));
  c->posted[slot] = c->k->opts->reduction == CC_REDUCTION_IAR;
  if (!c->posted[slot]) memcpy(c->red[slot].buffer, values, (size_t)n * sizeof(double));
  return CC_OK;
}

static cc_err plcg_wait(plcg_ctx *c, int column, double *values, int n)
{
  const int slot = column % (c->l + 1);
  if (c->posted[slot]) {
    c->posted[slot] = 0;
    CC_CALL(cc_krylov_wait(c->k, values, n, &c->red[slot]));
  } else {
    memcpy(values, c->red[slot].buffer, (size_t)n * sizeof(double));
  }
  return CC_OK;
}

typedef enum { CYCLE_DONE, CYCLE_RESTART } plcg_outcome;

/* One cycle of p(l)-CG from the current x (global iteration *done on entry and exit). */
static cc_err plcg_cycle(plcg_ctx *c, double *b, double *x, double bnat, int *done, int *confirm,
                         plcg_outcome *outcome)
{
  cc_krylov_ctx *k          = c->k;
  const int l               = c->l;
  const int nz              = l + 2;
  const cc_bcrs *a_mat      = k->a;
  const cc_comm_table *comm = k->comm;
  const int maxit           = k->opts->maxit;
  const int base            = *done;
  double beta = 0.0, eta = 0.0, zeta = 0.0;
  double col[CC_PLCG_MAX_DEPTH + 2];
  *outcome = CYCLE_DONE;
  memset(c->g, 0, sizeof c->g);
  memset(c->gamma, 0, sizeof c->gamma);
  memset(c->delta, 0, sizeof c->delta);

  /* zu_0 = r = b - A x, z_0 = B r; column 0: (zu_0, z_0) = r^T B r = beta^2 */
  CC_CALL(cc_krylov_residual(k, b, x, c->zu[0]));
  CC_CALL(cc_precond_apply(k->pc, &k->exec, c->zu[0], c->z[0]));
  plcg_dots(k, c->zu[0], 1, (double *const[]){c->z[0]}, col);
  CC_CALL(plcg_post(c, 0, col, 1));

  for (int it = 0;; it++) {
    double *z_new = c->z[(it + 1) % nz], *z_cur = c->z[it % nz];
    double *z_old = it >= 1 ? c->z[(it - 1) % nz] : NULL;
    double *u_new = c->zu[(it + 1) % 3], *u_cur = c->zu[it % 3];
    double *u_old = it >= 1 ? c->zu[(it - 1) % 3] : NULL;
    /* SpMV and M^-1 of this iteration: overlapped with the reductions of the l columns before */
    CC_CALL(cc_spmv(&k->exec, a_mat, comm, z_cur, u_new)); /* zu_{i+1} = A z_i (- sigma_i zu_i) */
    if (it < l) cc_vec_axpy(&k->exec, k->n, -c->sigma[it], u_cur, u_new);
    CC_CALL(cc_precond_apply(k->pc, &k->exec, u_new, z_new)); /* z_{i+1} = B zu_{i+1} */
    if (it < l - 1) /* y^m_0 = z_{l-m}: the first cycle's bases between v and z */
      memcpy(c->y[l - 1 - it][0], z_new, (size_t)k->n * sizeof(double));

    if (it >= l) {
      const int a = it - l, cc = a + 1; /* column cc of G completes: T's row a */
      if (it == l) {
        /* beta = sqrt(r^T B r): v_0 = z_0 / beta, and every vector made so far scales by 1/beta */
        double g00;
        CC_CALL(plcg_wait(c, 0, &g00, 1));
        if (cc_krylov_breakdown(k, base, "(r, M^-1 r)", g00)) return CC_OK;
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
          CC_CALL(plcg_drain(c));
          return CC_OK; /* a breakdown of the recorded |r| */
        }
      }
      /* the column posted l iterations ago: rows max(0, cc - l) .. cc */
      const int first_row = cc - l > 0 ? cc - l : 0;
      CC_CALL(plcg_wait(c, cc, col, cc - first_row + 1));
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
      if (!(diag2 > 0.0) || !isfinite(diag2)) {
        /* square-root breakdown: restart from x (x_a holds every step taken) */
        CC_CALL(plcg_drain(c));
        k->result->sqrt_breakdowns++;
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
      plcg_update_xp(k, c->v[a % 3], dprev, eta, zeta, c->p, x, a == 0);

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
      const int iteration = base + a + 1;
      double rel          = fabs(zeta) * del / fabs(eta) / bnat;
      plcg_trace(c, "natural-norm", iteration, rel * bnat);
      if (rel < k->opts->tol && !*confirm) {
        *confirm                     = 1;
        k->result->natural_iteration = iteration;
      }
      if (*confirm) { /* the stopping test on the true residual */
        double tt;
        CC_CALL(cc_krylov_residual(k, b, x, c->t));
        cc_krylov_dots(k, 1, (const double *const[]){c->t}, (const double *const[]){c->t}, &tt);
        CC_CALL(cc_reduce_blocking(&k->reducer, &tt, 1));
        rel = sqrt(tt) / k->bnorm;
      }
      const double rr = rel * rel * k->bnorm * k->bnorm; /* the recorded |r|^2 */
      if (cc_krylov_converged(k, iteration, rr)) {
        CC_CALL(plcg_drain(c));
        *done = iteration;
        return CC_OK;
      }
      if (iteration >= maxit) {
        CC_CALL(plcg_drain(c));
        *done = iteration;
        cc_krylov_maxit(k, iteration);
        return CC_OK;
      }
      double confirm_state = *confirm;
      CC_CALL(cc_krylov_iteration_end(k, iteration, &plcg_state, (double *const[]){x},
                                      &confirm_state));
      if (k->opts->checkpoint && k->opts->checkpoint_exact &&
          iteration % k->opts->checkpoint_every == 0) {
        /* checkpointed: a new cycle from x, as a restart from this checkpoint begins one */
        CC_CALL(plcg_drain(c));
        *done    = iteration;
        *outcome = CYCLE_RESTART;
        return CC_OK;
      }
    }

    /* column it+1 of G: <z_{i+1}, v_{a+1}>_M and <z_{i+1}, z_j>_M, j = a+2 .. i+1 (before the
     * first cycle's v exist: <z_{i+1}, z_j>_M, j = 0 .. i+1) */
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
    CC_CALL(plcg_post(c, it + 1, col, count));
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
  /* vectors: z (l + 2), zu, v (3 each), y (3 (l - 1)), p, t */
  double **slots[CC_KRYLOV_MAX_VECTORS];
  int n_slots = 0;
  if (!err) { /* l is in range only now */
    for (int j = 0; j < l + 2; j++) slots[n_slots++] = &c->z[j];
    for (int j = 0; j < 3; j++) slots[n_slots++] = &c->zu[j], slots[n_slots++] = &c->v[j];
    for (int m = 1; m < l; m++)
      for (int j = 0; j < 3; j++) slots[n_slots++] = &c->y[m][j];
    slots[n_slots++] = &c->p;
    slots[n_slots++] = &c->t;
    err              = cc_krylov_vectors(k, n_slots, slots);
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
  /* sqrt(b^T B b): the natural norm the estimate is relative to */
  double bnat = 0.0;
  if (!err) err = cc_precond_apply(k->pc, &k->exec, b, c->t);
  if (!err) {
    cc_krylov_dots(k, 1, (const double *const[]){b}, (const double *const[]){c->t}, &bnat);
    err = cc_reduce_blocking(&k->reducer, &bnat, 1);
  }
  if (!err && cc_krylov_breakdown(k, k->start, "(b, M^-1 b)", bnat)) {
    cc_free(&c);
    return CC_OK;
  }
  bnat = sqrt(bnat);
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
    err              = plcg_cycle(c, b, x, bnat, &done, &confirm, &outcome);
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
  if (err == CC_ERR_INTERRUPTED) (void)plcg_drain(c); /* every rank stops here: collective */
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

const cc_krylov cc_krylov_plcg = {
    "plcg",
    "p(l)-CG deep pipelines (Cornelis, Cools & Vanroose)",
    1,
    plcg_solve,
    {1, 1, 3, 6, 1}, /* L = 2: spmv, precond, dots L+1, axpy L+4 (y^1 v z zu p x), reductions */
    {6, 19, 6},      /* L = 2: y^1 v z zu (3 reads, 1 write), {p x}, the column's dots */
    {6, 19, 6},      /* one path: fused = unfused */
    1};
