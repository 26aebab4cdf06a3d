/* io_export.c: the solution as every viewer reads it (ParaView/VTK, meshio, VisIt): HDF5
 * /coordinates and /displacement [N][3] in global node order and /cells [C][8] (hexahedra, VTK
 * node order), written collectively (each rank a slab of whole z-planes after redistribution by
 * global id), attributes describing the run, and an XDMF 2 file beside it: one uniform grid with
 * unstructured Hexahedron topology, XYZ geometry and node-centred vectors (meshio reads only
 * unstructured topologies; "3DSMesh" was refused).
 */
#include "io_internal.h"

#ifdef CUBECG_HAVE_HDF5
#include <hdf5.h>
#endif
#include <libgen.h>

#ifdef CUBECG_HAVE_HDF5
/* Collective write of rows [first, first + rows) of an int64 dataset [total][8]. */
static cc_err write_cells(int64_t file, uint64_t total, uint64_t first, uint64_t rows,
                          const int64_t *data)
{
  hsize_t dims[2] = {total, 8}, start[2] = {first, 0}, count[2] = {rows, 8};
  hid_t fs = H5Screate_simple(2, dims, NULL);
  CC_H5(fs);
  hid_t ms = H5Screate_simple(2, rows ? count : dims, NULL);
  if (ms < 0) H5Sclose(fs);
  CC_H5(ms);
  herr_t rc  = rows ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL)
                    : (H5Sselect_none(fs) < 0 ? -1 : H5Sselect_none(ms));
  hid_t ds   = rc < 0 ? -1
                      : H5Dcreate2((hid_t)file, "cells", H5T_STD_I64LE, fs, H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT);
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  if (ds >= 0 && dxpl >= 0 && H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) >= 0)
    rc = H5Dwrite(ds, H5T_NATIVE_INT64, ms, fs, dxpl, data);
  else
    rc = -1;
  if (dxpl >= 0) H5Pclose(dxpl);
  if (ds >= 0) H5Dclose(ds);
  H5Sclose(fs);
  H5Sclose(ms);
  CC_CHECK(rc >= 0, CC_ERR_H5, "collective write of dataset /cells failed");
  return CC_OK;
}

