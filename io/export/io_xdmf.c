/* io_xdmf.c: XDMF 2 descriptions of HDF5 files (ParaView, meshio, VisIt read them): the
 * checkpoint's state.xmf beside the hdf5 backend's state.h5 (a regular grid, one attribute per
 * vector) and the solution export's FILE.xmf (hexahedra over XYZ geometry). Plain text, no HDF5. */
#include "io_internal.h"

/* text as XML character data or attribute value: & < > " ' as entities (a file name such as
 * 'x&y<z' must not break the document) */
static void xml_put(FILE *f, const char *text)
{
  static const struct {
    char c;
    const char *entity;
  } entities[] = {{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&apos;"}};
  for (const char *c = text; *c; c++) {
    size_t e = 0;
    while (e < sizeof entities / sizeof *entities && entities[e].c != *c) e++;
    if (e < sizeof entities / sizeof *entities)
      fputs(entities[e].entity, f);
    else
      fputc(*c, f);
  }
}

static void xdmf_item(FILE *f, const char *indent, const char *dims, const char *h5_name,
                      const char *dataset)
{
  fprintf(f, "%s<DataItem Dimensions=\"%s\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">",
          indent, dims);
  xml_put(f, h5_name);
  fputs(":/", f);
  xml_put(f, dataset);
  fputs("</DataItem>\n", f);
}

/* <Attribute Name="name" AttributeType="type" Center="Node"> */
static void xdmf_attribute(FILE *f, const char *name, const char *type)
{
  fputs("   <Attribute Name=\"", f);
  xml_put(f, name);
  fprintf(f, "\" AttributeType=\"%s\" Center=\"Node\">\n", type);
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
    xdmf_attribute(f, names[v], vpn == 3 ? "Vector" : vpn == 1 ? "Scalar" : "Matrix");
    xdmf_item(f, "    ", dims, h5_name, names[v]);
    fprintf(f, "   </Attribute>\n");
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
  CC_CALL(xdmf_close(f, xmf_path));
  return CC_OK;
}

/* FILE.xmf: one uniform grid (meshio reads exactly one); geometry = the undeformed nodes, or the
 * deformed ones (x + u) for FILE-deformed.xmf. */
cc_err io_write_xdmf_solution(const char *xmf_path, const char *h5_name,
                              const cc_io_export_params *p, const char *geometry)
{
  FILE *f = fopen(xmf_path, "w");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create %s: %s", xmf_path, strerror(errno));
  long long n     = (long long)p->nx * p->ny * p->nz;
  long long cells = (long long)(p->nx - 1) * (p->ny - 1) * (p->nz - 1);
  char dims[64];
  snprintf(dims, sizeof dims, "%lld 3", n);
  fprintf(f, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
             "<Xdmf Version=\"2.0\">\n <Domain>\n  <Grid Name=\"cube\" GridType=\"Uniform\">\n");
  fprintf(f, "   <Topology TopologyType=\"Hexahedron\" NumberOfElements=\"%lld\">\n", cells);
  fprintf(f,
          "    <DataItem Dimensions=\"%lld 8\" NumberType=\"Int\" Precision=\"8\" "
          "Format=\"HDF\">",
          cells);
  xml_put(f, h5_name);
  fputs(":/cells</DataItem>\n   </Topology>\n", f);
  fprintf(f, "   <Geometry GeometryType=\"XYZ\">\n");
  xdmf_item(f, "    ", dims, h5_name, geometry);
  fprintf(f, "   </Geometry>\n");
  const char *attrs[] = {"displacement", "deformed_coordinates"};
  for (int i = 0; i < (p->deformed ? 2 : 1); i++) {
    xdmf_attribute(f, attrs[i], "Vector");
    xdmf_item(f, "    ", dims, h5_name, attrs[i]);
    fprintf(f, "   </Attribute>\n");
  }
  fprintf(f, "  </Grid>\n </Domain>\n</Xdmf>\n");
  CC_CALL(xdmf_close(f, xmf_path));
  return CC_OK;
}
