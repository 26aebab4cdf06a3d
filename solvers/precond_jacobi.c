/* precond_jacobi.c: 3x3 block Jacobi z_i = D_i^-1 r_i with the inverted diagonal blocks stored
 * (point-block Jacobi of GeoFEM's BLOCK solvers). */
#include "cc_precond_impl.h"

typedef struct {
  int n;
  double *dinv; /* [9 n] */
} jacobi_ctx;

static cc_err jacobi_apply(cc_precond *pc, const cc_exec *ex, double *r, double *z)
{
  (void)ex; /* no polls, no inner regions */
  const jacobi_ctx *ctx     = pc->ctx;
  const double *restrict d  = ctx->dinv;
  const double *restrict rr = r;
  double *restrict zz       = z;
  const int n               = ctx->n;
  /* z_i <- D_i^-1 r_i */
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    const double *di = d + 9 * (int64_t)i;
    const double r0 = rr[3 * (int64_t)i], r1 = rr[3 * (int64_t)i + 1], r2 = rr[3 * (int64_t)i + 2];
    zz[3 * (int64_t)i]     = di[0] * r0 + di[1] * r1 + di[2] * r2;
    zz[3 * (int64_t)i + 1] = di[3] * r0 + di[4] * r1 + di[5] * r2;
    zz[3 * (int64_t)i + 2] = di[6] * r0 + di[7] * r1 + di[8] * r2;
  }
  return CC_OK;
}

static void jacobi_destroy(cc_precond *pc)
{
  jacobi_ctx *ctx = pc->ctx;
  if (ctx) cc_free(&ctx->dinv);
  cc_free(&pc->ctx);
}

cc_err cc_precond_create_jacobi(const cc_precond_params *params, const cc_bcrs *a,
                                const cc_comm_table *comm, cc_precond *pc)
{
  CC_CALL(cc_precond_init(pc, "jacobi", sizeof(jacobi_ctx), jacobi_apply, jacobi_destroy));
  jacobi_ctx *ctx = pc->ctx;
  ctx->n          = a->n_rows;
  CC_CALL(cc_malloc(9 * (size_t)a->n_rows, sizeof(double), &ctx->dinv));
  /* first touch by the threads that apply it (same static schedule) */
  CC_CALL(cc_block3_invert_diagonal(a, 1, NULL, params->ordering, comm, ctx->dinv));
  pc->bytes = pc->bytes_double = 9 * (int64_t)a->n_rows * (int64_t)sizeof(double);
  return CC_OK;
}

cc_err cc_precond_jacobi_blocks(const cc_bcrs *a, const cc_comm_table *comm, double *dinv)
{
  return cc_block3_invert_diagonal(a, 1, NULL, NULL, comm, dinv);
}
