/* krylov_sstep.c: s-step (communication-avoiding) preconditioned CG after Chronopoulos & Gear
 * ("s-step iterative methods for symmetric linear systems", J. Comput. Appl. Math. 1989), with the
 * Chebyshev or Newton basis of Hoemmen (PhD thesis 2010, ch. 7) and Carson & Demmel: per block of
 * S steps, S SpMV + S M^-1 build the basis, one reduction carries every inner product the block
 * needs (Gram matrices and right-hand side), then the block's directions are A-orthogonalised
 * against the previous block's and x, r advance by S steps at once.
 *
 * Block k (B = M^-1; V, W, P, AP are n x S):
 *   v_0 = B r_k, v_{j+1} = basis polynomial step of BA on v_j, w_j = A v_j  (S SpMV, S M^-1)
 *   one reduction: V^T W (S(S+1)/2), C = AP_{k-1}^T V (S^2, k > 0), g = V^T r_k (S), |r_k|^2
 *   Bk = -Q_{k-1}^-1 C;  P_k = V + P_{k-1} Bk;  AP_k = W + AP_{k-1} Bk   (A-conjugate blocks)
 *   Q_k = P_k^T A P_k = V^T W + C^T Bk;  a_k = Q_k^-1 g  (P_k^T r_k = V^T r_k: r_k _|_ P_{k-1})
 *   x_{k+1} = x_k + P_k a_k;  r_{k+1} = r_k - AP_k a_k
 * In exact arithmetic x_{k+1} is CG's iterate (k+1) S. |r_k| arrives with block k's reduction, so
 * convergence is seen at block ends (iterations in steps of S). With IAR the reduction overlaps
 * x's update of the previous block (deferred to it), the only work that does not need its result.
 */
#include "krylov_impl.h"

#include <float.h>
#include <math.h>

#define SSTEP_DEFAULT_S 4
#define SMAX CC_SSTEP_MAX

static const char *const sstep_vector_names[] = {"x", "r"};
/* a checkpoint holds x and r at a block end; a restart starts a fresh block (its directions not
 * made A-conjugate to the previous block's, which would need 2S vectors and S^2 scalars more).
 * With checkpoint_exact the block after every checkpoint starts afresh in the checkpointing run
 * too, so that a restart from the checkpoint continues bit for bit. */
static const cc_state_decl sstep_state = {2, sstep_vector_names, 0, NULL};

/* Cholesky factor L L^T = Q (s x s, row major, lower part into l); 0 when Q is not SPD. */
static int sstep_cholesky(int s, const double *q, double *l)
{
  for (int i = 0; i < s; i++)
    for (int j = 0; j <= i; j++) {
      double sum = q[i * s + j];
      for (int m = 0; m < j; m++) sum -= l[i * s + m] * l[j * s + m];
      if (i == j) {
        if (!(sum > 0.0) || !isfinite(sum)) return 0;
        l[i * s + i] = sqrt(sum);
      } else {
        l[i * s + j] = sum / l[j * s + j];
      }
    }
  return 1;
}

/* Solve L L^T y = rhs in place (rhs of s values). */
static void sstep_chol_solve(int s, const double *l, double *y)
{
  for (int i = 0; i < s; i++) { /* L z = y */
    for (int m = 0; m < i; m++) y[i] -= l[i * s + m] * y[m];
    y[i] /= l[i * s + i];
  }
  for (int i = s - 1; i >= 0; i--) { /* L^T y = z */
    for (int m = i + 1; m < s; m++) y[i] -= l[m * s + i] * y[m];
    y[i] /= l[i * s + i];
  }
}

/* Condition estimate of the SPD Q from its Cholesky factor after diagonal scaling: (max l_ii /
 * min l_ii)^2 of D^-1/2 Q D^-1/2 (a lower bound of the 2-norm condition number). */
static double sstep_condition(int s, const double *q)
{
  double scaled[SMAX * SMAX], l[SMAX * SMAX];
  for (int i = 0; i < s; i++)
    for (int j = 0; j < s; j++)
      scaled[i * s + j] = q[i * s + j] / sqrt(q[i * s + i] * q[j * s + j]);
  if (!sstep_cholesky(s, scaled, l)) return INFINITY;
  double lo = INFINITY, hi = 0.0;
  for (int i = 0; i < s; i++) lo = fmin(lo, l[i * s + i]), hi = fmax(hi, l[i * s + i]);
  return (hi / lo) * (hi / lo);
}

