/* precond_sgs_half.c: the localized SGS of precond_sgs.c and ASDD's inner residual with the
 * blocks stored in IEEE binary16 (--precond-precision half; Anzt et al., adaptive-precision block
 * Jacobi: the Krylov method needs a fixed SPD preconditioner, not an accurate one). 18 instead of
 * 72 B of values per 3x3 block; SpMV, the Krylov vectors and every reduction stay double.
 *
 * Range: binary16 holds 2^-24 .. 65504, about 40 binades, far too few for a matrix in any units.
 * Each block row i is therefore stored scaled by its own power of two: H_ij = 2^-s_i A_ij with
 * max_j |A_ij| 2^-s_i in [2^14, 2^15) (and D_i^-1 by its own 2^-d_i), the unscaling 2^s_i, 2^d_i
 * kept per row in double.
 *
 * Exact symmetry: M^-1 must stay symmetric, so A_h must be, although rows i and j have different
 * scales. Rounding to binary16 commutes with a power-of-2 scale only while the result is normal;
 * below 2^-14 (subnormal) the grid is absolute. Entry (i, j) is therefore rounded on the grid of
 * the coarser of its two rows, e = max(s_i, s_j): A_h,ij = 2^e half(2^-e A_ij), then stored in row
 * i's scale as the half 2^(e - s_i) half(2^-e A_ij) (exact: a half times a power of 2 >= 1 stays a
 * half below the overflow bound, which the row maximum keeps it under). Row j computes the same
 * A_h,ji = A_h,ij, so A_h is bitwise symmetric; the scales of the halo rows come from the
 * neighbours (one halo exchange at set-up). D^-1 is symmetric bitwise (adjugate) and one scale
 * per block keeps it so. The sweep is then exactly the SGS of A_h, M_h = (E + L_h) E^-1 (E + U_h),
 * E = (D_h^-1)^-1, evaluated in double, as precond_sgs_single.c does for float.
 *
 * Refusal: an entry that rounds to 0 although it is above the assembly's rounding noise of its
 * rows (|A_ij| > CC_HALF_NOISE max(rowmax_i, rowmax_j)) would lose all its digits: the set-up
 * refuses the matrix (CC_ERR_ARG, exit 2) naming the row, on every rank. Entries at the noise level
 * flush to 0 (they carry no digits in double either).
 *
 * Conversions: with AVX-512 (F + BW) two blocks at a time, 16 halves by one vcvtph2ps zmm and two
 * vcvtps2pd zmm; with F16C alone vcvtph2ps then vcvtps2pd per block column; without F16C (compile
 * time) a portable scalar decoder, never chosen at run time.
 */
#include "cc_precond_impl.h"

#include <limits.h>
#include <math.h>
#include <omp.h>

#if defined(__F16C__) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#if defined(__AVX512F__) && defined(__AVX512BW__)
#define CC_HALF_PATH "avx512"
#define CC_HALF_AVX512 1
#else
#define CC_HALF_PATH "f16c"
#endif
#define CC_HALF_F16C 1
#else
#define CC_HALF_PATH "portable"
#endif

const char *const cc_half_conversion_path = CC_HALF_PATH;

/* Software prefetch into L2 at the float sweeps' distance in bytes (SGSF_AHEAD 128 float blocks,
 * 4.6 KiB): 256 half blocks. */
#define SGSH_AHEAD 256
#define SGSH_PREFETCH(b) __builtin_prefetch((b) + 9 * SGSH_AHEAD, 0, 2)

/* One part per thread and step in the colored sweeps (CC_SGS_STEP_ROWS), not the double sweeps'
 * two: the half rows are bound by their conversions and gathers, not by one stream's bandwidth,
 * and ran slower with two parts (docs/performance.md, two streams per sweep). */
#define SGSH_WAYS 1

/* ------------------------------------------------------------------------------------------------
 * binary16 <-> double, portable (the reference and the set-up's encoder of exact values)
 * ---------------------------------------------------------------------------------------------- */
