/* krylov_gropp.c: Alg.4 of the study, Gropp's asynchronous PCG (W. Gropp, "Update on libraries
 * for blue waters", 2010; Alg.3 in Ghysels & Vanroose 2014): two reductions per iteration, delta =
 * (p,s) overlapped with q = M^-1 s and {gamma = (r,u), |r|^2} overlapped with w = A u; 1 SpMV,
 * 1 preconditioner, 3 dots, 5 AXPY-type updates.
 */
#include "krylov_impl.h"

static const char *const gropp_vector_names[] = {"x", "r", "u", "p", "s"};
static const char *const gropp_scalar_names[] = {"gamma"};
/* the state a checkpoint holds: the one declaration of its vectors and scalars */
static const cc_state_decl gropp_state = CC_STATE_DECL(gropp_vector_names, gropp_scalar_names);

/* x <- x + alpha p;  r <- r - alpha s;  u <- u - alpha q  (one pass, 3 updates, timed CC_T_AXPY),
 * and when g is given the dots that follow in the same pass: g <- {(r,u), (r,r)} of the new r, u
 * (3 dots' worth of reads saved; counted as 2 dots). Reads p s q x r u, writes x r u. */
static void gropp_update_xru(cc_krylov_ctx *k, double alpha, const double *restrict p,
                             const double *restrict s, const double *restrict q, double *restrict x,
                             double *restrict r, double *restrict u, double g[2])
{
  const int64_t n   = k->n;
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_AXPY, 3);
  if (g) {
    double ru = 0.0, rr = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : ru, rr) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      double ri = r[i] - alpha * s[i];
      double ui = u[i] - alpha * q[i];
      x[i] += alpha * p[i];
      r[i] = ri;
      u[i] = ui;
      ru += ri * ui; /* gamma_{i+1} = (r, u) */
      rr += ri * ri; /* |r_{i+1}|^2 */
    }
    g[0] = ru, g[1] = rr;
    cc_count_op(k->timers, CC_T_DOT, 2);
  } else {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * s[i];
      u[i] -= alpha * q[i];
    }
  }
  cc_timer_stop(k->timers, t0);
  cc_krylov_traffic_add(k, 1, 6, 3);
}

/* p <- u + beta p;  s <- w + beta s  (one pass, 2 updates, timed CC_T_AXPY), and when delta is
 * given the next iteration's delta = (p, s) of the new p, s in the same pass (counted as 1 dot).
 * Reads u w p s, writes p s. */
static void gropp_update_ps(cc_krylov_ctx *k, double beta, const double *restrict u,
                            const double *restrict w, double *restrict p, double *restrict s,
                            double *delta)
{
  const int64_t n   = k->n;
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_AXPY, 2);
  if (delta) {
    double ps = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : ps) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      double pi = u[i] + beta * p[i];
      double si = w[i] + beta * s[i];
      p[i]      = pi;
      s[i]      = si;
      ps += pi * si; /* delta_{i+1} = (p, s) */
    }
    *delta = ps;
    cc_count_op(k->timers, CC_T_DOT, 1);
  } else {
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      p[i] = u[i] + beta * p[i];
      s[i] = w[i] + beta * s[i];
    }
  }
  cc_timer_stop(k->timers, t0);
  cc_krylov_traffic_add(k, 1, 4, 2);
}