/* The basis' shifts theta_j and scales: v_{j+1} = (BA v_j - theta_j v_j) / scale_j (Newton,
 * monomial with theta = 0, scale = 1), Chebyshev: v_1 = (BA - c) v_0 / h,
 * v_{j+1} = 2 (BA - c) v_j / h - v_{j-1} (c, h centre and half width of [lmin, lmax]). */
typedef struct {
  cc_sstep_basis kind;
  double theta[SMAX], scale[SMAX];
  double centre, half;
} sstep_basis;

/* Newton's shifts: s - 1 Leja points of the candidates (the Ritz values, or Chebyshev points of
 * [lmin, lmax] when the bounds were given): first the largest in modulus, then each maximising
 * the product of its distances to those chosen (Reichel 1990), so the basis' growth stays even. */
static void sstep_leja(int s, const double *cand, int n_cand, double *theta)
{
  int used[CC_SPECTRUM_LANCZOS_STEPS + SMAX] = {0};
  for (int j = 0; j < s - 1 && j < n_cand; j++) {
    int best     = -1;
    double score = -1.0;
    for (int i = 0; i < n_cand; i++) {
      if (used[i]) continue;
      double prod = j == 0 ? fabs(cand[i]) : 1.0;
      for (int m = 0; m < j; m++) prod *= fabs(cand[i] - theta[m]);
      if (prod > score) score = prod, best = i;
    }
    used[best] = 1;
    theta[j]   = cand[best];
  }
}

static void sstep_basis_make(sstep_basis *bs, cc_sstep_basis kind, int s, double lmin, double lmax,
                             const double *ritz, int n_ritz)
{
  bs->kind   = kind;
  bs->centre = 0.5 * (lmax + lmin);
  bs->half   = 0.5 * (lmax - lmin);
  for (int j = 0; j < SMAX; j++) bs->theta[j] = 0.0, bs->scale[j] = 1.0;
  if (kind == CC_SSTEP_NEWTON) {
    double cand[CC_SPECTRUM_LANCZOS_STEPS + SMAX];
    int n = 0;
    if (n_ritz >= s - 1) {
      for (int i = 0; i < n_ritz; i++) cand[n++] = ritz[i];
    } else { /* bounds given: Chebyshev points of [lmin, lmax] as the candidates */
      for (int i = 0; i < s - 1; i++)
        cand[n++] = bs->centre + bs->half * cos(acos(-1.0) * (2.0 * i + 1.0) / (2.0 * (s - 1)));
    }
    sstep_leja(s, cand, n, bs->theta);
    for (int j = 0; j < s - 1; j++) bs->scale[j] = bs->half; /* keeps |v_j| of one order */
  }
}

/* Local dots out[j] = (x[j], y[j]) for count pairs, four per pass. */
static void sstep_dots(cc_krylov_ctx *k, int count, const double *const *x, const double *const *y,
                       double *out)
{
  for (int j = 0; j < count; j += 4) {
    int m = count - j < 4 ? count - j : 4;
    cc_krylov_dots(k, m, x + j, y + j, out + j);
  }
}

/* y[j] <- y[j] + sum_i old[i] coef[i * s + j] for j < s: the block's directions (one pass per
 * column, one AXPY-type update each) */
static void sstep_block_combine(cc_krylov_ctx *k, int s, double *const *y, double *const *old,
                                const double *coef)
{
  const int64_t n = k->n;
  for (int j = 0; j < s; j++) {
    double cj[SMAX];
    for (int i = 0; i < s; i++) cj[i] = coef[i * s + j];
    double *restrict yj = y[j];
    cc_timer_token t0   = cc_timer_start(k->timers, CC_T_AXPY);
#pragma omp parallel for schedule(static) if (n > CC_OMP_CHUNK)
    for (int64_t e = 0; e < n; e++) {
      double sum = yj[e];
      for (int i = 0; i < s; i++) sum += old[i][e] * cj[i];
      yj[e] = sum;
    }
    cc_timer_stop(k->timers, t0);
    cc_krylov_traffic_add(k, 1, s + 1, 1);
  }
}