double cc_half_to_double(uint16_t h)
{
  const int sign = h >> 15, expo = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (expo == 0)
    v = ldexp((double)frac, -24); /* subnormal: frac 2^-24 */
  else if (expo == 31)
    v = frac ? NAN : INFINITY;
  else
    v = ldexp((double)(frac | 0x400), expo - 25); /* (1024 + frac) 2^(e - 15 - 10) */
  return sign ? -v : v;
}

double cc_half_round(double x)
{
  if (x == 0.0 || !isfinite(x)) return x;
  int e;
  (void)frexp(x, &e); /* |x| in [2^(e-1), 2^e) */
  /* 11 significant bits in the normal range (ulp 2^(e-11)), the fixed 2^-24 below 2^-14 */
  const int ulp_exp = e - 1 >= -14 ? e - 11 : -24;
  return ldexp(nearbyint(ldexp(x, -ulp_exp)), ulp_exp); /* ties to even (default mode) */
}

uint16_t cc_half_bits(double x)
{
  const uint16_t sign = signbit(x) ? 0x8000 : 0;
  const double m      = fabs(x);
  if (m == 0.0) return sign;
  if (m < 0x1p-14) return sign | (uint16_t)(m * 0x1p24); /* subnormal: frac = m 2^24 */
  int e;
  const double f = frexp(m, &e); /* m = f 2^e, f in [0.5, 1) */
  return sign | (uint16_t)((e + 14) << 10) | (uint16_t)(ldexp(f, 11) - 1024.0);
}

/* ------------------------------------------------------------------------------------------------
 * Block kernels: column-major halves [b00 b10 b20 | b01 b11 b21 | b02 b12 b22]; column c times v_c
 * is one 4-lane FMA in double, its 4th lane the next column's first half (or the arrays' padding),
 * never used.
 * ---------------------------------------------------------------------------------------------- */
#if defined(CC_HALF_AVX512)
/* Two blocks at a time, 8 lanes per conversion: the conversions, not the bytes, bound the binary16
 * rows (one vcvtph2pd ymm issues every second cycle; the kernel ceilings of docs/performance.md and
 * docs/half-precision.md).
 *
 * A pair (k, k + 1) is 18 contiguous halves, block k's h0..h8 then block k + 1's (column-major: h
 * at 3 c + r is row r, column c). Its first 16 halves become d0 = k's h0..h7 and d1 = (k's h8,
 * k + 1's h0..h6), its last two d2 = k + 1's h7, h8. Each is multiplied by x in the same layout,
 * built by one permute of the two blocks' x (x0 x0 x0 x1 x1 x1 x2 x2 and x2 x0' x0' x0' x1' x1' x1'
 * x2'), and accumulated in double: lane j of a holds row j % 3, of b row (j + 2) % 3, c rows 1, 2.
 * A lone block (a row's odd one, D_i^-1) is a pair whose second block is zeros (masked load). */
typedef struct {
  __m512d a, b;
  __m128d c;
} sgsh_acc;

#define SGSH_ACC_ZERO                                                                              \
  {                                                                                                \
    _mm512_setzero_pd(), _mm512_setzero_pd(), _mm_setzero_pd()                                     \
  }

/* acc += blocks at h times x0 (and x1 when two); m16 the halves to load (0xffff, or 0x1ff alone).
 * fresh: x0 was stored just before (D_i^-1's s), so it is read as three 8-byte loads, each served
 * by its store: a 24-byte load over the two stores that wrote it waits until they reach the cache
 * (no store forwarding), which made this kernel slower than three 4-lane conversions per block. */
