/* monitor.c: what a user sees during a long run (PETSc's -ksp_monitor): a line as each stage
 * starts, an iteration monitor (|r|/|b|, ms per iteration, estimated time left) called by the
 * Krylov loop through cc_krylov_opts.monitor, and SIGTERM/SIGINT/SIGUSR1 turned into a clean stop
 * at the end of an iteration that every rank agrees on. */
#include "monitor.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

/* Set by the handler only (async-signal-safe); read at agreed points. */
static volatile sig_atomic_t signal_caught = 0;
/* when the first one came (CLOCK_MONOTONIC): written and read by the handler only, which the
 * other honoured signals cannot interrupt (sa_mask) */
static struct timespec signal_first;

static double seconds_since(const struct timespec *t0, const struct timespec *t1)
{
  return (double)(t1->tv_sec - t0->tv_sec) + 1e-9 * (double)(t1->tv_nsec - t0->tv_nsec);
}

static void on_signal(int sig)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe (POSIX) */
  if (!signal_caught) {
    signal_first  = now;
    signal_caught = sig;
    return;
  }
  /* within the window: a copy of the same request (a launcher forwarding what it got, the same
   * signal sent to the job's processes and to the launcher, which forwards it too) */
  if (seconds_since(&signal_first, &now) < CC_SIGNAL_REPEAT_WINDOW_S) return;
  /* later: the user means it (a rank stuck outside the solver loop) */
  signal(sig, SIG_DFL);
  raise(sig);
}

cc_err cc_signals_install(void)
{
  const int sigs[] = {SIGTERM, SIGINT, SIGUSR1};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&sa.sa_mask, sigs[i]);
  sa.sa_flags = SA_RESTART; /* MPI and I/O calls in flight go on; the loop checks the flag */
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) CC_SYS(sigaction(sigs[i], &sa, NULL));
  return CC_OK;
}

const char *cc_signal_name(int sig)
{
  return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGUSR1 ? "SIGUSR1" : "?";
}

/* Collective: the largest signal number any rank caught (0: none), so that all ranks stop at the
 * same point even when the signal reached only some of them. */
cc_err cc_signals_agree(MPI_Comm comm, int *sig)
{
  int local = (int)signal_caught;
  CC_MPI(MPI_Allreduce(&local, sig, 1, MPI_INT, MPI_MAX, comm));
  return CC_OK;
}

/* Progress lines go to stdout, unless the JSON report owns it (--report -): then to stderr. */
FILE *cc_progress_stream(const cc_run *run)
{
  return strcmp(run->opts.report, "-") == 0 ? stderr : stdout;
}

void cc_stage(const cc_run *run, const char *fmt, ...)
{
  if (run->opts.quiet || run->rank != 0) return;
  FILE *out = cc_progress_stream(run);
  va_list ap;
  va_start(ap, fmt);
  fprintf(out, "[%8.2f s] ", MPI_Wtime() - run->started);
  vfprintf(out, fmt, ap);
  fprintf(out, "\n");
  fflush(out);
  va_end(ap);
}

void cc_monitor_init(cc_monitor *m, const cc_run *run, MPI_Comm comm, const char *label)
{
  memset(m, 0, sizeof *m);
  m->comm   = comm;
  m->out    = cc_progress_stream(run);
  m->rank   = run->rank;
  m->every  = run->opts.monitor;
  m->print  = run->opts.monitor > 0 || (run->opts.monitor == 0 && !run->opts.quiet);
  m->tol    = run->opts.tol;
  m->maxit  = run->opts.maxit;
  m->t0     = MPI_Wtime();
  m->it0    = -1;
  m->ref_it = -1;
  snprintf(m->label, sizeof m->label, "%s", label);
  const char *k   = getenv("CUBECG_SIGNAL_CHECK_EVERY");
  m->check_every  = k && atoi(k) >= 1 ? atoi(k) : CC_SIGNAL_CHECK_EVERY;
  m->last_print   = m->t0;
  m->auto_first_s = 3.0;
  m->auto_every_s = 10.0;
}

/* Iterations still needed, from the slope of log |r| between a reference point and now (CG's
 * residual falls roughly geometrically); < 0 when not yet known (too few iterations, no decrease).
 */
static double iterations_left(const cc_monitor *m, int it, double rel)
{
  if (m->ref_it < 0 || it - m->ref_it < 5 || !(rel > 0) || !(m->ref_rel > 0)) return -1;
  double slope = (log(rel) - log(m->ref_rel)) / (it - m->ref_it); /* per iteration, < 0 */
  if (!(slope < 0)) return -1;
  double left = (log(m->tol) - log(rel)) / slope;
  if (left < 0) left = 0;
  if (left > m->maxit - it) left = m->maxit - it; /* bounded by maxit */
  return left;
}

/* cc_monitor_fn */
cc_err cc_monitor_iteration(void *ctx, int iteration, double rel_residual, int *stop)
{
  cc_monitor *m = ctx;
  *stop         = 0;
  if (m->it0 < 0) {
    /* the first completed iteration: the clock and the slope start here (the first residual
     * drop after the preconditioner's first application is not typical) */
    m->it0        = iteration;
    m->t0         = MPI_Wtime();
    m->last_print = m->t0;
    m->ref_it     = iteration;
    m->ref_rel    = rel_residual;
  }
  m->last_it  = iteration;
  m->last_rel = rel_residual;
  if (m->print && m->rank == 0) {
    double now = MPI_Wtime();
    int due    = m->every > 0 ? iteration % m->every == 0
                              : (m->printed == 0 && now - m->t0 >= m->auto_first_s) ||
                                 (m->printed > 0 && now - m->last_print >= m->auto_every_s);
    if (due) {
      int done     = iteration - m->it0;
      double ms    = done > 0 ? 1e3 * (now - m->t0) / done : 0;
      double left  = iterations_left(m, iteration, rel_residual);
      char eta[32] = "?";
      if (left >= 0 && done > 0) snprintf(eta, sizeof eta, "%.1f s", left * ms / 1e3);
      fprintf(m->out, "  %s %6d  |r|/|b| %.3e  %8.3f ms/it  left %s\n", m->label, iteration,
              rel_residual, ms, eta);
      fflush(m->out);
      m->last_print = now;
      m->printed++;
    }
  }
  /* every check_every iterations all ranks agree on whether a signal arrived (one MPI_Allreduce
   * of an int; checked at the same iterations on every rank) */
  if (iteration % m->check_every == 0) {
    int sig;
    CC_CALL(cc_signals_agree(m->comm, &sig));
    if (sig) {
      m->signal = sig;
      *stop     = 1;
    }
  }
  return CC_OK;
}