/* y <- y + sgn sum_i vecs[i] a[i] (one pass, one AXPY-type update) */
static void sstep_multi_axpy(cc_krylov_ctx *k, int s, double sgn, double *const *vecs,
                             const double *a, double *restrict y)
{
  const int64_t n   = k->n;
  cc_timer_token t0 = cc_timer_start(k->timers, CC_T_AXPY);
#pragma omp parallel for schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t e = 0; e < n; e++) {
    double sum = 0.0;
    for (int i = 0; i < s; i++) sum += vecs[i][e] * a[i];
    y[e] += sgn * sum;
  }
  cc_timer_stop(k->timers, t0);
  cc_krylov_traffic_add(k, 1, s + 1, 1);
}

typedef struct {
  cc_krylov_ctx *k;
  int s;
  sstep_basis basis;
  double *v[SMAX], *w[SMAX], *p[SMAX], *ap[SMAX], *r;
  double l_prev[SMAX * SMAX]; /* the Cholesky factor of Q_{k-1} */
  double a_prev[SMAX];        /* a_{k-1}: x's update deferred */
  int have_prev, x_pending;
  int last_recorded; /* the last iteration the history holds, and its |r|/|b| */
  double last_rel;
} sstep_ctx;

/* The inner products of a block, in one reduction: V^T W (upper triangle, S(S+1)/2 values),
 * C = AP_{k-1}^T V (S^2, from the second block on) at off_c, g = V^T r_k (S) at off_g, |r_k|^2
 * last. */
typedef struct {
  double vals[CC_REDUCE_MAX];
  int n, off_c, off_g;
  cc_reduction red;
} sstep_products;

/* The block's basis: v_0 = B r, w_j = A v_j, v_{j+1} from B w_j (s SpMV, s M^-1). */
static cc_err sstep_make_basis(sstep_ctx *c)
{
  cc_krylov_ctx *k      = c->k;
  const int s           = c->s;
  const int64_t n       = k->n;
  const sstep_basis *bs = &c->basis;
  CC_CALL(cc_precond_apply(k->pc, &k->exec, c->r, c->v[0])); /* v_0 = B r */
  for (int j = 0; j < s; j++) {
    CC_CALL(cc_spmv(&k->exec, k->a, k->comm, c->v[j], c->w[j])); /* w_j = A v_j */
    if (j + 1 == s) break;
    double *vn = c->v[j + 1];
    CC_CALL(cc_precond_apply(k->pc, &k->exec, c->w[j], vn)); /* vn = BA v_j */
    const double *vj = c->v[j], *vm = j ? c->v[j - 1] : NULL;
    cc_timer_token t0 = cc_timer_start(k->timers, CC_T_AXPY);
    if (bs->kind == CC_SSTEP_CHEBYSHEV) {
      const double cen = bs->centre, h = bs->half;
      if (j == 0) {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
        for (int64_t e = 0; e < n; e++) vn[e] = (vn[e] - cen * vj[e]) / h; /* (BA - c) v_0 / h */
        cc_krylov_traffic_add(k, 1, 2, 1);
      } else {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
        for (int64_t e = 0; e < n; e++) /* 2 (BA - c) v_j / h - v_{j-1} */
          vn[e] = 2.0 * (vn[e] - cen * vj[e]) / h - vm[e];
        cc_krylov_traffic_add(k, 1, 3, 1);
      }
    } else {
      const double th = bs->theta[j], sc = bs->scale[j];
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
      for (int64_t e = 0; e < n; e++) vn[e] = (vn[e] - th * vj[e]) / sc; /* (BA - theta) v / sc */
      cc_krylov_traffic_add(k, 1, 2, 1);
    }
    cc_timer_stop(k->timers, t0);
  }
  return CC_OK;
}

/* The block's local inner products (sstep_products' order), four per pass. */
static void sstep_block_dots(const sstep_ctx *c, sstep_products *pr)
{
  const int s = c->s;
  const double *xs[CC_REDUCE_MAX], *ys[CC_REDUCE_MAX];
  int n = 0;
  for (int i = 0; i < s; i++)
    for (int j = i; j < s; j++) xs[n] = c->v[i], ys[n++] = c->w[j];
  pr->off_c = n;
  if (c->have_prev)
    for (int i = 0; i < s; i++)
      for (int j = 0; j < s; j++) xs[n] = c->ap[i], ys[n++] = c->v[j];
  pr->off_g = n;
  for (int i = 0; i < s; i++) xs[n] = c->v[i], ys[n++] = c->r;
  xs[n] = c->r, ys[n++] = c->r;
  pr->n = n;
  sstep_dots(c->k, n, xs, ys, pr->vals);
}

