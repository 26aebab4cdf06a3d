/* roofline.h: --roofline (roofline.c): STREAM triads just before a solve, before every window of
 * `every` iterations inside it (from the monitor hook, which wraps the run's monitor) and just
 * after it. */
#ifndef CC_ROOFLINE_H
#define CC_ROOFLINE_H

#include "monitor.h"

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
/* Collective: the triads before the solve (the triad's own arrays, then a's value pages).
 * inner: the monitor the hook calls first. */
CC_WUR cc_err cc_roofline_begin(cc_roofline *rl, cc_triad *triad, const cc_bcrs *a,
                                const cc_traffic *tm, const cc_krylov *variant, int unfused,
                                int depth, cc_monitor *inner, MPI_Comm comm);
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

#endif
