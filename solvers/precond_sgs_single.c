/* precond_sgs_single.c: the localized SGS of precond_sgs.c and ASDD's inner residual with the
 * blocks stored in float (--precond-precision single): float copies of L, U (and
 * the diagonal and external blocks, for the residual) and of D^-1 halve the bytes the
 * preconditioner streams (36 instead of 72 B of values per 3x3 block), while SpMV, the Krylov
 * vectors and every reduction stay double.
 *
 * Precision boundary: what streams from memory (the blocks) is float; what accumulates (r, z, the
 * 3-vector sums) stays double. The sweep is then exactly the SGS of the float-rounded matrix
 * A_f = float(A), M_f = (E + L_f) E^-1 (E + U_f) with E = (float(D^-1))^-1, evaluated in double:
 * A symmetric => A_f symmetric (rounding is elementwise), float(D^-1) symmetric (the adjugate of a
 * symmetric block is bitwise symmetric), so M_f^-1 is a fixed SPD operator, symmetric to double
 * rounding: the built-in symmetry check keeps its double bound. A float work vector would round
 * every y_i to float, make M^-1 nonlinear and asymmetric at the 1e-7 level, and save only 12 of
 * about 350 bytes streamed per node.
 */
#include "cc_precond_impl.h"

#include <limits.h>
#include <math.h>
#include <omp.h>

/* Software prefetch of the float block SGSF_AHEAD blocks past b into L2 (locality 2): the float
 * sweeps want a far longer distance than the 16 blocks of SpMV and the double sweeps, 128 blocks
 * (4.6 KiB), the best measured (docs/performance.md, prefetch distances). */
#define SGSF_AHEAD 128
#define SGSF_PREFETCH(b) __builtin_prefetch((b) + 9 * SGSF_AHEAD, 0, 2)

/* One part per thread and step in the colored sweeps (CC_SGS_STEP_ROWS): two parts, as the double
 * sweeps run, were no faster in float (docs/performance.md, two streams per sweep). */
#define SGSF_WAYS 1

/* ------------------------------------------------------------------------------------------------
 * Block kernels. The float shadows are this file's own copies, so they are stored column-major
 * ([b00 b10 b20 | b01 b11 b21 | b02 b12 b22]): a block times v is then three column FMAs,
 * out += col_c * v_c, each column widened from one 4-float load (its 4th float is the next
 * column's first, or the arrays' padding: that lane is never used). The row-major layout needed
 * 2 gathers of v into shuffled vectors per block, which left the sweep bound by instructions, not
 * memory (docs/performance.md, block kernels by instruction count).
 * ---------------------------------------------------------------------------------------------- */
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

/* lanes 0..2 of v4 to out[0..2] */
static inline void sgsf_store3(__m256d v4, double out[3])
{
  _mm_storeu_pd(out, _mm256_castpd256_pd128(v4));
  _mm_store_sd(out + 2, _mm256_extractf128_pd(v4, 1));
}

/* b (column-major 3x3, float) times (v0, v1, v2) added to acc0..acc2 (one accumulator per column:
 * three independent FMA chains) */
#define SGSF_BLOCK_FMA(b, vj, acc0, acc1, acc2)                                                    \
  do {                                                                                             \
    acc0 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_loadu_ps(b)), _mm256_set1_pd((vj)[0]), acc0);       \
    acc1 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_loadu_ps((b) + 3)), _mm256_set1_pd((vj)[1]), acc1); \
    acc2 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_loadu_ps((b) + 6)), _mm256_set1_pd((vj)[2]), acc2); \
  } while (0)

/* out = sum_k B_k v_col(k) over the blocks k in [k0, k1) whose column is below col_end (sorted
 * columns: the first one at or past it ends the row) */
static inline void sgsf_block_row(int64_t k0, int64_t k1, const int32_t *restrict col,
                                  const float *restrict val, int32_t col_end,
                                  const double *restrict v, double out[3])
{
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd();
  for (int64_t k = k0; k < k1 && col[k] < col_end; k++) {
    SGSF_PREFETCH(val + 9 * k);
    SGSF_BLOCK_FMA(val + 9 * k, v + 3 * (int64_t)col[k], a0, a1, a2);
  }
  sgsf_store3(_mm256_add_pd(_mm256_add_pd(a0, a1), a2), out);
}

