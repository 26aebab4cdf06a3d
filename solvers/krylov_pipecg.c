/* krylov_pipecg.c: Alg.3 of the study, pipelined PCG (Ghysels & Vanroose, Parallel Computing 2014,
 * Alg.4 there): one reduction {gamma = (r,u), delta = (w,u), |r|^2} per iteration, overlapped with
 * m = M^-1 w and n = A m; 1 SpMV, 1 preconditioner, 3 dots, 8 AXPY-type updates. Residual
 * replacement as Cools et al. (SIAM J. Matrix Anal. Appl. 2018): r, u, w, s, q, z all recomputed.
 */
#include "krylov_impl.h"

static const char *const pipecg_vector_names[] = {"x", "r", "u", "w", "p", "s", "q", "z"};
static const char *const pipecg_scalar_names[] = {"gamma_prev", "alpha_prev"};
/* the state a checkpoint holds: the one declaration of its vectors and scalars */
static const cc_state_decl pipecg_state = CC_STATE_DECL(pipecg_vector_names, pipecg_scalar_names);

/* The 8 recurrences and the next iteration's local dots in one pass over the vectors (reads
 * m n z q s p x r u w, writes z q s p x r u w: 18 doubles per DOF instead of 8 x 3 + 5 = 29 in one
 * pass per operation), timed once as CC_T_AXPY and counted as 8 updates and, when g is given, 3
 * dots:
 *   z <- n + beta z;  q <- m + beta q;  s <- w + beta s;  p <- u + beta p;
 *   x <- x + alpha p; r <- r - alpha s; u <- u - alpha q; w <- w - alpha z;
 *   g <- {(r,u), (w,u), (r,r)} of the new r, u, w (the sums as cc_dot_local forms them: OpenMP
 *   reduction over the same static split). g = NULL when residual replacement recomputes r, u, w
 *   after this pass (the dots are then taken from the replaced vectors). */
typedef struct {
  const double *m, *n;
  double *z, *q, *s, *p, *x, *r, *u, *w;
} pipecg_vectors;

static void pipecg_update(cc_krylov_ctx *k, double alpha, double beta, const pipecg_vectors *v,
                          double g[3])
{
  const int64_t len        = k->n;
  const double *restrict m = v->m, *restrict n = v->n;
  double *restrict z = v->z, *restrict q = v->q, *restrict s = v->s, *restrict p = v->p;
  double *restrict x = v->x, *restrict r = v->r, *restrict u = v->u, *restrict w = v->w;
  cc_timer_token t0 = cc_timer_start_n(k->timers, CC_T_AXPY, 8);
  if (g) {
    double ru = 0.0, wu = 0.0, rr = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+ : ru, wu, rr) if (len > CC_OMP_CHUNK)
    for (int64_t i = 0; i < len; i++) {
      double zi = n[i] + beta * z[i];
      double qi = m[i] + beta * q[i];
      double si = w[i] + beta * s[i];
      double pi = u[i] + beta * p[i];
      double ri = r[i] - alpha * si;
      double ui = u[i] - alpha * qi;
      double wi = w[i] - alpha * zi;
      z[i]      = zi;
      q[i]      = qi;
      s[i]      = si;
      p[i]      = pi;
      x[i] += alpha * pi;
      r[i] = ri;
      u[i] = ui;
      w[i] = wi;
      ru += ri * ui; /* gamma_{i+1} = (r, u) */
      wu += wi * ui; /* delta_{i+1} = (w, u) */
      rr += ri * ri; /* |r_{i+1}|^2 */
    }
    g[0] = ru, g[1] = wu, g[2] = rr;
    cc_count_op(k->timers, CC_T_DOT, 3);
  } else {
#pragma omp parallel for simd schedule(static) if (len > CC_OMP_CHUNK)
    for (int64_t i = 0; i < len; i++) {
      double zi = n[i] + beta * z[i];
      double qi = m[i] + beta * q[i];
      double si = w[i] + beta * s[i];
      double pi = u[i] + beta * p[i];
      z[i]      = zi;
      q[i]      = qi;
      s[i]      = si;
      p[i]      = pi;
      x[i] += alpha * pi;
      r[i] -= alpha * si;
      u[i] -= alpha * qi;
      w[i] -= alpha * zi;
    }
  }
  cc_timer_stop(k->timers, t0);
  cc_krylov_traffic_add(k, 1, 10, 8);
}

