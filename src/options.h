/* options.h: the driver's options: one parameter struct with defaults, parsed from the command
 * line, CUBECG_OPTIONS and an options file (options.c: the table, --help, the report's echo;
 * options_parse.c: the sources; options_check.c: the checks before any large allocation). */
#ifndef CC_OPTIONS_H
#define CC_OPTIONS_H

#include "cc_common.h"
#include "cc_mesh.h"
#include "cc_solvers.h"
#include "test_seams.h"

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
/* --asdd-residual: the value is cc_precond_params.asdd_full_residual */
enum { CC_ASDD_RESIDUAL_FUSED, CC_ASDD_RESIDUAL_FULL };
enum { CC_LEVEL_ORDER_OFF, CC_LEVEL_ORDER_ON };
enum { CC_OVERLAP_PROBE_OFF, CC_OVERLAP_PROBE_ON };
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
  int64_t io_writeback;
  int io_fallback;
  int checkpoint_overwrite;      /* a --checkpoint-dir of another problem is emptied, not refused */
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
  char trace[CC_PATH_MAX];  /* --trace: the OTF2 trace's directory ("" = no trace) */
  int trace_iterations;     /* iterations each solve records in the trace (0 = all) */
  int halo_overlap;         /* CC_HALO_OVERLAP_ON | CC_HALO_OVERLAP_OFF */
  int asdd_residual;        /* CC_ASDD_RESIDUAL_FUSED | CC_ASDD_RESIDUAL_FULL */
  int level_order;          /* CC_LEVEL_ORDER_ON | CC_LEVEL_ORDER_OFF (cm-rcm: rows by levels) */
  int sweep_chunk_rows;     /* rows per chunk of CM-RCM levels in the SGS sweeps (0: built-in) */
  int pipeline_depth;       /* p(l)-CG's L */
  char spectrum_bounds[64]; /* "LMIN,LMAX" of M^-1 A for p(l)-CG / s-step; "" = Lanczos estimate */
  int sstep;                /* s-step CG's S */
  int sstep_basis;          /* cc_sstep_basis */
  int overlap_probe;        /* CC_OVERLAP_PROBE_ON | CC_OVERLAP_PROBE_OFF (iar runs) */
  /* per option-table entry: default|file|env|cmdline|checkpoint (options_impl.h ORIGIN_*) */
  unsigned char origin[CC_MAX_OPTIONS];
  int origin_line[CC_MAX_OPTIONS]; /* the options file's line of a value from the file */
  char origin_file[CC_PATH_MAX];   /* the options file read (for messages) */
  /* not options: the test seams, set from the environment in one place (test_seams.c) */
  cc_test_seams seams;
} cc_options;

/* Parse argv (--key value or --key=value) into opts (defaults first). Errors name the option and
 * the bad value. Same result on every rank (no communication). */
CC_WUR cc_err cc_options_parse(int argc, char **argv, cc_options *opts);
void cc_options_help(FILE *out);
/* Apply an options file's text (words as on the command line, '#' comments to the end of the line;
 * source names it in messages) on top of opts. Used by cc_options_parse and the fuzz target. */
CC_WUR cc_err cc_options_parse_text(const char *text, size_t length, const char *source,
                                    cc_options *opts);
/* --restart DIR: the run's settings (the options marked as settings in the option table: mesh,
 * partition, material, solver, reduction, depth, S, basis, bounds, replacement, preconditioner,
 * ordering, --checkpoint-exact) the user left at their default are taken from DIR's manifest, one
 * given with another value is refused naming both; an unreadable manifest is CC_ERR_ARG naming
 * DIR (collective: rank 0 reads, every rank gets the same options). */
CC_WUR cc_err cc_options_from_checkpoint(cc_options *opts, MPI_Comm comm);
/* Cross-option checks that need the rank count; before any large allocation. */
CC_WUR cc_err cc_options_validate(const cc_options *opts, MPI_Comm comm);
/* The name a choice option holds ("all", "" for the extra value; "?" for no such option). */
const char *cc_options_choice(const cc_options *opts, const char *option);
/* --asdd-residual's name ("fused" | "full") when the preconditioner has an inner residual (ASDD
 * with >= 2 iterations), else "": what the summary and the checkpoint manifest record. */
const char *cc_options_asdd_residual(const cc_options *opts);
/* --spectrum-bounds LMIN,LMAX into *lmin, *lmax (0, 0 when empty: estimate); bad text refused. */
CC_WUR cc_err cc_options_spectrum_bounds(const cc_options *opts, double *lmin, double *lmax);
/* The one variant --solver names, NULL for all. */
const cc_krylov *cc_options_variant(const cc_options *opts);
/* The checkpoint backend's registry name, NULL when checkpoints are off. */
const char *cc_options_checkpoint(const cc_options *opts);
/* The settings of opts that apply (the manifest's "settings"), one "option=value" a line; opts
 * names one variant and one reduction (the solve's). Fails when they do not fit in size bytes. */
CC_WUR cc_err cc_options_settings_text(const cc_options *opts, char *out, size_t size);
/* The options of one solve: opts with --solver and --reduction set to the solve's variant and
 * reduction (what its checkpoints record, what its Krylov options are built from). */
void cc_options_for_solve(const cc_options *opts, const cc_krylov *variant, int reduction,
                          cc_options *solve);
/* Echo every option into the report's "parameters" object. */
void cc_options_json(const cc_options *opts, cc_json *js);
/* The summary saved beside the --report file: a trailing ".json" of the report's path replaced by
 * ".summary.txt" (else ".summary.txt" appended). Returns 0 (no file) when the report goes to stdout
 * or to a fifo/device, or when the name does not fit in size bytes. */
int cc_summary_path(const char *report, char *out, size_t size);

/* Environment read with the options (a bad value is CC_ERR_ARG, refused by cc_options_validate):
 * CUBECG_ROOFLINE_EVERY=N: --roofline's windows of N iterations (0 when unset: sized so that the
 * triads cost about 1/20 of the solve); CUBECG_ROOFLINE_TRIAD_MB=M: the three triad arrays of a
 * node hold M MiB (0 when unset: 4x the LLC). */
CC_WUR cc_err cc_roofline_every_env(int *every);
CC_WUR cc_err cc_roofline_triad_env(double *node_bytes);

#endif