/* q = d s, d = float(D_i^-1) column-major */
static inline void sgsf_block_diag(const float *restrict d, const double s[3], double q[3])
{
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd();
  SGSF_BLOCK_FMA(d, s, a0, a1, a2);
  sgsf_store3(_mm256_add_pd(_mm256_add_pd(a0, a1), a2), q);
}
#else
static inline void sgsf_block_row(int64_t k0, int64_t k1, const int32_t *restrict col,
                                  const float *restrict val, int32_t col_end,
                                  const double *restrict v, double out[3])
{
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (int64_t k = k0; k < k1 && col[k] < col_end; k++) {
    const float *b   = val + 9 * k;
    const double *vj = v + 3 * (int64_t)col[k];
    s0 += (double)b[0] * vj[0] + (double)b[3] * vj[1] + (double)b[6] * vj[2];
    s1 += (double)b[1] * vj[0] + (double)b[4] * vj[1] + (double)b[7] * vj[2];
    s2 += (double)b[2] * vj[0] + (double)b[5] * vj[1] + (double)b[8] * vj[2];
  }
  out[0] = s0, out[1] = s1, out[2] = s2;
}

static inline void sgsf_block_diag(const float *restrict d, const double s[3], double q[3])
{
  q[0] = (double)d[0] * s[0] + (double)d[3] * s[1] + (double)d[6] * s[2];
  q[1] = (double)d[1] * s[0] + (double)d[4] * s[1] + (double)d[7] * s[2];
  q[2] = (double)d[2] * s[0] + (double)d[5] * s[1] + (double)d[8] * s[2];
}
#endif

/* The row kernels, sweeps and ASDD residual of the float blocks: A = a_unscale val_f,
 * D^-1 = d_unscale dinv_f */
#define CC_SGS_PREFIX sgsf
#define CC_SGS_WAYS SGSF_WAYS
#define CC_SGS_VAL val_f
#define CC_SGS_L_VAL l_val_f
#define CC_SGS_DINV dinv_f
#define CC_SGS_UA(s, i) ((s)->a_unscale)
#define CC_SGS_UD(s, i) ((s)->d_unscale)
#include "sgs_rows_reduced.inc.c"

CC_SGS_ROWS_PROBE_DEFINE(cc_sgs_rows_probe_single, float,
                         sgsf_block_row(k0, k1, col, val, INT32_MAX, x, o))

void cc_sgs_residual_single(const cc_sgs *s, const cc_exec *ex, const double *r, const double *z,
                            double *t, int begin, int end)
{
  (void)sgsf_residual_rows(s, ex, r, z, t, NULL, begin, end, NULL); /* no MPI test */
}

/* ------------------------------------------------------------------------------------------------
 * Set-up: float shadows of a's values (sharing its index arrays) and of D^-1
 * ---------------------------------------------------------------------------------------------- */

/* dst[3c + r] = float(scale src[3r + c]): one 3x3 block, row-major in, column-major out (the
 * kernels' layout) */
static void sgsf_round_block(const double *src, double scale, float *dst)
{
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) dst[3 * c + r] = (float)(scale * src[3 * r + c]);
}

/* The blocks k of rows [i0, i1) of (ptr, ptr+1), rounded as sgsf_round_block */
static void sgsf_copy_rows(const int64_t *ptr, const double *src, double scale, float *dst, int i0,
                           int i1)
{
  for (int64_t k = ptr[i0]; k < ptr[i1]; k++) sgsf_round_block(src + 9 * k, scale, dst + 9 * k);
}

/* n floats, then CC_SGS_FLOAT_PAD zeros (the last column's 4-float load reads into them); the n
 * floats are left to the first touch of the copy */
static cc_err sgsf_alloc_padded(int64_t n, float **out)
{
  CC_CALL(cc_malloc((size_t)n + CC_SGS_FLOAT_PAD, sizeof(float), out));
  memset(*out + n, 0, CC_SGS_FLOAT_PAD * sizeof(float));
  return CC_OK;
}