/* x_k = x_{k-1} + P_{k-1} a_{k-1}, put off from the previous block to overlap this block's
 * reduction (IAR); then iteration it ends there (checkpoint, monitor). */
static cc_err sstep_advance_x(sstep_ctx *c, double *x, int it, sstep_products *pr)
{
  cc_krylov_ctx *k = c->k;
  if (!c->x_pending) return CC_OK;
  sstep_multi_axpy(k, c->s, 1.0, c->p, c->a_prev, x);
  c->x_pending = 0;
  if (it <= k->start) return CC_OK;
  cc_err err = cc_krylov_iteration_end(k, it, &sstep_state, (double *const[]){x, c->r}, NULL);
  if (err && k->opts->reduction == CC_REDUCTION_IAR) { /* stopped: complete the posted reduction */
    double scratch[CC_REDUCE_MAX];
    cc_err drained = cc_krylov_wait(k, scratch, pr->n, &pr->red);
    if (drained) cc_error_clear(); /* the stop is what this path reports */
  }
  return err;
}

/* |r_k| came with the block's reduction: the stopping test of iteration it = k S (the history's
 * iterations inside the previous block repeat its last value). 1 to stop: converged, |r|
 * broken down, or maxit (it bounds the iteration index: no whole block left). */
static int sstep_stop(sstep_ctx *c, int it, const sstep_products *pr)
{
  cc_krylov_ctx *k        = c->k;
  const cc_krylov_opts *o = k->opts;
  const int stop          = cc_krylov_converged(k, it, pr->vals[pr->n - 1]);
  if (o->history)
    for (int h = c->last_recorded + 1; h < it; h++)
      if (h - k->start >= 0 && h - k->start < o->history_cap)
        o->history[h - k->start] = c->last_rel;
  c->last_recorded = it;
  c->last_rel      = k->result->rel_residual;
  if (stop) return 1;
  if (it + c->s > o->maxit) {
    cc_krylov_maxit(k, it);
    return 1;
  }
  return 0;
}

/* The block's coefficients from its products: g = V^T r_k, Q_k = V^T W, and after the first
 * block Bk = -Q_{k-1}^-1 C and Q_k = V^T W + C^T Bk (symmetrised: the two triangles agree in
 * exact arithmetic). */
static void sstep_block_gram(const sstep_ctx *c, const sstep_products *pr, double *q, double *bk,
                             double *g)
{
  const int s             = c->s;
  const double *vals      = pr->vals;
  double vtw[SMAX * SMAX] = {0}, cm[SMAX * SMAX] = {0};
  int m = 0;
  for (int i = 0; i < s; i++)
    for (int j = i; j < s; j++) vtw[i * s + j] = vtw[j * s + i] = vals[m++];
  for (int i = 0; i < s; i++) g[i] = vals[pr->off_g + i];
  memcpy(q, vtw, sizeof vtw);
  if (!c->have_prev) return;
  for (int i = 0; i < s * s; i++) cm[i] = vals[pr->off_c + i]; /* cm[i s + j] = (A p_i, v_j) */
  /* Bk = -Q_{k-1}^-1 C, column by column */
  for (int j = 0; j < s; j++) {
    double col[SMAX];
    for (int i = 0; i < s; i++) col[i] = cm[i * s + j];
    sstep_chol_solve(s, c->l_prev, col);
    for (int i = 0; i < s; i++) bk[i * s + j] = -col[i];
  }
  /* Q_k = V^T W + C^T Bk */
  for (int i = 0; i < s; i++)
    for (int j = 0; j < s; j++) {
      double sum = 0.0;
      for (int t = 0; t < s; t++) sum += cm[t * s + i] * bk[t * s + j];
      q[i * s + j] += sum;
    }
  for (int i = 0; i < s; i++)
    for (int j = 0; j < i; j++) q[i * s + j] = q[j * s + i] = 0.5 * (q[i * s + j] + q[j * s + i]);
}

