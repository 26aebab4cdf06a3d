/* cc_driver.h: the cubecg driver: options, MPI environment, pipeline and reports. src/ only wires
 * mesh/, solvers/ and io/ together; no numerics live here. */
#ifndef CC_DRIVER_H
#define CC_DRIVER_H

#include "cc_common.h"
#include "cc_mesh.h"
#include "cc_solvers.h"
#include "cc_topology.h"

#define CC_PATH_MAX 1024 /* a path given as an option */
/* "<variant>-<reduction>": the solve's label and its checkpoint subdirectory (several solves) */
#define CC_LABEL_MAX 32
#define CC_SUBDIR_MAX 48
/* a checkpoint directory: --checkpoint-dir [+ '/' + subdirectory], with room to spare */
#define CC_CKPT_DIR_MAX (CC_PATH_MAX + CC_SUBDIR_MAX + 28)
/* one checkpoint: CC_CKPT_DIR_MAX + "/ckpt.<iteration>" */
#define CC_CKPT_PATH_MAX (CC_CKPT_DIR_MAX + 100)
#define CC_CHECK_NAME_MAX 48 /* "<label>_converged", "spmv_symmetry", ... */
#define CC_PATH_USED_MAX 64  /* the backend's note on what it really did */
#define CC_NAME_MAX 32
/* Choice options hold the index of the name chosen in its registry (solvers/, io/), or this for
 * the value beside the registry's names ("all" solvers or reductions, "" = no checkpoints). */
#define CC_CHOICE_ALL (-1)
#define CC_CHOICE_NONE (-1)
enum { CC_TIMING_OFF, CC_TIMING_ON };
enum { CC_HALO_OVERLAP_OFF, CC_HALO_OVERLAP_ON };
enum { CC_LEVEL_ORDER_OFF, CC_LEVEL_ORDER_ON };
#define CC_MAX_OPTIONS 96 /* entries of the option table (src/options.c) */