static inline __attribute__((always_inline)) void
sgsh_pair_fma(const uint16_t *restrict h, __mmask16 m16, int two, int fresh,
              const double *restrict x0, const double *restrict x1, sgsh_acc *acc)
{
  const __m512i i0 = _mm512_set_epi64(2, 2, 1, 1, 1, 0, 0, 0);
  const __m512i i1 = _mm512_set_epi64(10, 9, 9, 9, 8, 8, 8, 2);
  const __m512d v0 = _mm512_castpd256_pd512(fresh ? _mm256_setr_pd(x0[0], x0[1], x0[2], 0.0)
                                                  : _mm256_maskz_loadu_pd(0x7, x0));
  const __m512d v1 =
      two ? _mm512_castpd256_pd512(_mm256_maskz_loadu_pd(0x7, x1)) : _mm512_setzero_pd();
  const __m512 f   = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m16, h));
  const __m256 fhi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(f), 1));
  acc->a           = _mm512_fmadd_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(f)),
                                     _mm512_permutexvar_pd(i0, v0), acc->a);
  acc->b = _mm512_fmadd_pd(_mm512_cvtps_pd(fhi), _mm512_permutex2var_pd(v0, i1, v1), acc->b);
  if (two) {
    int32_t h2; /* the last two halves (memcpy: h + 16 is only 2-byte aligned) */
    memcpy(&h2, h + 16, sizeof h2);
    const __m128d d2 = _mm_cvtps_pd(_mm_cvtph_ps(_mm_cvtsi32_si128(h2)));
    acc->c           = _mm_fmadd_pd(d2, _mm_set1_pd(x1[2]), acc->c);
  }
}

/* out[r] = the sum of acc's lanes of row r, stored as 16 + 8 bytes: the row code reads them back
 * at once, and plain stores forward to those loads where a masked store would not */
static inline __attribute__((always_inline)) void sgsh_acc_store(sgsh_acc acc, double out[3])
{
  const __m512i z = _mm512_setzero_si512();
  /* b's lane 0 (row 2) joins c's lane 1; b's lanes 1..7 line up with a's lanes 0..6 */
  const __m128d b0 = _mm_unpacklo_pd(_mm_setzero_pd(), _mm512_castpd512_pd128(acc.b));
  const __m128d c  = _mm_add_pd(acc.c, b0);
  const __m512d b1 = _mm512_castsi512_pd(_mm512_alignr_epi64(z, _mm512_castpd_si512(acc.b), 1));
  __m512d a        = _mm512_mask_add_pd(acc.a, 0x7f, acc.a, b1);
  const __m512i ai = _mm512_castpd_si512(a); /* lanes [0, 3) + [3, 6) + [6, 8) */
  a                = _mm512_add_pd(a, _mm512_castsi512_pd(_mm512_alignr_epi64(z, ai, 3)));
  a                = _mm512_add_pd(a, _mm512_castsi512_pd(_mm512_alignr_epi64(z, ai, 6)));
  const __m256d r  = _mm256_add_pd(_mm512_castpd512_pd256(a), /* c into lanes 1, 2 */
                                   _mm256_permute4x64_pd(_mm256_zextpd128_pd256(c), 0xd2));
  _mm_storeu_pd(out, _mm256_castpd256_pd128(r));
  _mm_store_sd(out + 2, _mm256_extractf128_pd(r, 1));
}

/* out = sum_k H_k v_col(k) over the blocks k in [k0, k1) whose column is below col_end. The row's
 * sum is the same on every thread count (a fixed order per row). */
static inline void sgsh_block_row(int64_t k0, int64_t k1, const int32_t *restrict col,
                                  const uint16_t *restrict val, int32_t col_end,
                                  const double *restrict v, double out[3])
{
  sgsh_acc acc = SGSH_ACC_ZERO;
  int64_t k    = k0;
  for (; k + 1 < k1 && col[k + 1] < col_end; k += 2) { /* sorted: col[k] < col[k + 1] */
    SGSH_PREFETCH(val + 9 * k);
    sgsh_pair_fma(val + 9 * k, 0xffff, 1, 0, v + 3 * (int64_t)col[k], v + 3 * (int64_t)col[k + 1],
                  &acc);
  }
  if (k < k1 && col[k] < col_end)
    sgsh_pair_fma(val + 9 * k, 0x1ff, 0, 0, v + 3 * (int64_t)col[k], NULL, &acc);
  sgsh_acc_store(acc, out);
}

