/* solve_record.h: one solve's outcome as the report and the summary print it (reduced over
 * ranks): the solver's result, the disjoint parts of its time, its checkpoints, the traffic model
 * and --roofline's triads. Filled by pipeline.c, driver_ckpt.c and roofline.c. */
#ifndef CC_SOLVE_RECORD_H
#define CC_SOLVE_RECORD_H

#include "options.h"

#define CC_MAX_CKPT_RECORDS 64 /* checkpoints of one solve listed in the report */
/* Disjoint parts of the solve time (they add up to it on each rank). */
typedef enum {
  CC_BRK_SPMV,    /* SpMV compute without its halo exchange */
  CC_BRK_PRECOND, /* preconditioner compute (SGS sweeps, ASDD residual) without ASDD halo */
  CC_BRK_PRECOND_HALO,
  CC_BRK_HALO, /* SpMV halo exchange: post, pack, unpack (its wait apart, rows overlapped not) */
  CC_BRK_AXPY,
  CC_BRK_DOT,
  CC_BRK_REDUCTION,
  CC_BRK_CHECKPOINT,
  CC_BRK_HALO_WAIT,         /* blocked in MPI_Waitall for SpMV's halo (apart from CC_BRK_HALO) */
  CC_BRK_PRECOND_HALO_WAIT, /* the same for ASDD's halo (apart from CC_BRK_PRECOND_HALO) */
  CC_BRK_OTHER,
  CC_BRK_COUNT
} cc_breakdown_id;
extern const char *const cc_breakdown_name[CC_BRK_COUNT];

/* --roofline's two kinds of triad: on the triad's own arrays, and with b and c read from the
 * matrix's values (its pages; README "Where the triad's arrays lie") */
typedef enum { CC_RL_ARRAYS, CC_RL_MATRIX, CC_RL_KINDS } cc_rl_kind;

typedef struct {
  cc_solve_result result;
  double analytic_error;
  double breakdown_max[CC_BRK_COUNT], breakdown_mean[CC_BRK_COUNT], breakdown_min[CC_BRK_COUNT];
  double ops_per_iteration[CC_T_COUNT]; /* counts / iterations */
  int ckpt_enabled;
  char ckpt_backend[CC_NAME_MAX];
  char ckpt_path_used[CC_PATH_USED_MAX];
  int64_t ckpt_count, ckpt_bytes;
  double ckpt_stall_s, ckpt_write_s, ckpt_finish_s;
  char ckpt_last[CC_CKPT_PATH_MAX];    /* DIR/ckpt.<it> of the newest checkpoint, "" if none */
  char restart_from[CC_CKPT_PATH_MAX]; /* checkpoint this solve resumed from, "" if none */
  /* traffic model per iteration (solvers/traffic.c), summed over ranks; min / max of one rank */
  double model_total, model_rank_min, model_rank_max;
  double model_spmv, model_precond, model_vectors, model_vector_passes;
  /* --roofline (roofline.c), per kind of triad (cc_rl_kind): aggregate triad bandwidth just
   * before and just after the solve; the windows of rl_every iterations, each after its own pair
   * of triads: the median of their ratios and of their triads, the smallest and largest ratio; the
   * triads' time taken out of the solve. The matrix-page triads ran over triad_matrix_elements
   * (min over ranks) elements per rank; rl_matrix_pages: they are the headline's (the matrix
   * covered the triad's length on every rank) */
  double triad_before[CC_RL_KINDS], triad_after[CC_RL_KINDS];
  int64_t triad_matrix_elements;
  int rl_matrix_pages, rl_windows, rl_every;
  double rl_window_fraction[CC_RL_KINDS], rl_window_triad[CC_RL_KINDS];
  double rl_window_min[CC_RL_KINDS], rl_window_max[CC_RL_KINDS], rl_overhead_s;
  /* --precision-reference (single or half blocks): iterations of the same solve with the double
   * preconditioner (0: not run), and whether this solve's stay within CC_PRECISION_ITER_BOUND */
  int iterations_double, iterations_within_bound;
  double time_double_s; /* --precision-reference: the double solve's time_s */

  int fused;       /* the solve ran the fused vector passes (--fused) */
  double *history; /* --residual-history: |r|/|b| per iteration (NULL: off) */
  /* per checkpoint (the first CC_MAX_CKPT_RECORDS; ckpt_records_dropped counts the rest): stall,
   * wait, write max over ranks, commit rank 0's, committed on every rank */
  int ckpt_n_records, ckpt_records_dropped;
  struct {
    int iteration, committed;
    double stall_s, wait_s, write_s, commit_s;
  } ckpt_records[CC_MAX_CKPT_RECORDS];
} cc_solve_record;
/* A reduced-precision preconditioner is worth its bytes only while it needs at most this many times
 * the double one's iterations (+10 %); beyond, the summary and the report say so. */
#define CC_PRECISION_ITER_BOUND 1.10
/* --residual-history keeps at most this many iterations per solve (8 MiB) */
#define CC_HISTORY_MAX (1 << 20)

#endif
