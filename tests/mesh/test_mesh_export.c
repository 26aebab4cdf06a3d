/* test_mesh_export.c: build the GeoFEM/Cube mesh and write its matrix (after boundary conditions)
 * in Matrix Market format, for tests/mesh/test_mesh_mmcompare.c to compare across partitions.
 * Usage: test_mesh_export nx ny nz box|metis prefix   (writes prefix_np<P>.mtx)
 * It also writes the right-hand side (prefix_np<P>.rhs.mtx, a Matrix Market array) and checks that
 * the file holds 3 nx ny nz rows and, at rank 0's internal nodes, exactly rank 0's b.
 */
#include "cc_mesh.h"
#include "cc_test.h"

#include <stdlib.h>

/* Read the column back: n_dof rows, and b[3 i + c] exactly at global DOF 3 global_id[i] + c for
 * this rank's internal nodes. Returns the number of failed checks. */
static int check_rhs(const char *path, int64_t n_dof, const cc_mesh *m, const double *b)
{
  FILE *f = fopen(path, "r");
  char line[256];
  long long rows = 0, cols = 0;
  TEST_EXPECT(f != NULL, "cannot open %s", path);
  if (!f) return test_failures;
  TEST_EXPECT(fgets(line, sizeof line, f) &&
                  strcmp(line, "%%MatrixMarket matrix array real general\n") == 0,
              "%s: header %s", path, line);
  TEST_EXPECT(fscanf(f, "%lld %lld", &rows, &cols) == 2 && rows == n_dof && cols == 1,
              "%s: %lld x %lld, expected %lld x 1", path, rows, cols, (long long)n_dof);
  double *col  = calloc((size_t)n_dof, sizeof *col);
  int64_t read = 0;
  while (col && read < n_dof && fscanf(f, "%lf", &col[read]) == 1) read++;
  TEST_EXPECT(col && read == n_dof, "%s: %lld values, expected %lld", path, (long long)read,
              (long long)n_dof);
  TEST_EXPECT(fscanf(f, "%255s", line) == EOF, "%s: more after the last row", path);
  fclose(f);
  for (int i = 0; col && read == n_dof && i < 3 * m->n_internal; i++)
    TEST_EXPECT(col[3 * m->global_id[i / 3] + i % 3] == b[i], "%s: DOF %d: %.17g, b has %.17g",
                path, i, col[3 * m->global_id[i / 3] + i % 3], b[i]);
  free(col);
  return test_failures;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 6 || (strcmp(argv[4], "box") && strcmp(argv[4], "metis"))) {
    if (rank == 0) fprintf(stderr, "usage: %s nx ny nz box|metis prefix\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  cc_mesh_params p;
  cc_mesh_params_default(&p);
  p.nx = atoi(argv[1]), p.ny = atoi(argv[2]), p.nz = atoi(argv[3]);
  p.partition = strcmp(argv[4], "box") ? CC_PARTITION_METIS : CC_PARTITION_BOX;
  char path[4096];
  snprintf(path, sizeof path, "%s_np%d.mtx", argv[5], size);
  cc_mesh m;
  cc_bcrs a;
  double *b;
  cc_err err = cc_mesh_create(&p, MPI_COMM_WORLD, &m);
  if (!err) err = cc_mesh_assemble(&m, &p, &a, &b);
  if (!err) err = cc_mesh_export_matrix(&m, &a, path);
  char rhs[4200];
  snprintf(rhs, sizeof rhs, "%s_np%d.rhs.mtx", argv[5], size);
  if (!err) err = cc_mesh_export_vector(&m, b, rhs);
  if (err) {
    cc_error_print(stderr, rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0 && check_rhs(rhs, 3 * (int64_t)p.nx * p.ny * p.nz, &m, b))
    MPI_Abort(MPI_COMM_WORLD, 1);
  if (rank == 0)
    printf("wrote %s (%dx%dx%d, %s, %d ranks, edge cut %lld)\n", path, p.nx, p.ny, p.nz, argv[4],
           size, (long long)m.edge_cut);
  cc_free(&b);
  cc_bcrs_free(&a);
  cc_mesh_free(&m);
  MPI_Finalize();
  return 0;
}
