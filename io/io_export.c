/* io_export.c: the solution as ParaView reads it: HDF5 /displacement and /coordinates
 * [NZ][NY][NX][3] written collectively (each rank a slab of whole z-planes after redistribution by
 * global id) and an XDMF 2 file beside it (3DSMesh, XYZ geometry, node-centred vector attribute).
 */
#include "io_internal.h"

#include <libgen.h>

static void xdmf_item(FILE *f, const char *indent, const char *dims, const char *h5_name,
                      const char *dataset)
{
  fprintf(f,
          "%s<DataItem Dimensions=\"%s\" NumberType=\"Float\" Precision=\"8\" "
          "Format=\"HDF\">%s:/%s</DataItem>\n",
          indent, dims, h5_name, dataset);
}

static cc_err xdmf_close(FILE *f, const char *path)
{
  int failed = ferror(f);
  CC_CHECK(fclose(f) == 0 && !failed, CC_ERR_IO, "writing %s failed: %s", path, strerror(errno));
  return CC_OK;
}

cc_err io_write_xdmf_state(const char *xmf_path, const char *h5_name, int nx, int ny, int nz,
                           int vpn, int n_vectors, const char (*names)[CC_IO_NAME_LEN])
{
  FILE *f = fopen(xmf_path, "w");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create %s: %s", xmf_path, strerror(errno));
  long long n = (long long)nx * ny * nz;
  fprintf(f,
          "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
          "<Xdmf Version=\"2.0\">\n <Domain>\n  <Grid Name=\"checkpoint\" GridType=\"Uniform\">\n");
  /* a regular grid of unit spacing: node (i, j, k) at (i, j, k), origin and spacing in z, y, x */
  fprintf(f, "   <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"%d %d %d\"/>\n", nz, ny, nx);
  fprintf(f, "   <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
             "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Format=\"XML\">0 0 0</DataItem>\n"
             "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Format=\"XML\">1 1 1</DataItem>\n"
             "   </Geometry>\n");
  char dims[64];
  if (vpn == 1)
    snprintf(dims, sizeof dims, "%lld", n);
  else
    snprintf(dims, sizeof dims, "%lld %d", n, vpn);
  for (int v = 0; v < n_vectors; v++) {
    fprintf(f, "   <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", names[v],
            vpn == 3   ? "Vector"
            : vpn == 1 ? "Scalar"
                       : "Matrix");
    xdmf_item(f, "    ", dims, h5_name, names[v]);
    fprintf(f, "   </Attribute>\n");
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
  CC_CALL(xdmf_close(f, xmf_path));
  return CC_OK;
}

static cc_err write_solution_xdmf(const char *xmf_path, const char *h5_name, int nx, int ny, int nz)
{
  FILE *f = fopen(xmf_path, "w");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create %s: %s", xmf_path, strerror(errno));
  char dims[64];
  snprintf(dims, sizeof dims, "%d %d %d 3", nz, ny, nx);
  fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
             "<Xdmf Version=\"2.0\">\n <Domain>\n  <Grid Name=\"cube\" GridType=\"Uniform\">\n");
  fprintf(f, "   <Topology TopologyType=\"3DSMesh\" Dimensions=\"%d %d %d\"/>\n", nz, ny, nx);
  fprintf(f, "   <Geometry GeometryType=\"XYZ\">\n");
  xdmf_item(f, "    ", dims, h5_name, "coordinates");
  fprintf(f, "   </Geometry>\n");
  fprintf(f, "   <Attribute Name=\"displacement\" AttributeType=\"Vector\" Center=\"Node\">\n");
  xdmf_item(f, "    ", dims, h5_name, "displacement");
  fprintf(f, "   </Attribute>\n  </Grid>\n </Domain>\n</Xdmf>\n");
  CC_CALL(xdmf_close(f, xmf_path));
  return CC_OK;
}