/* One parameter struct with defaults; echoed into the report. */
typedef struct {
  cc_mesh_params mesh;
  int partition; /* cc_partition_kind (copied into mesh.partition) */
  double tol;
  int maxit;
  int solver;    /* index into cc_krylov_list, CC_CHOICE_ALL = every variant */
  int reduction; /* cc_reduction_mode, CC_CHOICE_ALL = every one a variant has */
  int replace_every;
  int fused;            /* 1 (default): fused vector passes; 0: one pass per operation */
  int residual_history; /* 1: every iteration's |r|/|b| in the report */
  int progress;         /* cc_progress_mode */
  double inject_latency_us;
  int precond;  /* index into cc_precond_list */
  int ordering; /* index into cc_ordering_list */
  int colors;
  int asdd_iters;
  int precond_precision; /* cc_precision of the preconditioner's blocks */

  /* --precision-reference: each solve again with the double preconditioner (iterations) */
  int precision_reference;

  char report[CC_PATH_MAX];
  char export_matrix[CC_PATH_MAX];
  char export_solution[CC_PATH_MAX];
  int checkpoint; /* index of cc_io_backend_name(), CC_CHOICE_NONE = off */
  char checkpoint_dir[CC_PATH_MAX];
  int checkpoint_every;
  int checkpoint_exact; /* p(l)-CG / s-step: restart the recurrence at checkpoints (bit-exact) */
  int checkpoint_keep;
  int durable;
  int64_t io_buffer;
  int io_fallback;
  int checkpoint_overwrite; /* a --checkpoint-dir of another problem is emptied, not refused */
  int64_t gas_page;              /* --checkpoint gas: store page size */
  int64_t gas_dram;              /* DRAM cache budget per rank */
  int64_t gas_ssd_bytes;         /* SSD capacity per owner (0 = free space) */
  char gas_ssd_dir[CC_PATH_MAX]; /* owners' page files ("" = inside each checkpoint) */
  char restart[CC_PATH_MAX];
  int timing;                  /* CC_TIMING_ON | CC_TIMING_OFF */
  char placement[CC_PATH_MAX]; /* name of the rank/thread placement (Table 6 mapping); "" = none */
  double analytic_tol;         /* built-in check bound on the analytic error */
  double memory_fraction;      /* of physical RAM per node the mesh may take */
  int quiet;
  int help;
  int monitor;         /* iteration monitor: N > 0 every N iterations, 0 auto, -1 off */
  int export_deformed; /* export also the deformed coordinates x + u */
  int version;
  int roofline; /* triad before and after each solve; the solves report roofline_fraction */
  char options_file[CC_PATH_MAX];
  int halo_overlap; /* CC_HALO_OVERLAP_ON | CC_HALO_OVERLAP_OFF */
  int level_order;  /* CC_LEVEL_ORDER_ON | CC_LEVEL_ORDER_OFF (cm-rcm: rows by levels) */
  int sweep_chunk_rows; /* rows per chunk of CM-RCM levels in the SGS sweeps (0: built-in) */
  int pipeline_depth;   /* p(l)-CG's L */
  char spectrum_bounds[64]; /* "LMIN,LMAX" of M^-1 A for p(l)-CG / s-step; "" = Lanczos estimate */
  int sstep;            /* s-step CG's S */
  int sstep_basis;      /* cc_sstep_basis */
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
/* --restart DIR: the problem options (mesh, solver, E, nu, traction, colors, ASDD iterations) the
 * user left at their default are taken from DIR's manifest; an unreadable manifest is CC_ERR_ARG
 * naming DIR (collective: rank 0 reads, every rank gets the same options). */
CC_WUR cc_err cc_options_from_checkpoint(cc_options *opts, MPI_Comm comm);
/* Cross-option checks that need the rank count; before any large allocation. */
CC_WUR cc_err cc_options_validate(const cc_options *opts, MPI_Comm comm);
/* --checkpoint gas: page size, DRAM budget, O_DIRECT of the checkpoint directory and capacity
 * against an estimate of the state (collective; src/checkpoint.c). */
CC_WUR cc_err cc_driver_gas_validate(const cc_options *opts, MPI_Comm comm);
/* The name a choice option holds ("all", "" for the extra value; "?" for no such option). */
const char *cc_options_choice(const cc_options *opts, const char *option);
/* --spectrum-bounds LMIN,LMAX into *lmin, *lmax (0, 0 when empty: estimate); bad text refused. */
CC_WUR cc_err cc_options_spectrum_bounds(const cc_options *opts, double *lmin, double *lmax);
/* The one variant --solver names, NULL for all. */
const cc_krylov *cc_options_variant(const cc_options *opts);
/* The checkpoint backend's registry name, NULL when checkpoints are off. */
const char *cc_options_checkpoint(const cc_options *opts);
/* Echo every option into the report's "parameters" object. */
void cc_options_json(const cc_options *opts, cc_json *js);

/* One MPI library's asynchronous-progress knobs (registry in mpi_library.c). */
typedef struct {
  const char *name;        /* mpich | openmpi | intel | cray-mpich | mvapich */
  const char *marker;      /* in MPI_Get_library_version's text */
  const char *knobs[3];    /* environment variables that start its progress thread, NULL-ended */
  const char *extra;       /* "NAME=value" also needed (Cray), NULL if none */
  const char *pin_knob;    /* the variable placing the thread, NULL if none */
  int thread_level;        /* the MPI thread level the thread needs */
  const char *cvar;        /* MPI_T control variable to read back, NULL if none */
  int has_progress_thread; /* 0: Open MPI 4.1 (refused; --progress poll instead) */
  const char *wait_knob;   /* "NAME=value" that stops busy-polling waits on shared cores, or NULL */
} cc_mpi_impl;

#define CC_MAX_PROGRESS_THREADS 8 /* progress threads of one rank recorded */
/* What the MPI library provides and whether its asynchronous progress thread is on. */
typedef struct {
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  char implementation[16]; /* the registry's name, or "unknown" */
  char version[32];        /* "4.0.2", "2021.18", "4.1.4" */
  char launcher[16];       /* srun | hydra | mpirun | singleton | unknown: how it really started */
  char launcher_why[128];
  char mapped[512]; /* MPI libraries mapped into the process (/proc/self/maps) */
  int thread_requested, thread_provided;
  int async_requested;     /* the loaded library's own knob is on */
  char knob[160];          /* the knob(s) read, "NAME=value ..." */
  char ignored_knobs[160]; /* other libraries' knobs that are on: no effect here */
  int async_active;        /* what the run believes (async_decided_by says why) */
  char async_decided_by[320];
  int tasks_before, tasks_after; /* threads of the process around MPI_Init */
  int progress_threads;          /* new threads of MPI_Init taken for progress threads */
  int progress_tids[CC_MAX_PROGRESS_THREADS];
  int cvar_found, cvar_value; /* the library's MPI_T cvar, when it has one */
  char wait_knob[64];         /* the registry's wait setting for this library, "" if none */
  int wait_knob_set;          /* it is set in the environment to its value */
} cc_mpi_info;

/* Where one rank's progress threads ran, read back after set-up. */
typedef struct {
  int n;                                  /* progress threads of the rank */
  int node_rank;                          /* rank on its node (the pin lists' index) */
  int cpu[CC_MAX_PROGRESS_THREADS];       /* CPU each last ran on */
  int expected[CC_MAX_PROGRESS_THREADS];  /* CPU its pin knob names, -1 when none */
  int shares[CC_MAX_PROGRESS_THREADS];    /* its affinity meets a compute thread's CPUs */
  char cpus[CC_MAX_PROGRESS_THREADS][64]; /* its affinity mask as a CPU list */
} cc_progress_rank;

typedef struct {
  char pin_knob[48], pin_setting[160]; /* the library's pin variable and its value ("" unset) */
  int total;                           /* progress threads over all ranks */
  int sharing;                         /* of them, those whose CPUs meet compute threads' CPUs */
  int free_cpus_min;                   /* CPUs of a node no compute thread may run on, min */
  int pin_checked, pin_mismatches;     /* threads with a pin CPU, those read back elsewhere */
  cc_progress_rank *ranks;             /* rank 0: one per rank, else NULL */
  int n_ranks;
} cc_progress_info;

/* Collective: each rank's progress threads' CPUs and masks, against the pin knob and the node's
 * compute threads (call after the OpenMP threads are placed). */
CC_WUR cc_err cc_progress_placement(MPI_Comm comm, const cc_mpi_info *mpi, cc_progress_info *out);
void cc_progress_free(cc_progress_info *info);

/* The registry row whose marker the version text holds; a row named "unknown" otherwise. */
const cc_mpi_impl *cc_mpi_library_of(const char *version_text);
/* Requested from the library's own knobs; other libraries' knobs that are on go to ignored_knobs.
 */
void cc_mpi_knobs_read(const cc_mpi_impl *lib, cc_mpi_info *info);
int cc_task_ids(int *tids, int max); /* thread ids of this process, -1 when /proc is unreadable */
int cc_task_cpu(int tid);            /* the CPU a thread of this process last ran on, -1 unknown */
void cc_task_name(int tid, char *out, size_t size);
void cc_mpi_libraries_mapped(char *out, size_t size, int *distinct);
void cc_mpi_launcher(char *out, size_t size, char *why, size_t why_size);
void cc_mpi_version_number(const char *library, const char *impl, char *out, size_t size);

/* MPI_Init_thread with the level async progress needs; MPI_ERRORS_RETURN on MPI_COMM_WORLD. */
CC_WUR cc_err cc_mpi_start(int *argc, char ***argv, cc_mpi_info *info);
const char *cc_thread_level_name(int level);

/* One solve's outcome as reported (reduced over ranks). */
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
  double breakdown_max[CC_BRK_COUNT], breakdown_mean[CC_BRK_COUNT];
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

  int fused;                           /* the solve ran the fused vector passes (--fused) */
  double *history;                     /* --residual-history: |r|/|b| per iteration (NULL: off) */
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
  char ordering_used[CC_NAME_MAX];
  int colors_used;
  double boundary_rows_fraction; /* rows reading a halo column / rows, max over ranks */
  cc_timers timers;           /* this rank's stage timers (the run's own; each solve has its own) */
  double timings[CC_T_COUNT]; /* max over ranks */
  double timings_min[CC_T_COUNT], timings_mean[CC_T_COUNT];
  int64_t peak_rss_max;
  int n_solves;
  cc_solve_record solves[CC_MAX_SOLVES];
  int n_checks;
  cc_check checks[CC_MAX_CHECKS];
  int checks_dropped;    /* checks past CC_MAX_CHECKS: not recorded, the verdict is FAILED */
  double analytic_error; /* worst over solves */
  cc_topology topo;      /* nodes, hosts, affinity, placement (rank 0 holds the lists) */
  cc_progress_info progress; /* where the MPI library's progress threads ran */
  int rank;              /* of this process in MPI_COMM_WORLD */
  double started;        /* MPI_Wtime at start (stage lines) */
  int interrupted;       /* a signal stopped the run (exit code CC_EXIT_INTERRUPTED) */
  int in_progress;       /* set while the pipeline runs: a report written now is partial */
  int signal;            /* which one */
  int solves_failed;     /* solves of a --solver all run that broke down (recorded, exit code 1) */
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
FILE *cc_progress_stream(const cc_run *run);

typedef struct {
  MPI_Comm comm;
  FILE *out; /* stdout, or stderr when the report goes to stdout */
  int rank, every, print, maxit, check_every;
  double tol;
  char label[CC_LABEL_MAX];
  double t0, last_print, auto_first_s, auto_every_s;
  int it0, last_it, printed, signal;
  int ref_it;
  double ref_rel, last_rel;
} cc_monitor;
void cc_monitor_init(cc_monitor *m, const cc_run *run, MPI_Comm comm, const char *label);
CC_WUR cc_err cc_monitor_iteration(void *ctx, int iteration, double rel_residual,
                                   int *stop); /* cc_monitor_fn */

/* Record a check (passed: value finite and <= bound). Past CC_MAX_CHECKS the check is counted in
 * checks_dropped instead, and the run's verdict (cc_run_checks_passed) is FAILED. */
void cc_run_add_check(cc_run *run, const char *name, double value, double bound);
int cc_run_checks_passed(const cc_run *run);
/* The solves --solver / --reduction ask for, in registry order (pcg-ar first, the baseline);
 * an error naming CC_MAX_SOLVES when there would be more. */
typedef struct {
  const cc_krylov *variant;
  cc_reduction_mode reduction;
} cc_solve_plan;
CC_WUR cc_err cc_plan_solves(const cc_options *opts, cc_solve_plan plan[CC_MAX_SOLVES], int *n);

/* The pipeline: mesh, partition, assembly, ordering, preconditioner, solves, exports (collective).
 */
CC_WUR cc_err cc_run_pipeline(cc_run *run);

/* Built-in checks inside every run (HPCG style): symmetry of SpMV and of the preconditioner. */
CC_WUR cc_err cc_checks_symmetry(cc_run *run, const cc_bcrs *a, const cc_comm_table *comm,
                                 cc_precond *pc);

/* Checkpoints and restart through io/ (checkpoint.c). */
typedef struct cc_driver_ckpt cc_driver_ckpt;
/* start_iteration: the restart's iteration (0 for a fresh solve): newer checkpoints of the same
 * problem in the directory are refused (io/cc_io.h, cc_io_checkpointer_create). */
CC_WUR cc_err cc_driver_ckpt_create(const cc_options *opts, const cc_mesh *mesh,
                                    const cc_ordering *ord, const char *solver, const char *subdir,
                                    int start_iteration, cc_driver_ckpt **out);
CC_WUR cc_err cc_driver_ckpt_write(void *ctx, const cc_solver_state *state); /* cc_checkpoint_fn */
/* Once per iteration on every rank: moves an offloaded checkpoint's commit on, never blocks. */
CC_WUR cc_err cc_driver_ckpt_poll(cc_driver_ckpt *dc);
CC_WUR cc_err cc_driver_ckpt_finish(cc_driver_ckpt *dc, const cc_options *opts,
                                    cc_solve_record *rec);
void cc_driver_ckpt_destroy(cc_driver_ckpt **dc);
CC_WUR cc_err cc_driver_restart_load(const cc_options *opts, const cc_mesh *mesh,
                                     const cc_ordering *ord, const char *solver,
                                     cc_driver_ckpt **out, const cc_solver_state **state);
const char *cc_driver_restart_path(const cc_driver_ckpt *dc); /* DIR/ckpt.<it> loaded */
CC_WUR cc_err cc_driver_export_solution(const cc_options *opts, const cc_mesh *mesh,
                                        const double *u);

/* --roofline (roofline.c): STREAM triads just before a solve, before every window of `every`
 * iterations inside it (from the monitor hook, which wraps the run's monitor) and just after it. */
#define CC_ROOFLINE_MAX_WINDOWS 2048
typedef struct {
  cc_triad *triad;
  cc_monitor *inner; /* the run's monitor: signals and progress lines */
  MPI_Comm comm;
  cc_timers timers; /* the solve's own timers (cc_krylov_opts.timers): windows read its counts */
  double sum[3];    /* SpMV, M^-1 and vector-pass bytes summed over ranks */
  double passes;    /* the variant's vector passes per iteration */
  int every, every_env, started, it0, n;
  int64_t spmv0, precond0;
  double ready, t0, overhead, triad_seconds;
  /* per kind: the triad's b and c, its elements on this rank and bytes over all ranks (arrays:
   * the triad's own; matrix: the upper and the split-off lower values), and its bandwidths;
   * matrix_pages: the matrix kind covers the triad's length on every rank */
  const double *src_b[CC_RL_KINDS], *src_c[CC_RL_KINDS];
  int64_t src_n[CC_RL_KINDS];
  int matrix_pages;
  double src_bytes[CC_RL_KINDS], window_triad[CC_RL_KINDS];
  double triad_before[CC_RL_KINDS], triad_after[CC_RL_KINDS];
  double ratio[CC_RL_KINDS][CC_ROOFLINE_MAX_WINDOWS], triads[CC_RL_KINDS][CC_ROOFLINE_MAX_WINDOWS];
} cc_roofline;
/* CUBECG_ROOFLINE_EVERY=N: windows of N iterations (0 when unset: sized so that the triads cost
 * about 1/20 of the solve); a bad value is CC_ERR_ARG (checked by cc_options_validate). */
CC_WUR cc_err cc_roofline_every_env(int *every);
/* CUBECG_ROOFLINE_TRIAD_MB=M: the three triad arrays of a node hold M MiB (0 when unset: 4x the
 * LLC); a bad value is CC_ERR_ARG (checked by cc_options_validate). */
CC_WUR cc_err cc_roofline_triad_env(double *node_bytes);
/* Collective: the triads before the solve (the triad's own arrays, then a's value pages).
 * inner: the monitor the hook calls first. */
CC_WUR cc_err cc_roofline_begin(cc_roofline *rl, cc_triad *triad, const cc_bcrs *a,
                                const cc_traffic *tm, const cc_krylov *variant, int unfused,
                                cc_monitor *inner, MPI_Comm comm);
CC_WUR cc_err cc_roofline_iteration(void *ctx, int iteration, double rel_residual,
                                    int *stop); /* cc_monitor_fn */
/* Collective: the triad after the solve; the windows and the corrected times into rec. */
CC_WUR cc_err cc_roofline_end(cc_roofline *rl, cc_solve_record *rec);
/* Against one kind of triad: the triad (the windows' median, else the mean of those before and
 * after), the bracket (from the triads before and after) and the fraction (median of the
 * windows, else the bracket). The headline (no kind) is the matrix pages' when
 * rec->rl_matrix_pages, else the own arrays'. */
double cc_roofline_triad_of(const cc_solve_record *rec, cc_rl_kind kind);
double cc_roofline_bracket_of(const cc_solve_record *rec, cc_rl_kind kind);
double cc_roofline_fraction_of(const cc_solve_record *rec, cc_rl_kind kind);
cc_rl_kind cc_roofline_headline(const cc_solve_record *rec);
double cc_roofline_triad(const cc_solve_record *rec);    /* the triad the fraction divides by */
double cc_roofline_fraction(const cc_solve_record *rec); /* median of the windows, else bracket */

/* Rank 0: JSON report (docs/report-schema.md) and the human summary on stdout. */
CC_WUR cc_err cc_report_write(const cc_run *run, const char *path);
/* 1 for a regular (or not yet existing) file; 0 for "-" (stdout) and fifos/devices, which get
 * the one final report only (no partial rewrites, no rename). */
int cc_report_target_is_file(const char *path);
/* Rank 0, before the work: a FIFO target is opened now without blocking (no reader: CC_ERR_ARG, the
 * job would hang at its end) and kept for the final report; other targets are left alone. */
CC_WUR cc_err cc_report_target_open(const char *path);
void cc_summary_print(const cc_run *run, FILE *out);
/* The summary saved beside the report: a trailing ".json" of the report's path replaced by
 * ".summary.txt" (else ".summary.txt" appended). Returns 0 (no file) when the report goes to stdout
 * or to a fifo/device, or when the name does not fit in size bytes. */
int cc_summary_path(const char *report, char *out, size_t size);
/* Rank 0: the summary (cc_summary_print) plus the names of the report and of itself, written to a
 * temporary name and renamed, as the report is. */
CC_WUR cc_err cc_summary_write(const cc_run *run, const char *path);

#endif
