/* cc_block3_simd.h (internal): the 3x3-block row arithmetic shared by SpMV (kernels.c) and the
 * double SGS sweeps (precond_sgs.c), so both stream a block the same way.
 *
 * With AVX2 + FMA (CC_BLOCK3_SIMD defined), row r of block B times x_j is one 4-wide FMA:
 * acc_r += [b_r0 b_r1 b_r2 b_(r+1)0] * [x0 x1 x2 0], x_j and the block's third row masked-loaded so
 * nothing past either is read (the 4th lanes add b * 0). 3 FMAs and 2 loads of x and column index
 * per block, about 12 instructions instead of the ~35 of 9 scalar multiplies and adds (ISO C17
 * contracts nothing into an FMA). A row's sum is (acc_r[0] + acc_r[1]) + (acc_r[2] + acc_r[3]), so
 * results differ from a left-to-right scalar sum by rounding only. Without AVX2 + FMA, callers use
 * their portable scalar loops (tests/install: portable_kernels builds both paths).
 */
#ifndef CC_BLOCK3_SIMD_H
#define CC_BLOCK3_SIMD_H

/* Software prefetch of the block CC_BLOCK3_AHEAD blocks past b into L2 only (locality 2:
 * prefetcht1), for SpMV and the double sweeps, with or without SIMD: 16 blocks ahead (1.1 KiB),
 * the best distance measured; a prefetch into L1 cost more than it gained (docs/performance.md,
 * prefetch distances). The float sweeps (precond_sgs_single.c) have their own, longer distance
 * (SGSF_AHEAD). */
#define CC_BLOCK3_AHEAD 16
#define CC_BLOCK3_PREFETCH(b) __builtin_prefetch((b) + 9 * CC_BLOCK3_AHEAD, 0, 2)

#if defined(__AVX2__) && defined(__FMA__)
#define CC_BLOCK3_SIMD 1
#include <immintrin.h>

#if defined(__AVX512VL__)
#define CC_BLOCK3_LOAD3(p) _mm256_maskz_loadu_pd(0x7, (p))
#else
#define CC_BLOCK3_LOAD3(p) _mm256_maskload_pd((p), _mm256_set_epi64x(0, -1, -1, -1))
#endif

/* acc_r += row r of the row-major block b times xj (xj = CC_BLOCK3_LOAD3(x + 3 j)) */
#define CC_BLOCK3_FMA(b, xj, a0, a1, a2)                                                           \
  do {                                                                                             \
    (a0) = _mm256_fmadd_pd(_mm256_loadu_pd(b), (xj), (a0));                                        \
    (a1) = _mm256_fmadd_pd(_mm256_loadu_pd((b) + 3), (xj), (a1));                                  \
    (a2) = _mm256_fmadd_pd(CC_BLOCK3_LOAD3((b) + 6), (xj), (a2));                                  \
  } while (0)

/* out[r] = (acc_r[0] + acc_r[1]) + (acc_r[2] + acc_r[3]) */
static inline __attribute__((always_inline)) void cc_block3_sum(__m256d a0, __m256d a1, __m256d a2,
                                                                double out[3])
{
  const __m256d h01 = _mm256_hadd_pd(a0, a1), h22 = _mm256_hadd_pd(a2, a2);
  const __m128d s01 = _mm_add_pd(_mm256_castpd256_pd128(h01), _mm256_extractf128_pd(h01, 1));
  const __m128d s22 = _mm_add_pd(_mm256_castpd256_pd128(h22), _mm256_extractf128_pd(h22, 1));
  _mm_storeu_pd(out, s01);
  _mm_store_sd(out + 2, s22);
}
#endif

#endif
