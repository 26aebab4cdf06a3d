/* precond_sgs.c: localized symmetric Gauss-Seidel M = (D + L) D^-1 (D + U) with L, U and D^-1
 * stored apart (GeoFEM indexL/itemL/AL, indexU/itemU/AU, ALU), swept color by color with OpenMP (K.
 * Nakajima, "Parallel iterative solvers of GeoFEM with selective blocking preconditioning for
 * nonlinear contact problems on the Earth Simulator", SC2003: multicolor SGS), or sequentially
 * (n_colors == 0). cc_sgs_ref is the plain natural-order sweep over the matrix itself.
 */
#include "cc_precond_impl.h"

#include <limits.h>

/* Rows [lo, hi) of the sequential sweep between two polls of pending reductions. */
#define CC_SGS_POLL_ROWS 4096

/* ------------------------------------------------------------------------------------------------
 * Row kernels: one block row of the forward / backward sweep.
 * ---------------------------------------------------------------------------------------------- */

/* y_i = D_i^-1 (r_i - sum_{j<i} L_ij y_j); y is stored in z. */
static inline void sgs_forward_row(const cc_sgs *s, int64_t i, const double *restrict r,
                                   double *restrict z)
{
  const int64_t *restrict lp = s->l_ptr;
  const int32_t *restrict lc = s->l_col;
  const double *restrict lv  = s->l_val;
  double s0 = r[3 * i], s1 = r[3 * i + 1], s2 = r[3 * i + 2];
  for (int64_t k = lp[i]; k < lp[i + 1]; k++) {
    const double *b = lv + 9 * k;
    const double *y = z + 3 * (int64_t)lc[k];
    const double y0 = y[0], y1 = y[1], y2 = y[2];
    s0 -= b[0] * y0 + b[1] * y1 + b[2] * y2;
    s1 -= b[3] * y0 + b[4] * y1 + b[5] * y2;
    s2 -= b[6] * y0 + b[7] * y1 + b[8] * y2;
  }
  const double *d = s->dinv + 9 * i;
  z[3 * i]        = d[0] * s0 + d[1] * s1 + d[2] * s2;
  z[3 * i + 1]    = d[3] * s0 + d[4] * s1 + d[5] * s2;
  z[3 * i + 2]    = d[6] * s0 + d[7] * s1 + d[8] * s2;
}

/* z_i = y_i - D_i^-1 sum_{j>i} U_ij z_j; y_i is read from z. p: position of row i in the U
 * storage, d: D_i^-1. */
static inline void sgs_backward_row(const cc_sgs *s, int64_t i, int64_t p, const double *d,
                                    double *restrict z)
{
  const int64_t *restrict up = s->u_ptr;
  const int32_t *restrict uc = s->u_col;
  const double *restrict uv  = s->u_val;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (int64_t k = up[p]; k < up[p + 1]; k++) {
    const double *b = uv + 9 * k;
    const double *x = z + 3 * (int64_t)uc[k];
    const double x0 = x[0], x1 = x[1], x2 = x[2];
    s0 += b[0] * x0 + b[1] * x1 + b[2] * x2;
    s1 += b[3] * x0 + b[4] * x1 + b[5] * x2;
    s2 += b[6] * x0 + b[7] * x1 + b[8] * x2;
  }
  z[3 * i] -= d[0] * s0 + d[1] * s1 + d[2] * s2;
  z[3 * i + 1] -= d[3] * s0 + d[4] * s1 + d[5] * s2;
  z[3 * i + 2] -= d[6] * s0 + d[7] * s1 + d[8] * s2;
}

/* The same two row kernels on the matrix in place (multicolor sweeps): L = the split-off lower
 * part (cc_bcrs l_ptr; else the blocks before the diagonal), U = blocks after the diagonal up to
 * the first external column (columns sorted ascending, external ids >= n). */
