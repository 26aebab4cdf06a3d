/* krylov_impl.h: private helpers shared by the CG variants (krylov_*.c): the solve's context,
 * work vectors, timer snapshots, reductions at "the same place" for AR and IAR, breakdown tests
 * (krylov.c), the spectrum estimate (spectrum.c), the end of an iteration with checkpoint/restart
 * of the solver state (solver_state.c).
 */
#ifndef CC_KRYLOV_IMPL_H
#define CC_KRYLOV_IMPL_H

#include "cc_solvers.h"

/* s-step CG at S = 10: its basis, A times it, the block directions and A times them, twice */
#define CC_KRYLOV_MAX_VECTORS 72

/* One solve's context, filled by cc_krylov_solve (krylov.c) before the variant's iterate. */
struct cc_krylov_ctx {
  const char *solver;
  const cc_bcrs *a;
  const cc_comm_table *comm;
  cc_precond *pc;
  const cc_krylov_opts *opts;
  cc_solve_result *result;
  int64_t n;            /* 3 n_rows: internal DOFs the algorithm works on */
  int64_t n_alloc;      /* 3 n_cols: vector length incl. halo scratch */
  double bnorm;         /* |b| */
  int start;            /* first iteration index (restart->iteration or 0) */
  cc_timers own_timers; /* the solve's timers when opts->timers is NULL */
  cc_timers *timers;    /* opts->timers or &own_timers: this solve's counts (result->seconds) */
  cc_timer_token solve_region; /* CC_T_SOLVE, started by begin, stopped by end */
  cc_reducer reducer; /* progress mode, injected latency, pending request, polls of this solve */
  cc_exec exec;       /* what the kernels get: &timers and the poll hook on &reducer */
  double t0;
  int first_it, last_it; /* iterations whose end was recorded first / last */
  int64_t first_count[CC_T_COUNT], last_count[CC_T_COUNT];
  int unfused;        /* opts->unfused: one pass per Table-1 operation */
  int64_t traffic[3]; /* vector passes, reads, writes so far (cc_krylov_traffic units) */
  int64_t first_traffic[3], last_traffic[3];
  int64_t first_red[3], last_red[3]; /* reducer's blocking, posted, waited_early at those ends */
  int n_vec;
  double *vec[CC_KRYLOV_MAX_VECTORS];
  /* --replace-every auto: ||A||_inf, the estimated gap |b - A x - r| and the previous iteration's
   * bound and |r| (Van der Vorst & Ye's crossing test), and a replacement due at the next check */
  double gap_anorm, gap, gap_prev, gap_rnorm_prev, gap_init;
  int gap_due;
  int inject_it;       /* test seam (opts->inject): poison r after this iteration, -1 off/done */
  double inject_value; /* NaN or Inf */
};

/* Allocate count work vectors of n_alloc doubles, zero-filled by the threads that use them; the
 * end of the solve frees them. */
CC_WUR cc_err cc_krylov_vectors(cc_krylov_ctx *k, int count, double **v[]);

/* r <- b - A x (one SpMV + one AXPY-type update; x's halo is exchanged). */
CC_WUR cc_err cc_krylov_residual(cc_krylov_ctx *k, double *b, double *x, double *r);

/* Timed dot region (CC_T_DOT): out[j] = (x[j], y[j]) locally, j < count. Fused (default): one
 * pass for all of them; unfused: one pass per dot. */
void cc_krylov_dots(cc_krylov_ctx *k, int count, const double *const x[], const double *const y[],
                    double out[]);

/* Vector traffic of a pass over the n internal DOFs (krylov_impl.h's ctx accounting, reported as
 * result->vector_*_per_iteration): reads / writes = distinct vectors streamed in / out. */
static inline void cc_krylov_traffic_add(cc_krylov_ctx *k, int passes, int reads, int writes)
{
  k->traffic[0] += passes;
  k->traffic[1] += reads;
  k->traffic[2] += writes;
}
/* One AXPY-type update per pass (the unfused reference path, and set-up), timed CC_T_AXPY and
 * counted as one update: y <- y + alpha x;  y <- x + beta y;  y <- x. */
void cc_krylov_axpy(cc_krylov_ctx *k, double alpha, const double *x, double *y);
void cc_krylov_xpby(cc_krylov_ctx *k, const double *x, double beta, double *y);
void cc_krylov_copy(cc_krylov_ctx *k, const double *x, double *y);

/* A reduction "at the same place" for AR and IAR: post starts it (AR: completes it blocking), wait
 * completes it (AR: nothing left to do). Work between the two is what IAR can overlap. */
CC_WUR cc_err cc_krylov_post(cc_krylov_ctx *k, double *values, int n, cc_reduction *red);
CC_WUR cc_err cc_krylov_wait(cc_krylov_ctx *k, double *values, int n, cc_reduction *red);

/* A fused AXPY-type region of k updates: cc_timer_start_n(&k->timers, CC_T_AXPY, k) before,
 * cc_timer_stop after. */

/* 1 (and result->failure, result->breakdown set) when value is not a positive normal finite
 * number: CG breakdown; the text says NaN, overflow (Inf), subnormal, zero or negative. */