/* q = d s, d = D_h,i column-major halves */
static inline void sgsh_block_diag(const uint16_t *restrict d, const double s[3], double q[3])
{
  sgsh_acc acc = SGSH_ACC_ZERO;
  sgsh_pair_fma(d, 0x1ff, 0, 1, s, NULL, &acc);
  sgsh_acc_store(acc, q);
}
#elif defined(CC_HALF_F16C)
/* 4 halves at p as 4 doubles */
#define SGSH_COL(p) _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(p))))

#define SGSH_BLOCK_FMA(b, vj, acc0, acc1, acc2)                                                    \
  do {                                                                                             \
    acc0 = _mm256_fmadd_pd(SGSH_COL(b), _mm256_set1_pd((vj)[0]), acc0);                            \
    acc1 = _mm256_fmadd_pd(SGSH_COL((b) + 3), _mm256_set1_pd((vj)[1]), acc1);                      \
    acc2 = _mm256_fmadd_pd(SGSH_COL((b) + 6), _mm256_set1_pd((vj)[2]), acc2);                      \
  } while (0)

static inline void sgsh_store3(__m256d v4, double out[3])
{
  _mm_storeu_pd(out, _mm256_castpd256_pd128(v4));
  _mm_store_sd(out + 2, _mm256_extractf128_pd(v4, 1));
}

/* out = sum_k H_k v_col(k) over the blocks k in [k0, k1) whose column is below col_end. Two blocks
 * per step into two sets of accumulators: with one set every FMA of a row waits for the previous
 * one (4 cycles latency), at most 0.25 blocks per cycle, 5.5 B of binary16 blocks per cycle per
 * core, about a core's share of the memory bandwidth; two sets halve that chain. The row's sum is
 * (even blocks) + (odd blocks), the same order on every thread count. */
static inline void sgsh_block_row(int64_t k0, int64_t k1, const int32_t *restrict col,
                                  const uint16_t *restrict val, int32_t col_end,
                                  const double *restrict v, double out[3])
{
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd();
  __m256d b0 = _mm256_setzero_pd(), b1 = _mm256_setzero_pd(), b2 = _mm256_setzero_pd();
  int64_t k = k0;
  for (; k + 1 < k1 && col[k + 1] < col_end; k += 2) { /* sorted: col[k] < col[k + 1] */
    SGSH_PREFETCH(val + 9 * k);
    SGSH_BLOCK_FMA(val + 9 * k, v + 3 * (int64_t)col[k], a0, a1, a2);
    SGSH_BLOCK_FMA(val + 9 * k + 9, v + 3 * (int64_t)col[k + 1], b0, b1, b2);
  }
  if (k < k1 && col[k] < col_end) SGSH_BLOCK_FMA(val + 9 * k, v + 3 * (int64_t)col[k], a0, a1, a2);
  const __m256d sa = _mm256_add_pd(_mm256_add_pd(a0, a1), a2);
  const __m256d sb = _mm256_add_pd(_mm256_add_pd(b0, b1), b2);
  sgsh_store3(_mm256_add_pd(sa, sb), out);
}

/* q = d s, d = D_h,i column-major halves */
static inline void sgsh_block_diag(const uint16_t *restrict d, const double s[3], double q[3])
{
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd();
  SGSH_BLOCK_FMA(d, s, a0, a1, a2);
  sgsh_store3(_mm256_add_pd(_mm256_add_pd(a0, a1), a2), q);
}
#else
static inline void sgsh_block_row(int64_t k0, int64_t k1, const int32_t *restrict col,
                                  const uint16_t *restrict val, int32_t col_end,
                                  const double *restrict v, double out[3])
{
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  for (int64_t k = k0; k < k1 && col[k] < col_end; k++) {
    const uint16_t *b = val + 9 * k;
    const double *vj  = v + 3 * (int64_t)col[k];
    double h[9];
    for (int e = 0; e < 9; e++) h[e] = cc_half_to_double(b[e]);
    s0 += h[0] * vj[0] + h[3] * vj[1] + h[6] * vj[2];
    s1 += h[1] * vj[0] + h[4] * vj[1] + h[7] * vj[2];
    s2 += h[2] * vj[0] + h[5] * vj[1] + h[8] * vj[2];
  }
  out[0] = s0, out[1] = s1, out[2] = s2;
}

