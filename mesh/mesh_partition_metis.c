/* mesh_partition_metis.c: METIS k-way partition (METIS_PartGraphKway, METIS 5) of the node graph in
 * which two nodes are adjacent when they share an element (27-point connectivity).
 * Rank 0 builds the graph and calls METIS with a fixed seed; it broadcasts the partition vector, so
 * only rank 0 holds the O(26 N) graph and all ranks agree by construction. P == 1 skips METIS.
 */
#include "mesh_internal.h"

#include <metis.h>

/* CSR of the 27-point node graph without self loops, neighbours in ascending global id. */
static cc_err graph_build(int nx, int ny, int nz, idx_t **xadj_out, idx_t **adjncy_out)
{
  int64_t n = (int64_t)nx * ny * nz, edges = 0;
  idx_t *xadj, *adjncy;
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(idx_t), &xadj));
  /* degree of (i,j,k) = prod_d (#indices within distance 1) - 1 */
  xadj[0] = 0;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        int64_t g = i + (int64_t)nx * (j + (int64_t)ny * k);
        int deg   = (1 + (i > 0) + (i < nx - 1)) * (1 + (j > 0) + (j < ny - 1)) *
                      (1 + (k > 0) + (k < nz - 1)) -
                  1;
        edges += deg;
        xadj[g + 1] = (idx_t)edges;
      }
  CC_CHECK(edges < INT32_MAX, CC_ERR_METIS, "node graph of %lld adjacency entries exceeds idx_t",
           (long long)edges);
  CC_CALL(cc_malloc((size_t)edges, sizeof(idx_t), &adjncy));
  int64_t pos = 0;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++)
        for (int dk = -1; dk <= 1; dk++)
          for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
              int a = i + di, b = j + dj, c = k + dk;
              if ((di | dj | dk) == 0 || a < 0 || b < 0 || c < 0 || a >= nx || b >= ny || c >= nz)
                continue;
              adjncy[pos++] = (idx_t)(a + (int64_t)nx * (b + (int64_t)ny * c));
            }
  *xadj_out   = xadj;
  *adjncy_out = adjncy;
  return CC_OK;
}

static const char *metis_status_name(int status)
{
  switch (status) {
  case METIS_ERROR_INPUT:
    return "METIS_ERROR_INPUT";
  case METIS_ERROR_MEMORY:
    return "METIS_ERROR_MEMORY";
  default:
    return "METIS_ERROR";
  }
}

/* Rank 0: partition into n_parts; part[] must hold N entries. */
static cc_err metis_on_root(const cc_mesh_params *params, int n_parts, idx_t *part, int64_t *cut)
{
  idx_t *xadj = NULL, *adjncy = NULL;
  CC_CALL(graph_build(params->nx, params->ny, params->nz, &xadj, &adjncy));
  idx_t nvtxs = (idx_t)((int64_t)params->nx * params->ny * params->nz), ncon = 1;
  idx_t nparts = n_parts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED]      = 20230711; /* fixed: the same partition on every run */
  options[METIS_OPTION_NUMBERING] = 0;
  int status = METIS_PartGraphKway(&nvtxs, &ncon, xadj, adjncy, NULL, NULL, NULL, &nparts, NULL,
                                   NULL, options, &objval, part);
  cc_free(&xadj);
  cc_free(&adjncy);
  CC_CHECK(status == METIS_OK, CC_ERR_METIS,
           "METIS_PartGraphKway(%d nodes, %d parts) returned %s (%d)", (int)nvtxs, n_parts,
           metis_status_name(status), status);
  *cut = objval;
  return CC_OK;
}

cc_err cc_mesh_partition_metis(const cc_mesh_params *params, MPI_Comm comm, cc_mesh_owner *o,
                               int64_t *edge_cut)
{
  int rank, size;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  o->kind = CC_PARTITION_METIS;
  o->nx = params->nx, o->ny = params->ny, o->nz = params->nz;
  o->px = o->py = o->pz = 0;
  o->slab_x = o->slab_y = o->slab_z = NULL;
  int64_t n                         = (int64_t)o->nx * o->ny * o->nz;
  CC_CHECK(n < INT32_MAX, CC_ERR_ARG, "METIS partition of %lld nodes exceeds idx_t", (long long)n);
  _Static_assert(sizeof(idx_t) == sizeof(int32_t), "METIS built with 64-bit idx_t: adapt part[]");
  CC_CALL(cc_calloc((size_t)n, sizeof(int32_t), &o->part));
  *edge_cut = 0;
  if (size == 1) return CC_OK; /* one part: every node on rank 0, no METIS call */

  int64_t info[2] = {CC_OK, 0}; /* status, edge cut */
  if (rank == 0) {
    cc_err err = metis_on_root(params, size, (idx_t *)o->part, &info[1]);
    info[0]    = err;
  }
  CC_MPI(MPI_Bcast(info, 2, MPI_INT64_T, 0, comm));
  if (info[0] != CC_OK) {
    /* rank 0 already has the detailed chain; the others name where it failed */
    CC_CHECK(rank == 0, CC_ERR_METIS, "METIS partition failed on rank 0 (error %lld)",
             (long long)info[0]);
    return cc_error_push((cc_err)info[0], __FILE__, __LINE__, __func__, "metis_on_root");
  }
  CC_MPI(MPI_Bcast(o->part, (int)n, MPI_INT32_T, 0, comm));
  *edge_cut = info[1];

  /* METIS may leave a part empty on tiny graphs: every rank checks the same vector. */
  int64_t *count;
  CC_CALL(cc_calloc((size_t)size, sizeof(int64_t), &count));
  for (int64_t g = 0; g < n; g++) count[o->part[g]]++;
  int empty = -1;
  for (int r = 0; r < size && empty < 0; r++)
    if (count[r] == 0) empty = r;
  cc_free(&count);
  CC_CHECK(empty < 0, CC_ERR_METIS, "METIS left rank %d without nodes (mesh %dx%dx%d, %d ranks)",
           empty, o->nx, o->ny, o->nz, size);
  return CC_OK;
}
