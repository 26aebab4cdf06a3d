/* test_precond_split.c: the split storage (lower blocks apart, cc_bcrs l_ptr) that cubecg
 * assembles changes no result: SpMV (OpenMP and reference) and the SGS / ASDD preconditioners give
 * bitwise the same vectors on the split and the plain matrix, for every ordering. */
#include "cc_mesh.h"
#include "cc_test.h"
#include "cc_solvers.h"

#include <math.h>
#include <stdlib.h>

static long compare(const char *what, const char *ordering, int64_t n, const double *x,
                    const double *y)
{
  long bad = 0;
  for (int64_t i = 0; i < n; i++) bad += x[i] != y[i];
  if (bad)
    fprintf(stderr, "FAIL %s (%s): %ld of %lld values differ\n", what, ordering, bad, (long long)n);
  return bad;
}

int main(int argc, char **argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const char *orderings[] = {"cm-rcm", "mc", "rcm", "natural"};
  long failures           = 0;
  for (int o = 0; o < 4; o++) {
    cc_mesh_params params;
    cc_mesh_params_default(&params);
    params.nx = 9, params.ny = 8, params.nz = 7;
    cc_mesh mesh;
    cc_bcrs pattern, plain, split;
    double *b0, *b1;
    cc_ordering ord;
    TEST_CALL(cc_mesh_create(&params, MPI_COMM_WORLD, &mesh));
    TEST_CALL(cc_mesh_pattern(&mesh, &pattern));
    TEST_CALL(cc_ordering_create(orderings[o], 4, &pattern, &ord));
    cc_ordering_apply_comm(&ord, &mesh.comm);
    const int *groups = ord.n_colors > 0 ? ord.color_ptr : NULL;
    TEST_CALL(cc_mesh_assemble_ordered(&mesh, &params, ord.new_of_old, ord.old_of_new, ord.n_colors,
                                       groups, 0, &plain, &b0));
    TEST_CALL(cc_mesh_assemble_ordered(&mesh, &params, ord.new_of_old, ord.old_of_new, ord.n_colors,
                                       groups, 1, &split, &b1));
    int64_t n = 3 * (int64_t)mesh.n_total, ni = 3 * (int64_t)mesh.n_internal;
    double *x, *y0, *y1;
    TEST_CALL(cc_calloc(n, sizeof(double), &x));
    TEST_CALL(cc_calloc(n, sizeof(double), &y0));
    TEST_CALL(cc_calloc(n, sizeof(double), &y1));
    for (int64_t i = 0; i < n; i++) x[i] = 1.0 + 0.37 * (double)((i * 7919) % 101);
    cc_spmv_local(NULL, &plain, x, y0);
    cc_spmv_local(NULL, &split, x, y1);
    failures += compare("spmv_local", orderings[o], ni, y0, y1);
    cc_spmv_ref(&split, x, y1);
    /* the reference sums in another order: equal to rounding, not bitwise */
    for (int64_t i = 0; i < ni; i++) failures += fabs(y0[i] - y1[i]) > 1e-12 * (1 + fabs(y0[i]));
    const char *names[] = {"sgs", "asdd"};
    for (int p = 0; p < 2; p++) {
      cc_precond_params pp = {.name = names[p], .asdd_iters = 2, .ordering = &ord};
      cc_precond *pc0, *pc1;
      TEST_CALL(cc_precond_create(&pp, &plain, &mesh.comm, &pc0));
      TEST_CALL(cc_precond_create(&pp, &split, &mesh.comm, &pc1));
      TEST_CALL(cc_precond_apply(pc0, NULL, x, y0));
      TEST_CALL(cc_precond_apply(pc1, NULL, x, y1));
      failures += compare(names[p], orderings[o], ni, y0, y1);
      cc_precond_destroy(&pc0);
      cc_precond_destroy(&pc1);
    }
    cc_free(&x), cc_free(&y0), cc_free(&y1), cc_free(&b0), cc_free(&b1);
    cc_bcrs_free(&pattern), cc_bcrs_free(&plain), cc_bcrs_free(&split);
    cc_ordering_free(&ord);
    cc_mesh_free(&mesh);
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("%s: split vs plain storage, %ld mismatches\n", failures ? "FAIL" : "PASS", failures);
  MPI_Finalize();
  return failures != 0;
}