/* P_k = V + P_{k-1} Bk, AP_k = W + AP_{k-1} Bk: into V and W, which then become P and AP */
static void sstep_directions(sstep_ctx *c, const double *bk)
{
  if (c->have_prev) {
    sstep_block_combine(c->k, c->s, c->v, c->p, bk);
    sstep_block_combine(c->k, c->s, c->w, c->ap, bk);
  }
  for (int j = 0; j < c->s; j++) {
    double *t = c->p[j];
    c->p[j] = c->v[j], c->v[j] = t;
    t = c->ap[j], c->ap[j] = c->w[j], c->w[j] = t;
  }
}

/* Block k's step: Q_k = P_k^T A P_k and its Cholesky factor (not SPD: a breakdown, 0), the
 * A-conjugate directions P_k, AP_k, a_k = Q_k^-1 g (P_k^T r_k = V^T r_k: r_k _|_ P_{k-1}) and
 * r_{k+1} = r_k - AP_k a_k (x_{k+1} = x_k + P_k a_k put off to the next block's reduction). */
static int sstep_block_step(sstep_ctx *c, int it, const sstep_products *pr)
{
  cc_krylov_ctx *k = c->k;
  const int s      = c->s;
  double g[SMAX] = {0}, bk[SMAX * SMAX] = {0}, q[SMAX * SMAX] = {0}, lq[SMAX * SMAX];
  sstep_block_gram(c, pr, q, bk, g);
  if (!sstep_cholesky(s, q, lq)) {
    cc_solve_result *res = k->result;
    res->converged = 0, res->breakdown = 1, res->iterations = it;
    snprintf(res->failure, sizeof res->failure,
             "breakdown at iteration %d: block Gram matrix P^T A P not positive definite "
             "(%s basis lost rank)",
             it, cc_sstep_basis_list[k->opts->sstep_basis].name);
    return 0;
  }
  const double cond = sstep_condition(s, q);
  if (cond > k->result->basis_condition) k->result->basis_condition = cond;
  sstep_directions(c, bk);
  sstep_chol_solve(s, lq, g);                   /* a_k = Q_k^-1 g */
  sstep_multi_axpy(k, s, -1.0, c->ap, g, c->r); /* r_{k+1} = r_k - AP_k a_k */
  memcpy(c->a_prev, g, sizeof c->a_prev);
  memcpy(c->l_prev, lq, sizeof c->l_prev);
  c->have_prev = 1;
  c->x_pending = 1;
  return 1;
}

/* Blocks k = 0, 1, ... (iteration it = k S) from r_0 to convergence, breakdown or maxit. */
static cc_err sstep_blocks(sstep_ctx *c, double *x)
{
  cc_krylov_ctx *k        = c->k;
  const cc_krylov_opts *o = k->opts;
  c->last_recorded        = k->start - 1;
  c->last_rel             = 0.0;
  for (int it = k->start;; it += c->s) {
    /* a block that begins at a checkpoint starts afresh, as a restart from that checkpoint does */
    if (o->checkpoint && o->checkpoint_exact && it > k->start && it % o->checkpoint_every == 0)
      c->have_prev = 0;
    CC_CALL(sstep_make_basis(c)); /* V, W = A V */
    sstep_products pr;
    sstep_block_dots(c, &pr);
    CC_CALL(cc_krylov_post(k, pr.vals, pr.n, &pr.red));
    CC_CALL(sstep_advance_x(c, x, it, &pr)); /* x_k, overlapped */
    CC_CALL(cc_krylov_wait(k, pr.vals, pr.n, &pr.red));
    if (sstep_stop(c, it, &pr) || !sstep_block_step(c, it, &pr)) break;
  }
  if (c->x_pending) sstep_multi_axpy(k, c->s, 1.0, c->p, c->a_prev, x); /* maxit, breakdown */
  return CC_OK;
}