/* The reference (cc_krylov_opts.unfused): one pass per AXPY-type update, in the order of Alg.3;
 * the dots follow in cc_krylov_dots, one pass each. */
static void pipecg_update_unfused(cc_krylov_ctx *k, double alpha, double beta,
                                  const pipecg_vectors *v)
{
  cc_krylov_xpby(k, v->n, beta, v->z);   /* z_i = n_i + beta_i z_{i-1} */
  cc_krylov_xpby(k, v->m, beta, v->q);   /* q_i = m_i + beta_i q_{i-1} */
  cc_krylov_xpby(k, v->w, beta, v->s);   /* s_i = w_i + beta_i s_{i-1} */
  cc_krylov_xpby(k, v->u, beta, v->p);   /* p_i = u_i + beta_i p_{i-1} */
  cc_krylov_axpy(k, alpha, v->p, v->x);  /* x_{i+1} = x_i + alpha_i p_i */
  cc_krylov_axpy(k, -alpha, v->s, v->r); /* r_{i+1} = r_i - alpha_i s_i */
  cc_krylov_axpy(k, -alpha, v->q, v->u); /* u_{i+1} = u_i - alpha_i q_i */
  cc_krylov_axpy(k, -alpha, v->z, v->w); /* w_{i+1} = w_i - alpha_i z_i */
}

