/* cc_driver.h: the cubecg driver: options, MPI environment, pipeline and reports. src/ only wires
 * mesh/, solvers/ and io/ together; no numerics live here. */
#ifndef CC_DRIVER_H
#define CC_DRIVER_H

#include "cc_common.h"
#include "cc_mesh.h"
#include "cc_solvers.h"
#include "cc_topology.h"

#define CC_PATH_MAX 1024
#define CC_NAME_MAX 32
#define CC_MAX_OPTIONS 96 /* entries of the option table (src/options.c) */

/* One parameter struct with defaults (conventions item 9); echoed into the report. */
typedef struct {
  cc_mesh_params mesh;
  char partition[CC_NAME_MAX];
  double tol;
  int maxit;
  char solver[CC_NAME_MAX];    /* pcg|cgcg|pipecg|gropp|all */
  char reduction[CC_NAME_MAX]; /* ar|iar|all */
  int replace_every;
  char progress[CC_NAME_MAX]; /* none|poll */
  double inject_latency_us;
  char precond[CC_NAME_MAX];  /* asdd|sgs|jacobi|none */
  char ordering[CC_NAME_MAX]; /* cm-rcm|mc|rcm|natural */
  int colors;
  int asdd_iters;
  char report[CC_PATH_MAX];
  char export_matrix[CC_PATH_MAX];
  char export_solution[CC_PATH_MAX];
  char checkpoint[CC_NAME_MAX]; /* "" = off */
  char checkpoint_dir[CC_PATH_MAX];
  int checkpoint_every;
  int checkpoint_keep;
  int durable;
  int64_t io_buffer;
  int io_fallback;
  int checkpoint_overwrite; /* a --checkpoint-dir of another problem is emptied, not refused */
  char restart[CC_PATH_MAX];
  char timing[CC_NAME_MAX];    /* on|off */
  char placement[CC_PATH_MAX]; /* name of the rank/thread placement (Table 6 mapping); "" = none */
  double analytic_tol;         /* built-in check bound on the analytic error */
  double memory_fraction;      /* of physical RAM per node the mesh may take */
  int quiet;
  int help;
  int monitor;         /* iteration monitor: N > 0 every N iterations, 0 auto, -1 off */
  int export_deformed; /* export also the deformed coordinates x + u */
  int version;
  char options_file[CC_PATH_MAX];
  unsigned char origin[CC_MAX_OPTIONS]; /* per option-table entry: default|file|env|cmdline */
} cc_options;

/* Parse argv (--key value or --key=value) into opts (defaults first). Errors name the option and
 * the bad value. Same result on every rank (no communication). */
CC_WUR cc_err cc_options_parse(int argc, char **argv, cc_options *opts);
void cc_options_help(FILE *out);
/* Apply an options file's text (words as on the command line, '#' comments to the end of the line;
 * source names it in messages) on top of opts. Used by cc_options_parse and the fuzz target. */
CC_WUR cc_err cc_options_parse_text(const char *text, size_t length, const char *source,
                                    cc_options *opts);
/* Cross-option checks that need the rank count; before any large allocation. */
CC_WUR cc_err cc_options_validate(const cc_options *opts, MPI_Comm comm);
/* Echo every option into the report's "parameters" object. */
void cc_options_json(const cc_options *opts, cc_json *js);

/* What the MPI library provides and whether MPICH's asynchronous progress thread is on. */
typedef struct {
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  int thread_requested, thread_provided;
  int async_requested; /* from the environment */
  int async_active;
  char async_decided_by[160];
} cc_mpi_info;

/* MPI_Init_thread with the level async progress needs; MPI_ERRORS_RETURN on MPI_COMM_WORLD. */
CC_WUR cc_err cc_mpi_start(int *argc, char ***argv, cc_mpi_info *info);
const char *cc_thread_level_name(int level);

/* One solve's outcome as reported (reduced over ranks). */
/* Disjoint parts of the solve time (they add up to it on each rank). */
typedef enum {
  CC_BRK_SPMV,    /* SpMV compute without its halo exchange */
  CC_BRK_PRECOND, /* preconditioner compute (SGS sweeps, ASDD residual) without ASDD halo */
  CC_BRK_PRECOND_HALO,
  CC_BRK_HALO, /* SpMV halo exchange */
  CC_BRK_AXPY,
  CC_BRK_DOT,
  CC_BRK_REDUCTION,
  CC_BRK_CHECKPOINT,
  CC_BRK_OTHER,
  CC_BRK_COUNT
} cc_breakdown_id;
extern const char *const cc_breakdown_name[CC_BRK_COUNT];

typedef struct {
  cc_solve_result result;
  double analytic_error;
  double breakdown_max[CC_BRK_COUNT], breakdown_mean[CC_BRK_COUNT];
  double ops_per_iteration[CC_T_COUNT]; /* counts / iterations */
  int ckpt_enabled;
  char ckpt_backend[CC_NAME_MAX];
  char ckpt_path_used[64];
  int64_t ckpt_count, ckpt_bytes;
  double ckpt_stall_s, ckpt_write_s, ckpt_finish_s;
  char ckpt_last[1200];    /* DIR/ckpt.<it> of the newest checkpoint, "" if none */
  char restart_from[1200]; /* checkpoint this solve resumed from, "" if none */
} cc_solve_record;

