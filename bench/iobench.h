/* iobench.h: what the files of cubecg-iobench share: bench_io.c (the run over every configuration,
 * the table and the report, main), iobench_args.c (the command line) and iobench_run.c (one
 * configuration: the writes and reads timed, page-cache control, fio's twin). */
#ifndef CC_IOBENCH_H
#define CC_IOBENCH_H

#include "benchlib.h"
#include "cc_io.h"
#include "cc_topology.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAX_LIST 16

typedef struct {
  char dir[200];            /* this rank's directory (from --dir or --dirs and --mapping) */
  char dirs[MAX_LIST][200]; /* --dirs */
  int n_dirs, dir_index;    /* this rank's entry of dirs */
  char mapping[8];          /* "block" or "cyclic" */
  bool dir_leader;          /* the lowest rank of this directory: creates and removes */
  bool fio;                 /* --fio: each backend's fio twin beside it */
  bool list_only;           /* --list-backends */
  size_t sizes[MAX_LIST];
  int n_sizes;
  char backends[MAX_LIST][24];
  int n_backends;
  size_t buffers[MAX_LIST];
  int n_buffers;
  int repeat, queue_depth;
  size_t writeback; /* posix, durable rows: the backend's writeback_bytes (0 = off) */
  bool durable, checksum, fallback;
  char report[CC_IO_PATH_MAX];
} bench_params;

typedef struct { /* one measured quantity over repetitions (and ranks) */
  double mean, median, min, max;
} bench_stat;

typedef struct {
  char backend[24], op[8], timing[24], path[48], detail[160], cache_note[240];
  size_t size, buffer;
  bool durable;
  bench_stat aggregate, per_rank, seconds; /* seconds: per rank and repetition */
  double stall_median, write_median;       /* offload: caller stall vs helper write */
  double resident_max;                     /* reads: page-cache share of the file before the read */
  bench_stat fio;                          /* write rows with --fio: the twin (mean < 0: none) */
  double fio_ratio_median; /* median over repetitions of row / fio of the same one (< 0: none) */
} bench_row;

extern int rank, size; /* in MPI_COMM_WORLD (bench_io.c) */

/* iobench_args.c */
void usage(void);
CC_WUR cc_err parse_args(int argc, char **argv, bench_params *p, bool *help);
/* iobench_run.c */
/* Sizes that fit: disk for every rank's file (one run at a time) and memory for the source, the
 * read buffer and the offload staging of every rank on this node. */
CC_WUR cc_err cap_sizes(bench_params *p, MPI_Comm node_comm, char *skipped, size_t n_skipped);
const char *fio_engine(const char *backend); /* fio's twin of a backend; NULL: none */
/* One configuration: its write and read rows (and fio's twin when fio). */
CC_WUR cc_err run_config(const bench_params *p, const char *backend, size_t bytes, size_t buffer,
                         bool fio, bench_row *rows, int *n_rows);

#endif
