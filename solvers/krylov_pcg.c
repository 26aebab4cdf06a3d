/* krylov_pcg.c: Alg.1 of the study, the original preconditioned CG (Hestenes & Stiefel 1952):
 * 2 global reductions per iteration, (s,p) and the fused {(r,u), |r|^2}, none overlapped; 1 SpMV,
 * 1 preconditioner, 3 dot products, 3 AXPY-type updates. There is no non-blocking form (AR only).
 */
#include "krylov_impl.h"

static const char *const pcg_vector_names[] = {"x", "r", "p"};
static const char *const pcg_scalar_names[] = {"rho"};
/* the state a checkpoint holds: the one declaration of its vectors and scalars */
static const cc_state_decl pcg_state = CC_STATE_DECL(pcg_vector_names, pcg_scalar_names);

/* Fused: x_{i+1} = x_i + alpha p_i is put off until p_{i+1} = u_{i+1} + beta p_i is formed, so p_i
 * is read once for both (pcg_update_xp); r_{i+1} = r_i - alpha s alone goes first, since M^-1 needs
 * it. When r is replaced (r = b - A x needs x_{i+1} at once) or the solve stops before p is formed
 * (convergence, breakdown), x is updated in its own pass. The reference (unfused) does the three
 * updates one pass each, in the order of Alg.1. */

/* r <- r - alpha s, and x <- x + alpha p in the same pass when x_now (one pass, timed CC_T_AXPY) */
static void pcg_update_r(cc_krylov_ctx *k, double alpha, const double *restrict p,
                         const double *restrict s, double *restrict x, double *restrict r,
                         int x_now)
{
  const int64_t n   = k->n;
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_AXPY, x_now ? 2 : 1);
  if (x_now) {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * s[i];
    }
    cc_krylov_traffic_add(k, 1, 4, 2);
  } else {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) r[i] -= alpha * s[i];
    cc_krylov_traffic_add(k, 1, 2, 1);
  }
  cc_timer_stop(k->timers, t0);
}

/* x <- x + alpha p (the deferred update of x, when x_pending) then p <- u + beta p, one pass
 * (timed CC_T_AXPY): reads x p u, writes x p. */
static void pcg_update_xp(cc_krylov_ctx *k, double alpha, double beta, const double *restrict u,
                          double *restrict x, double *restrict p, int x_pending)
{
  const int64_t n   = k->n;
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_AXPY, x_pending ? 2 : 1);
  if (x_pending) {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];      /* x_{i+1} = x_i + alpha p_i */
      p[i] = u[i] + beta * p[i]; /* p_{i+1} = u_{i+1} + beta p_i */
    }
    cc_krylov_traffic_add(k, 1, 3, 2);
  } else {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) p[i] = u[i] + beta * p[i];
    cc_krylov_traffic_add(k, 1, 2, 1);
  }
  cc_timer_stop(k->timers, t0);
}

