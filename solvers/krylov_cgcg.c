/* krylov_cgcg.c: Alg.2 of the study, Chronopoulos & Gear's CG (J. Comput. Appl. Math. 1989): one
 * fused reduction {gamma = (r,u), delta = (w,u), |r|^2} per iteration with w = A u; 1 SpMV,
 * 1 preconditioner, 3 dot products, 4 AXPY-type updates.
 */
#include "krylov_impl.h"

static const char *const cgcg_vector_names[] = {"x", "r", "u", "w", "p", "s"};
static const char *const cgcg_scalar_names[] = {"gamma", "alpha", "beta"};
/* the state a checkpoint holds: the one declaration of its vectors and scalars */
static const cc_state_decl cgcg_state = CC_STATE_DECL(cgcg_vector_names, cgcg_scalar_names);

/* p <- u + beta p;  s <- w + beta s;  x <- x + alpha p;  r <- r - alpha s  (one pass, 4 updates,
 * timed CC_T_AXPY): reads u w p s x r, writes p s x r. The dots cannot join this pass: they need
 * u = M^-1 r and w = A u of the r it writes. The reference (unfused) makes one pass per update. */
static void cgcg_update(cc_krylov_ctx *k, double alpha, double beta, const double *restrict u,
                        const double *restrict w, double *restrict p, double *restrict s,
                        double *restrict x, double *restrict r)
{
  if (k->unfused) {
    cc_krylov_xpby(k, u, beta, p);   /* p_i = u_i + beta_i p_{i-1} */
    cc_krylov_xpby(k, w, beta, s);   /* s_i = w_i + beta_i s_{i-1} */
    cc_krylov_axpy(k, alpha, p, x);  /* x_{i+1} = x_i + alpha_i p_i */
    cc_krylov_axpy(k, -alpha, s, r); /* r_{i+1} = r_i - alpha_i s_i */
    return;
  }
  const int64_t n   = k->n;
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_AXPY, 4);
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) {
    double pi = u[i] + beta * p[i];
    double si = w[i] + beta * s[i];
    p[i]      = pi;
    s[i]      = si;
    x[i] += alpha * pi;
    r[i] -= alpha * si;
  }
  cc_timer_stop(k->timers, t0);
  cc_krylov_traffic_add(k, 1, 6, 4);
}

/* {gamma, delta, |r|^2} = {(r,u), (w,u), (r,r)}: one reduction. With IAR it is posted and waited
 * for at once: in Alg.2 as written every vector operation after it needs alpha, so nothing can
 * hide it (the study reports IAR for Alg.2 all the same, and so do we). */
static cc_err cgcg_reduce(cc_krylov_ctx *k, const double *r, const double *u, const double *w,
                          const double *x, double g[3])
{
  cc_reduction red;
  double v[4]; /* the three, and (x,x) with the residual-gap guard */
  cc_krylov_dots(k, 3, (const double *const[]){r, w, r}, (const double *const[]){u, u, r}, v);
  const int n_red = 3 + cc_krylov_gap_dot(k, x, &v[3]);
  CC_CALL(cc_krylov_post(k, v, n_red, &red));
  CC_CALL(cc_krylov_wait(k, v, n_red, &red));
  cc_krylov_gap_update(k, 2, v[3], v[2]); /* r's error comes through s: 2 recurrences */
  memcpy(g, v, 3 * sizeof(double));
  return CC_OK;
}

