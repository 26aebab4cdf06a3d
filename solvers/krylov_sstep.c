#include "krylov_impl.h"
static cc_err sstep_solve(const cc_bcrs *a, const cc_comm_table *comm, cc_precond *pc, double *b,
                          double *x, const cc_krylov_opts *opts, cc_solve_result *result)
{
  cc_krylov_ctx k;
  CC_CALL(cc_krylov_begin(&k, &cc_krylov_sstep, a, comm, pc, b, x, opts, result));
  CC_CALL(cc_krylov_end(&k, b, x, CC_OK));
  return CC_OK;
}
const cc_krylov cc_krylov_sstep = {"sstep", "s-step CG", 1, sstep_solve, {1, 1, 3, 6, 1}, {6, 19, 6}, {6, 19, 6}, 1};
