/* precond.c: preconditioner registry (name -> create function, PETSc style), the timed apply
 * wrapper and the 3x3 block inverse shared by the block Jacobi and SGS preconditioners.
 */
#include "cc_precond_impl.h"

#include <limits.h>

#include <math.h>
#include <stdlib.h>

static const struct {
  const char *name;
  cc_precond_create_fn create;
} cc_precond_table[] = {
    {"none", cc_precond_create_none},
    {"jacobi", cc_precond_create_jacobi},
    {"sgs", cc_precond_create_sgs},
    {"asdd", cc_precond_create_asdd},
};
#define CC_PRECOND_TABLE_N (int)(sizeof cc_precond_table / sizeof cc_precond_table[0])

cc_err cc_precond_create(const cc_precond_params *params, const cc_bcrs *a,
                         const cc_comm_table *comm, cc_precond **pc)
{
  *pc = NULL;
  CC_CHECK(params && params->name, CC_ERR_ARG, "preconditioner name missing");
  cc_precond_create_fn create = NULL;
  for (int i = 0; i < CC_PRECOND_TABLE_N; i++)
    if (strcmp(params->name, cc_precond_table[i].name) == 0) create = cc_precond_table[i].create;
  CC_CHECK(create, CC_ERR_ARG, "unknown preconditioner '%s' (known: none, jacobi, sgs, asdd)",
           params->name);
  if (params->ordering)
    CC_CHECK(params->ordering->n_nodes == a->n_rows, CC_ERR_ARG,
             "ordering '%s' has %d nodes but the matrix has %d internal rows",
             params->ordering->kind, params->ordering->n_nodes, a->n_rows);

  cc_precond *p = NULL;
  CC_CALL(cc_calloc(1, sizeof *p, &p));
  cc_timer_start(CC_T_SETUP);
  cc_err err = create(params, a, comm, p);
  cc_timer_stop(CC_T_SETUP);
  if (err) {
    if (p->destroy) p->destroy(p);
    cc_free(&p);
    return cc_error_push(err, __FILE__, __LINE__, __func__, "creating preconditioner '%s'",
                         params->name);
  }
  *pc = p;
  return CC_OK;
}

cc_err cc_precond_apply(cc_precond *pc, double *r, double *z)
{
  /* the sweeps read r while writing z (restrict): in-place application is not supported */
  CC_CHECK(r != z, CC_ERR_ARG, "preconditioner '%s' applied in place (r == z)", pc->name);
  cc_timer_start(CC_T_PRECOND);
  cc_err err = pc->apply(pc, r, z);
  cc_timer_stop(CC_T_PRECOND);
  CC_CHECK(err == CC_OK, err, "applying preconditioner '%s'", pc->name);
  return CC_OK;
}

void cc_precond_destroy(cc_precond **pc)
{
  if (!*pc) return;
  if ((*pc)->destroy) (*pc)->destroy(*pc);
  cc_free(pc);
}

int cc_block3_inverse(const double *a, double *inv)
{
  /* adjugate / determinant (cofactor expansion); symmetric a gives a bitwise symmetric inverse */
  double c00  = a[4] * a[8] - a[5] * a[7];
  double c01  = a[5] * a[6] - a[3] * a[8];
  double c02  = a[3] * a[7] - a[4] * a[6];
  double det  = a[0] * c00 + a[1] * c01 + a[2] * c02;
  double amax = 0.0;
  for (int k = 0; k < 9; k++) amax = fmax(amax, fabs(a[k]));
  if (!(isfinite(det) && fabs(det) > 1e-14 * amax * amax * amax)) return 1;
  double id = 1.0 / det;
  inv[0]    = c00 * id;
  inv[1]    = (a[2] * a[7] - a[1] * a[8]) * id;
  inv[2]    = (a[1] * a[5] - a[2] * a[4]) * id;
  inv[3]    = c01 * id;
  inv[4]    = (a[0] * a[8] - a[2] * a[6]) * id;
  inv[5]    = (a[2] * a[3] - a[0] * a[5]) * id;
  inv[6]    = c02 * id;
  inv[7]    = (a[1] * a[6] - a[0] * a[7]) * id;
  inv[8]    = (a[0] * a[4] - a[1] * a[3]) * id;
  return 0;
}

cc_err cc_block3_singular_error(const double *a, int node, const cc_ordering *ord,
                                const cc_comm_table *comm)
{
  double c00 = a[4] * a[8] - a[5] * a[7];
  double det = a[0] * c00 + a[1] * (a[5] * a[6] - a[3] * a[8]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
  int rank   = comm ? comm->rank : 0;
  int orig   = ord && ord->old_of_new ? ord->old_of_new[node] : node;
  CC_FAIL(CC_ERR_NUMERIC,
          "singular 3x3 diagonal block at rank %d, local node %d (original local id %d): det = %g, "
          "diagonal = (%g, %g, %g)",
          rank, node, orig, det, a[0], a[4], a[8]);
}

cc_err cc_block3_invert_diagonal(const cc_bcrs *a, int n_groups, const int *groups,
                                 const cc_ordering *ord, const cc_comm_table *comm, double *dinv)
{
  int one_group[2] = {0, a->n_rows};
  const int *g     = groups ? groups : one_group;
  int n_g          = groups ? n_groups : 1;
  int bad          = INT_MAX;
#pragma omp parallel reduction(min : bad)
  for (int c = 0; c < n_g; c++) {
#pragma omp for schedule(static) nowait
    for (int i = g[c]; i < g[c + 1]; i++)
      if (cc_block3_inverse(a->val + 9 * a->diag_pos[i], dinv + 9 * (int64_t)i) && i < bad) bad = i;
  }
  if (bad != INT_MAX)
    CC_CALL(cc_block3_singular_error(a->val + 9 * a->diag_pos[bad], bad, ord, comm));
  return CC_OK;
}
