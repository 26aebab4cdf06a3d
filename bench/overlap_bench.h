/* overlap_bench.h: cubecg-bench --overlap (overlap_bench.c): the overlap of the solvers' own
 * reductions with one SpMV + M^-1, per reduction size and progress setting of this launch (the
 * other settings recorded as not run, with why). */
#ifndef CC_OVERLAP_BENCH_H
#define CC_OVERLAP_BENCH_H

#include "mpi_env.h"
#include "overlap_probe.h"

#define BENCH_OVERLAP_SETTINGS 4 /* none, poll, thread, thread+poll */

/* One progress setting: measured in this launch, or why not (the thread runs or does not). */
typedef struct {
  char setting[16];
  int measured;
  char why[256];
} bench_overlap_setting;

typedef struct {
  int ranks;
  int thread;             /* the library's progress thread runs in this launch */
  cc_overlap_sizes sizes; /* every variant's reduction sizes at its default depth and S */
  bench_overlap_setting settings[BENCH_OVERLAP_SETTINGS];
  int n_rows;
  cc_overlap_result rows[BENCH_OVERLAP_SETTINGS / 2 * CC_OVERLAP_SIZES_MAX]; /* setting-major */
} bench_overlap;

/* The report's "sizes" and "settings" arrays (kernelbench_report.c's bench_overlap_report). */
void bench_overlap_settings_json(cc_json *js, const bench_overlap *ov);

#endif
