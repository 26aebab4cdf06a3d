/* spmv_anatomy.h (cubecg-bench --anatomy): where SpMV's time goes between the matrix stream and the
 * gathers. Each variant is the library's SpMV row loop (solvers/kernels.c, through the same
 * cc_block3_simd.h block arithmetic and prefetch, rows in a->row_class order, threads on contiguous
 * slices of it) with one cost taken out, so a variant's time against SpMV's, in the same run,
 * prices that cost:
 *   copy       the row loop as the library runs it, without the halo exchange (a check that
 *              the copy is faithful: its y must equal cc_spmv's bit for bit)
 *   x-in-l1    x_j gathered at column j mod 512 (12 KiB of x): the column-indexed load stays,
 *              its cache misses go
 *   no-gather  x read at the row itself: no load depends on a column index
 *   stream     the blocks and column indices only summed into y_i, in the same row order: no x,
 *              no FMA
 *   read       the matrix's value and column arrays read front to back: no row pointers
 * Every variant is timed against the same bytes, SpMV's traffic model, so their GB/s compare
 * times. Needs a build with AVX2 + FMA (CC_BLOCK3_SIMD); bench_anatomy_available() says.
 */
#ifndef SPMV_ANATOMY_H
#define SPMV_ANATOMY_H

#include "cc_solvers.h"

enum {
  BENCH_AN_SPMV, /* cc_spmv itself (halo exchange included), run by the caller */
  BENCH_AN_COPY,
  BENCH_AN_X_IN_L1,
  BENCH_AN_NO_GATHER,
  BENCH_AN_STREAM,
  BENCH_AN_READ,
  BENCH_AN_COUNT
};
extern const char *const bench_anatomy_name[BENCH_AN_COUNT];

int bench_anatomy_available(void);
/* Variant v (BENCH_AN_COPY .. BENCH_AN_READ) over a's internal rows: y_i for copy, x-in-l1,
 * no-gather and stream (whose y means nothing); read writes thread t's sum into y[3 t .. 3 t + 2].
 */
void bench_anatomy_run(int v, const cc_bcrs *a, const double *x, double *y);

#endif
