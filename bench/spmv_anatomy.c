/* spmv_anatomy.c: the variants of spmv_anatomy.h. They reuse the library's block arithmetic and
 * prefetch (solvers/cc_block3_simd.h, internal to solvers/, read here on purpose: a variant must
 * differ from SpMV by the one cost it takes out, not by its code). */
#include "spmv_anatomy.h"

#include "cc_block3_simd.h"

#include <omp.h>

const char *const bench_anatomy_name[BENCH_AN_COUNT] = {"spmv",      "copy",   "x-in-l1",
                                                        "no-gather", "stream", "read"};

#if defined(CC_BLOCK3_SIMD)
int bench_anatomy_available(void)
{
  return 1;
}

/* how a variant uses x: gathered at column j, at column j & l1_mask, at the row; or not at all
 * (the blocks and column indices only summed) */
enum { X_GATHER, X_IN_L1, X_AT_ROW, X_NONE };

/* rows[p0..p1) of y = A x, as kernels.c's spmv_row, x used as mode says (a literal per call) */
static inline __attribute__((always_inline)) void
anatomy_rows(const cc_bcrs *m, const int32_t *restrict rows, int p0, int p1,
             const double *restrict x, double *restrict y, int mode, int32_t l1_mask)
{
  const int64_t *restrict rp = m->row_ptr, *restrict lp = m->l_ptr;
  for (int p = p0; p < p1; p++) {
    const int i = rows[p];
    __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd();
    for (int part = lp ? 0 : 1; part < 2; part++) { /* the split-off lower part, then D + U */
      const int32_t *restrict col = part ? m->col_idx : m->l_col;
      const double *restrict val  = part ? m->val : m->l_val;
      const int64_t k1            = part ? rp[i + 1] : lp[i + 1];
      for (int64_t k = part ? rp[i] : lp[i]; k < k1; k++) {
        const double *b = val + 9 * k;
        CC_BLOCK3_PREFETCH(b);
        if (mode == X_NONE) {
          a0 = _mm256_add_pd(a0, _mm256_loadu_pd(b));
          a1 = _mm256_add_pd(a1, _mm256_loadu_pd(b + 4));
          a2 = _mm256_add_pd(a2, _mm256_set1_pd(b[8] + col[k]));
          continue;
        }
        const int64_t j = mode == X_GATHER ? col[k] : mode == X_IN_L1 ? (col[k] & l1_mask) : i;
        CC_BLOCK3_FMA(b, CC_BLOCK3_LOAD3(x + 3 * j), a0, a1, a2);
      }
    }
    cc_block3_sum(a0, a1, a2, y + 3 * (int64_t)i);
  }
}

/* blocks [k0, k1) of one value / column array pair, front to back */
static __m256d anatomy_read(const double *restrict val, const int32_t *restrict col, int64_t k0,
                            int64_t k1)
{
  __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
  for (int64_t e = 9 * k0; e + 8 <= 9 * k1; e += 8) {
    s0 = _mm256_add_pd(s0, _mm256_loadu_pd(val + e));
    s1 = _mm256_add_pd(s1, _mm256_loadu_pd(val + e + 4));
  }
  int64_t c = 0;
  for (int64_t k = k0; k < k1; k++) c += col[k];
  return _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_set1_pd((double)c));
}

void bench_anatomy_run(int v, const cc_bcrs *a, const double *x, double *y)
{
  const int n     = a->n_rows;
  int32_t l1_mask = 511; /* 512 nodes, 12 KiB of x; fewer on a mesh with fewer nodes */
  while (l1_mask > 0 && l1_mask >= a->n_cols) l1_mask >>= 1;
#pragma omp parallel if (n >= 512)
  {
    /* each thread one contiguous slice, as kernels.c's spmv_class */
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int q = n / nt, rem = n % nt;
    const int begin = t * q + (t < rem ? t : rem), end = begin + q + (t < rem);
    if (v == BENCH_AN_COPY) anatomy_rows(a, a->row_class, begin, end, x, y, X_GATHER, 0);
    if (v == BENCH_AN_X_IN_L1) anatomy_rows(a, a->row_class, begin, end, x, y, X_IN_L1, l1_mask);
    if (v == BENCH_AN_NO_GATHER) anatomy_rows(a, a->row_class, begin, end, x, y, X_AT_ROW, 0);
    if (v == BENCH_AN_STREAM) anatomy_rows(a, a->row_class, begin, end, x, y, X_NONE, 0);
    if (v == BENCH_AN_READ) {
      const int64_t nu = a->row_ptr[n], nl = a->l_ptr ? a->l_ptr[n] : 0;
      __m256d s = anatomy_read(a->val, a->col_idx, nu * t / nt, nu * (t + 1) / nt);
      if (nl)
        s = _mm256_add_pd(s, anatomy_read(a->l_val, a->l_col, nl * t / nt, nl * (t + 1) / nt));
      cc_block3_sum(s, s, s, y + 3 * (int64_t)t);
    }
  }
}
#else
int bench_anatomy_available(void)
{
  return 0;
}

void bench_anatomy_run(int v, const cc_bcrs *a, const double *x, double *y)
{
  (void)v, (void)a, (void)x, (void)y;
}
#endif
