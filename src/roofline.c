/* roofline.c: --roofline: STREAM triads interleaved with a solve. Triads run
 * just before the solve; then, from the monitor hook, before every window of `every` iterations;
 * then just after the solve. Two kinds each time: on the triad's own arrays, and over the
 * matrix's pages (b and c read from its values, a the triad's own), because on some machines
 * (VMs) the bandwidth depends on where the pages lie and the matrix's may stream slower than
 * arrays allocated later (README "Where the triad's arrays lie"). A window's ratio is (its
 * modelled bytes / the bandwidth of a triad just before it) / its time; each kind's fraction is
 * the median over windows (as cubecg-bench pairs a triad with every repetition), so a
 * neighbour's burst moves both numbers of a pair. roofline_fraction is the matrix pages' when the
 * matrix covers the triad's length on every rank (a DRAM-sized mesh), else the own arrays'. The
 * triads' time is taken out of the solve's time.
 */
#include "roofline.h"

#include <math.h>
#include <stdlib.h>

/* Windows are sized so that their triads cost about 1 / CC_ROOFLINE_WINDOW_FACTOR of the solve. */
#define CC_ROOFLINE_WINDOW_FACTOR 20

/* The triads of every kind: the median of CC_ROOFLINE_TRIADS into bw[kind] */
static cc_err triads(cc_roofline *rl, double bw[CC_RL_KINDS])
{
  for (int k = 0; k < CC_RL_KINDS; k++)
    CC_CALL(cc_triad_bandwidth_over(rl->triad, rl->src_b[k], rl->src_c[k], rl->src_n[k],
                                    CC_ROOFLINE_TRIADS, &bw[k]));
  return CC_OK;
}

cc_err cc_roofline_begin(cc_roofline *rl, cc_triad *triad, const cc_bcrs *a, const cc_traffic *tm,
                         const cc_krylov *variant, int unfused, int depth, cc_monitor *inner,
                         MPI_Comm comm)
{
  memset(rl, 0, sizeof *rl);
  rl->triad   = triad;
  rl->inner   = inner;
  rl->comm    = comm;
  rl->passes  = cc_traffic_vector_passes(variant, unfused, depth);
  rl->every   = 0; /* decided at the first completed iteration */
  rl->started = 0;
  CC_CALL(cc_roofline_every_env(&rl->every_env));
  /* the model's coefficients summed over ranks: a window's bytes need no reduction */
  double local[3] = {tm->spmv, tm->precond, tm->stream};
  CC_MPI(MPI_Allreduce(local, rl->sum, 3, MPI_DOUBLE, MPI_SUM, comm));
  rl->src_b[CC_RL_ARRAYS] = triad->b;
  rl->src_c[CC_RL_ARRAYS] = triad->c;
  rl->src_n[CC_RL_ARRAYS] = triad->n;
  /* the matrix-page triad: b and c read from the matrix's values (upper part, and the split-off
   * lower part or the upper part's second half), so its pages are the solve's own; where they
   * lie can change the bandwidth (README "Where the triad's arrays lie") */
  const int64_t upper = 9 * a->n_blocks, lower = a->l_ptr ? 9 * a->l_ptr[a->n_rows] : 0;
  int64_t n               = a->l_ptr ? (upper < lower ? upper : lower) : upper / 2;
  n                       = n < triad->n ? n : triad->n;
  rl->src_b[CC_RL_MATRIX] = a->val;
  rl->src_c[CC_RL_MATRIX] = a->l_ptr ? a->l_val : a->val + n;
  rl->src_n[CC_RL_MATRIX] = n;
  int covers              = n == triad->n;
  CC_MPI(MPI_Allreduce(&covers, &rl->matrix_pages, 1, MPI_INT, MPI_MIN, comm));
  double local_bytes[CC_RL_KINDS];
  for (int k = 0; k < CC_RL_KINDS; k++) local_bytes[k] = 24.0 * (double)rl->src_n[k];
  CC_MPI(MPI_Allreduce(local_bytes, rl->src_bytes, CC_RL_KINDS, MPI_DOUBLE, MPI_SUM, comm));
  CC_CALL(triads(rl, rl->triad_before));
  rl->triad_seconds = 0; /* a window's pair of triads */
  for (int k = 0; k < CC_RL_KINDS; k++)
    if (rl->triad_before[k] > 0) rl->triad_seconds += rl->src_bytes[k] / rl->triad_before[k];
  rl->ready = MPI_Wtime();
  return CC_OK;
}

/* a triad of each kind, then the next window starts (its counts and clock) */
static cc_err window_start(cc_roofline *rl, int iteration)
{
  for (int k = 0; k < CC_RL_KINDS; k++) {
    double seconds;
    CC_CALL(cc_triad_run_over(rl->triad, rl->src_b[k], rl->src_c[k], rl->src_n[k], &seconds));
    rl->window_triad[k] = seconds > 0 ? rl->src_bytes[k] / seconds : 0;
  }
  rl->it0      = iteration;
  rl->spmv0    = rl->timers.count[CC_T_SPMV];
  rl->precond0 = rl->timers.count[CC_T_PRECOND];
  rl->t0       = MPI_Wtime();
  return CC_OK;
}

