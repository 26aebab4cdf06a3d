/* overlap_probe.h: how much of a non-blocking reduction (MPI_Iallreduce through cc_reduce_*, as
 * the solvers post it) a piece of the solve's own work hides, measured as IMB-NBC measures it:
 * the reduction alone (t_pure), the work alone (t_CPU) and both overlapped (post, work, wait:
 * t_ovrl); overlap = 100 max(0, min(1, (t_pure + t_CPU - t_ovrl) / min(t_pure, t_CPU)))
 * (overlap_probe.c; docs/benchmarks.md "Overlap"). Used by cubecg-bench --overlap and by the
 * start-up probe of every cubecg run that posts non-blocking reductions. */
#ifndef CC_OVERLAP_PROBE_H
#define CC_OVERLAP_PROBE_H

#include "cc_solvers.h"

#define CC_OVERLAP_REPEAT_MAX 1000
#define CC_OVERLAP_SIZES_MAX 8 /* distinct reduction sizes of one probe (every variant's: 4) */

typedef struct {
  double min, median, max;
} cc_spread;

/* The work between post and wait; ex carries the progress hook (poll) of the probe's reducer. */
typedef cc_err (*cc_overlap_work_fn)(void *ctx, const cc_exec *ex);

typedef struct {
  int n_values;              /* doubles per reduction */
  cc_progress_mode progress; /* none | poll (the solvers' MPI_Test from the kernels) */
  int thread;                /* the library's progress thread runs in this launch */
  char setting[16];          /* none | poll | thread | thread+poll */
  int repeats;
  double inject_latency_us; /* --inject-reduction-latency applied to the probe's reductions */
  /* over repeats, each repeat's value the max over ranks (the slowest rank decides) */
  cc_spread t_pure, t_cpu, t_ovrl; /* seconds */
  cc_spread wait;                  /* seconds blocked in the wait after the work */
  cc_spread overlap_pct;           /* IMB-NBC's overlap % */
  cc_spread hidden_pct;            /* 100 (t_pure - wait) / t_pure, in [0, 100] */
  double seconds;     /* wall time of the sweep that measured it (shared by the sweep's sizes) */
  char posted_by[48]; /* the variants whose iteration loop posts this size, "gropp pcg" */
} cc_overlap_result;

/* The distinct reduction sizes of some variants (their registry's reduction_sizes), ascending,
 * and which variants post each. */
typedef struct {
  int n;
  int values[CC_OVERLAP_SIZES_MAX];
  char posted_by[CC_OVERLAP_SIZES_MAX][48];
} cc_overlap_sizes;
/* Adds the sizes variant's loop posts under opts (depth, S, --replace-every auto); an error when
 * there would be more than CC_OVERLAP_SIZES_MAX distinct ones. */
CC_WUR cc_err cc_overlap_sizes_add(cc_overlap_sizes *s, const cc_krylov *variant,
                                   const cc_krylov_opts *opts);

/* The start-up probe of a cubecg run (overlap_startup.c): measured, skipped by --overlap-probe off,
 * or not run (why says why: one rank, no solve posting non-blocking reductions). */
typedef enum { CC_OVERLAP_NOT_RUN, CC_OVERLAP_OFF, CC_OVERLAP_MEASURED } cc_overlap_status;
#define CC_OVERLAP_STARTUP_REPEATS 5 /* rounds of the start-up probe (docs/benchmarks.md: cost) */
/* rounds when the run's solves post several sizes (1 + sizes SpMVs a round: 3 rounds of 4 sizes
 * are 15 SpMVs against one size's 10) */
#define CC_OVERLAP_STARTUP_REPEATS_SIZES 3
#define CC_OVERLAP_STARTUP_VALUES 3 /* the row `result` prefers (Alg.3's, the model's) */
typedef struct {
  cc_overlap_status status;
  char why[160];
  /* status CC_OVERLAP_MEASURED: one row per size the run's iar solves post (ascending), and
   * result, the row of CC_OVERLAP_STARTUP_VALUES doubles when probed, else of the largest */
  int n_results;
  cc_overlap_result results[CC_OVERLAP_SIZES_MAX];
  cc_overlap_result result;
  double seconds; /* the whole probe's wall time */
} cc_overlap_probe;
extern const char *const cc_overlap_status_name[3]; /* "not_run", "off", "measured" */

/* IMB-NBC's overlap in %: 100 max(0, min(1, (t_pure + t_cpu - t_ovrl) / min(t_pure, t_cpu)));
 * 0 when min(t_pure, t_cpu) <= 0. */
double cc_overlap_pct(double t_pure, double t_cpu, double t_ovrl);
/* The share of the reduction the work hid, in %: 100 max(0, min(1, (t_pure - wait) / t_pure)). */
double cc_overlap_hidden_pct(double t_pure, double wait);
/* "none", "poll", "thread" or "thread+poll" */
const char *cc_overlap_setting(cc_progress_mode progress, int thread);

/* Collective over comm: `repeats` rounds of (the reduction alone, the work alone, post + work +
 * wait), the first and the last part after a barrier, the rounds interleaved so that slow spells
 * of a loaded machine fall on all three alike. */
CC_WUR cc_err cc_overlap_measure(MPI_Comm comm, cc_overlap_work_fn work, void *work_ctx,
                                 int n_values, cc_progress_mode progress, int thread,
                                 double inject_latency_us, int repeats, cc_overlap_result *out);
/* The same for n_sizes sizes in one sweep, out[i] for sizes[i]: each round times every size's
 * reduction alone after a barrier, the work alone once (t_CPU, shared by the sizes), then after a
 * barrier every size's post + work + wait: 1 + n_sizes works and 2 barriers per round. */
CC_WUR cc_err cc_overlap_measure_sizes(MPI_Comm comm, cc_overlap_work_fn work, void *work_ctx,
                                       int n_sizes, const int sizes[], cc_progress_mode progress,
                                       int thread, double inject_latency_us, int repeats,
                                       cc_overlap_result out[]);
/* The result as the object `key` (setting, times and percentages as {min, median, max}). */
void cc_overlap_json(cc_json *js, const char *key, const cc_overlap_result *r);
void cc_overlap_spread_json(cc_json *js, const char *key, cc_spread s);

#endif