static cc_err cgcg_iterate(cc_krylov_ctx *k, double *b, double *x)
{
  double *r, *u, *w, *p, *s;
  CC_CALL(cc_krylov_vectors(k, 5, (double **[]){&r, &u, &w, &p, &s}));
  double *const state_vectors[] = {x, r, u, w, p, s}; /* in the order of cgcg_vector_names */
  _Static_assert(sizeof state_vectors / sizeof state_vectors[0] ==
                     sizeof cgcg_vector_names / sizeof cgcg_vector_names[0],
                 "one vector per declared name");
  const cc_bcrs *a          = k->a;
  const cc_comm_table *comm = k->comm;
  const int maxit           = k->opts->maxit;
  double sc[3]; /* gamma_i, alpha_i, beta_i at the top of iteration i */
  int it = k->start, exact;

  CC_CALL(cc_krylov_restart_exact(k, x, &exact)); /* another operator: from x alone, below */
  if (exact) {
    CC_CALL(cc_krylov_restore(k, &cgcg_state, state_vectors, sc));
  } else {
    CC_CALL(cc_krylov_residual(k, b, x, r));          /* r0 = b - A x0 */
    CC_CALL(cc_precond_apply(k->pc, &k->exec, r, u)); /* u0 = M^-1 r0 */
    CC_CALL(cc_spmv(&k->exec, a, comm, u, w));        /* w0 = A u0 */
    double g[3];
    CC_CALL(cgcg_reduce(k, r, u, w, x, g));
    if (cc_krylov_converged(k, it, g[2])) return CC_OK;
    if (cc_krylov_breakdown(k, it, "(r,u)", g[0])) return CC_OK;
    if (cc_krylov_breakdown(k, it, "(w,u)", g[1])) return CC_OK;
    sc[0] = g[0];        /* gamma0 = (r0,u0) */
    sc[1] = g[0] / g[1]; /* alpha0 = (r0,u0)/(w0,u0) */
    if (cc_krylov_breakdown(k, it, "alpha", sc[1])) return CC_OK;
    sc[2] = 0.0; /* beta0 = 0 (p, s start at zero) */
  }

  while (it < maxit) {
    /* p_i = u_i + beta_i p_{i-1}; s_i = w_i + beta_i s_{i-1}; x += alpha_i p_i; r -= alpha_i s_i */
    cgcg_update(k, sc[1], sc[2], u, w, p, s, x, r);
    it++;
    int replace = cc_krylov_replace_due(k, it);
    if (replace) CC_CALL(cc_krylov_residual(k, b, x, r));   /* r = b - A x */
    CC_CALL(cc_precond_apply(k->pc, &k->exec, r, u));       /* u_{i+1} = M^-1 r_{i+1} */
    CC_CALL(cc_spmv(&k->exec, a, comm, u, w));              /* w_{i+1} = A u_{i+1} */
    if (replace) CC_CALL(cc_spmv(&k->exec, a, comm, p, s)); /* s_i = A p_i, consistent with r */
    double g[3];
    CC_CALL(cgcg_reduce(k, r, u, w, x, g));
    if (cc_krylov_converged(k, it, g[2])) return CC_OK;
    if (cc_krylov_breakdown(k, it, "(r,u)", g[0])) return CC_OK;
    double beta  = g[0] / sc[0];               /* beta_{i+1} = gamma_{i+1} / gamma_i */
    double denom = g[1] - beta * g[0] / sc[1]; /* delta - beta_{i+1} gamma_{i+1} / alpha_i */
    if (cc_krylov_breakdown(k, it, "delta - beta gamma / alpha", denom)) return CC_OK;
    sc[0] = g[0];
    sc[1] = g[0] / denom; /* alpha_{i+1} */
    sc[2] = beta;
    if (cc_krylov_breakdown(k, it, "alpha", sc[1]) || cc_krylov_breakdown(k, it, "beta", beta))
      return CC_OK;
    CC_CALL(cc_krylov_iteration_end(k, it, &cgcg_state, state_vectors, sc));
  }
  cc_krylov_maxit(k, it);
  return CC_OK;
}

/* the one reduction (cgcg_reduce): {gamma, delta, |r|^2} and the guard's (x,x) */
static int cgcg_reduction_sizes(const cc_krylov_opts *o, int sizes[CC_KRYLOV_SIZES_MAX])
{
  sizes[0] = 3 + cc_krylov_gap_values(o);
  return 1;
}

const cc_krylov cc_krylov_cgcg = {
    .name         = "cgcg",
    .description  = "Alg.2 Chronopoulos/Gear",
    .supports_iar = 1,
    .iterate      = cgcg_iterate,
    .table1       = {.spmv = 1, .precond = 1, .dot = 3, .axpy = 4, .reductions = 1},
    /* fused: {p s x r}, {(r,u) (w,u) (r,r)}; unfused: 4 x (2 reads, 1 write) + dots (r,u) (w,u)
     * (r,r) */
    .vector_fused    = {.passes = 2, .reads = 9, .writes = 4},
    .vector_unfused  = {.passes = 7, .reads = 13, .writes = 4},
    .reduction_sizes = cgcg_reduction_sizes,
};