static inline void sgs_forward_row_inplace(const cc_sgs *s, int64_t i, const double *restrict r,
                                           double *restrict z)
{
  int64_t k0, k1;
  const int32_t *col;
  const double *val;
  cc_bcrs_lower(s->a, i, &k0, &k1, &col, &val); /* split storage: L streamed contiguously */
  double s0 = r[3 * i], s1 = r[3 * i + 1], s2 = r[3 * i + 2];
  for (int64_t k = k0; k < k1; k++) { /* s -= L_ij y_j */
    const double *b = val + 9 * k;
    const double *y = z + 3 * (int64_t)col[k];
    const double y0 = y[0], y1 = y[1], y2 = y[2];
    s0 -= b[0] * y0 + b[1] * y1 + b[2] * y2;
    s1 -= b[3] * y0 + b[4] * y1 + b[5] * y2;
    s2 -= b[6] * y0 + b[7] * y1 + b[8] * y2;
  }
  const double *d = s->dinv + 9 * i; /* y_i = D_i^-1 s */
  z[3 * i]        = d[0] * s0 + d[1] * s1 + d[2] * s2;
  z[3 * i + 1]    = d[3] * s0 + d[4] * s1 + d[5] * s2;
  z[3 * i + 2]    = d[6] * s0 + d[7] * s1 + d[8] * s2;
}

static inline void sgs_backward_row_inplace(const cc_sgs *s, int64_t i, double *restrict z)
{
  const cc_bcrs *a            = s->a;
  const int32_t *restrict col = a->col_idx;
  const double *restrict val  = a->val;
  const int32_t n             = s->n;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (int64_t k = a->diag_pos[i] + 1; k < a->row_ptr[i + 1] && col[k] < n; k++) { /* U_ij z_j */
    const double *b = val + 9 * k;
    const double *x = z + 3 * (int64_t)col[k];
    const double x0 = x[0], x1 = x[1], x2 = x[2];
    s0 += b[0] * x0 + b[1] * x1 + b[2] * x2;
    s1 += b[3] * x0 + b[4] * x1 + b[5] * x2;
    s2 += b[6] * x0 + b[7] * x1 + b[8] * x2;
  }
  const double *d = s->dinv + 9 * i; /* z_i = y_i - D_i^-1 sum */
  z[3 * i] -= d[0] * s0 + d[1] * s1 + d[2] * s2;
  z[3 * i + 1] -= d[3] * s0 + d[4] * s1 + d[5] * s2;
  z[3 * i + 2] -= d[6] * s0 + d[7] * s1 + d[8] * s2;
}

/* ------------------------------------------------------------------------------------------------
 * Sweeps
 * ---------------------------------------------------------------------------------------------- */

void cc_sgs_apply(const cc_sgs *s, const double *r, double *z)
{
  const int n = s->n;
  if (s->n_colors == 0) {
    /* sequential sweep in the current numbering (natural or RCM): no independent sets */
    for (int lo = 0; lo < n; lo += CC_SGS_POLL_ROWS) {
      int hi = lo + CC_SGS_POLL_ROWS < n ? lo + CC_SGS_POLL_ROWS : n;
      for (int64_t i = lo; i < hi; i++) sgs_forward_row(s, i, r, z);
      cc_reduce_poll();
    }
    for (int hi = n; hi > 0; hi -= CC_SGS_POLL_ROWS) {
      int lo = hi - CC_SGS_POLL_ROWS > 0 ? hi - CC_SGS_POLL_ROWS : 0;
      for (int64_t i = hi - 1; i >= lo; i--)
        sgs_backward_row(s, i, n - 1 - i, s->dinv_back + 9 * (n - 1 - i), z);
      cc_reduce_poll();
    }
    return;
  }
  const int nc  = s->n_colors;
  const int *cp = s->color_ptr;
  /* One parallel region for the pair. Rows of one color are independent, so each color is a
   * static worksharing loop (same partition as the first touch in cc_sgs_setup); the implied
   * barrier orders the colors. The master thread (= MPI's main thread under FUNNELED) polls. */
#pragma omp parallel
  {
    for (int c = 0; c < nc; c++) {
#pragma omp for schedule(static)
      for (int i = cp[c]; i < cp[c + 1]; i++) sgs_forward_row_inplace(s, i, r, z);
#pragma omp master
      cc_reduce_poll();
    }
    for (int c = nc - 1; c >= 0; c--) {
#pragma omp for schedule(static)
      for (int i = cp[c]; i < cp[c + 1]; i++) sgs_backward_row_inplace(s, i, z);
#pragma omp master
      cc_reduce_poll();
    }
  }
}

