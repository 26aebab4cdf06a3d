/* test_precond_util.h: shared set-up of the ordering / preconditioner unit tests: MPI with
 * FUNNELED, a small cube from cc_mesh_create + cc_mesh_assemble, deterministic test vectors and a
 * failure counter reduced over ranks (a test fails when any rank saw a failure).
 */
#ifndef TEST_PRECOND_UTIL_H
#define TEST_PRECOND_UTIL_H

#include "cc_mesh.h"
#include "cc_solvers.h"
#include "cc_test.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

typedef struct {
  cc_mesh_params params;
  cc_mesh mesh;
  cc_bcrs a;
  double *b;
} tp_problem;

static inline void tp_init(int *argc, char ***argv)
{
  int provided;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &test_rank);
}

/* Parse "--nx N --ny N --nz N --partition box|metis" (other options are left to the caller). */
static inline void tp_problem_create(int argc, char **argv, tp_problem *p)
{
  cc_mesh_params_default(&p->params);
  p->params.nx = p->params.ny = p->params.nz = 8;
  for (int i = 1; i + 1 < argc; i++) {
    if (!strcmp(argv[i], "--nx")) p->params.nx = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--ny")) p->params.ny = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--nz")) p->params.nz = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--partition"))
      p->params.partition = strcmp(argv[i + 1], "metis") ? CC_PARTITION_BOX : CC_PARTITION_METIS;
  }
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  TEST_CALL(cc_mesh_params_validate(&p->params, size, 0));
  TEST_CALL(cc_mesh_create(&p->params, MPI_COMM_WORLD, &p->mesh));
  TEST_CALL(cc_mesh_assemble(&p->mesh, &p->params, &p->a, &p->b));
}

static inline void tp_problem_free(tp_problem *p)
{
  cc_bcrs_free(&p->a);
  cc_free(&p->b);
  cc_mesh_free(&p->mesh);
}

/* v[3 n_total]: internal part from test_value in the mesh's numbering, halo zero. */
static inline double *tp_vector(const tp_problem *p, int seed)
{
  double *v = NULL;
  TEST_CALL(cc_calloc(3 * (size_t)p->mesh.n_total, sizeof(double), &v));
  for (int i = 0; i < p->mesh.n_internal; i++)
    for (int c = 0; c < 3; c++) v[3 * i + c] = test_value(p->mesh.global_id[i], c, seed);
  return v;
}

/* global (x, y) over the internal DOFs */
static inline double tp_dot(const tp_problem *p, const double *x, const double *y)
{
  return test_dot(3 * (int64_t)p->a.n_rows, x, y);
}

/* v summed / maximised over all ranks */
static inline double tp_global_sum(double v)
{
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

static inline double tp_global_max(double v)
{
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

/* |x - y|_2 / |y|_2 over n values, all ranks */
static inline double tp_rel_diff(int64_t n, const double *x, const double *y)
{
  double d = 0.0, s = 0.0;
  for (int64_t i = 0; i < n; i++) d += (x[i] - y[i]) * (x[i] - y[i]), s += y[i] * y[i];
  d = tp_global_sum(d), s = tp_global_sum(s);
  return s > 0 ? sqrt(d / s) : sqrt(d);
}

/* z = M^-1 r with `threads` OpenMP threads */
static inline void tp_apply_with(cc_precond *pc, double *r, double *z, int threads)
{
  int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  TEST_CALL(cc_precond_apply(pc, NULL, r, z));
  omp_set_num_threads(saved);
}

/* The preconditioner `name` (ASDD with iters iterations, its residual fused or, full_residual 1,
 * in a pass of its own: cc_precond_params) in precision over a and ord */
static inline cc_precond *tp_make_residual(const char *name, int iters, cc_precision precision,
                                           int full_residual, const cc_bcrs *a,
                                           const cc_comm_table *comm, const cc_ordering *ord)
{
  cc_precond_params pp = {.name               = name,
                          .asdd_iters         = iters,
                          .ordering           = ord,
                          .precision          = precision,
                          .asdd_full_residual = full_residual};
  cc_precond *pc       = NULL;
  TEST_CALL(cc_precond_create(&pp, a, comm, &pc));
  return pc;
}

/* The same with the default (fused) residual */
static inline cc_precond *tp_make(const char *name, int iters, cc_precision precision,
                                  const cc_bcrs *a, const cc_comm_table *comm,
                                  const cc_ordering *ord)
{
  return tp_make_residual(name, iters, precision, 0, a, comm, ord);
}

#endif
