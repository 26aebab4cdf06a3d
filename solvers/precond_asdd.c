/* precond_asdd.c: additive Schwarz domain decomposition (GeoFEM ASDD, Nakajima 2003) around the
 * localized SGS B = M_loc^-1: z = B r; then (asdd_iters - 1) times: exchange z's halo,
 * t = r - A z (all local columns, halo included), z <- z + B t. With asdd_iters = 1 it is the
 * localized SGS; in general z = sum_{k<N} (I - B A)^k B r, symmetric since B is.
 *
 * The residual, two ways (--asdd-residual):
 *  - full (the study's): t = r - A z in a pass of its own over every block (the interior rows
 *    while z's halo is in flight), then the sweep pair on t;
 *  - fused (default): no pass of its own. The SGS of the correction w just computed,
 *    (E + L) y = t, (E + U) w = E y (E = (D^-1)^-1, the inverse of the stored D^-1), gives
 *    A w = L w + E y + E_ext w with E y = t - L y, so the next residual is
 *      t' = t - A w = L (y - w) - E_ext w,
 *    which needs L and the external blocks only. The backward sweep writes u = y - w (the
 *    D_i^-1 sum U z it subtracts anyway); the next forward sweep, which reads L anyway, takes
 *    L u into the same block loop (row i gathers u_j - y'_j of the rows before it), adds
 *    -E_ext w for the boundary rows after w's halo exchange, and U, D, r and t are not read.
 *    The full residual's matrix (A, or the stored A_f / A_h) and A' = E + L + U + E_ext differ in
 *    the diagonal blocks only: by the rounding of D^-1 (double: a few eps; single and half: the
 *    rounding of the stored D^-1, where the full residual has that of the stored D instead), so
 *    the operator is z = sum_k (I - B A')^k B r with
 *    A' = E + L + U + E_ext: symmetric, and for N = 2, B (2 B^-1 - A') B with
 *    2 B^-1 - A' = A' + 2 L E^-1 U: SPD whenever A' is.
 */
#include "cc_precond_impl.h"

typedef struct {
  cc_sgs sgs;
  int iters;
  const cc_bcrs *a;
  const cc_comm_table *comm;
  double *t; /* [3 n_cols] residual r - A z */
  double *w; /* [3 n_cols] correction B t */
  int fused; /* residual fused into the next forward sweep (t holds u = y - w) */
} asdd_ctx;

/* t = r - A_s z with the stored reduced-precision blocks A_s (A_f in float, A_h in binary16: the
 * table's residual_rows), in cc_spmv_halo's order: begin z's halo exchange, the interior rows
 * while it flies, wait, the boundary rows (without row classes: wait, every row). Timed as
 * cc_spmv_halo times ASDD's double residual. */
static cc_err residual_reduced_halo(const asdd_ctx *ctx, const cc_exec *ex, const double *r,
                                    double *z, double *t)
{
  const cc_bcrs *a   = ctx->a;
  const cc_sgs *s    = &ctx->sgs;
  cc_timers *tm      = cc_exec_timers(ex);
  cc_timer_token tok = cc_timer_start(tm, CC_T_PRECOND_HALO);
  cc_err err         = cc_halo_begin(ctx->comm, z);
  cc_timer_stop(tm, tok);
  CC_CALL(err);
  const int overlap = a->row_class != NULL; /* a rank without neighbours: all rows interior */
  int rc            = MPI_SUCCESS;
  if (overlap)
    rc = s->ops->residual_rows(s, ex, r, z, t, a->row_class, 0, a->n_interior, ctx->comm);
  tok = cc_timer_start_n(tm, CC_T_PRECOND_HALO, 0);
  err = rc == MPI_SUCCESS ? cc_halo_end(ctx->comm, z, tm, CC_T_PRECOND_HALO_WAIT) : CC_OK;
  cc_timer_stop(tm, tok);
  CC_MPI(rc); /* a failed test of the halo messages */
  CC_CALL(err);
  if (overlap)
    (void)s->ops->residual_rows(s, ex, r, z, t, a->row_class, a->n_interior, a->n_rows, NULL);
  else
    (void)s->ops->residual_rows(s, ex, r, z, t, NULL, 0, a->n_rows, NULL);
  return CC_OK;
}

/* z += w over the n internal values (both residuals' last step) */
static void add_correction(double *restrict z, const double *restrict w, int64_t n)
{
#pragma omp parallel for schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) z[i] += w[i];
}

