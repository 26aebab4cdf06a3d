/* precond.c: preconditioner registry (name -> create function, PETSc style), the timed apply
 * wrapper and the 3x3 block inverse shared by the block Jacobi and SGS preconditioners.
 */
#include "cc_precond_impl.h"

#include <limits.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>

const cc_precond_kind cc_precond_list[] = {
    {"none", "no preconditioner (plain CG)", cc_precond_create_none, 0},
    {"jacobi", "3x3 block Jacobi", cc_precond_create_jacobi, 0},
    {"sgs", "multicolor SGS over the whole rank (halo frozen)", cc_precond_create_sgs, 1},
    {"asdd", "additive Schwarz of multicolor SGS", cc_precond_create_asdd, 1},
    {NULL, NULL, NULL, 0},
};

const cc_mode_kind cc_precision_list[CC_PRECISION_COUNT] = {
    [CC_PRECISION_DOUBLE] = {"double", "blocks and sweeps in double (the paper's)"},
    [CC_PRECISION_SINGLE] = {"single", "float copies of L, U, D^-1 (sgs, asdd); SpMV, vectors, "
                                       "reductions stay double"},
    [CC_PRECISION_HALF]   = {"half", "binary16 copies of L, U, D^-1 scaled per block row (sgs, "
                                       "asdd); SpMV, vectors, reductions stay double"},
};

/* The table of each precision's sweeps (cc_precond_impl.h), indexed as cc_precision_list */
static const cc_sgs_ops *const sgs_ops_list[CC_PRECISION_COUNT] = {
    [CC_PRECISION_DOUBLE] = &cc_sgs_ops_double,
    [CC_PRECISION_SINGLE] = &cc_sgs_ops_single,
    [CC_PRECISION_HALF]   = &cc_sgs_ops_half,
};

const cc_sgs_ops *cc_sgs_ops_of(cc_precision p)
{
  return p >= 0 && p < CC_PRECISION_COUNT ? sgs_ops_list[p] : NULL;
}

cc_err cc_precond_init(cc_precond *pc, const char *name, size_t ctx_size,
                       cc_err (*apply)(cc_precond *pc, const cc_exec *ex, double *r, double *z),
                       void (*destroy)(cc_precond *pc))
{
  CC_CALL(cc_calloc(1, ctx_size, &pc->ctx));
  pc->name    = name;
  pc->apply   = apply;
  pc->destroy = destroy;
  return CC_OK;
}

cc_err cc_precond_create(const cc_precond_params *params, const cc_bcrs *a,
                         const cc_comm_table *comm, cc_precond **pc)
{
  *pc = NULL;
  CC_CHECK(params && params->name, CC_ERR_ARG, "preconditioner name missing");
  cc_precond_create_fn create = NULL;
  char known[128]             = "";
  for (int i = 0; cc_precond_list[i].name; i++) {
    if (strcmp(params->name, cc_precond_list[i].name) == 0) create = cc_precond_list[i].create;
    size_t used = strlen(known);
    snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", cc_precond_list[i].name);
  }
  CC_CHECK(create, CC_ERR_ARG, "unknown preconditioner '%s' (known: %s)", params->name, known);
  CC_CHECK(cc_sgs_ops_of(params->precision) != NULL, CC_ERR_ARG,
           "preconditioner '%s': precision %d unknown", params->name, (int)params->precision);
  for (int i = 0; cc_precond_list[i].name; i++)
    CC_CHECK(strcmp(params->name, cc_precond_list[i].name) ||
                 params->precision == CC_PRECISION_DOUBLE || cc_precond_list[i].has_reduced,
             CC_ERR_ARG, "preconditioner '%s' has no %s-precision form (only sgs and asdd)",
             params->name, cc_precision_list[params->precision].name);
  if (params->ordering)
    CC_CHECK(params->ordering->n_nodes == a->n_rows, CC_ERR_ARG,
             "ordering '%s' has %d nodes but the matrix has %d internal rows",
             params->ordering->kind, params->ordering->n_nodes, a->n_rows);

  cc_precond *p = NULL;
  CC_CALL(cc_calloc(1, sizeof *p, &p));
  cc_err err = create(params, a, comm, p); /* the caller times the set-up (CC_T_SETUP) */
  if (err) {
    if (p->destroy) p->destroy(p);
    cc_free(&p);
    return cc_error_push(err, __FILE__, __LINE__, __func__, "creating preconditioner '%s'",
                         params->name);
  }
  *pc = p;
  return CC_OK;
}

cc_err cc_precond_apply(cc_precond *pc, const cc_exec *ex, double *r, double *z)
{
  /* the sweeps read r while writing z (restrict): in-place application is not supported */
  CC_CHECK(r != z, CC_ERR_ARG, "preconditioner '%s' applied in place (r == z)", pc->name);
  cc_timer_token tok = cc_timer_start(cc_exec_timers(ex), CC_T_PRECOND);
  cc_err err         = pc->apply(pc, ex, r, z);
  cc_timer_stop(cc_exec_timers(ex), tok);
  CC_CHECK(err == CC_OK, err, "applying preconditioner '%s'", pc->name);
  return CC_OK;
}

void cc_precond_destroy(cc_precond **pc)
{
  if (!*pc) return;
  if ((*pc)->destroy) (*pc)->destroy(*pc);
  cc_free(pc);
}

