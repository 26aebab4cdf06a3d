/* precond_sgs.c: localized symmetric Gauss-Seidel M = (D + L) D^-1 (D + U) with L, U and D^-1
 * stored apart (GeoFEM indexL/itemL/AL, indexU/itemU/AU, ALU), swept color by color with OpenMP (K.
 * Nakajima, "Parallel iterative solvers of GeoFEM with selective blocking preconditioning for
 * nonlinear contact problems on the Earth Simulator", SC2003: multicolor SGS), or sequentially
 * (n_colors == 0). cc_sgs_ref is the plain natural-order sweep over the matrix itself.
 */
#include "cc_precond_impl.h"

#include "cc_block3_simd.h"

#include <limits.h>

/* The colored sweeps run each thread's rows of a step as 2 interleaved parts (CC_SGS_STEP_ROWS):
 * two streams through the matrix instead of one, the faster (docs/performance.md, two streams per
 * sweep); the same bits. The reduced precisions keep one part (SGSF_WAYS, SGSH_WAYS). */
#define SGSD_WAYS 2

/* ------------------------------------------------------------------------------------------------
 * Row kernels: one block row of the forward / backward sweep, all four (sequential copies or the
 * matrix in place, forward or backward) through the same 3x3 block-row arithmetic below.
 * ---------------------------------------------------------------------------------------------- */

/* s <- s - sum_k B_k v_col(k) (sub = 1) or s + sum_k B_k v_col(k) (sub = 0), over the blocks
 * k in [k0, k1) whose column is below col_end (sorted columns: the first one at or past it ends
 * the row). B_k = val[9k..9k+8] row-major, v 3 doubles per node. sub is a literal at every call,
 * so the branch folds away. With AVX2 + FMA the blocks go through cc_block3_simd.h's 3 FMAs (as
 * SpMV's): about 12 instructions per block instead of the scalar loop's ~35, so that the sweeps
 * are not bound by the core (docs/performance.md, block kernels by instruction count). */
#if defined(CC_BLOCK3_SIMD)
static inline void sgs_block_row(int64_t k0, int64_t k1, const int32_t *restrict col,
                                 const double *restrict val, int32_t col_end,
                                 const double *restrict v, int sub, double s[3])
{
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd();
  for (int64_t k = k0; k < k1 && col[k] < col_end; k++) {
    const double *b = val + 9 * k;
    CC_BLOCK3_PREFETCH(b);
    CC_BLOCK3_FMA(b, CC_BLOCK3_LOAD3(v + 3 * (int64_t)col[k]), a0, a1, a2);
  }
  double t[3];
  cc_block3_sum(a0, a1, a2, t);
  if (sub) {
    s[0] -= t[0], s[1] -= t[1], s[2] -= t[2];
  } else {
    s[0] += t[0], s[1] += t[1], s[2] += t[2];
  }
}
#else
static inline void sgs_block_row(int64_t k0, int64_t k1, const int32_t *restrict col,
                                 const double *restrict val, int32_t col_end,
                                 const double *restrict v, int sub, double s[3])
{
  double s0 = s[0], s1 = s[1], s2 = s[2];
  for (int64_t k = k0; k < k1 && col[k] < col_end; k++) {
    const double *b  = val + 9 * k;
    const double *vj = v + 3 * (int64_t)col[k];
    const double v0 = vj[0], v1 = vj[1], v2 = vj[2];
    const double p0 = b[0] * v0 + b[1] * v1 + b[2] * v2;
    const double p1 = b[3] * v0 + b[4] * v1 + b[5] * v2;
    const double p2 = b[6] * v0 + b[7] * v1 + b[8] * v2;
    if (sub) {
      s0 -= p0, s1 -= p1, s2 -= p2;
    } else {
      s0 += p0, s1 += p1, s2 += p2;
    }
  }
  s[0] = s0, s[1] = s1, s[2] = s2;
}
#endif

/* z_i <- D_i^-1 s (forward: y_i) or z_i <- z_i - D_i^-1 s (backward), d = D_i^-1. */
static inline void sgs_block_diag(const double *restrict d, const double s[3], int sub,
                                  double *restrict zi)
{
  const double q0 = d[0] * s[0] + d[1] * s[1] + d[2] * s[2];
  const double q1 = d[3] * s[0] + d[4] * s[1] + d[5] * s[2];
  const double q2 = d[6] * s[0] + d[7] * s[1] + d[8] * s[2];
  if (sub) {
    zi[0] -= q0, zi[1] -= q1, zi[2] -= q2;
  } else {
    zi[0] = q0, zi[1] = q1, zi[2] = q2;
  }
}