int cc_krylov_breakdown(cc_krylov_ctx *k, int iteration, const char *what, double value);
/* Record the recursive residual |r|^2 of iteration `iteration`; 1 when |r|/|b| < tol (converged),
 * also 1 with a failure text (breakdown) when |r|^2 is NaN, Inf or subnormal; 0 to go on. */
int cc_krylov_converged(cc_krylov_ctx *k, int iteration, double rr);
/* Set the maxit failure text. */
void cc_krylov_maxit(cc_krylov_ctx *k, int iteration);
/* 1 when residual replacement is due after `iteration` completed iterations (every N, or with
 * --replace-every auto when the guard asked for it); records the replacement in the result. Call
 * once per iteration. */
int cc_krylov_replace_due(cc_krylov_ctx *k, int iteration);
/* The residual-gap guard (--replace-every auto; a simplified form of the bound of Cools et al.,
 * SIAM J. Matrix Anal. Appl. 2018): each iteration's local rounding error, eps (||A|| |x| + |r|),
 * reaches r through `recurrences` coupled recurrences (pcg 1: r; cgcg, gropp 2: r and s; pipecg
 * 4: r, s, w, z), and the gap estimate accumulates them. A replacement is due when the estimate
 * crosses sqrt(eps) |r| (Van der Vorst & Ye 2000: gap_{i-1} <= sqrt(eps) |r_{i-1}| and
 * gap_i > sqrt(eps) |r_i|); after it the estimate restarts from eps (||A|| |x| + |r|).
 * cc_krylov_gap_dot puts the local (x, x) into *slot and returns 1 with auto (the value rides in
 * the variant's reduction of |r|^2), 0 otherwise; cc_krylov_gap_update takes the reduced (x, x)
 * and |r|^2. */
int cc_krylov_gap_dot(cc_krylov_ctx *k, const double *x, double *slot);
/* The values cc_krylov_gap_dot adds to a reduction under opts: 1 with auto, else 0. */
static inline int cc_krylov_gap_values(const cc_krylov_opts *o)
{
  return o->replace_every == CC_REPLACE_AUTO;
}
void cc_krylov_gap_update(cc_krylov_ctx *k, int recurrences, double xx, double rr);

/* End of a completed iteration, where the state is the one the loop restarts from: records the
 * operation counts (result->ops_per_iteration), then checkpoints the state (pointers to the live
 * vectors) when due after `iteration` iterations, then calls the monitor hook. When the hook asks
 * to stop it checkpoints (if not just done), marks the result interrupted and returns
 * CC_ERR_INTERRUPTED, which the variant passes up (CC_CALL) and the end of the solve turns into
 * CC_OK. */
CC_WUR cc_err cc_krylov_iteration_end(cc_krylov_ctx *k, int iteration, const cc_state_decl *decl,
                                      double *const vectors[], const double scalars[]);
/* The test seam (opts->inject): at the first iteration end at or past the seam's iteration (once
 * per solve), v[0] of rank 0 becomes NaN or Inf. cc_krylov_iteration_end applies it to a state
 * whose second vector is r; a variant without r in its state (p(l)-CG) calls it on the vector
 * that carries its residual into the next iteration. */
void cc_krylov_poison(cc_krylov_ctx *k, int iteration, double *v);
/* 1 when opts->restart is a state of this very operator (restore it all and continue exactly); 0
 * without a restart; with a restart of another operator it loads x alone (collectively checked),
 * sets result->restart_rebuilt and returns 0: the variant then starts afresh from that x. */
CC_WUR cc_err cc_krylov_restart_exact(cc_krylov_ctx *k, double *x, int *exact);
/* Copy a restart state into the vectors/scalars declared by decl (by name; same solver). */
CC_WUR cc_err cc_krylov_restore(cc_krylov_ctx *k, const cc_state_decl *decl,
                                double *const vectors[], double scalars[]);

/* A check hook's part for opts->spectrum_min/max (p(l)-CG, s-step): both 0 (estimate it) or
 * 0 <= min < max, max finite; the refusal names the solver and the bounds. */
CC_WUR cc_err cc_krylov_check_spectrum(const char *solver, const cc_krylov_opts *opts);
/* The spectrum of M^-1 A for p(l)-CG's shifts and s-step's basis: opts->spectrum_min/max when
 * given (source "option"), else the Ritz values of the Lanczos tridiagonal built from the
 * coefficients of up to CC_SPECTRUM_LANCZOS_STEPS PCG iterations from x = 0 (source "lanczos";
 * counted in the solve's operations, outside its iterations). ritz[] (n_ritz of them, ascending,
 * at most CC_SPECTRUM_LANCZOS_STEPS) are the Ritz values (the bounds alone with the option).
 * Fills result->spectrum_* and ritz_*. A or M^-1 not SPD (no PCG step possible): CC_OK with
 * result->breakdown set (the caller returns). */
CC_WUR cc_err cc_krylov_spectrum(cc_krylov_ctx *k, double *b, double *lmin, double *lmax,
                                 double ritz[], int *n_ritz);
/* Record a residual replacement after `iteration` in the result (count and list). */
void cc_krylov_replaced(cc_krylov_ctx *k, int iteration);
/* Set result->label, pipeline_depth, sstep, sstep_basis for the series key of the report. */
void cc_krylov_label(cc_krylov_ctx *k, int pipeline_depth, int sstep, const char *basis);

#endif