static cc_err pcg_iterate(cc_krylov_ctx *k, double *b, double *x)
{
  double *r, *u, *p, *s;
  CC_CALL(cc_krylov_vectors(k, 4, (double **[]){&r, &u, &p, &s}));
  double *const state_vectors[] = {x, r, p}; /* in the order of pcg_vector_names */
  _Static_assert(sizeof state_vectors / sizeof state_vectors[0] ==
                     sizeof pcg_vector_names / sizeof pcg_vector_names[0],
                 "one vector per declared name");
  const cc_bcrs *a          = k->a;
  const cc_comm_table *comm = k->comm;
  const int maxit           = k->opts->maxit;
  double rho;       /* (r_i, u_i) */
  cc_reduction red; /* AR only: never posted as IAR */
  int it = k->start, exact;

  CC_CALL(cc_krylov_restart_exact(k, x, &exact)); /* another operator: from x alone, below */
  if (exact) {
    /* exact continuation: u_i is not needed at the top of the loop */
    CC_CALL(cc_krylov_restore(k, &pcg_state, state_vectors, &rho));
  } else {
    CC_CALL(cc_krylov_residual(k, b, x, r));          /* r0 = b - A x0 */
    CC_CALL(cc_precond_apply(k->pc, &k->exec, r, u)); /* u0 = M^-1 r0 */
    cc_krylov_copy(k, u, p);                          /* p0 = u0 */
    double g[2];                                      /* {(r0,u0), |r0|^2} */
    cc_krylov_dots(k, 2, (const double *const[]){r, r}, (const double *const[]){u, r}, g);
    CC_CALL(cc_krylov_post(k, g, 2, &red));
    CC_CALL(cc_krylov_wait(k, g, 2, &red));
    if (cc_krylov_converged(k, it, g[1])) return CC_OK;
    if (cc_krylov_breakdown(k, it, "(r,u)", g[0])) return CC_OK;
    rho = g[0];
  }

  while (it < maxit) {
    CC_CALL(cc_spmv(&k->exec, a, comm, p, s)); /* s = A p_i */
    double sp;                                 /* reduction 1: (s, p_i) */
    cc_krylov_dots(k, 1, (const double *const[]){s}, (const double *const[]){p}, &sp);
    CC_CALL(cc_krylov_post(k, &sp, 1, &red));
    CC_CALL(cc_krylov_wait(k, &sp, 1, &red));
    if (cc_krylov_breakdown(k, it, "(s,p)", sp)) return CC_OK;
    double alpha = rho / sp; /* alpha = (r_i,u_i) / (s,p_i) */
    if (cc_krylov_breakdown(k, it, "alpha", alpha)) return CC_OK;
    it++;
    const int replace = cc_krylov_replace_due(k, it);
    /* x_{i+1} = x_i + alpha p_i now (unfused, or replacement needs it), else with p below */
    const int x_pending = !k->unfused && !replace;
    if (k->unfused) {
      cc_krylov_axpy(k, alpha, p, x);  /* x_{i+1} = x_i + alpha p_i */
      cc_krylov_axpy(k, -alpha, s, r); /* r_{i+1} = r_i - alpha s */
    } else {
      pcg_update_r(k, alpha, p, s, x, r, !x_pending);
    }
    if (replace) CC_CALL(cc_krylov_residual(k, b, x, r)); /* r = b - A x */
    CC_CALL(cc_precond_apply(k->pc, &k->exec, r, u));     /* u_{i+1} = M^-1 r_{i+1} */
    double g[3]; /* reduction 2: {(r,u), |r|^2}, (x,x) with the guard (x_i when x is pending) */
    cc_krylov_dots(k, 2, (const double *const[]){r, r}, (const double *const[]){u, r}, g);
    const int n_red = 2 + cc_krylov_gap_dot(k, x, &g[2]);
    CC_CALL(cc_krylov_post(k, g, n_red, &red));
    CC_CALL(cc_krylov_wait(k, g, n_red, &red));
    cc_krylov_gap_update(k, 1, g[2], g[1]); /* r's own recurrence */
    double beta = g[0] / rho;               /* beta = (r_{i+1},u_{i+1}) / (r_i,u_i) */
    if (cc_krylov_converged(k, it, g[1]) || cc_krylov_breakdown(k, it, "(r,u)", g[0]) ||
        cc_krylov_breakdown(k, it, "beta", beta)) {
      if (x_pending) cc_krylov_axpy(k, alpha, p, x); /* x_{i+1} = x_i + alpha p_i */
      return CC_OK; /* x_{i+1} is the answer (or the iterate the breakdown left) */
    }
    rho = g[0];
    if (k->unfused)
      cc_krylov_xpby(k, u, beta, p); /* p_{i+1} = u_{i+1} + beta p_i */
    else
      pcg_update_xp(k, alpha, beta, u, x, p, x_pending);
    CC_CALL(cc_krylov_iteration_end(k, it, &pcg_state, state_vectors, &rho));
  }
  cc_krylov_maxit(k, it);
  return CC_OK;
}

/* reduction 1: (s,p); reduction 2: {(r,u), |r|^2} and the guard's (x,x) */
static int pcg_reduction_sizes(const cc_krylov_opts *o, int sizes[CC_KRYLOV_SIZES_MAX])
{
  sizes[0] = 1, sizes[1] = 2 + cc_krylov_gap_values(o);
  return 2;
}

const cc_krylov cc_krylov_pcg = {
    .name         = "pcg",
    .description  = "Alg.1 original PCG",
    .supports_iar = 0,
    .iterate      = pcg_iterate,
    .table1       = {.spmv = 1, .precond = 1, .dot = 3, .axpy = 3, .reductions = 2},
    /* fused: (s,p), {r}, {(r,u) (r,r)}, {x p}; unfused: 3 x (2 reads, 1 write) + dots (s,p)
     * (r,u) (r,r) */
    .vector_fused    = {.passes = 4, .reads = 9, .writes = 3},
    .vector_unfused  = {.passes = 6, .reads = 11, .writes = 3},
    .reduction_sizes = pcg_reduction_sizes,
};