static cc_err pipecg_iterate(cc_krylov_ctx *k, double *b, double *x)
{
  double *r, *u, *w, *m, *n, *p, *s, *q, *z;
  CC_CALL(cc_krylov_vectors(k, 9, (double **[]){&r, &u, &w, &m, &n, &p, &s, &q, &z}));
  double *const state_vectors[] = {x, r, u, w,
                                   p, s, q, z}; /* in the order of pipecg_vector_names */
  _Static_assert(sizeof state_vectors / sizeof state_vectors[0] ==
                     sizeof pipecg_vector_names / sizeof pipecg_vector_names[0],
                 "one vector per declared name");
  const cc_bcrs *a          = k->a;
  const cc_comm_table *comm = k->comm;
  const int maxit           = k->opts->maxit;
  double sc[2]              = {0.0, 0.0}; /* gamma_{i-1}, alpha_{i-1} */
  int first                 = 1;          /* i = 0: beta = 0 */
  int it                    = k->start, exact;

  /* another operator (e.g. hdf5 on another rank count: ASDD's M^-1 differs): u, w, s, q, z and the
   * scalars hold the old M^-1 and A; start afresh from x alone (first = 1: beta = 0) */
  CC_CALL(cc_krylov_restart_exact(k, x, &exact));
  if (exact) {
    /* exact continuation from the top of iteration `it` (> 0) */
    CC_CALL(cc_krylov_restore(k, &pipecg_state, state_vectors, sc));
    first = 0;
  } else {
    CC_CALL(cc_krylov_residual(k, b, x, r));          /* r0 = b - A x0 */
    CC_CALL(cc_precond_apply(k->pc, &k->exec, r, u)); /* u0 = M^-1 r0 */
    CC_CALL(cc_spmv(&k->exec, a, comm, u, w));        /* w0 = A u0 */
  }

  const pipecg_vectors vec = {m, n, z, q, s, p, x, r, u, w};
  double g[4];    /* {gamma_i, delta, |r_i|^2} = {(r,u), (w,u), (r,r)}, (x,x) with the guard */
  int have_g = 0; /* g already computed by the previous iteration's fused pass */
  for (;;) {
    cc_reduction red;
    if (!have_g)
      cc_krylov_dots(k, 3, (const double *const[]){r, w, r}, (const double *const[]){u, u, r}, g);
    const int n_red = 3 + cc_krylov_gap_dot(k, x, &g[3]);
    CC_CALL(cc_krylov_post(k, g, n_red, &red));       /* MPI_Iallreduce (AR: MPI_Allreduce here) */
    CC_CALL(cc_precond_apply(k->pc, &k->exec, w, m)); /* m_i = M^-1 w_i, overlapped */
    CC_CALL(cc_spmv(&k->exec, a, comm, m, n));        /* n_i = A m_i, overlapped */
    CC_CALL(cc_krylov_wait(k, g, n_red, &red));       /* MPI_Wait */
    cc_krylov_gap_update(k, 4, g[3], g[2]); /* r's error comes through s, w, z: 4 recurrences */
    if (cc_krylov_converged(k, it, g[2])) return CC_OK; /* |r_i|/|b| < tol: x_i is the answer */
    if (it >= maxit) break;
    if (cc_krylov_breakdown(k, it, "(r,u)", g[0])) return CC_OK;
    double beta = 0.0, denom = g[1]; /* i = 0: alpha_0 = gamma_0 / delta */
    if (!first) {
      beta  = g[0] / sc[0];               /* beta_i = gamma_i / gamma_{i-1} */
      denom = g[1] - beta * g[0] / sc[1]; /* delta - beta_i gamma_i / alpha_{i-1} */
    }
    if (cc_krylov_breakdown(k, it, first ? "(w,u)" : "delta - beta gamma / alpha", denom))
      return CC_OK;
    double alpha = g[0] / denom;
    if (cc_krylov_breakdown(k, it, "alpha", alpha) ||
        (!first && cc_krylov_breakdown(k, it, "beta", beta)))
      return CC_OK;
    sc[0] = g[0];
    sc[1] = alpha;
    first = 0;
    it++;
    const int replace = cc_krylov_replace_due(k, it);
    if (k->unfused)
      pipecg_update_unfused(k, alpha, beta, &vec); /* the dots follow at the top */
    else /* fused: the dots of iteration it ride along, unless replacement recomputes r, u, w */
      pipecg_update(k, alpha, beta, &vec, replace ? NULL : g);
    have_g = !k->unfused;
    if (replace) {
      CC_CALL(cc_krylov_residual(k, b, x, r));          /* r = b - A x */
      CC_CALL(cc_precond_apply(k->pc, &k->exec, r, u)); /* u = M^-1 r */
      CC_CALL(cc_spmv(&k->exec, a, comm, u, w));        /* w = A u */
      CC_CALL(cc_spmv(&k->exec, a, comm, p, s));        /* s = A p */
      CC_CALL(cc_precond_apply(k->pc, &k->exec, s, q)); /* q = M^-1 s */
      CC_CALL(cc_spmv(&k->exec, a, comm, q, z));        /* z = A q */
      /* fused: the dots of the replaced r, u, w before the iteration ends, where the fused pass
       * counts them too (Table 1 per iteration stays exact whichever iteration ends a window) */
      if (!k->unfused)
        cc_krylov_dots(k, 3, (const double *const[]){r, w, r}, (const double *const[]){u, u, r}, g);
    }
    CC_CALL(cc_krylov_iteration_end(k, it, &pipecg_state, state_vectors, sc));
  }
  cc_krylov_maxit(k, it);
  return CC_OK;
}

/* the one reduction: {gamma, delta, |r|^2} and the guard's (x,x) */
static int pipecg_reduction_sizes(const cc_krylov_opts *o, int sizes[CC_KRYLOV_SIZES_MAX])
{
  sizes[0] = 3 + cc_krylov_gap_values(o);
  return 1;
}

const cc_krylov cc_krylov_pipecg = {
    .name         = "pipecg",
    .description  = "Alg.3 pipelined PCG (Ghysels & Vanroose)",
    .supports_iar = 1,
    .iterate      = pipecg_iterate,
    .table1       = {.spmv = 1, .precond = 1, .dot = 3, .axpy = 8, .reductions = 1},
    /* fused: one pass (the 8 updates and the 3 dots); unfused: 8 x (2 reads, 1 write) + dots
     * (r,u) (w,u) (r,r) */
    .vector_fused    = {.passes = 1, .reads = 10, .writes = 8},
    .vector_unfused  = {.passes = 11, .reads = 21, .writes = 8},
    .reduction_sizes = pipecg_reduction_sizes,
};