static cc_err gropp_iterate(cc_krylov_ctx *k, double *b, double *x)
{
  double *r, *u, *w, *p, *s, *q;
  CC_CALL(cc_krylov_vectors(k, 6, (double **[]){&r, &u, &w, &p, &s, &q}));
  double *const state_vectors[] = {x, r, u, p, s}; /* in the order of gropp_vector_names */
  _Static_assert(sizeof state_vectors / sizeof state_vectors[0] ==
                     sizeof gropp_vector_names / sizeof gropp_vector_names[0],
                 "one vector per declared name");
  const cc_bcrs *a          = k->a;
  const cc_comm_table *comm = k->comm;
  const int maxit           = k->opts->maxit;
  double gamma; /* (r_i, u_i) */
  cc_reduction red;
  int it = k->start, exact;

  /* another operator: u, s, gamma hold the old M^-1; start afresh from x alone (below) */
  CC_CALL(cc_krylov_restart_exact(k, x, &exact));
  if (exact) {
    CC_CALL(cc_krylov_restore(k, &gropp_state, state_vectors, &gamma));
  } else {
    CC_CALL(cc_krylov_residual(k, b, x, r));          /* r0 = b - A x0 */
    CC_CALL(cc_precond_apply(k->pc, &k->exec, r, u)); /* u0 = M^-1 r0 */
    cc_krylov_copy(k, u, p);                          /* p0 = u0 */
    double g[2];                                      /* {gamma0, |r0|^2} = {(r0,u0), (r0,r0)} */
    cc_krylov_dots(k, 2, (const double *const[]){r, r}, (const double *const[]){u, r}, g);
    CC_CALL(cc_krylov_post(k, g, 2, &red));
    CC_CALL(cc_spmv(&k->exec, a, comm, p, s)); /* s0 = A p0, overlapped */
    CC_CALL(cc_krylov_wait(k, g, 2, &red));
    if (cc_krylov_converged(k, it, g[1])) return CC_OK;
    if (cc_krylov_breakdown(k, it, "(r,u)", g[0])) return CC_OK;
    gamma = g[0];
  }

  double delta;       /* reduction 1: delta = (p_i, s_i) */
  int have_delta = 0; /* delta already computed by the previous iteration's fused p, s pass */
  while (it < maxit) {
    if (!have_delta)
      cc_krylov_dots(k, 1, (const double *const[]){p}, (const double *const[]){s}, &delta);
    CC_CALL(cc_krylov_post(k, &delta, 1, &red));
    CC_CALL(cc_precond_apply(k->pc, &k->exec, s, q)); /* q_i = M^-1 s_i, overlapped */
    CC_CALL(cc_krylov_wait(k, &delta, 1, &red));
    if (cc_krylov_breakdown(k, it, "(p,s)", delta)) return CC_OK;
    double alpha = gamma / delta; /* alpha_i = gamma_i / delta */
    if (cc_krylov_breakdown(k, it, "alpha", alpha)) return CC_OK;
    it++;
    const int replace = cc_krylov_replace_due(k, it);
    double g[3]; /* reduction 2: {gamma_{i+1}, |r_{i+1}|^2}, (x,x) with the guard */
    /* fused: the dots ride along with the update unless replacement recomputes r and u */
    const int fuse = !k->unfused && !replace;
    if (k->unfused) {
      cc_krylov_axpy(k, alpha, p, x);  /* x_{i+1} = x_i + alpha_i p_i */
      cc_krylov_axpy(k, -alpha, s, r); /* r_{i+1} = r_i - alpha_i s_i */
      cc_krylov_axpy(k, -alpha, q, u); /* u_{i+1} = u_i - alpha_i q_i */
    } else {
      gropp_update_xru(k, alpha, p, s, q, x, r, u, fuse ? g : NULL);
    }
    if (replace) {
      CC_CALL(cc_krylov_residual(k, b, x, r));          /* r = b - A x */
      CC_CALL(cc_precond_apply(k->pc, &k->exec, r, u)); /* u = M^-1 r */
    }
    if (!fuse)
      cc_krylov_dots(k, 2, (const double *const[]){r, r}, (const double *const[]){u, r}, g);
    const int n_red = 2 + cc_krylov_gap_dot(k, x, &g[2]);
    CC_CALL(cc_krylov_post(k, g, n_red, &red));
    CC_CALL(cc_spmv(&k->exec, a, comm, u, w)); /* w_{i+1} = A u_{i+1}, overlapped */
    CC_CALL(cc_krylov_wait(k, g, n_red, &red));
    cc_krylov_gap_update(k, 2, g[2], g[1]); /* r's error comes through s: 2 recurrences */
    if (cc_krylov_converged(k, it, g[1])) return CC_OK;
    if (cc_krylov_breakdown(k, it, "(r,u)", g[0])) return CC_OK;
    double beta = g[0] / gamma; /* beta_{i+1} = gamma_{i+1} / gamma_i */
    if (cc_krylov_breakdown(k, it, "beta", beta)) return CC_OK;
    gamma = g[0];
    /* p_{i+1} = u_{i+1} + beta p_i;  s_{i+1} = w_{i+1} + beta s_i  (fused: and delta = (p, s),
     * unless replacement recomputes s below) */
    if (k->unfused) {
      cc_krylov_xpby(k, u, beta, p);
      cc_krylov_xpby(k, w, beta, s);
    } else {
      gropp_update_ps(k, beta, u, w, p, s, fuse ? &delta : NULL);
    }
    /* s = A p (q = M^-1 s follows at the top of the next iteration); fused: delta = (p, s) of the
     * replaced s before the iteration ends, where the fused pass counts it too */
    if (replace) CC_CALL(cc_spmv(&k->exec, a, comm, p, s));
    if (replace && !k->unfused)
      cc_krylov_dots(k, 1, (const double *const[]){p}, (const double *const[]){s}, &delta);
    have_delta = !k->unfused;
    CC_CALL(cc_krylov_iteration_end(k, it, &gropp_state, state_vectors, &gamma));
  }
  cc_krylov_maxit(k, it);
  return CC_OK;
}

/* reduction 1: delta = (p,s); reduction 2: {gamma, |r|^2} and the guard's (x,x) */
static int gropp_reduction_sizes(const cc_krylov_opts *o, int sizes[CC_KRYLOV_SIZES_MAX])
{
  sizes[0] = 1, sizes[1] = 2 + cc_krylov_gap_values(o);
  return 2;
}

const cc_krylov cc_krylov_gropp = {
    .name         = "gropp",
    .description  = "Alg.4 Gropp's asynchronous PCG",
    .supports_iar = 1,
    .iterate      = gropp_iterate,
    .table1       = {.spmv = 1, .precond = 1, .dot = 3, .axpy = 5, .reductions = 2},
    /* fused: {x r u + (r,u) (r,r)}, {p s + (p,s)}; unfused: 5 x (2 reads, 1 write) + dots (p,s)
     * (r,u) (r,r) */
    .vector_fused    = {.passes = 2, .reads = 10, .writes = 5},
    .vector_unfused  = {.passes = 8, .reads = 15, .writes = 5},
    .reduction_sizes = gropp_reduction_sizes,
};