/* 2^e with max|v| * 2^-e in [0.5, 1) (1 for an all-zero v). Scaling by a power of 2 before the
 * rounding to float is exact and commutes with it (normal range), so float(2^-e a) 2^e = float(a)
 * for any units: no overflow to Inf or flush to 0 however large or small E is. */
static double sgsf_unscale(int64_t n, const double *v)
{
  double vmax = 0.0;
#pragma omp parallel for reduction(max : vmax) schedule(static)
  for (int64_t k = 0; k < n; k++) vmax = fmax(vmax, fabs(v[k]));
  int e;
  (void)frexp(vmax, &e);
  return vmax > 0.0 ? ldexp(1.0, e) : 1.0;
}

/* The float blocks of s->a (cc_sgs_ops.setup) */
static cc_err sgsf_setup(cc_sgs *s, const cc_ordering *ord, const cc_comm_table *comm)
{
  const cc_bcrs *a = s->a;
  const int n      = s->n;
  /* the row kernels' lower part (sgs_rows_reduced.inc.c) needs a's rows sorted with the diagonal
   * at diag_pos */
  CC_CALL(cc_sgs_check_split(a));
  CC_CALL(sgsf_alloc_padded(9 * a->n_blocks, &s->val_f));
  if (a->l_ptr) CC_CALL(sgsf_alloc_padded(9 * a->l_ptr[n], &s->l_val_f));
  CC_CALL(sgsf_alloc_padded(9 * (int64_t)n, &s->dinv_f));
  double *dinv = NULL; /* D^-1 in double, rounded once to float */
  CC_CALL(cc_sgs_new_dinv(s, ord, comm, &dinv));
  /* one power-of-2 scale for all of this rank's blocks (L, D, U and external alike: A_f stays
   * symmetric across ranks, whatever each rank's scale), one for its D^-1 */
  double amax = sgsf_unscale(9 * a->n_blocks, a->val);
  if (a->l_ptr) amax = fmax(amax, sgsf_unscale(9 * a->l_ptr[n], a->l_val));
  s->a_unscale    = amax;
  s->d_unscale    = sgsf_unscale(9 * (int64_t)n, dinv);
  const double sa = 1.0 / s->a_unscale, sd = 1.0 / s->d_unscale; /* exact */
  /* first touch color by color with the sweeps' static schedule (one group: all rows) */
  int one_group[2], n_g;
  const int *g = cc_sgs_touch_groups(s, one_group, &n_g);
#pragma omp parallel
  for (int c = 0; c < n_g; c++) {
#pragma omp for schedule(static) nowait
    for (int i = g[c]; i < g[c + 1]; i++) {
      sgsf_copy_rows(a->row_ptr, a->val, sa, s->val_f, i, i + 1);
      if (a->l_ptr) sgsf_copy_rows(a->l_ptr, a->l_val, sa, s->l_val_f, i, i + 1);
      sgsf_round_block(dinv + 9 * (int64_t)i, sd, s->dinv_f + 9 * (int64_t)i);
    }
  }
  cc_free(&dinv);
  return CC_OK;
}

/* float shadows of a's values and D^-1 */
static int64_t sgsf_bytes(const cc_sgs *s)
{
  return cc_sgs_shadow_bytes(s, (int64_t)sizeof(float));
}

const cc_sgs_ops cc_sgs_ops_single = {
    .precision       = CC_PRECISION_SINGLE,
    .value_bytes     = 4.0,
    .row_scale_bytes = 0.0,
    .setup           = sgsf_setup,
    .apply           = sgsf_apply,
    .apply_u         = sgsf_apply_u,
    .asdd_step       = sgsf_asdd_step,
    .residual_rows   = sgsf_residual_rows,
    .bytes           = sgsf_bytes,
};

cc_err cc_sgs_setup_single(const cc_bcrs *a, const cc_ordering *ord, int chunk_rows,
                           const cc_comm_table *comm, cc_sgs *s)
{
  return cc_sgs_setup_as(CC_PRECISION_SINGLE, a, ord, chunk_rows, comm, s);
}