/* The sequential sweep's rows on the copies (cc_sgs l_*, u_*, dinv_back).
 * y_i = D_i^-1 (r_i - sum_{j<i} L_ij y_j); y is stored in z. */
static inline void sgsd_seq_forward_row(const cc_sgs *s, int64_t i, const double *restrict r,
                                        double *restrict z)
{
  double acc[3] = {r[3 * i], r[3 * i + 1], r[3 * i + 2]};
  sgs_block_row(s->l_ptr[i], s->l_ptr[i + 1], s->l_col, s->l_val, INT32_MAX, z, 1, acc);
  sgs_block_diag(s->dinv + 9 * i, acc, 0, z + 3 * i);
}

/* z_i = y_i - D_i^-1 sum_{j>i} U_ij z_j; y_i is read from z. Row i at position p = n-1-i of the U
 * storage and of dinv_back. */
static inline void sgsd_seq_backward_row(const cc_sgs *s, int64_t i, double *restrict z)
{
  const int64_t p = s->n - 1 - i;
  double acc[3]   = {0.0, 0.0, 0.0};
  sgs_block_row(s->u_ptr[p], s->u_ptr[p + 1], s->u_col, s->u_val, INT32_MAX, z, 0, acc);
  sgs_block_diag(s->dinv_back + 9 * p, acc, 1, z + 3 * i);
}

/* The same two row kernels on the matrix in place (multicolor sweeps, and ASDD's fused sweeps in
 * either order): L = the split-off lower part (cc_bcrs l_ptr; else the blocks before the
 * diagonal), U = blocks after the diagonal up to the first external column (columns sorted
 * ascending, external ids >= n). */
static inline void sgsd_forward_row(const cc_sgs *s, int64_t i, const double *restrict r,
                                    double *restrict z)
{
  int64_t k0, k1;
  const int32_t *col;
  const double *val;
  cc_bcrs_lower(s->a, i, &k0, &k1, &col, &val); /* split storage: L streamed contiguously */
  double acc[3] = {r[3 * i], r[3 * i + 1], r[3 * i + 2]};
  sgs_block_row(k0, k1, col, val, INT32_MAX, z, 1, acc); /* s -= L_ij y_j */
  sgs_block_diag(s->dinv + 9 * i, acc, 0, z + 3 * i);    /* y_i = D_i^-1 s */
}

static inline void sgsd_backward_row(const cc_sgs *s, int64_t i, double *restrict z)
{
  const cc_bcrs *a = s->a;
  double acc[3]    = {0.0, 0.0, 0.0};
  sgs_block_row(a->diag_pos[i] + 1, a->row_ptr[i + 1], a->col_idx, a->val, s->n, z, 0,
                acc);                                 /* U_ij z_j, internal columns */
  sgs_block_diag(s->dinv + 9 * i, acc, 1, z + 3 * i); /* z_i = y_i - D_i^-1 sum */
}

/* ASDD's fused rows (cc_precond_impl.h: cc_sgs_apply_u, cc_sgs_asdd_step) on the matrix in place:
 * the sequential sweep too (L = the blocks before the diagonal), whose backward sweep then reads
 * the matrix descending instead of through the ascending copies. */
static inline void sgsd_backward_row_u(const cc_sgs *s, int64_t i, double *restrict z,
                                       double *restrict u)
{
  const cc_bcrs *a = s->a;
  double acc[3]    = {0.0, 0.0, 0.0};
  sgs_block_row(a->diag_pos[i] + 1, a->row_ptr[i + 1], a->col_idx, a->val, s->n, z, 0, acc);
  double q[3] = {0.0, 0.0, 0.0};
  sgs_block_diag(s->dinv + 9 * i, acc, 1, q);                             /* q = -D_i^-1 sum */
  for (int c = 0; c < 3; c++) z[3 * i + c] += q[c], u[3 * i + c] = -q[c]; /* u_i = y_i - z_i */
}

static inline void sgsd_fused_forward_row(const cc_sgs *s, int64_t i, double *restrict u,
                                          const double *restrict wh, double *restrict w)
{
  const cc_bcrs *a = s->a;
  int64_t k0, k1;
  const int32_t *col;
  const double *val;
  cc_bcrs_lower(a, i, &k0, &k1, &col, &val);
  double acc[3] = {0.0, 0.0, 0.0};
  sgs_block_row(k0, k1, col, val, INT32_MAX, u, 0, acc); /* + L_ij (u_j - y'_j) */
  const int64_t ke = cc_sgs_external_begin(s, i);
  if (ke < a->row_ptr[i + 1])
    sgs_block_row(ke, a->row_ptr[i + 1], a->col_idx, a->val, INT32_MAX, wh, 1, acc); /* - E w */
  double y[3];
  sgs_block_diag(s->dinv + 9 * i, acc, 0, y);
  for (int c = 0; c < 3; c++) w[3 * i + c] = y[c], u[3 * i + c] -= y[c];
}