/* S, the basis and the spectrum bounds (before anything is allocated) */
static cc_err sstep_check(const cc_krylov_opts *o)
{
  const cc_sstep_basis kind = o->sstep_basis;
  const int s               = o->sstep ? o->sstep : SSTEP_DEFAULT_S;
  CC_CHECK(!(kind < 0 || kind >= CC_SSTEP_BASIS_COUNT), CC_ERR_ARG, "sstep: unknown basis %d",
           (int)kind);
  CC_CHECK(s >= 1 && s <= SMAX, CC_ERR_ARG, "sstep: S = %d must be in 1..%d", s, SMAX);
  CC_CALL(cc_krylov_check_spectrum("sstep", o));
  return CC_OK;
}

/* The vectors (V, W, P, AP: S each, and r), the spectrum the basis' shifts need (a breakdown of
 * its estimate ends the solve), the basis, and r_0 (or the restart state). */
static cc_err sstep_setup(sstep_ctx *c, double *b, double *x)
{
  cc_krylov_ctx *k = c->k;
  const int s      = c->s;
  double **slots[4 * SMAX + 1];
  int n_slots = 0;
  for (int j = 0; j < s; j++)
    slots[n_slots++] = &c->v[j], slots[n_slots++] = &c->w[j], slots[n_slots++] = &c->p[j],
    slots[n_slots++] = &c->ap[j];
  slots[n_slots++] = &c->r;
  CC_CALL(cc_krylov_vectors(k, n_slots, slots));
  const cc_sstep_basis kind = k->opts->sstep_basis;
  double lmin = 0.0, lmax = 0.0, ritz[CC_SPECTRUM_LANCZOS_STEPS];
  int n_ritz = 0, exact;
  if (kind != CC_SSTEP_MONOMIAL && s > 1) /* the shifts need the spectrum */
    CC_CALL(cc_krylov_spectrum(k, b, &lmin, &lmax, ritz, &n_ritz));
  if (k->result->breakdown) return CC_OK;
  sstep_basis_make(&c->basis, kind, s, lmin, lmax, ritz, n_ritz);
  CC_CALL(cc_krylov_restart_exact(k, x, &exact));
  if (exact)
    CC_CALL(cc_krylov_restore(k, &sstep_state, (double *const[]){x, c->r}, NULL));
  else
    CC_CALL(cc_krylov_residual(k, b, x, c->r)); /* r_0 = b - A x_0 */
  return CC_OK;
}

static cc_err sstep_iterate(cc_krylov_ctx *k, double *b, double *x)
{
  sstep_ctx *c = NULL;
  CC_CALL(cc_calloc(1, sizeof *c, &c));
  c->k = k;
  c->s = k->opts->sstep ? k->opts->sstep : SSTEP_DEFAULT_S;
  cc_krylov_label(k, 0, c->s, cc_sstep_basis_list[k->opts->sstep_basis].name);
  cc_err err = sstep_setup(c, b, x);
  if (!err && !k->result->breakdown) err = sstep_blocks(c, x);
  cc_free(&c);
  return err;
}

/* a block's reduction once a previous block exists (sstep_solve): V^T W's upper triangle
 * S(S+1)/2, C = AP_{k-1}^T V S^2, g = V^T r S, |r|^2 1 (the first block has no C) */
static int sstep_reduction_sizes(const cc_krylov_opts *o, int sizes[CC_KRYLOV_SIZES_MAX])
{
  const int s = o->sstep ? o->sstep : SSTEP_DEFAULT_S;
  sizes[0]    = s * (s + 1) / 2 + s * s + s + 1;
  return 1;
}

const cc_krylov cc_krylov_sstep = {
    .name         = "sstep",
    .description  = "s-step CG, Chebyshev/Newton basis (Chronopoulos & Gear)",
    .supports_iar = 1,
    .check        = sstep_check,
    .iterate      = sstep_iterate,
    /* S = 1 (Table 1 holds integers; per iteration at S: dots (3S^2+3S+2)/2S, axpy (3S+1)/S,
     * reductions 1/S, measured in ops_per_iteration) */
    .table1 = {.spmv = 1, .precond = 1, .dot = 4, .axpy = 4, .reductions = 1},
    /* S = 1: dots, P, AP, r, x passes, at every S; one path: fused = unfused */
    .vector_fused    = {.passes = 5, .reads = 12, .writes = 4},
    .vector_unfused  = {.passes = 5, .reads = 12, .writes = 4},
    .deep            = 1,
    .reduction_sizes = sstep_reduction_sizes,
};
