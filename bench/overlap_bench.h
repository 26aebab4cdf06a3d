/* overlap_bench.h: cubecg-bench --overlap (overlap_bench.c): the overlap of the solvers' own
 * reductions with one SpMV + M^-1, per reduction size and progress setting of this launch. */
#ifndef CC_OVERLAP_BENCH_H
#define CC_OVERLAP_BENCH_H

#include "mpi_env.h"
#include "overlap_probe.h"

#define BENCH_OVERLAP_SIZES 4 /* reductions of 1, 2, 3 and 41 doubles */

typedef struct {
  int ranks;
  int thread; /* the library's progress thread runs in this launch */
  int n_rows;
  cc_overlap_result rows[CC_PROGRESS_COUNT * BENCH_OVERLAP_SIZES]; /* setting-major */
} bench_overlap;

#endif