cc_err cc_sgs_ref(const cc_bcrs *a, const double *r, double *z)
{
  const int n = a->n_rows;
  for (int64_t i = 0; i < n; i++) { /* (D + L) y = r */
    double s0 = r[3 * i], s1 = r[3 * i + 1], s2 = r[3 * i + 2];
    int64_t k0, k1;
    const int32_t *lcol;
    const double *lval;
    cc_bcrs_lower(a, i, &k0, &k1, &lcol, &lval);
    for (int64_t k = k0; k < k1; k++) {
      const double *b = lval + 9 * k, *y = z + 3 * (int64_t)lcol[k];
      s0 -= b[0] * y[0] + b[1] * y[1] + b[2] * y[2];
      s1 -= b[3] * y[0] + b[4] * y[1] + b[5] * y[2];
      s2 -= b[6] * y[0] + b[7] * y[1] + b[8] * y[2];
    }
    double d[9];
    if (cc_block3_inverse(a->val + 9 * a->diag_pos[i], d))
      CC_CALL(cc_block3_error(a->val + 9 * a->diag_pos[i], (int)i, NULL, NULL));
    z[3 * i]     = d[0] * s0 + d[1] * s1 + d[2] * s2;
    z[3 * i + 1] = d[3] * s0 + d[4] * s1 + d[5] * s2;
    z[3 * i + 2] = d[6] * s0 + d[7] * s1 + d[8] * s2;
  }
  for (int64_t i = n - 1; i >= 0; i--) { /* (D + U) z = D y  <=>  z = y - D^-1 U z */
    double s0 = 0.0, s1 = 0.0, s2 = 0.0;
    for (int64_t k = a->diag_pos[i] + 1; k < a->row_ptr[i + 1] && a->col_idx[k] < n; k++) {
      const double *b = a->val + 9 * k, *x = z + 3 * (int64_t)a->col_idx[k];
      s0 += b[0] * x[0] + b[1] * x[1] + b[2] * x[2];
      s1 += b[3] * x[0] + b[4] * x[1] + b[5] * x[2];
      s2 += b[6] * x[0] + b[7] * x[1] + b[8] * x[2];
    }
    double d[9];
    (void)cc_block3_inverse(a->val + 9 * a->diag_pos[i], d); /* checked in the forward sweep */
    z[3 * i] -= d[0] * s0 + d[1] * s1 + d[2] * s2;
    z[3 * i + 1] -= d[3] * s0 + d[4] * s1 + d[5] * s2;
    z[3 * i + 2] -= d[6] * s0 + d[7] * s1 + d[8] * s2;
  }
  return CC_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Set-up
 * ---------------------------------------------------------------------------------------------- */

/* Position of row i in the U storage (see cc_sgs). */
static inline int64_t sgs_upos(const cc_sgs *s, int64_t i)
{
  return s->n - 1 - i; /* sequential sweeps only */
}

/* Copy row i's strictly lower / strictly upper internal blocks and invert its diagonal block;
 * returns 1 if the diagonal block is singular. */
static int sgs_fill_row(const cc_bcrs *a, cc_sgs *s, int64_t i)
{
  int64_t kl = s->l_ptr[i], ku = s->u_ptr[sgs_upos(s, i)], k0, k1;
  const int32_t *lcol;
  const double *lval;
  cc_bcrs_lower(a, i, &k0, &k1, &lcol, &lval);
  for (int64_t k = k0; k < k1; k++) {
    s->l_col[kl] = lcol[k];
    memcpy(s->l_val + 9 * kl++, lval + 9 * k, 9 * sizeof(double));
  }
  for (int64_t k = a->diag_pos[i] + 1; k < a->row_ptr[i + 1] && a->col_idx[k] < s->n; k++) {
    s->u_col[ku] = a->col_idx[k];
    memcpy(s->u_val + 9 * ku++, a->val + 9 * k, 9 * sizeof(double));
  }
  if (cc_block3_inverse(a->val + 9 * a->diag_pos[i], s->dinv + 9 * i)) return 1;
  if (s->dinv_back) memcpy(s->dinv_back + 9 * (s->n - 1 - i), s->dinv + 9 * i, 9 * sizeof(double));
  return 0;
}

cc_err cc_sgs_setup(const cc_bcrs *a, const cc_ordering *ord, const cc_comm_table *comm, cc_sgs *s)
{
  memset(s, 0, sizeof *s);
  const int n = a->n_rows;
  s->n        = n;
  s->n_colors = ord ? ord->n_colors : 0;
  if (ord) {
    CC_CHECK(ord->n_nodes == n, CC_ERR_ARG, "ordering '%s' has %d nodes, matrix has %d rows",
             ord->kind, ord->n_nodes, n);
    CC_CHECK(s->n_colors == 0 || (ord->color_ptr[0] == 0 && ord->color_ptr[s->n_colors] == n),
             CC_ERR_ARG, "ordering '%s': colors cover [%d, %d), expected [0, %d)", ord->kind,
             ord->color_ptr[0], ord->color_ptr[s->n_colors], n);
  }
  CC_CALL(cc_malloc((size_t)s->n_colors + 1, sizeof(int), &s->color_ptr));
  s->color_ptr[0] = 0;
  for (int c = 1; c <= s->n_colors; c++) s->color_ptr[c] = ord->color_ptr[c];

  if (s->n_colors > 0) {
    /* multicolor: the sweeps read a in place; only D^-1, first-touched per color like the sweeps */
    s->a = a;
    CC_CALL(cc_malloc(9 * (size_t)n, sizeof(double), &s->dinv));
    CC_CALL(cc_block3_invert_diagonal(a, s->n_colors, s->color_ptr, ord, comm, s->dinv));
    return CC_OK;
  }

  /* counts (U at its storage position) and prefix sums; sequential: one pass over col_idx */
  CC_CALL(cc_calloc((size_t)n + 1, sizeof(int64_t), &s->l_ptr));
  CC_CALL(cc_calloc((size_t)n + 1, sizeof(int64_t), &s->u_ptr));
  for (int64_t i = 0; i < n; i++) {
    int64_t nu = 0, k0, k1;
    const int32_t *lcol;
    const double *lval;
    cc_bcrs_lower(a, i, &k0, &k1, &lcol, &lval);
    int64_t nl = k1 - k0;
    for (int64_t k = a->diag_pos[i] + 1; k < a->row_ptr[i + 1]; k++) nu += a->col_idx[k] < n;
    s->l_ptr[i + 1]              = nl;
    s->u_ptr[sgs_upos(s, i) + 1] = nu;
  }
  for (int64_t i = 0; i < n; i++) {
    s->l_ptr[i + 1] += s->l_ptr[i];
    s->u_ptr[i + 1] += s->u_ptr[i];
  }
  CC_CALL(cc_malloc((size_t)s->l_ptr[n], sizeof(int32_t), &s->l_col));
  CC_CALL(cc_malloc((size_t)s->u_ptr[n], sizeof(int32_t), &s->u_col));
  CC_CALL(cc_malloc(9 * (size_t)s->l_ptr[n], sizeof(double), &s->l_val));
  CC_CALL(cc_malloc(9 * (size_t)s->u_ptr[n], sizeof(double), &s->u_val));
  CC_CALL(cc_malloc(9 * (size_t)n, sizeof(double), &s->dinv));
  if (s->n_colors == 0) CC_CALL(cc_malloc(9 * (size_t)n, sizeof(double), &s->dinv_back));

  /* fill (sequential sweep: serial, like the sweep itself) */
  int bad = INT_MAX;
  for (int64_t i = 0; i < n; i++)
    if (sgs_fill_row(a, s, i) && i < bad) bad = (int)i;
  if (bad != INT_MAX) CC_CALL(cc_block3_error(a->val + 9 * a->diag_pos[bad], bad, ord, comm));
  return CC_OK;
}

void cc_sgs_free(cc_sgs *s)
{
  cc_free(&s->color_ptr);
  cc_free(&s->l_ptr);
  cc_free(&s->l_col);
  cc_free(&s->l_val);
  cc_free(&s->u_ptr);
  cc_free(&s->u_col);
  cc_free(&s->u_val);
  cc_free(&s->dinv);
  cc_free(&s->dinv_back);
}

/* ------------------------------------------------------------------------------------------------
 * The "sgs" preconditioner
 * ---------------------------------------------------------------------------------------------- */

static cc_err sgs_apply(cc_precond *pc, double *r, double *z)
{
  cc_sgs_apply(pc->ctx, r, z);
  return CC_OK;
}

static void sgs_destroy(cc_precond *pc)
{
  if (pc->ctx) cc_sgs_free(pc->ctx);
  cc_free(&pc->ctx);
}

cc_err cc_precond_create_sgs(const cc_precond_params *params, const cc_bcrs *a,
                             const cc_comm_table *comm, cc_precond *pc)
{
  cc_sgs *s = NULL;
  CC_CALL(cc_calloc(1, sizeof *s, &s));
  pc->name    = "sgs";
  pc->ctx     = s;
  pc->apply   = sgs_apply;
  pc->destroy = sgs_destroy;
  CC_CALL(cc_sgs_setup(a, params->ordering, comm, s));
  return CC_OK;
}