static cc_err export_datasets(const cc_io_layout *layout, int nx, int ny, int nz, const double *u,
                              const char *path, const int64_t *block_start, int rank, int size)
{
  io_redist rd;
  CC_CALL(io_redist_create(layout, block_start, &rd));
  double *block = NULL, *coords = NULL;
  cc_err err = cc_malloc((size_t)rd.n_block * 3, sizeof(double), &block);
  if (!err) err = cc_malloc((size_t)rd.n_block * 3, sizeof(double), &coords);
  err = io_agree(layout->comm, err);
  if (!err) err = io_redist_forward(&rd, u, block);
  if (!err) {
    int64_t first = block_start[rank];
    for (int64_t p = 0; p < rd.n_block; p++) { /* g = i + nx (j + ny k) */
      int64_t g         = first + p;
      coords[3 * p + 0] = (double)(g % nx);
      coords[3 * p + 1] = (double)((g / nx) % ny);
      coords[3 * p + 2] = (double)(g / ((int64_t)nx * ny));
    }
  }
  int64_t file = -1;
  if (!err) err = io_agree(layout->comm, io_h5_open(path, layout->comm, CC_IO_WRITE, &file));
  if (!err) {
    int64_t plane     = (int64_t)nx * ny;
    uint64_t dims[4]  = {(uint64_t)nz, (uint64_t)ny, (uint64_t)nx, 3};
    uint64_t start[4] = {(uint64_t)(block_start[rank] / plane), 0, 0, 0};
    uint64_t count[4] = {(uint64_t)(rd.n_block / plane), (uint64_t)ny, (uint64_t)nx, 3};
    err = io_h5_reserve(path, layout->comm, io_h5_estimate(2, layout->n_global_nodes * 24));
    if (!err)
      err = io_h5_write(layout->comm, file, "displacement", 4, dims, start, count, block, NULL, 0);
    if (!err)
      err = io_h5_write(layout->comm, file, "coordinates", 4, dims, start, count, coords, NULL, 0);
    cc_err cerr = io_agree(layout->comm, io_h5_close(&file));
    if (!err) err = cerr;
  }
  (void)size;
  cc_free(&block);
  cc_free(&coords);
  io_redist_free(&rd);
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_io_export_solution(const cc_io_layout *layout, int nx, int ny, int nz, const double *u,
                             const char *path)
{
  CC_CHECK(layout->values_per_node == 3, CC_ERR_ARG, "export: %d values per node, expected 3",
           layout->values_per_node);
  CC_CHECK(nx >= 1 && ny >= 1 && nz >= 1 && (int64_t)nx * ny * nz == layout->n_global_nodes,
           CC_ERR_ARG, "export: %d x %d x %d nodes but the layout has %lld", nx, ny, nz,
           (long long)layout->n_global_nodes);
  int rank, size;
  CC_MPI(MPI_Comm_rank(layout->comm, &rank));
  CC_MPI(MPI_Comm_size(layout->comm, &size));
  /* whole z-planes per rank so that each block is a hyperslab of [NZ][NY][NX][3] */
  int64_t *block_start;
  CC_CALL(cc_malloc((size_t)size + 1, sizeof(int64_t), &block_start));
  for (int r = 0; r <= size; r++) block_start[r] = (int64_t)nz * r / size * (int64_t)nx * ny;
  cc_err err = export_datasets(layout, nx, ny, nz, u, path, block_start, rank, size);
  cc_free(&block_start);
  CC_CALL(err);

  cc_err local = CC_OK;
  if (rank == 0) {
    char xmf[4096], base[4096];
    snprintf(xmf, sizeof xmf, "%s", path);
    char *dot = strrchr(xmf, '.'), *slash = strrchr(xmf, '/');
    if (dot && (!slash || dot > slash)) *dot = '\0';
    strncat(xmf, ".xmf", sizeof xmf - strlen(xmf) - 1);
    snprintf(base, sizeof base, "%s", path);
    local = write_solution_xdmf(xmf, basename(base), nx, ny, nz);
  }
  CC_CALL(io_agree(layout->comm, local));
  return CC_OK;
}
