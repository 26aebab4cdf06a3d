/* test_mesh_export.c: build the GeoFEM/Cube mesh and write its matrix (after boundary conditions)
 * in Matrix Market format, for tests/mesh/test_mesh_mmcompare.c to compare across partitions.
 * Usage: test_mesh_export nx ny nz box|metis prefix   (writes prefix_np<P>.mtx)
 */
#include "cc_mesh.h"
#include "cc_test.h"

#include <stdlib.h>

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
  if (err) {
    cc_error_print(stderr, rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0)
    printf("wrote %s (%dx%dx%d, %s, %d ranks, edge cut %lld)\n", path, p.nx, p.ny, p.nz, argv[4],
           size, (long long)m.edge_cut);
  cc_free(&b);
  cc_bcrs_free(&a);
  cc_mesh_free(&m);
  MPI_Finalize();
  return 0;
}
