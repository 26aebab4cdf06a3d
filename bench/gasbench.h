/* gasbench.h: what the files of cubecg-gasbench share: bench_gas.c (the sweep, the ratios, the
 * table and the report, main), gasbench_args.c (the command line) and gasbench_run.c (the rows:
 * MPI_Send/Recv baseline, store gets and puts per case, streaming, fio on the same disk, weak
 * scaling). */
#ifndef CC_GASBENCH_H
#define CC_GASBENCH_H

#include "cc_gas.h"
#include "benchlib.h"
#include "cc_io.h"

#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LIST 16
#define MAX_ROWS 2048 /* 16 sizes x 16 pages x 5 store rows + send-recv */

typedef struct {
  char ssd_dir[512];
  size_t sizes[MAX_LIST], pages[MAX_LIST];
  int n_sizes, n_pages;
  size_t dram;
  int repeat;
  bool fallback, fio, weak;
  size_t weak_page, weak_dram;
  int weak_pages;
  char report[CC_IO_PATH_MAX];
} gb_params;

typedef struct {
  char op[8], kase[16];
  size_t size, page;
  double median, min, max;                      /* bytes/s over repetitions */
  int64_t served_dram, served_ssd, served_coop; /* how the timed gets were served (sum) */
  /* ssd-miss with --fio: a fio read of the same size just before each get; the median over the
   * repetitions of get / that fio (0: not paired), and of the fio runs themselves */
  double vs_fio, fio_median;
} gb_row;

typedef struct {
  int ranks, nodes;
  bool coop;
  size_t page, hot_bytes;
  double seconds, bytes_per_s;
  int64_t ssd_misses, coop_hits, dram_hits, local_hits;
} gb_weak;

/* fio's read bandwidth per size: run before and after the store's rows, the anchor their mean */
typedef struct {
  double mean[MAX_LIST], before[MAX_LIST], after[MAX_LIST];
} gb_fio;

extern int rank, size; /* in MPI_COMM_WORLD (bench_gas.c) */

/* gasbench_args.c */
void usage(void);
CC_WUR cc_err parse_args(int argc, char **argv, gb_params *p, bool *help);
/* gasbench_run.c */
void fill_pattern(char *buf, size_t n, unsigned seed);
double fio_read(const gb_params *p, size_t n, int loops);
void fio_remove(const gb_params *p);
CC_WUR cc_err sendrecv_rows(const gb_params *p, int owner, char *buf, gb_row *rows, int *n_rows);
void store_params(const gb_params *p, size_t page, size_t dram, bool coop, cc_gas_params *gp);
CC_WUR cc_err store_rows(const gb_params *p, size_t page, bool coop, int helper, char *src,
                         char *dst, gb_row *rows, int *n_rows, char *ssd_path, size_t n_ssd_path);
CC_WUR cc_err stream_rows(const gb_params *p, size_t page, char *src, char *dst, gb_row *rows,
                          int *n_rows);
CC_WUR cc_err weak_run(const gb_params *p, int n, bool coop, gb_weak *out);

#endif
