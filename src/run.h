/* run.h: the run: everything the report and the summary print (cc_run), its checks, its set-up
 * and its baseline (run.c). */
#ifndef CC_RUN_H
#define CC_RUN_H

#include "cc_topology.h"
#include "cc_trace.h"
#include "mpi_env.h"
#include "options.h"
#include "overlap_probe.h"
#include "solve_record.h"

typedef struct {
  char name[CC_CHECK_NAME_MAX];
  double value, bound;
  int passed;
} cc_check;

/* Fixed capacities of a run; exceeding one is an error (solves) or a FAILED verdict naming the
 * limit (checks), never a silent truncation. */
#define CC_MAX_SOLVES 16
#define CC_MAX_CHECKS 48
/* Everything the report and the summary print. */
typedef struct {
  cc_options opts;
  cc_mpi_info mpi;
  int ranks, threads;
  int64_t dof;
  int px, py, pz;
  int64_t edge_cut;
  double load_imbalance;     /* largest rank's owned nodes / (N / P) */
  int64_t box_edge_cut;      /* the box grid's edge cut for the same P (-1: no grid fits) */
  double box_load_imbalance; /* ... and its load imbalance (0: no grid fits) */
  int64_t coarse_vertices;   /* METIS: blocks of the partitioned graph (0 for box) */
  int64_t memory_estimate_rank0, memory_estimate_other; /* cc_mesh_estimate_rank_bytes */
  char ordering_used[CC_NAME_MAX];
  int colors_used;
  double boundary_rows_fraction; /* rows reading a halo column / rows, max over ranks */
  cc_timers timers;           /* this rank's stage timers (the run's own; each solve has its own) */
  double timings[CC_T_COUNT]; /* max over ranks */
  double timings_min[CC_T_COUNT], timings_mean[CC_T_COUNT];
  int64_t peak_rss_max;
  int64_t peak_rss_min, peak_rss_median, peak_rss_rank0; /* over ranks (median: rank 0 gathers) */
  int n_solves;
  cc_solve_record solves[CC_MAX_SOLVES];
  int n_checks;
  cc_check checks[CC_MAX_CHECKS];
  int checks_dropped;        /* checks past CC_MAX_CHECKS: not recorded, the verdict is FAILED */
  double analytic_error;     /* worst over solves */
  cc_topology topo;          /* nodes, hosts, affinity, placement (rank 0 holds the lists) */
  cc_progress_info progress; /* where the MPI library's progress threads ran */
  cc_overlap_probe overlap;  /* the start-up probe of the reductions' overlap (overlap_startup.c) */
  int rank;                  /* of this process in MPI_COMM_WORLD */
  double started;            /* MPI_Wtime at start (stage lines) */
  int interrupted;           /* a signal stopped the run (exit code CC_EXIT_INTERRUPTED) */
  int in_progress;           /* set while the pipeline runs: a report written now is partial */
  int signal;                /* which one */
  int solves_failed; /* solves of a --solver all run that broke down (recorded, exit code 1) */
  /* --roofline: the median of CC_ROOFLINE_TRIADS triads just before and just after each solve
   * (one triad over 4x the LLC costs a fraction of one iteration of a mesh that does not fit the
   * cache; inside the solve it would evict the cache and add to the solve's time) */
#define CC_ROOFLINE_TRIADS 5
  double triad_node_bytes;     /* the three triad arrays of one node (4x its LLC) */
  int triad_node_bytes_env;    /* ... set by CUBECG_ROOFLINE_TRIAD_MB instead */
  int64_t triad_rank_elements; /* elements per array on rank 0 */
  /* the preconditioner's storage beyond the matrix, summed over ranks: as run, and what the
   * double-precision one would hold (--precond-precision) */
  int64_t precond_bytes, precond_bytes_double;
  /* --trace: what the archive holds, summed over ranks (rank 0), once it is closed */
  cc_trace_counts trace_counts;
  int trace_closed;
} cc_run;

/* Thread count (OMP_NUM_THREADS, else cores per host / ranks per host), placement and topology;
 * collective, after cc_options_validate and before the pipeline. */
CC_WUR cc_err cc_run_topology(cc_run *run, MPI_Comm comm);

/* Record a check (passed: value finite and <= bound). Past CC_MAX_CHECKS the check is counted in
 * checks_dropped instead, and the run's verdict (cc_run_checks_passed) is FAILED. */
void cc_run_add_check(cc_run *run, const char *name, double value, double bound);
int cc_run_checks_passed(const cc_run *run);
/* Time per iteration of the baseline solve, the registry's first variant (Alg.1) with blocking
 * reductions; 0 when it is not in the run ("vs A1" is then not printed). */
double cc_run_baseline_time_per_iter(const cc_run *run);

#endif