static inline void sgsh_block_diag(const uint16_t *restrict d, const double s[3], double q[3])
{
  double h[9];
  for (int e = 0; e < 9; e++) h[e] = cc_half_to_double(d[e]);
  q[0] = h[0] * s[0] + h[3] * s[1] + h[6] * s[2];
  q[1] = h[1] * s[0] + h[4] * s[1] + h[7] * s[2];
  q[2] = h[2] * s[0] + h[5] * s[1] + h[8] * s[2];
}
#endif

/* The row kernels, sweeps and ASDD residual of the binary16 blocks: row i's blocks 2^s_i H_ij,
 * D_i^-1 = 2^d_i D_h */
#define CC_SGS_PREFIX sgsh
#define CC_SGS_WAYS SGSH_WAYS
#define CC_SGS_VAL val_h
#define CC_SGS_L_VAL l_val_h
#define CC_SGS_DINV dinv_h
#define CC_SGS_UA(s, i) ((s)->row_unscale[2 * (i)])
#define CC_SGS_UD(s, i) ((s)->row_unscale[2 * (i) + 1])
#include "sgs_rows_reduced.inc.c"

CC_SGS_ROWS_PROBE_DEFINE(cc_sgs_rows_probe_half, uint16_t,
                         sgsh_block_row(k0, k1, col, val, INT32_MAX, x, o))

/* ------------------------------------------------------------------------------------------------
 * Set-up
 * ---------------------------------------------------------------------------------------------- */

/* s with max|v| 2^-s in [2^14, 2^15) (0 for an all-zero v): the row's scale exponent */
static int half_scale_exponent(double vmax)
{
  if (!(vmax > 0.0)) return 0;
  int e;
  (void)frexp(vmax, &e); /* vmax in [2^(e-1), 2^e) */
  return e - 15;
}

/* max |entry| over the 9 n_blk values at v */
static double max_abs(const double *v, int64_t n_blk)
{
  double m = 0.0;
  for (int64_t k = 0; k < 9 * n_blk; k++) m = fmax(m, fabs(v[k]));
  return m;
}

/* One block of row i (scale si, row max mi) at a column of scale sj (row max mj): dst column-major
 * halves of 2^-si A_h with A_h rounded on the grid 2^max(si, sj). Returns -1 when fine, else the
 * row-major position 0..8 of an entry that loses all its digits. */
static int half_block(const double *src, int si, int sj, double mi, double mj, uint16_t *dst)
{
  const int e       = si > sj ? si : sj;
  const double keep = CC_HALF_NOISE * fmax(mi, mj); /* below: the assembly's rounding noise */
  int bad           = -1;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      const double x = src[3 * r + c];
      const double h = cc_half_round(ldexp(x, -e)); /* on the coarser row's grid */
      if (h == 0.0 && fabs(x) > keep && bad < 0) bad = 3 * r + c;
      dst[3 * c + r] = cc_half_bits(ldexp(h, e - si)); /* exact in row i's scale */
    }
  return bad;
}

/* n halves, then CC_SGS_FLOAT_PAD zero halves (the last column's 4-half load reads into them) */
static cc_err half_alloc_padded(int64_t n, uint16_t **out)
{
  CC_CALL(cc_malloc((size_t)n + CC_SGS_FLOAT_PAD, sizeof(uint16_t), out));
  memset(*out + n, 0, CC_SGS_FLOAT_PAD * sizeof(uint16_t));
  return CC_OK;
}

/* the refusal: entry (r, c) of the block of local row i at local column j */
static cc_err half_refuse(const cc_bcrs *a, const cc_ordering *ord, const cc_comm_table *comm,
                          int i, int j, int pos, const double *blk, int si, int sj)
{
  const int rank = comm ? comm->rank : 0;
  const int orig = ord && ord->old_of_new ? ord->old_of_new[i] : i;
  CC_FAIL(CC_ERR_ARG,
          "--precond-precision half: block row %d (rank %d, original local id %d) cannot be "
          "stored in binary16: entry (%d, %d) = %g of its block at column %d rounds to 0 on the "
          "grid of scale 2^%d (rows' scales 2^%d and 2^%d: their magnitudes lie too far apart for "
          "16 bits; use --precond-precision single or double)",
          i, rank, orig, pos / 3, pos % 3, blk[pos], j < a->n_rows ? j : -1, si > sj ? si : sj, si,
          sj);
}

