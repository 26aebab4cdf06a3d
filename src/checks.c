/* checks.c: verification inside every run, as HPCG does: A and M^-1 must be symmetric (x'Ay = y'Ax
 * to rounding, scaled by the norms) and M^-1 positive (x'M^-1 x > 0); recorded by run.c. */
#include "checks.h"

#include <math.h>
#include <stdint.h>

/* Deterministic pseudo-random vector in [-1, 1] (splitmix64 of the seed and index). */
static void fill_random(double *v, int64_t n, uint64_t seed)
{
  for (int64_t i = 0; i < n; i++)
    v[i] = cc_splitmix64_unit(seed + CC_SPLITMIX64_GAMMA * (uint64_t)(i + 1));
}

static cc_err global_dots(MPI_Comm comm, int64_t n, const double *const pairs[][2], int count,
                          double *out)
{
  for (int k = 0; k < count; k++) {
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += pairs[k][0][i] * pairs[k][1][i];
    out[k] = sum;
  }
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_DOUBLE, MPI_SUM, comm));
  return CC_OK;
}

/* |x'Fy - y'Fx| / (|x||Fy| + |y||Fx|) for F = A or M^-1; bound 1e-12 (about 5000 eps). */
cc_err cc_checks_symmetry(cc_run *run, const cc_bcrs *a, const cc_comm_table *comm, cc_precond *pc)
{
  int64_t n_local = 3 * (int64_t)a->n_rows, n_all = 3 * (int64_t)a->n_cols;
  double *x, *y, *fx, *fy;
  CC_CALL(cc_calloc(n_all, sizeof(double), &x));
  CC_CALL(cc_calloc(n_all, sizeof(double), &y));
  CC_CALL(cc_calloc(n_all, sizeof(double), &fx));
  CC_CALL(cc_calloc(n_all, sizeof(double), &fy));
  fill_random(x, n_local, 1000 + (uint64_t)comm->rank);
  fill_random(y, n_local, 5000 + (uint64_t)comm->rank);

  for (int op = 0; op < 2; op++) {
    if (op == 0) {
      /* no timers (NULL): the checks are not part of any stage's counts */
      CC_CALL(cc_spmv(NULL, a, comm, x, fx));
      CC_CALL(cc_spmv(NULL, a, comm, y, fy));
    } else {
      CC_CALL(cc_precond_apply(pc, NULL, x, fx));
      CC_CALL(cc_precond_apply(pc, NULL, y, fy));
    }
    const double *const pairs[][2] = {{x, fy},  {y, fx},  {x, x}, {y, y},
                                      {fx, fx}, {fy, fy}, {x, fx}};
    double d[7];
    CC_CALL(global_dots(comm->comm, n_local, pairs, 7, d));
    double scale = sqrt(d[2]) * sqrt(d[5]) + sqrt(d[3]) * sqrt(d[4]);
    double asym  = scale > 0 ? fabs(d[0] - d[1]) / scale : 0;
    cc_run_add_check(run, op == 0 ? "spmv_symmetry" : "precond_symmetry", asym, 1e-12);
    /* x'Fx > 0: report -x'Fx/(|x||Fx|) against bound 0 (negative means positive definite here) */
    cc_run_add_check(run, op == 0 ? "spmv_positive" : "precond_positive",
                     -d[6] / (sqrt(d[2]) * sqrt(d[4]) + 1e-300), 0);
  }
  cc_free(&x);
  cc_free(&y);
  cc_free(&fx);
  cc_free(&fy);
  return CC_OK;
}