typedef struct {
  char name[48];
  double value, bound;
  int passed;
} cc_check;

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
  char ordering_used[CC_NAME_MAX];
  int colors_used;
  cc_timers timers;           /* this rank's stage timers (the run's own; each solve has its own) */
  double timings[CC_T_COUNT]; /* max over ranks */
  double timings_min[CC_T_COUNT], timings_mean[CC_T_COUNT];
  int64_t peak_rss_max;
  int n_solves;
  cc_solve_record solves[CC_MAX_SOLVES];
  int n_checks;
  cc_check checks[CC_MAX_CHECKS];
  double analytic_error; /* worst over solves */
  cc_topology topo;      /* nodes, hosts, affinity, placement (rank 0 holds the lists) */
  int rank;              /* of this process in MPI_COMM_WORLD */
  double started;        /* MPI_Wtime at start (stage lines) */
  int interrupted;       /* a signal stopped the run (exit code CC_EXIT_INTERRUPTED) */
  int in_progress;       /* set while the pipeline runs: a report written now is partial */
  int signal;            /* which one */
} cc_run;

/* Thread count (OMP_NUM_THREADS, else cores per host / ranks per host), placement and topology;
 * collective, after cc_options_validate and before the pipeline. */
CC_WUR cc_err cc_run_topology(cc_run *run, MPI_Comm comm);

/* Exit code of a run stopped by SIGTERM / SIGINT / SIGUSR1 (README: exit codes). */
#define CC_EXIT_INTERRUPTED 4
/* A pending signal is looked for (one MPI_Allreduce of an int) every this many iterations;
 * CUBECG_SIGNAL_CHECK_EVERY overrides it. */
#define CC_SIGNAL_CHECK_EVERY 10

/* Signals and progress lines (monitor.c). The handler only records the signal; the solver's
 * monitor hook and the pipeline's stage boundaries agree on it collectively. */
CC_WUR cc_err cc_signals_install(void);
CC_WUR cc_err cc_signals_agree(MPI_Comm comm, int *sig); /* collective: max signal caught */
const char *cc_signal_name(int sig);
/* "[  elapsed s] <stage>" from rank 0 unless --quiet. */
void cc_stage(const cc_run *run, const char *fmt, ...) CC_PRINTF(2, 3);

typedef struct {
  MPI_Comm comm;
  int rank, every, print, maxit, check_every;
  double tol;
  char label[32];
  double t0, last_print, auto_first_s, auto_every_s;
  int it0, last_it, printed, signal;
  int ref_it;
  double ref_rel, last_rel;
} cc_monitor;
void cc_monitor_init(cc_monitor *m, const cc_run *run, MPI_Comm comm, const char *label);
CC_WUR cc_err cc_monitor_iteration(void *ctx, int iteration, double rel_residual,
                                   int *stop); /* cc_monitor_fn */

void cc_run_add_check(cc_run *run, const char *name, double value, double bound);
int cc_run_checks_passed(const cc_run *run);

/* The pipeline: mesh, partition, assembly, ordering, preconditioner, solves, exports (collective).
 */
CC_WUR cc_err cc_run_pipeline(cc_run *run);

/* Built-in checks inside every run (HPCG style): symmetry of SpMV and of the preconditioner. */
CC_WUR cc_err cc_checks_symmetry(cc_run *run, const cc_bcrs *a, const cc_comm_table *comm,
                                 cc_precond *pc);

/* Checkpoints and restart through io/ (checkpoint.c). */
typedef struct cc_driver_ckpt cc_driver_ckpt;
CC_WUR cc_err cc_driver_ckpt_create(const cc_options *opts, const cc_mesh *mesh,
                                    const cc_ordering *ord, const char *solver, const char *subdir,
                                    cc_driver_ckpt **out);
CC_WUR cc_err cc_driver_ckpt_write(void *ctx, const cc_solver_state *state); /* cc_checkpoint_fn */
CC_WUR cc_err cc_driver_ckpt_finish(cc_driver_ckpt *dc, const cc_options *opts,
                                    cc_solve_record *rec);
void cc_driver_ckpt_destroy(cc_driver_ckpt **dc);
CC_WUR cc_err cc_driver_restart_load(const cc_options *opts, const cc_mesh *mesh,
                                     const cc_ordering *ord, const char *solver,
                                     cc_driver_ckpt **out, const cc_solver_state **state);
const char *cc_driver_restart_path(const cc_driver_ckpt *dc); /* DIR/ckpt.<it> loaded */
CC_WUR cc_err cc_driver_export_solution(const cc_options *opts, const cc_mesh *mesh,
                                        const double *u);

/* Rank 0: JSON report (docs/report-schema.md) and the human summary on stdout. */
CC_WUR cc_err cc_report_write(const cc_run *run, const char *path);
void cc_summary_print(const cc_run *run, FILE *out);

#endif
