/* monitor.h: what a user sees during a long run and how it stops (monitor.c): stage lines, the
 * iteration monitor, signals turned into a clean stop. */
#ifndef CC_MONITOR_H
#define CC_MONITOR_H

#include "run.h"

/* Exit code of a run stopped by SIGTERM / SIGINT / SIGUSR1 (README: exit codes). */
#define CC_EXIT_INTERRUPTED 4
/* A pending signal is looked for (one MPI_Allreduce of an int) every this many iterations;
 * CUBECG_SIGNAL_CHECK_EVERY overrides it. */
#define CC_SIGNAL_CHECK_EVERY 10
/* A signal that comes again within this many seconds of the first is the same request (launchers
 * forward what they get: Hydra, srun, a signal to the whole job); after it, a repeat kills at once
 * (docs/user-guide.md "Progress, partial results and signals"). */
#define CC_SIGNAL_REPEAT_WINDOW_S 3.0

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

#endif
