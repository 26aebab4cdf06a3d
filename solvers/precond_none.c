/* precond_none.c: identity preconditioner z = r (unpreconditioned CG). */
#include "cc_precond_impl.h"

typedef struct {
  int64_t n_dof; /* 3 * internal nodes */
} none_ctx;

static cc_err none_apply(cc_precond *pc, const cc_exec *ex, double *r, double *z)
{
  (void)ex; /* no polls, no inner regions */
  const none_ctx *ctx = pc->ctx;
  const int64_t n     = ctx->n_dof;
  /* z <- r */
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) z[i] = r[i];
  return CC_OK;
}

static void none_destroy(cc_precond *pc)
{
  cc_free(&pc->ctx);
}

cc_err cc_precond_create_none(const cc_precond_params *params, const cc_bcrs *a,
                              const cc_comm_table *comm, cc_precond *pc)
{
  (void)params;
  (void)comm;
  CC_CALL(cc_precond_init(pc, "none", sizeof(none_ctx), none_apply, none_destroy));
  none_ctx *ctx = pc->ctx;
  ctx->n_dof    = 3 * (int64_t)a->n_rows;
  return CC_OK;
}
