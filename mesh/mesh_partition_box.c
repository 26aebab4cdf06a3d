/* mesh_partition_box.c: box decomposition of the node cube into PX x PY x PZ bricks (GeoFEM/Cube's
 * regular partition). Node ranges per direction: rank coordinate r owns [r*n/p, (r+1)*n/p).
 */
#include "mesh_internal.h"

/* Choose the grid: among all factorizations P = px*py*pz with p_d <= n_d, the one with the smallest
 * cut surface sum_d (p_d - 1) * (area normal to d), which puts larger factors on larger directions
 * and keeps bricks near-cubic (MPI_Dims_create, but aware of the node counts). Ties: more balanced
 * factors, then larger px, py (MPI_Dims_create's decreasing order). Returns 0 if none exists. */
static int box_choose(const int n[3], int p, int out[3])
{
  double best_cost = -1;
  int found        = 0;
  for (int a = 1; a <= p && a <= n[0]; a++) {
    if (p % a) continue;
    for (int b = 1; b <= p / a && b <= n[1]; b++) {
      if ((p / a) % b) continue;
      int c = p / a / b;
      if (c > n[2]) continue;
      double cost = (a - 1.0) * n[1] * n[2] + (b - 1.0) * n[0] * n[2] + (c - 1.0) * n[0] * n[1];
      int pmax    = a > b ? (a > c ? a : c) : (b > c ? b : c);
      int omax    = out[0] > out[1] ? (out[0] > out[2] ? out[0] : out[2])
                                    : (out[1] > out[2] ? out[1] : out[2]);
      /* a, b ascend, so a later candidate of equal (cost, pmax) wins: the larger px, py */
      if (!found || cost < best_cost || (cost == best_cost && pmax <= omax)) {
        best_cost = cost;
        out[0] = a, out[1] = b, out[2] = c;
        found = 1;
      }
    }
  }
  return found;
}

cc_err cc_mesh_box_dims(const cc_mesh_params *params, int n_ranks, int out[3])
{
  int n[3] = {params->nx, params->ny, params->nz};
  if (params->px == 0 && params->py == 0 && params->pz == 0) {
    out[0] = out[1] = out[2] = 0;
    CC_CHECK(box_choose(n, n_ranks, out), CC_ERR_ARG,
             "no box partition of %d ranks fits the mesh %dx%dx%d (each direction needs p <= n); "
             "use --partition metis",
             n_ranks, n[0], n[1], n[2]);
    return CC_OK;
  }
  int p[3] = {params->px, params->py, params->pz};
  CC_CHECK(p[0] >= 1 && p[1] >= 1 && p[2] >= 1, CC_ERR_ARG,
           "box partition %d x %d x %d: give all three of px, py, pz >= 1 (or none)", p[0], p[1],
           p[2]);
  CC_CHECK((int64_t)p[0] * p[1] * p[2] == n_ranks, CC_ERR_ARG,
           "box partition px*py*pz = %d*%d*%d = %lld != %d ranks", p[0], p[1], p[2],
           (long long)p[0] * p[1] * p[2], n_ranks);
  CC_CHECK(p[0] <= n[0] && p[1] <= n[1] && p[2] <= n[2], CC_ERR_ARG,
           "box partition %d x %d x %d leaves a rank empty on the mesh %dx%dx%d (need p <= n)",
           p[0], p[1], p[2], n[0], n[1], n[2]);
  out[0] = p[0], out[1] = p[1], out[2] = p[2];
  return CC_OK;
}

void cc_mesh_fill_slabs(int n, int p, int *slab)
{
  for (int r = 0; r < p; r++)
    for (int64_t i = (int64_t)r * n / p; i < (int64_t)(r + 1) * n / p; i++) slab[i] = r;
}

/* Pairs of neighbouring indices (i, i+1) in the same slab: (n-1) - (p-1) cut pairs. */
static double same_pairs(int n, int p, int d)
{
  return d == 0 ? n : (double)(n - 1) - (p - 1);
}

void cc_mesh_box_quality(const int n[3], const int dims[3], int64_t *edge_cut, double *imbalance)
{
  /* Edge cut of the 27-point node graph, each edge once: over the 13 forward offsets d, the pairs
   * (x, x+d) inside the mesh minus those whose three coordinates stay in one slab each. */
  double cut = 0, largest = 1, mean = 1;
  for (int s = 14; s < 27; s++) { /* offsets with (dz,dy,dx) lexicographically > 0 */
    int d[3]   = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
    double all = 1, same = 1;
    for (int c = 0; c < 3; c++) {
      all *= n[c] - (d[c] != 0);
      same *= same_pairs(n[c], dims[c], d[c] != 0);
    }
    cut += all - same;
  }
  /* the largest brick has the largest slab of each direction, ceil(n/p) nodes */
  for (int c = 0; c < 3; c++) {
    largest *= (n[c] + dims[c] - 1) / dims[c];
    mean *= (double)n[c] / dims[c];
  }
  *edge_cut  = (int64_t)cut;
  *imbalance = largest / mean;
}

cc_err cc_mesh_partition_box(const cc_mesh_params *params, int n_ranks, cc_mesh_owner *o,
                             int64_t *edge_cut)
{
  int dims[3];
  CC_CALL(cc_mesh_box_dims(params, n_ranks, dims));
  memset(o, 0, sizeof *o);
  o->kind = CC_PARTITION_BOX;
  o->nx = params->nx, o->ny = params->ny, o->nz = params->nz;
  o->px = dims[0], o->py = dims[1], o->pz = dims[2];
  CC_CALL(cc_malloc((size_t)o->nx, sizeof(int), &o->slab_x));
  CC_CALL(cc_malloc((size_t)o->ny, sizeof(int), &o->slab_y));
  CC_CALL(cc_malloc((size_t)o->nz, sizeof(int), &o->slab_z));
  cc_mesh_fill_slabs(o->nx, o->px, o->slab_x);
  cc_mesh_fill_slabs(o->ny, o->py, o->slab_y);
  cc_mesh_fill_slabs(o->nz, o->pz, o->slab_z);
  int n[3] = {o->nx, o->ny, o->nz};
  double imbalance;
  cc_mesh_box_quality(n, dims, edge_cut, &imbalance);
  return CC_OK;
}

void cc_mesh_owner_free(cc_mesh_owner *o)
{
  cc_free_all((void *[]){&o->slab_x, &o->slab_y, &o->slab_z, &o->block_owner, NULL});
}
