/* test_io_export.c: the solution export (HDF5 /displacement, /coordinates,
 * /deformed_coordinates [N][3], /cells [C][8] + XDMF Hexahedron grid) from a shuffled layout, read
 * back serially on rank 0 and compared with the values each global node was given; and the hdf5
 * checkpoint's state.xmf (ParaView view) beside state.h5. */
#include "io_internal.h" /* io_h5_* to read back without the HDF5 headers */
#include "test_io_util.h"

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  TIO_CHECK(f != NULL, "cannot open %s", path);
  static char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n]  = '\0';
  fclose(f);
  return text;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  TIO_CHECK(argc == 2, "usage: %s DIR", argv[0]);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[900], path[1100];
  snprintf(dir, sizeof dir, "%s_np%d", argv[1], size);
  tio_clean_dir(MPI_COMM_WORLD, dir);
  const int nx = 5, ny = 4, nz = 3; /* nz < 4 ranks: some ranks own no plane of the output */
  cc_io_layout layout;
  int64_t *ids;
  tio_layout(MPI_COMM_WORLD, (int64_t)nx * ny * nz, 7, &layout, &ids);
  cc_io_state state;
  tio_state(&layout, 1, 3, 0, &state);
  /* FILE without .h5: FILE.h5, FILE.xmf and FILE-deformed.xmf */
  snprintf(path, sizeof path, "%s/solution", dir);
  cc_io_export_params ep = {
      .nx = nx, .ny = ny, .nz = nz, .E = 2.5, .nu = 0.25, .traction = 3, .deformed = true};
  TIO_OK(cc_io_export_solution(&layout, &ep, state.vector[0], path));
  cc_io_export_params wrong_size = ep;
  wrong_size.nx                  = nx + 1;
  cc_err bad = cc_io_export_solution(&layout, &wrong_size, state.vector[0], path);
  TIO_CHECK(bad && strstr(cc_error_message(), "6 x 4 x 3"), "wrong size accepted: %s",
            cc_error_message());
  cc_error_clear();

  if (rank == 0) {
    int64_t file;
    snprintf(path, sizeof path, "%s/solution.h5", dir);
    TIO_OK(io_h5_open(path, MPI_COMM_SELF, CC_IO_READ, &file));
    int64_t n = (int64_t)nx * ny * nz, n_cells = (int64_t)(nx - 1) * (ny - 1) * (nz - 1);
    double *u = malloc((size_t)n * 3 * sizeof *u), *xyz = malloc((size_t)n * 3 * sizeof *xyz);
    double *def = malloc((size_t)n * 3 * sizeof *def), *cells = malloc((size_t)n_cells * 8 * 8);
    uint64_t dims[2] = {(uint64_t)n, 3}, start[2] = {0, 0}, cdims[2] = {(uint64_t)n_cells, 8};
    TIO_OK(io_h5_read(file, "displacement", 2, dims, start, dims, u));
    TIO_OK(io_h5_read(file, "coordinates", 2, dims, start, dims, xyz));
    TIO_OK(io_h5_read(file, "deformed_coordinates", 2, dims, start, dims, def));
    TIO_OK(io_h5_read(file, "cells", 2, cdims, start, cdims, cells)); /* int64 read as double */
    TIO_OK(io_h5_close(&file));
    for (int64_t i = 0; i < 3 * n; i++)
      TIO_CHECK(def[i] == xyz[i] + u[i], "deformed coordinate %lld", (long long)i);
    /* every cell is a unit cube of nodes, first node (i,j,k), VTK order */
    int64_t c = 0;
    for (int k = 0; k + 1 < nz; k++)
      for (int j = 0; j + 1 < ny; j++)
        for (int i = 0; i + 1 < nx; i++, c++) {
          int64_t g = i + (int64_t)nx * (j + (int64_t)ny * k), pl = (int64_t)nx * ny;
          int64_t want[8] = {g,      g + 1,      g + 1 + nx,      g + nx,
                             g + pl, g + 1 + pl, g + 1 + nx + pl, g + nx + pl};
          for (int v = 0; v < 8; v++)
            TIO_CHECK(cells[8 * c + v] == (double)want[v], "cell %lld node %d: %g, expected %lld",
                      (long long)c, v, cells[8 * c + v], (long long)want[v]);
        }
    free(def);
    free(cells);
    for (int k = 0; k < nz; k++)
      for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
          int64_t g = i + (int64_t)nx * (j + (int64_t)ny * k);
          for (int c = 0; c < 3; c++) {
            double want = tio_value(0, g, c, 3);
            TIO_CHECK(!memcmp(&u[3 * g + c], &want, 8), "displacement of node %lld comp %d",
                      (long long)g, c);
          }
          TIO_CHECK(xyz[3 * g] == i && xyz[3 * g + 1] == j && xyz[3 * g + 2] == k,
                    "coordinates of node %lld: %g %g %g", (long long)g, xyz[3 * g], xyz[3 * g + 1],
                    xyz[3 * g + 2]);
        }
    free(u);
    free(xyz);
    snprintf(path, sizeof path, "%s/solution.xmf", dir);
    const char *xmf = slurp(path);
    TIO_CHECK(strstr(xmf, "TopologyType=\"Hexahedron\" NumberOfElements=\"24\"") &&
                  strstr(xmf, "Dimensions=\"24 8\"") && strstr(xmf, "solution.h5:/cells") &&
                  strstr(xmf, "solution.h5:/coordinates") &&
                  strstr(xmf, "solution.h5:/displacement") && strstr(xmf, "Center=\"Node\"") &&
                  strstr(xmf, "Dimensions=\"60 3\"") && !strstr(xmf, "3DSMesh"),
              "unexpected XDMF:\n%s", xmf);
    snprintf(path, sizeof path, "%s/solution-deformed.xmf", dir);
    xmf = slurp(path);
    TIO_CHECK(strstr(xmf, "<Geometry GeometryType=\"XYZ\">\n    <DataItem Dimensions=\"60 3\" "
                          "NumberType=\"Float\" Precision=\"8\" "
                          "Format=\"HDF\">solution.h5:/deformed_coordinates"),
              "unexpected deformed XDMF:\n%s", xmf);
  }

  /* an hdf5 checkpoint of a mesh-shaped layout carries its own XDMF view, listed in the manifest */
  cc_io_checkpoint_params params;
  cc_io_checkpoint_params_default(&params);
  snprintf(params.backend, sizeof params.backend, "hdf5");
  snprintf(params.dir, sizeof params.dir, "%s/ckpt", dir);
  cc_io_metadata meta = {.nx = nx, .ny = ny, .nz = nz, .solver = "pcg"};
  cc_io_checkpointer *ck;
  TIO_OK(cc_io_checkpointer_create(&params, &layout, &meta, &ck));
  state.iteration = 5;
  TIO_OK(cc_io_checkpointer_write(ck, &state));
  cc_io_checkpointer_destroy(&ck);
  if (rank == 0) {
    snprintf(path, sizeof path, "%s/ckpt/ckpt.5/state.xmf", dir);
    const char *xmf = slurp(path);
    TIO_CHECK(strstr(xmf, "3DCoRectMesh") && strstr(xmf, "state.h5:/vec_a") &&
                  strstr(xmf, "Dimensions=\"60 3\""),
              "unexpected checkpoint XDMF:\n%s", xmf);
    snprintf(path, sizeof path, "%s/ckpt/ckpt.5/manifest.json", dir);
    TIO_CHECK(strstr(slurp(path), "\"state.xmf\""), "state.xmf not in the manifest");
  }
  cc_io_metadata wrong = meta;
  wrong.nz             = nz + 1; /* a different mesh is refused, naming both */
  cc_io_state got;
  cc_err err = cc_io_checkpoint_read(params.dir, NULL, &layout, &wrong, &got, NULL);
  TIO_CHECK(err && strstr(cc_error_message(), "5x4x3 mesh, this run has 5x4x4"),
            "mesh mismatch: %s", cc_error_message());
  cc_error_clear();
  tio_state_free_malloc(&state);
  free(ids);
  if (rank == 0) printf("io export at %d ranks: OK\n", size);
  MPI_Finalize();
  return 0;
}