/* rowinfo[3 j], [3 j + 1] = node j's row maximum and scale exponent, for every local node, the
 * halo's from the neighbours (a halo exchange of 3-vectors carries them) */
static cc_err half_row_info(const cc_bcrs *a, const cc_comm_table *comm, double *rowinfo)
{
  const int n = a->n_rows;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    double m = max_abs(a->val + 9 * a->row_ptr[i], a->row_ptr[i + 1] - a->row_ptr[i]);
    if (a->l_ptr) m = fmax(m, max_abs(a->l_val + 9 * a->l_ptr[i], a->l_ptr[i + 1] - a->l_ptr[i]));
    rowinfo[3 * (int64_t)i]     = m;
    rowinfo[3 * (int64_t)i + 1] = half_scale_exponent(m);
  }
  if (comm && comm->n_neighbors > 0) return cc_halo_exchange(comm, rowinfo);
  return CC_OK;
}

/* s's binary16 blocks and row scales from a, rowinfo (half_row_info) and dinv, first-touched color
 * by color with the sweeps' static schedule; returns the first row with an entry that loses all its
 * digits (INT_MAX: none) */
static int half_fill(cc_sgs *s, const double *rowinfo, const double *dinv)
{
  const cc_bcrs *a = s->a;
  int bad_row      = INT_MAX;
  int one_group[2], n_g;
  const int *g = cc_sgs_touch_groups(s, one_group, &n_g);
#pragma omp parallel reduction(min : bad_row)
  for (int c = 0; c < n_g; c++) {
#pragma omp for schedule(static) nowait
    for (int i = g[c]; i < g[c + 1]; i++) {
      const int si    = (int)rowinfo[3 * (int64_t)i + 1];
      const double mi = rowinfo[3 * (int64_t)i];
      int row_bad     = 0;
      for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
        const int64_t j = a->col_idx[k];
        row_bad |= half_block(a->val + 9 * k, si, (int)rowinfo[3 * j + 1], mi, rowinfo[3 * j],
                              s->val_h + 9 * k) >= 0;
      }
      if (a->l_ptr)
        for (int64_t k = a->l_ptr[i]; k < a->l_ptr[i + 1]; k++) {
          const int64_t j = a->l_col[k];
          row_bad |= half_block(a->l_val + 9 * k, si, (int)rowinfo[3 * j + 1], mi, rowinfo[3 * j],
                                s->l_val_h + 9 * k) >= 0;
        }
      /* D_i^-1: one scale for the block (symmetric stays symmetric) */
      const double *d = dinv + 9 * (int64_t)i;
      const double md = max_abs(d, 1);
      const int sd    = half_scale_exponent(md);
      row_bad |= half_block(d, sd, sd, md, md, s->dinv_h + 9 * (int64_t)i) >= 0;
      s->row_unscale[2 * (int64_t)i]     = ldexp(1.0, si);
      s->row_unscale[2 * (int64_t)i + 1] = ldexp(1.0, sd);
      if (row_bad && i < bad_row) bad_row = i;
    }
  }
  return bad_row;
}