/* ------------------------------------------------------------------------------------------------
 * Sweeps: the double ones (sgsd_apply, sgsd_apply_u, sgsd_asdd_step), and every precision's
 * through s's table
 * ---------------------------------------------------------------------------------------------- */
#define CC_SGS_PREFIX sgsd
#define CC_SGS_WAYS SGSD_WAYS
#include "sgs_sweeps.inc.c"

CC_SGS_ROWS_PROBE_DEFINE(cc_sgs_rows_probe_double, double, o[0] = o[1] = o[2] = 0.0;
                         sgs_block_row(k0, k1, col, val, INT32_MAX, x, 0, o))

void cc_sgs_apply(const cc_sgs *s, const cc_exec *ex, const double *r, double *z)
{
  s->ops->apply(s, ex, r, z);
}

void cc_sgs_apply_u(const cc_sgs *s, const cc_exec *ex, const double *r, double *z, double *u)
{
  s->ops->apply_u(s, ex, r, z, u);
}

void cc_sgs_asdd_step(const cc_sgs *s, const cc_exec *ex, double *u, const double *wh, double *w,
                      int want_u)
{
  s->ops->asdd_step(s, ex, u, wh, w, want_u);
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

/* The sequential sweep's copies of the internal L and U (U at its storage position), D^-1 and
 * D^-1 backwards */
static cc_err sgsd_setup_copies(cc_sgs *s, const cc_ordering *ord, const cc_comm_table *comm)
{
  const cc_bcrs *a = s->a;
  const int n      = s->n;
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
  CC_CALL(cc_malloc(9 * (size_t)n, sizeof(double), &s->dinv_back));

  /* fill (sequential sweep: serial, like the sweep itself) */
  int bad = INT_MAX;
  for (int64_t i = 0; i < n; i++)
    if (sgs_fill_row(a, s, i) && i < bad) bad = (int)i;
  if (bad != INT_MAX) CC_CALL(cc_block3_error(a->val + 9 * a->diag_pos[bad], bad, ord, comm));
  return CC_OK;
}

/* The double sweeps' arrays (cc_sgs_ops.setup): multicolor, only D^-1, first-touched per color
 * (the sweeps' steps lie inside colors; one NUMA domain per rank keeps it local either way), as
 * the sweeps read a in place; sequential, the copies. */
static cc_err sgsd_setup(cc_sgs *s, const cc_ordering *ord, const cc_comm_table *comm)
{
  if (s->n_colors > 0) return cc_sgs_new_dinv(s, ord, comm, &s->dinv);
  return sgsd_setup_copies(s, ord, comm);
}

const cc_sgs_ops cc_sgs_ops_double = {
    .precision       = CC_PRECISION_DOUBLE,
    .value_bytes     = 8.0,
    .row_scale_bytes = 0.0,
    .setup           = sgsd_setup,
    .apply           = sgsd_apply,
    .apply_u         = sgsd_apply_u,
    .asdd_step       = sgsd_asdd_step,
    .residual_rows   = NULL, /* a's own blocks: ASDD's residual is a's SpMV */
    .bytes           = NULL,
};

cc_err cc_sgs_setup_as(cc_precision precision, const cc_bcrs *a, const cc_ordering *ord,
                       int chunk_rows, const cc_comm_table *comm, cc_sgs *s)
{
  memset(s, 0, sizeof *s);
  const cc_sgs_ops *ops = cc_sgs_ops_of(precision);
  CC_CHECK(ops != NULL, CC_ERR_ARG, "SGS: precision %d unknown", (int)precision);
  const int n  = a->n_rows;
  s->n         = n;
  s->n_colors  = ord ? ord->n_colors : 0;
  s->a         = a; /* the multicolor sweeps and ASDD's fused steps read it in place */
  s->ops       = ops;
  s->precision = ops->precision;
  s->a_unscale = s->d_unscale = 1.0; /* the reduced precisions' set-ups scale */
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
  CC_CALL(cc_sgs_schedule(s, ord, chunk_rows)); /* no steps without colors */
  CC_CALL(ops->setup(s, ord, comm));
  return CC_OK;
}

cc_err cc_sgs_setup(const cc_bcrs *a, const cc_ordering *ord, int chunk_rows,
                    const cc_comm_table *comm, cc_sgs *s)
{
  return cc_sgs_setup_as(CC_PRECISION_DOUBLE, a, ord, chunk_rows, comm, s);
}

cc_err cc_sgs_check_split(const cc_bcrs *a)
{
  CC_CHECK(a->l_ptr == NULL || a->l_ptr[0] == 0, CC_ERR_ARG, "split lower part starts at %lld",
           (long long)a->l_ptr[0]);
  return CC_OK;
}

cc_err cc_sgs_new_dinv(const cc_sgs *s, const cc_ordering *ord, const cc_comm_table *comm,
                       double **dinv)
{
  CC_CALL(cc_malloc(9 * (size_t)s->n, sizeof(double), dinv));
  cc_err err = cc_block3_invert_diagonal(s->a, s->n_colors, s->n_colors ? s->color_ptr : NULL, ord,
                                         comm, *dinv);
  if (err) {
    cc_free(dinv);
    CC_CALL(err);
  }
  return CC_OK;
}

void cc_sgs_free(cc_sgs *s)
{
  cc_free_all((void *[]){&s->color_ptr, &s->steps, &s->l_ptr, &s->l_col, &s->l_val, &s->u_ptr,
                         &s->u_col, &s->u_val, &s->dinv, &s->dinv_back, &s->val_f, &s->l_val_f,
                         &s->dinv_f, &s->val_h, &s->l_val_h, &s->dinv_h, &s->row_unscale, NULL});
}

int64_t cc_sgs_bytes(const cc_sgs *s)
{
  const int64_t n = s->n, nl = s->l_ptr ? s->l_ptr[n] : 0, nu = s->u_ptr ? s->u_ptr[n] : 0;
  int64_t bytes = ((int64_t)s->n_colors + 1 + 2 * (int64_t)s->n_steps) * (int64_t)sizeof(int);
  if (s->l_ptr) bytes += 2 * (n + 1) * (int64_t)sizeof(int64_t);        /* l_ptr, u_ptr */
  bytes += (nl + nu) * (int64_t)(sizeof(int32_t) + 9 * sizeof(double)); /* sequential copies */
  bytes += (s->dinv ? 9 * n : 0) * (int64_t)sizeof(double);
  bytes += (s->dinv_back ? 9 * n : 0) * (int64_t)sizeof(double);
  if (s->ops && s->ops->bytes) bytes += s->ops->bytes(s); /* the reduced precisions' shadows */
  return bytes;
}

int64_t cc_sgs_shadow_bytes(const cc_sgs *s, int64_t value_size)
{
  const int64_t n = s->n, nl = s->a->l_ptr ? s->a->l_ptr[n] : 0;
  return (9 * (s->a->n_blocks + nl + n) + (s->a->l_ptr ? 3 : 2) * CC_SGS_FLOAT_PAD) * value_size;
}

int64_t cc_sgs_bytes_double(const cc_bcrs *a, int n_colors, int n_steps)
{
  const int64_t n = a->n_rows;
  int64_t bytes   = ((int64_t)n_colors + 1 + 2 * (int64_t)n_steps) * (int64_t)sizeof(int) +
                  9 * n * (int64_t)sizeof(double);
  if (n_colors > 0) return bytes; /* D^-1 only: the sweeps read a in place */
  int64_t nlu = 0; /* sequential: copies of the internal L and U, and D^-1 backwards */
  for (int64_t i = 0; i < n; i++) {
    int64_t k0, k1;
    const int32_t *lcol;
    const double *lval;
    cc_bcrs_lower(a, i, &k0, &k1, &lcol, &lval);
    nlu += k1 - k0;
    for (int64_t k = a->diag_pos[i] + 1; k < a->row_ptr[i + 1]; k++) nlu += a->col_idx[k] < n;
  }
  return bytes + 2 * (n + 1) * (int64_t)sizeof(int64_t) +
         nlu * (int64_t)(sizeof(int32_t) + 9 * sizeof(double)) + 9 * n * (int64_t)sizeof(double);
}

/* ------------------------------------------------------------------------------------------------
 * The "sgs" preconditioner
 * ---------------------------------------------------------------------------------------------- */

static cc_err sgs_apply(cc_precond *pc, const cc_exec *ex, double *r, double *z)
{
  cc_sgs_apply(pc->ctx, ex, r, z);
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
  CC_CALL(cc_precond_init(pc, "sgs", sizeof(cc_sgs), sgs_apply, sgs_destroy));
  cc_sgs *s = pc->ctx;
  CC_CALL(
      cc_sgs_setup_as(params->precision, a, params->ordering, params->sweep_chunk_rows, comm, s));
  pc->bytes        = cc_sgs_bytes(s);
  pc->bytes_double = cc_sgs_bytes_double(a, s->n_colors, s->n_steps);
  return CC_OK;
}
