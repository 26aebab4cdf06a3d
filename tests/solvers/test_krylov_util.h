/* test_krylov_util.h: shared set-up of the kernel / Krylov unit tests: MPI (MULTIPLE when MPICH's
 * async progress is requested, else FUNNELED), a small cube from cc_mesh_create + cc_mesh_assemble,
 * deterministic vectors by global id, and a failure counter reduced over ranks.
 */
#ifndef TEST_KRYLOV_UTIL_H
#define TEST_KRYLOV_UTIL_H

#include "cc_mesh.h"
#include "cc_solvers.h"
#include "cc_test.h"

#include <math.h>
#include <stdlib.h>

static int tk_size                    = 1;
static cc_partition_kind tk_partition = CC_PARTITION_BOX; /* --partition box|metis */

typedef struct {
  cc_mesh_params params;
  cc_mesh mesh;
  cc_bcrs a;
  double *b;
} tk_problem;

static inline int tk_env_true(const char *name)
{
  const char *v = getenv(name);
  return v && (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true"));
}

static inline void tk_init(int *argc, char ***argv)
{
  /* MPICH only starts its progress thread under MPI_THREAD_MULTIPLE (as the driver does) */
  int want = tk_env_true("MPIR_CVAR_ASYNC_PROGRESS") ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
  int provided;
  MPI_Init_thread(argc, argv, want, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &test_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &tk_size);
  if (provided < want && test_rank == 0)
    fprintf(stderr, "note: thread level %d provided, %d requested\n", provided, want);
  if (want == MPI_THREAD_MULTIPLE && test_rank == 0)
    printf("MPIR_CVAR_ASYNC_PROGRESS set: MPI_THREAD_MULTIPLE requested, %s provided\n",
           provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "less");
}

/* Value of the last "--key V" in argv (later ones override), or def. */
static inline const char *tk_arg(int argc, char **argv, const char *key, const char *def)
{
  const char *value = def;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], key)) value = argv[i + 1];
  return value;
}

static inline void tk_problem_create_on(int nx, int ny, int nz, MPI_Comm comm, tk_problem *p)
{
  int size;
  MPI_Comm_size(comm, &size);
  cc_mesh_params_default(&p->params);
  p->params.nx = nx;
  p->params.ny = ny;
  p->params.nz = nz;
  if (size > 1) p->params.partition = tk_partition;
  TEST_CALL(cc_mesh_params_validate(&p->params, size, 0));
  TEST_CALL(cc_mesh_create(&p->params, comm, &p->mesh));
  TEST_CALL(cc_mesh_assemble(&p->mesh, &p->params, &p->a, &p->b));
}

static inline void tk_problem_free(tk_problem *p)
{
  cc_bcrs_free(&p->a);
  cc_free(&p->b);
  cc_mesh_free(&p->mesh);
}

/* v[3 n_total]: internal part from test_value, halo part NaN (an exchange must overwrite it). */
static inline double *tk_vector(const tk_problem *p, int seed)
{
  double *v = NULL;
  TEST_CALL(cc_malloc(3 * (size_t)p->mesh.n_total, sizeof(double), &v));
  for (int i = 0; i < p->mesh.n_total; i++)
    for (int c = 0; c < 3; c++)
      v[3 * i + c] = i < p->mesh.n_internal ? test_value(p->mesh.global_id[i], c, seed) : NAN;
  return v;
}

/* global (x, y) over the internal DOFs */
static inline double tk_dot(const tk_problem *p, const double *x, const double *y)
{
  return test_dot(3 * (int64_t)p->a.n_rows, x, y);
}

#endif