/* Smallest pivot of a's pivoted LU after each row is divided by its own largest |entry|: 1 for a
 * diagonal block, 0 for a singular one, the same for a and s*a (and for rows scaled apart: a block
 * whose rows differ by 1e11 in scale is not near-singular). Inputs finite. */
static double block3_scaled_pivot(const double *a)
{
  double m[3][3];
  for (int r = 0; r < 3; r++) {
    double rmax = fmax(fabs(a[3 * r]), fmax(fabs(a[3 * r + 1]), fabs(a[3 * r + 2])));
    if (rmax == 0.0) return 0.0; /* a zero row */
    for (int c = 0; c < 3; c++) m[r][c] = a[3 * r + c] / rmax;
  }
  double pmin = INFINITY;
  for (int k = 0; k < 3; k++) {
    int piv = k; /* partial pivoting: the largest |m[r][k]| of the remaining rows */
    for (int r = k + 1; r < 3; r++)
      if (fabs(m[r][k]) > fabs(m[piv][k])) piv = r;
    for (int c = 0; c < 3; c++) {
      double t = m[k][c];
      m[k][c] = m[piv][c], m[piv][c] = t;
    }
    pmin = fmin(pmin, fabs(m[k][k]));
    if (m[k][k] == 0.0) return 0.0;
    for (int r = k + 1; r < 3; r++) {
      double l = m[r][k] / m[k][k];
      for (int c = k; c < 3; c++) m[r][c] -= l * m[k][c]; /* row_r <- row_r - l row_k */
    }
  }
  return pmin;
}

int cc_block3_inverse(const double *a, double *inv)
{
  for (int k = 0; k < 9; k++)
    if (!isfinite(a[k])) return CC_BLOCK3_NONFINITE;
  if (!(block3_scaled_pivot(a) > CC_BLOCK3_PIVOT_TOL)) return CC_BLOCK3_SINGULAR;
  /* a^-1 = s (s a)^-1 with s a power of 2 bringing max|a_ij| to [0.5, 1): exact, so no overflow of
   * the cubic determinant at any E, and the adjugate of a symmetric block stays bitwise symmetric
   */
  double amax = 0.0;
  for (int k = 0; k < 9; k++) amax = fmax(amax, fabs(a[k]));
  int e;
  (void)frexp(amax, &e);
  double s = ldexp(1.0, -e), b[9];
  for (int k = 0; k < 9; k++) b[k] = s * a[k];
  /* adjugate / determinant (cofactor expansion) of b */
  double c00 = b[4] * b[8] - b[5] * b[7];
  double c01 = b[5] * b[6] - b[3] * b[8];
  double c02 = b[3] * b[7] - b[4] * b[6];
  double det = b[0] * c00 + b[1] * c01 + b[2] * c02;
  double id  = s / det; /* s det(b)^-1 */
  inv[0]     = c00 * id;
  inv[1]     = (b[2] * b[7] - b[1] * b[8]) * id;
  inv[2]     = (b[1] * b[5] - b[2] * b[4]) * id;
  inv[3]     = c01 * id;
  inv[4]     = (b[0] * b[8] - b[2] * b[6]) * id;
  inv[5]     = (b[2] * b[3] - b[0] * b[5]) * id;
  inv[6]     = c02 * id;
  inv[7]     = (b[1] * b[6] - b[0] * b[7]) * id;
  inv[8]     = (b[0] * b[4] - b[1] * b[3]) * id;
  for (int k = 0; k < 9; k++)
    if (!isfinite(inv[k])) return CC_BLOCK3_OVERFLOW; /* a block near DBL_MIN in scale */
  return CC_BLOCK3_OK;
}

cc_err cc_block3_error(const double *a, int node, const cc_ordering *ord, const cc_comm_table *comm)
{
  int rank = comm ? comm->rank : 0;
  int orig = ord && ord->old_of_new ? ord->old_of_new[node] : node;
  int bad  = -1;
  for (int k = 0; k < 9 && bad < 0; k++)
    if (!isfinite(a[k])) bad = k;
  /* a non-finite entry is not a singular block: say which entry and whether NaN or overflow */
  CC_CHECK(bad < 0, CC_ERR_NUMERIC,
           "3x3 diagonal block at rank %d, local node %d (original local id %d) holds %s: "
           "entry (%d, %d) = %g",
           rank, node, orig, isnan(a[bad]) ? "NaN" : "an overflowed value (Inf)", bad / 3, bad % 3,
           a[bad]);
  double pivot = block3_scaled_pivot(a);
  CC_CHECK(pivot > CC_BLOCK3_PIVOT_TOL, CC_ERR_NUMERIC,
           "singular 3x3 diagonal block at rank %d, local node %d (original local id %d): "
           "smallest pivot %.3g relative to its row (need > %.3g), diagonal = (%g, %g, %g)",
           rank, node, orig, pivot, CC_BLOCK3_PIVOT_TOL, a[0], a[4], a[8]);
  CC_FAIL(CC_ERR_NUMERIC,
          "3x3 diagonal block at rank %d, local node %d (original local id %d): its inverse "
          "overflows (diagonal = (%g, %g, %g))",
          rank, node, orig, a[0], a[4], a[8]);
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
  if (bad != INT_MAX) CC_CALL(cc_block3_error(a->val + 9 * a->diag_pos[bad], bad, ord, comm));
  return CC_OK;
}