/* the fused residual: z = B r, u = y - z; then w = B (L u - E_ext w_prev), z += w */
static cc_err asdd_apply_fused(asdd_ctx *ctx, const cc_exec *ex, const double *r, double *z)
{
  const int64_t n = 3 * (int64_t)ctx->a->n_rows;
  double *u = ctx->t, *w = ctx->w;
  cc_timers *tm = cc_exec_timers(ex);
  cc_sgs_apply_u(&ctx->sgs, ex, r, z, u); /* z <- B r, u <- y - z */
  for (int it = 1; it < ctx->iters; it++) {
    double *prev       = it == 1 ? z : w; /* the last correction: its halo for -E_ext w */
    cc_timer_token tok = cc_timer_start(tm, CC_T_PRECOND_HALO);
    cc_err err         = cc_halo_begin(ctx->comm, prev);
    if (err == CC_OK) err = cc_halo_end(ctx->comm, prev, tm, CC_T_PRECOND_HALO_WAIT);
    cc_timer_stop(tm, tok);
    CC_CHECK(err == CC_OK, err, "ASDD iteration %d: halo exchange of the correction", it);
    /* w <- B (L u - E_ext prev) (prev's internal part may be w itself: only its halo is read) */
    cc_sgs_asdd_step(&ctx->sgs, ex, u, prev, w, it + 1 < ctx->iters);
    add_correction(z, w, n); /* z <- z + w */
  }
  return CC_OK;
}

static cc_err asdd_apply(cc_precond *pc, const cc_exec *ex, double *r, double *z)
{
  asdd_ctx *ctx = pc->ctx;
  if (ctx->fused && ctx->iters > 1) return asdd_apply_fused(ctx, ex, r, z);
  const int64_t n    = 3 * (int64_t)ctx->a->n_rows;
  double *restrict t = ctx->t, *restrict w = ctx->w;
  cc_sgs_apply(&ctx->sgs, ex, r, z); /* z <- B r */
  for (int it = 1; it < ctx->iters; it++) {
    cc_err err;
    if (ctx->sgs.ops->residual_rows) {
      err = residual_reduced_halo(ctx, ex, r, z, t); /* t <- r - A_s z, interior rows first */
      CC_CHECK(err == CC_OK, err, "ASDD iteration %d: %s residual with the halo exchange of z", it,
               cc_precision_list[ctx->sgs.precision].name);
    } else {
      /* t <- r - A z in one pass, z's halo exchanged behind the interior rows (row classes) */
      err = cc_spmv_halo(ex, ctx->a, ctx->comm, z, r, t, CC_T_PRECOND_HALO, CC_T_PRECOND_HALO_WAIT);
      CC_CHECK(err == CC_OK, err, "ASDD iteration %d: residual with the halo exchange of z", it);
    }
    cc_sgs_apply(&ctx->sgs, ex, t, w); /* w <- B t */
    add_correction(z, w, n);           /* z <- z + w */
  }
  return CC_OK;
}

static void asdd_destroy(cc_precond *pc)
{
  asdd_ctx *ctx = pc->ctx;
  if (ctx) {
    cc_sgs_free(&ctx->sgs);
    cc_free(&ctx->t);
    cc_free(&ctx->w);
  }
  cc_free(&pc->ctx);
}

cc_err cc_precond_create_asdd(const cc_precond_params *params, const cc_bcrs *a,
                              const cc_comm_table *comm, cc_precond *pc)
{
  CC_CHECK(params->asdd_iters >= 1, CC_ERR_ARG, "asdd_iters = %d, must be >= 1",
           params->asdd_iters);
  CC_CHECK(comm != NULL, CC_ERR_ARG, "ASDD needs the communication table");
  CC_CALL(cc_precond_init(pc, "asdd", sizeof(asdd_ctx), asdd_apply, asdd_destroy));
  asdd_ctx *ctx       = pc->ctx;
  ctx->iters          = params->asdd_iters;
  ctx->a              = a;
  ctx->comm           = comm;
  ctx->fused          = !params->asdd_full_residual;
  const int64_t n_all = 3 * (int64_t)a->n_cols, n = 3 * (int64_t)a->n_rows;
  CC_CALL(cc_malloc((size_t)n_all, sizeof(double), &ctx->t));
  CC_CALL(cc_malloc((size_t)n_all, sizeof(double), &ctx->w));
  double *t = ctx->t, *w = ctx->w;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) t[i] = w[i] = 0.0; /* first touch as in apply */
  for (int64_t i = n; i < n_all; i++) t[i] = w[i] = 0.0;
  /* the sweeps' blocks in the preconditioner's precision (the reduced ones: the residual too) */
  CC_CALL(cc_sgs_setup_as(params->precision, a, params->ordering, params->sweep_chunk_rows, comm,
                          &ctx->sgs));
  const int64_t vectors = 2 * n_all * (int64_t)sizeof(double); /* t, w */
  pc->bytes             = cc_sgs_bytes(&ctx->sgs) + vectors;
  pc->bytes_double      = cc_sgs_bytes_double(a, ctx->sgs.n_colors, ctx->sgs.n_steps) + vectors;
  return CC_OK;
}

const cc_sgs *cc_precond_sgs(const cc_precond *pc, double **t, double **w)
{
  if (t) *t = NULL;
  if (w) *w = NULL;
  if (!pc || !pc->name) return NULL;
  if (!strcmp(pc->name, "sgs")) return pc->ctx;
  if (strcmp(pc->name, "asdd")) return NULL;
  asdd_ctx *ctx = pc->ctx;
  if (t) *t = ctx->t;
  if (w) *w = ctx->w;
  return &ctx->sgs;
}