/* The refusal of row i (half_fill's bad row): its first offending entry named */
static cc_err half_refuse_row(const cc_bcrs *a, const cc_ordering *ord, const cc_comm_table *comm,
                              const double *rowinfo, const double *dinv, int i)
{
  const int si    = (int)rowinfo[3 * (int64_t)i + 1];
  const double mi = rowinfo[3 * (int64_t)i];
  uint16_t scratch[9];
  cc_err err = CC_OK;
  for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1] && !err; k++) {
    const int64_t j = a->col_idx[k];
    const int sj    = (int)rowinfo[3 * j + 1];
    int pos         = half_block(a->val + 9 * k, si, sj, mi, rowinfo[3 * j], scratch);
    if (pos >= 0) err = half_refuse(a, ord, comm, i, (int)j, pos, a->val + 9 * k, si, sj);
  }
  for (int64_t k = a->l_ptr ? a->l_ptr[i] : 0; a->l_ptr && k < a->l_ptr[i + 1] && !err; k++) {
    const int64_t j = a->l_col[k];
    const int sj    = (int)rowinfo[3 * j + 1];
    int pos         = half_block(a->l_val + 9 * k, si, sj, mi, rowinfo[3 * j], scratch);
    if (pos >= 0) err = half_refuse(a, ord, comm, i, (int)j, pos, a->l_val + 9 * k, si, sj);
  }
  if (err) return err;
  const double *d = dinv + 9 * (int64_t)i;
  const int sd    = half_scale_exponent(max_abs(d, 1));
  int pos         = half_block(d, sd, sd, max_abs(d, 1), max_abs(d, 1), scratch);
  CC_FAIL(CC_ERR_ARG,
          "--precond-precision half: block row %d (rank %d): entry (%d, %d) = %g of its inverted "
          "diagonal block rounds to 0 in binary16 at scale 2^%d",
          i, comm ? comm->rank : 0, pos / 3, pos % 3, pos >= 0 ? d[pos] : 0.0, sd);
}

/* The binary16 blocks of s->a (cc_sgs_ops.setup) */
static cc_err sgsh_setup(cc_sgs *s, const cc_ordering *ord, const cc_comm_table *comm)
{
  const cc_bcrs *a = s->a;
  const int n      = s->n;
  CC_CALL(cc_sgs_check_split(a));
  CC_CALL(half_alloc_padded(9 * a->n_blocks, &s->val_h));
  if (a->l_ptr) CC_CALL(half_alloc_padded(9 * a->l_ptr[n], &s->l_val_h));
  CC_CALL(half_alloc_padded(9 * (int64_t)n, &s->dinv_h));
  CC_CALL(cc_malloc(2 * (size_t)n, sizeof(double), &s->row_unscale));

  double *rowinfo = NULL, *dinv = NULL; /* [3 n_cols] row maxima and scales; D^-1 in double */
  cc_err err = cc_calloc(3 * (size_t)a->n_cols, sizeof(double), &rowinfo);
  if (!err) err = cc_sgs_new_dinv(s, ord, comm, &dinv);
  if (!err) err = half_row_info(a, comm, rowinfo);
  const int bad_row = err ? INT_MAX : half_fill(s, rowinfo, dinv);
  if (!err && bad_row != INT_MAX) err = half_refuse_row(a, ord, comm, rowinfo, dinv, bad_row);
  cc_free(&rowinfo);
  cc_free(&dinv);
  /* every rank fails together (a refusal is bad input: exit 2 without MPI_Abort) */
  if (comm) err = cc_agree(comm->comm, err);
  CC_CHECK(err == CC_OK, err, "setting up the binary16 preconditioner blocks");
  return CC_OK;
}

/* binary16 shadows of a's values and D^-1, and two scales per row */
static int64_t sgsh_bytes(const cc_sgs *s)
{
  return cc_sgs_shadow_bytes(s, (int64_t)sizeof(uint16_t)) +
         2 * (int64_t)s->n * (int64_t)sizeof(double);
}

const cc_sgs_ops cc_sgs_ops_half = {
    .precision       = CC_PRECISION_HALF,
    .value_bytes     = 2.0,
    .row_scale_bytes = 16.0,
    .setup           = sgsh_setup,
    .apply           = sgsh_apply,
    .apply_u         = sgsh_apply_u,
    .asdd_step       = sgsh_asdd_step,
    .residual_rows   = sgsh_residual_rows,
    .bytes           = sgsh_bytes,
};

cc_err cc_sgs_setup_half(const cc_bcrs *a, const cc_ordering *ord, int chunk_rows,
                         const cc_comm_table *comm, cc_sgs *s)
{
  return cc_sgs_setup_as(CC_PRECISION_HALF, a, ord, chunk_rows, comm, s);
}