cc_err cc_roofline_iteration(void *ctx, int iteration, double rel_residual, int *stop)
{
  cc_roofline *rl = ctx;
  CC_CALL(cc_monitor_iteration(rl->inner, iteration, rel_residual, stop)); /* signals, lines */
  if (*stop) return CC_OK;
  double now = MPI_Wtime();
  if (!rl->started) {
    /* the first completed iteration (with the solve's set-up): size the windows */
    double first = now - rl->ready, t1;
    CC_MPI(MPI_Allreduce(&first, &t1, 1, MPI_DOUBLE, MPI_MAX, rl->comm));
    rl->every   = rl->every_env > 0 ? rl->every_env
                                    : (int)fmin(1 << 30, fmax(1.0, ceil(CC_ROOFLINE_WINDOW_FACTOR *
                                                                        rl->triad_seconds / t1)));
    rl->started = 1;
  } else if (iteration - rl->it0 >= rl->every && rl->n < CC_ROOFLINE_MAX_WINDOWS) {
    /* a window ends: (bytes of its iterations / its triad) / its time (the slowest rank) */
    double local = now - rl->t0, dt;
    CC_MPI(MPI_Allreduce(&local, &dt, 1, MPI_DOUBLE, MPI_MAX, rl->comm));
    double bytes = (double)(rl->timers.count[CC_T_SPMV] - rl->spmv0) * rl->sum[0] +
                   (double)(rl->timers.count[CC_T_PRECOND] - rl->precond0) * rl->sum[1] +
                   (iteration - rl->it0) * rl->passes * rl->sum[2];
    if (dt > 0 && rl->window_triad[CC_RL_ARRAYS] > 0 && rl->window_triad[CC_RL_MATRIX] > 0) {
      for (int k = 0; k < CC_RL_KINDS; k++) {
        rl->ratio[k][rl->n]  = bytes / rl->window_triad[k] / dt;
        rl->triads[k][rl->n] = rl->window_triad[k];
      }
      rl->n++;
    }
  } else {
    return CC_OK; /* inside a window */
  }
  if (rl->n >= CC_ROOFLINE_MAX_WINDOWS) return CC_OK; /* enough: the rest runs undisturbed */
  CC_CALL(window_start(rl, iteration));
  rl->overhead += rl->t0 - now; /* this rank's time in the reduction and the triad */
  return CC_OK;
}

/* the smallest and largest of v[0, n) (both 0 when n is 0) */
static void min_max(const double *v, int n, double *lo, double *hi)
{
  *lo = *hi = n > 0 ? v[0] : 0;
  for (int i = 1; i < n; i++) {
    if (v[i] < *lo) *lo = v[i];
    if (v[i] > *hi) *hi = v[i];
  }
}

cc_err cc_roofline_end(cc_roofline *rl, cc_solve_record *rec)
{
  CC_CALL(triads(rl, rl->triad_after));
  CC_MPI(MPI_Allreduce(&rl->src_n[CC_RL_MATRIX], &rec->triad_matrix_elements, 1, MPI_INT64_T,
                       MPI_MIN, rl->comm));
  cc_solve_result *r = &rec->result;
  /* the triads inside the solve are not the solve's time (nor its breakdown's "other") */
  if (rl->overhead > 0) {
    r->seconds[CC_T_SOLVE] -= rl->overhead;
    CC_MPI(MPI_Allreduce(&r->seconds[CC_T_SOLVE], &r->time_s, 1, MPI_DOUBLE, MPI_MAX, rl->comm));
  }
  double overhead;
  CC_MPI(MPI_Allreduce(&rl->overhead, &overhead, 1, MPI_DOUBLE, MPI_MAX, rl->comm));
  rec->rl_windows      = rl->n;
  rec->rl_every        = rl->every;
  rec->rl_overhead_s   = overhead;
  rec->rl_matrix_pages = rl->matrix_pages;
  for (int k = 0; k < CC_RL_KINDS; k++) {
    rec->triad_before[k] = rl->triad_before[k];
    rec->triad_after[k]  = rl->triad_after[k];
    min_max(rl->ratio[k], rl->n, &rec->rl_window_min[k], &rec->rl_window_max[k]);
    rec->rl_window_fraction[k] = cc_median(rl->ratio[k], rl->n); /* 0 without a window */
    rec->rl_window_triad[k]    = cc_median(rl->triads[k], rl->n);
  }
  return CC_OK;
}

cc_rl_kind cc_roofline_headline(const cc_solve_record *rec)
{
  return rec->rl_matrix_pages ? CC_RL_MATRIX : CC_RL_ARRAYS;
}

double cc_roofline_triad_of(const cc_solve_record *rec, cc_rl_kind kind)
{
  /* the windows' triads when there were windows, else the ones before and after the solve */
  return rec->rl_windows > 0 ? rec->rl_window_triad[kind]
                             : 0.5 * (rec->triad_before[kind] + rec->triad_after[kind]);
}

double cc_roofline_bracket_of(const cc_solve_record *rec, cc_rl_kind kind)
{
  const cc_solve_result *r = &rec->result;
  int iterations           = r->iterations - r->start_iteration;
  double per_iter          = iterations > 0 ? r->time_s / iterations : 0;
  double triad             = 0.5 * (rec->triad_before[kind] + rec->triad_after[kind]);
  /* (modelled bytes per iteration / triad bandwidth) / time per iteration */
  return per_iter > 0 && triad > 0 ? rec->model_total / triad / per_iter : 0;
}

double cc_roofline_fraction_of(const cc_solve_record *rec, cc_rl_kind kind)
{
  return rec->rl_windows > 0 ? rec->rl_window_fraction[kind] : cc_roofline_bracket_of(rec, kind);
}

double cc_roofline_triad(const cc_solve_record *rec)
{
  return cc_roofline_triad_of(rec, cc_roofline_headline(rec));
}

double cc_roofline_fraction(const cc_solve_record *rec)
{
  return cc_roofline_fraction_of(rec, cc_roofline_headline(rec));
}
