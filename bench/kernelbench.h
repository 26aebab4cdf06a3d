/* kernelbench.h: what the files of cubecg-bench share: bench_kernels.c (the kernels timed against
 * the triad, main), kernelbench_args.c (the command line) and kernelbench_report.c (the printed
 * table and the JSON report). */
#ifndef CC_KERNELBENCH_H
#define CC_KERNELBENCH_H

#include "benchlib.h"
#include "cc_mesh.h"
#include "cc_solvers.h"
#include "cc_topology.h"
#include "model_stream.h"
#include "overlap_bench.h"
#include "spmv_anatomy.h"
#include "block_ceilings.h"
#include "read_streams.h"
#include "triad_placement.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  cc_mesh_params mesh;
  char ordering[16];
  int colors, asdd_iters, repeat;
  int asdd_full_residual; /* --asdd-residual full (1) | fused (0, default), as cubecg's */
  double stream_mb; /* total of the three triad arrays over all ranks, MiB; 0 = auto */
  int allow_cached; /* run a mesh whose matrix is below 4x the LLC (warning instead of refusal) */
  int mesh_auto;    /* --nx/--ny/--nz not given: the default DRAM-sized cube */
  int level_order;  /* cm-rcm: SpMV level by level, sweeps in chunks of levels (the driver's) */
  int anatomy;      /* --anatomy: SpMV against its variants (spmv_anatomy.h), interleaved */
  int model_stream; /* --model-stream: each kernel against a stream of its modelled bytes */
  int placement; /* --triad-placement N: only the triad on N sets of arrays (triad_placement.h) */
  int read_streams; /* --read-streams N: only reads of 1..N streams per core (read_streams.h) */
  int block_ceilings; /* --block-ceilings: only the sweep kernels in L1 (block_ceilings.h) */
  int overlap; /* --overlap: only the reductions' overlap with SpMV + M^-1 (overlap_bench.h) */
  const char *report;
} bench_opts;

enum { K_SPMV, K_SGS, K_ASDD, K_ASDD_SINGLE, K_ASDD_HALF, K_DOT, K_AXPY, K_TRIAD, K_COUNT };

/* --model-stream rows: the kernels (the sweep pair and ASDD in each precision), then one Alg.1
 * iteration per precision composed of them (SpMV + ASDD + the variant's vector passes, priced at
 * AXPY's real and stream time per byte) */
enum {
  MR_SPMV,
  MR_SGS_D,
  MR_SGS_S,
  MR_SGS_H,
  MR_ASDD_D,
  MR_ASDD_S,
  MR_ASDD_H,
  MR_DOT,
  MR_AXPY,
  MR_IT_D,
  MR_IT_S,
  MR_IT_H,
  MS_ROWS
};
#define MR_KERNELS MR_IT_D /* rows timed themselves */

typedef struct {
  double seconds[K_COUNT];  /* median over repeats of the max over ranks */
  double bytes[K_COUNT];    /* modelled, summed over ranks */
  double fraction[K_COUNT]; /* median over repeats of kernel bytes/s / the triad's just before */
  double asdd_double_over_single; /* median over repetition pairs of the two ASDD times */
  double asdd_double_over_half;   /* the same for the binary16 blocks */
  double matrix_bytes;            /* the stored matrix (blocks + row pointers), summed over ranks */
  int matrix_cached; /* matrix_bytes < 4 x LLC x nodes: the kernels may run from cache */
  int colors_min, colors_max, levels_max;
  double stream_bytes_per_array;   /* per rank */
  int pinned_threads, pinned_cpus; /* threads bound to one CPU, distinct CPUs among them */
  double llc_bytes;
  int64_t rss_max;
  /* --anatomy: per variant as seconds / fraction above, SpMV's modelled bytes for all */
  double an_seconds[BENCH_AN_COUNT], an_fraction[BENCH_AN_COUNT];
  int an_copy_equal; /* the copy's y equals cc_spmv's bit for bit on every rank */
  /* --model-stream: per row (MS_ROWS) the modelled bytes, the stream's bytes (summed over ranks),
   * the real kernel's and the stream's median times, the median over repetitions of real /
   * stream, and the stream's fraction of the triad run just before it */
  double ms_bytes[MS_ROWS], ms_stream_bytes[MS_ROWS], ms_real[MS_ROWS], ms_stream[MS_ROWS];
  double ms_ratio[MS_ROWS], ms_stream_fraction[MS_ROWS];
  double ms_vector_passes; /* Alg.1's vector passes per iteration (24 B/row each) */
} bench_result;

/* the --model-stream rows' names (kernelbench_report.c) */
extern const char *const ms_row_name[MS_ROWS];

void bench_usage(void);
/* --key value or --key=value; returns 1 in *help for --help */
cc_err bench_parse(int argc, char **argv, bench_opts *o, int *help);
void bench_placement_print(const triad_placement *pl);
cc_err bench_placement_report(const char *path, const triad_placement *pl, int size, int threads,
                              const cc_topology *topo);
void bench_read_streams_print(const read_streams *rs);
cc_err bench_read_streams_report(const char *path, const read_streams *rs, int size, int threads,
                                 const cc_topology *topo);
void bench_block_ceilings_print(const block_ceilings *bc);
cc_err bench_block_ceilings_report(const char *path, const block_ceilings *bc, int size,
                                   int threads, const cc_topology *topo);
void bench_print(const bench_opts *o, const bench_result *res, int size, int threads);
cc_err bench_report(const bench_opts *o, const bench_result *res, int size, int threads,
                    const cc_topology *topo);

/* cubecg-bench --overlap (overlap_bench.c, the report in kernelbench_report.c) */
cc_err bench_system_create(const bench_opts *o, cc_mesh *mesh, cc_ordering *ord, cc_bcrs *a);
cc_err bench_overlap_run(const bench_opts *o, const cc_mpi_info *mpi, bench_overlap *out);
void bench_overlap_print(const bench_opts *o, const bench_overlap *ov, const cc_mpi_info *mpi);
cc_err bench_overlap_report(const char *path, const bench_overlap *ov, const bench_opts *o,
                            const cc_mpi_info *mpi, int threads, const cc_topology *topo);

#endif