/* A scalar attribute: value in memory type mem_type, stored as file_type (little-endian, fixed). */
static cc_err attr_scalar(int64_t file, const char *name, hid_t file_type, hid_t mem_type,
                          const void *value)
{
  hid_t space = H5Screate(H5S_SCALAR);
  CC_H5(space);
  hid_t a   = H5Acreate2((hid_t)file, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t rc = a >= 0 ? H5Awrite(a, mem_type, value) : -1;
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  CC_CHECK(rc >= 0, CC_ERR_H5, "HDF5 attribute %s not written", name);
  return CC_OK;
}

static cc_err attr_double(int64_t file, const char *name, double value)
{
  return attr_scalar(file, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

static cc_err attr_int(int64_t file, const char *name, int value)
{
  return attr_scalar(file, name, H5T_STD_I32LE, H5T_NATIVE_INT, &value);
}

static cc_err attr_string(int64_t file, const char *name, const char *value)
{
  hid_t type = H5Tcopy(H5T_C_S1);
  CC_H5(type);
  hid_t space = H5Screate(H5S_SCALAR);
  herr_t rc   = space >= 0 && H5Tset_size(type, strlen(value) + 1) >= 0 ? 0 : -1;
  hid_t a     = rc < 0 ? -1 : H5Acreate2((hid_t)file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  rc          = a >= 0 ? H5Awrite(a, type, value) : -1;
  if (a >= 0) H5Aclose(a);
  if (space >= 0) H5Sclose(space);
  H5Tclose(type);
  CC_CHECK(rc >= 0, CC_ERR_H5, "HDF5 attribute %s not written", name);
  return CC_OK;
}

/* Collective (every rank writes the same values, as parallel HDF5 requires). */
static cc_err write_attributes(int64_t file, const cc_io_export_params *p)
{
  CC_CALL(attr_string(file, "cubecg_version", CC_VERSION));
  CC_CALL(attr_string(file, "description",
                      "GeoFEM/Cube linear-elastic cube: node g = i + nx (j + ny k) at (i, j, k); "
                      "displacement u [N][3]; cells [C][8] hexahedra (VTK node order)"));
  CC_CALL(attr_int(file, "nx", p->nx));
  CC_CALL(attr_int(file, "ny", p->ny));
  CC_CALL(attr_int(file, "nz", p->nz));
  CC_CALL(attr_double(file, "E", p->E));
  CC_CALL(attr_double(file, "nu", p->nu));
  CC_CALL(attr_double(file, "traction", p->traction));
  return CC_OK;
}

/* Hexahedra of cell planes [k0, k1): cell (i, j, k) has nodes (i,j,k) (i+1,j,k) (i+1,j+1,k)
 * (i,j+1,k), then the same at k+1 (VTK_HEXAHEDRON / XDMF Hexahedron order). */
static void fill_cells(const cc_io_export_params *p, int64_t k0, int64_t k1, int64_t *cells)
{
  const int64_t nx = p->nx, ny = p->ny, plane = nx * ny;
  int64_t c = 0;
  for (int64_t k = k0; k < k1; k++)
    for (int64_t j = 0; j + 1 < ny; j++)
      for (int64_t i = 0; i + 1 < nx; i++, c++) {
        int64_t g = i + nx * (j + ny * k), *h = cells + 8 * c;
        h[0] = g;
        h[1] = g + 1;
        h[2] = g + 1 + nx;
        h[3] = g + nx;
        for (int v = 0; v < 4; v++) h[4 + v] = h[v] + plane;
      }
}

static cc_err export_datasets(const cc_io_layout *layout, const cc_io_export_params *p,
                              const double *u, const char *path, const int64_t *block_start,
                              int rank)
{
  const int nx = p->nx, ny = p->ny, nz = p->nz;
  int64_t plane = (int64_t)nx * ny;
  io_redist rd;
  CC_CALL(io_redist_create(layout, block_start, &rd));
  /* cell planes [k0, k1) of this rank: those starting in its node planes, the last plane none */
  int64_t k0 = block_start[rank] / plane, k1 = block_start[rank + 1] / plane;
  if (k1 > nz - 1) k1 = nz - 1;
  if (k0 > k1) k0 = k1;
  int64_t cells_per_plane = (int64_t)(nx - 1) * (ny - 1), n_cells = (k1 - k0) * cells_per_plane;
  double *block = NULL, *coords = NULL, *deformed = NULL;
  int64_t *cells = NULL;
  cc_err err     = cc_malloc((size_t)rd.n_block * 3 + 1, sizeof(double), &block);
  if (!err) err = cc_malloc((size_t)rd.n_block * 3 + 1, sizeof(double), &coords);
  if (!err && p->deformed) err = cc_malloc((size_t)rd.n_block * 3 + 1, sizeof(double), &deformed);
  if (!err) err = cc_malloc((size_t)n_cells * 8 + 1, sizeof(int64_t), &cells);
  err = cc_agree(layout->comm, err);
  if (!err) err = io_redist_forward(&rd, u, block);
  if (!err) {
    int64_t first = block_start[rank];
    for (int64_t q = 0; q < rd.n_block; q++) { /* g = i + nx (j + ny k) */
      int64_t g         = first + q;
      coords[3 * q + 0] = (double)(g % nx);
      coords[3 * q + 1] = (double)((g / nx) % ny);
      coords[3 * q + 2] = (double)(g / plane);
      if (deformed)
        for (int c = 0; c < 3; c++) deformed[3 * q + c] = coords[3 * q + c] + block[3 * q + c];
    }
    fill_cells(p, k0, k1, cells);
  }
  int64_t file = -1;
  if (!err) err = cc_agree(layout->comm, io_h5_open(path, layout->comm, CC_IO_WRITE, &file));
  if (!err) {
    uint64_t dims[2]  = {(uint64_t)nx * ny * nz, 3};
    uint64_t start[2] = {(uint64_t)block_start[rank], 0};
    uint64_t count[2] = {(uint64_t)rd.n_block, 3};
    /* reserve the file's space first: a full disk fails here, on every rank alike */
    err = io_h5_reserve(path, layout->comm,
                        io_h5_estimate(deformed ? 4 : 3, layout->n_global_nodes * 24));
    /* io_h5_write agrees on errors before each collective it enters */
    if (!err)
      err = io_h5_write(layout->comm, file, "displacement", 2, dims, start, count, block, NULL, 0);
    if (!err)
      err = io_h5_write(layout->comm, file, "coordinates", 2, dims, start, count, coords, NULL, 0);
    if (!err && deformed)
      err = io_h5_write(layout->comm, file, "deformed_coordinates", 2, dims, start, count, deformed,
                        NULL, 0);
    if (!err)
      err = cc_agree(layout->comm,
                     write_cells(file, (uint64_t)(nz - 1) * cells_per_plane,
                                 (uint64_t)(k0 * cells_per_plane), (uint64_t)n_cells, cells));
    if (!err) err = cc_agree(layout->comm, write_attributes(file, p));
    cc_err cerr = cc_agree(layout->comm, io_h5_close(&file));
    if (!err) err = cerr;
  }
  cc_free(&block);
  cc_free(&coords);
  cc_free(&deformed);
  cc_free(&cells);
  io_redist_free(&rd);
  CC_CALL(err);
  return CC_OK;
}
#else
#include "cc_topology.h" /* cc_build_hdf5: why this build has no HDF5 */
static cc_err export_datasets(const cc_io_layout *layout, const cc_io_export_params *p,
                              const double *u, const char *path, const int64_t *block_start,
                              int rank)
{
  (void)layout, (void)p, (void)u, (void)block_start, (void)rank;
  CC_FAIL(CC_ERR_ARG, "--export-solution %s: this build has no HDF5 (%s)", path, cc_build_hdf5);
}
#endif

cc_err cc_io_export_paths(const char *file, char *h5, char *xmf, char *deformed_xmf, size_t size)
{
  size_t n = strlen(file);
  /* FILE.h5 is taken as FILE (the .h5 is not doubled) */
  if (n >= 3 && strcmp(file + n - 3, ".h5") == 0) n -= 3;
  CC_CHECK(n > 0 && file[n - 1] != '/', CC_ERR_ARG, "--export-solution '%s': no file name", file);
  int a = snprintf(h5, size, "%.*s.h5", (int)n, file);
  int b = snprintf(xmf, size, "%.*s.xmf", (int)n, file);
  int c = snprintf(deformed_xmf, size, "%.*s-deformed.xmf", (int)n, file);
  CC_CHECK(a > 0 && b > 0 && c > 0 && (size_t)c < size, CC_ERR_ARG,
           "--export-solution '%s' is too long", file);
  return CC_OK;
}

cc_err cc_io_export_solution(const cc_io_layout *layout, const cc_io_export_params *p,
                             const double *u, const char *file)
{
  const int nx = p->nx, ny = p->ny, nz = p->nz;
  CC_CHECK(layout->values_per_node == 3, CC_ERR_ARG, "export: %d values per node, expected 3",
           layout->values_per_node);
  CC_CHECK(nx >= 2 && ny >= 2 && nz >= 2 && (int64_t)nx * ny * nz == layout->n_global_nodes,
           CC_ERR_ARG, "export: %d x %d x %d nodes but the layout has %lld (>= 2 each)", nx, ny, nz,
           (long long)layout->n_global_nodes);
  char h5[IO_PATH_MAX], xmf[IO_PATH_MAX], dxmf[IO_PATH_MAX], base[IO_PATH_MAX];
  CC_CALL(cc_io_export_paths(file, h5, xmf, dxmf, sizeof h5));
  int rank, size;
  CC_MPI(MPI_Comm_rank(layout->comm, &rank));
  CC_MPI(MPI_Comm_size(layout->comm, &size));
  /* whole z-planes per rank so that each block is a contiguous row range of [N][3] */
  int64_t *block_start;
  CC_CALL(cc_malloc((size_t)size + 1, sizeof(int64_t), &block_start));
  for (int r = 0; r <= size; r++) block_start[r] = (int64_t)nz * r / size * (int64_t)nx * ny;
  cc_err err = export_datasets(layout, p, u, h5, block_start, rank);
  cc_free(&block_start);
  CC_CALL(err);

  cc_err local = CC_OK;
  if (rank == 0) {
    snprintf(base, sizeof base, "%s", h5);
    const char *name = basename(base); /* the .xmf sits beside the .h5 */
    local            = io_write_xdmf_solution(xmf, name, p, "coordinates");
    if (!local && p->deformed)
      local = io_write_xdmf_solution(dxmf, name, p, "deformed_coordinates");
  }
  CC_CALL(cc_agree(layout->comm, local));
  return CC_OK;
}
