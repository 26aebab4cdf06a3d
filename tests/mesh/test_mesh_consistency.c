/* test_mesh_consistency.c: the linear displacement field of the GeoFEM/Cube problem is reproduced
 * exactly by tri-linear elements, so A u_exact = b to rounding: ||b - A u_exact||_inf / ||b||_inf
 * < 1e-12 on every partition. Usage: test_mesh_consistency box|metis
 */
#include "cc_mesh.h"
#include "cc_test.h"

#include <math.h>
#include <stdlib.h>

/* Returns the relative residual of the exact solution and checks the analytic error helper. */
static double exact_residual(const cc_mesh_params *params, double *analytic_err)
{
  cc_mesh mesh;
  cc_bcrs a;
  double *b, *u, *r;
  TEST_CALL(cc_mesh_create(params, MPI_COMM_WORLD, &mesh));
  TEST_CALL(cc_mesh_assemble(&mesh, params, &a, &b));
  TEST_CALL(cc_malloc(3 * (size_t)mesh.n_total, sizeof(double), &u));
  TEST_CALL(cc_malloc(3 * (size_t)mesh.n_internal, sizeof(double), &r));
  /* exact values on internal AND external nodes (no halo exchange needed) */
  for (int v = 0; v < mesh.n_total; v++)
    cc_mesh_exact_solution(params, mesh.global_id[v], u + 3 * v);
  double norm[2] = {0, 0}; /* ||r||_inf, ||b||_inf */
  for (int v = 0; v < a.n_rows; v++)
    for (int rr = 0; rr < 3; rr++) {
      double s = b[3 * v + rr]; /* r = b - A u */
      for (int64_t t = a.row_ptr[v]; t < a.row_ptr[v + 1]; t++)
        for (int c = 0; c < 3; c++) s -= a.val[9 * t + 3 * rr + c] * u[3 * a.col_idx[t] + c];
      norm[0] = fmax(norm[0], fabs(s));
      norm[1] = fmax(norm[1], fabs(b[3 * v + rr]));
    }
  MPI_Allreduce(MPI_IN_PLACE, norm, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  TEST_CALL(cc_mesh_analytic_error(&mesh, params, u, analytic_err));
  cc_free(&u);
  cc_free(&r);
  cc_free(&b);
  cc_bcrs_free(&a);
  cc_mesh_free(&mesh);
  return norm[1] > 0 ? norm[0] / norm[1] : INFINITY;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 2 || (strcmp(argv[1], "box") && strcmp(argv[1], "metis"))) {
    if (rank == 0) fprintf(stderr, "usage: %s box|metis\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int sizes[3][3] = {{4, 4, 4}, {9, 5, 7}, {6, 3, 5}};
  const double nus[2]   = {0.0, 0.3};
  int failures          = 0;
  for (int s = 0; s < 3; s++)
    for (int q = 0; q < 2; q++) {
      cc_mesh_params params;
      cc_mesh_params_default(&params);
      params.nx = sizes[s][0], params.ny = sizes[s][1], params.nz = sizes[s][2];
      params.nu        = nus[q];
      params.E         = 2.5;
      params.traction  = 0.7;
      params.partition = strcmp(argv[1], "box") ? CC_PARTITION_METIS : CC_PARTITION_BOX;
      double aerr, rel = exact_residual(&params, &aerr);
      int ok = rel < 1e-12 && aerr == 0.0;
      failures += !ok;
      if (rank == 0)
        printf("%s %dx%dx%d nu=%.1f %s np=%d: |b - A u_exact|/|b| = %.3e, analytic error %.3e\n",
               ok ? "PASS" : "FAIL", params.nx, params.ny, params.nz, params.nu, argv[1], size, rel,
               aerr);
    }
  MPI_Finalize();
  return failures ? 1 : 0;
}
