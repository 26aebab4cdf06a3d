/* mesh_numbering.c: GeoFEM local numbering of a rank's nodes: internal (owned) nodes in ascending
 * global id, then external nodes (not owned, sharing an element with an owned node) in ascending
 * global id. Computed from the ownership function alone, without communication; the work is the
 * bounding box of the rank's nodes grown by one layer, not the global mesh.
 */
#include "mesh_internal.h"

/* Bounding box of the nodes this rank owns and their count. */
static cc_err owned_box(const cc_mesh_owner *o, int rank, int lo[3], int hi[3], int64_t *count)
{
  if (o->kind == CC_PARTITION_BOX) {
    int r[3] = {rank % o->px, (rank / o->px) % o->py, rank / (o->px * o->py)};
    int n[3] = {o->nx, o->ny, o->nz}, p[3] = {o->px, o->py, o->pz};
    *count = 1;
    for (int d = 0; d < 3; d++) {
      lo[d] = (int)((int64_t)r[d] * n[d] / p[d]);
      hi[d] = (int)((int64_t)(r[d] + 1) * n[d] / p[d]) - 1;
      *count *= hi[d] - lo[d] + 1;
    }
    return CC_OK;
  }
  /* METIS: from the blocks this rank received (mesh_partition_metis.c) */
  for (int d = 0; d < 3; d++) lo[d] = o->own_lo[d], hi[d] = o->own_hi[d];
  *count = o->own_count;
  CC_CHECK(*count > 0, CC_ERR_ARG, "rank %d owns no node", rank);
  return CC_OK;
}

cc_err cc_mesh_number(const cc_mesh_owner *o, int rank, cc_mesh *mesh)
{
  int lo[3], hi[3], n[3] = {o->nx, o->ny, o->nz};
  int64_t n_owned;
  CC_CALL(owned_box(o, rank, lo, hi, &n_owned));
  /* every local node lies in the owned box grown by one layer */
  cc_mesh_lookup l;
  for (int d = 0; d < 3; d++) {
    l.lo[d] = lo[d] > 0 ? lo[d] - 1 : 0;
    l.hi[d] = hi[d] < n[d] - 1 ? hi[d] + 1 : n[d] - 1;
  }
  l.wx          = l.hi[0] - l.lo[0] + 1;
  l.wy          = l.hi[1] - l.lo[1] + 1;
  int64_t cells = l.wx * l.wy * (l.hi[2] - l.lo[2] + 1);
  CC_CALL(cc_malloc((size_t)cells, sizeof(int32_t), &l.id));
  for (int64_t c = 0; c < cells; c++) l.id[c] = -1;

  /* pass 1: internal ids in scan order (k, j, i) = ascending global id */
  int32_t n_internal = 0;
  for (int k = l.lo[2]; k <= l.hi[2]; k++)
    for (int j = l.lo[1]; j <= l.hi[1]; j++)
      for (int i = l.lo[0]; i <= l.hi[0]; i++)
        if (cc_mesh_owner_of(o, i, j, k) == rank)
          l.id[(i - l.lo[0]) + l.wx * ((j - l.lo[1]) + l.wy * (k - l.lo[2]))] = n_internal++;
  CC_CHECK(n_internal == n_owned, CC_ERR_CHECK, "rank %d: %d internal nodes numbered, %lld owned",
           rank, n_internal, (long long)n_owned);

  /* pass 2: mark (-2) the not-owned neighbours of owned nodes (all owned nodes got ids above) */
  for (int k = l.lo[2]; k <= l.hi[2]; k++)
    for (int j = l.lo[1]; j <= l.hi[1]; j++)
      for (int i = l.lo[0]; i <= l.hi[0]; i++) {
        if (cc_mesh_lookup_get(&l, i, j, k) < 0) continue;
        for (int c = (k > l.lo[2] ? k - 1 : k); c <= (k < l.hi[2] ? k + 1 : k); c++)
          for (int b = (j > l.lo[1] ? j - 1 : j); b <= (j < l.hi[1] ? j + 1 : j); b++)
            for (int a = (i > l.lo[0] ? i - 1 : i); a <= (i < l.hi[0] ? i + 1 : i); a++) {
              int32_t *slot = &l.id[(a - l.lo[0]) + l.wx * ((b - l.lo[1]) + l.wy * (c - l.lo[2]))];
              if (*slot == -1) *slot = -2;
            }
      }

  /* pass 3: external ids after the internal ones, ascending global id */
  int64_t n_total = n_internal;
  for (int64_t c = 0; c < cells; c++)
    if (l.id[c] == -2) {
      /* 3 DOF per local node are indexed by int (vectors, halo items) */
      CC_CHECK(n_total < INT32_MAX / 3, CC_ERR_ARG,
               "rank %d: more than %d local nodes (3 DOF each must fit a 32-bit index): use more "
               "ranks",
               rank, INT32_MAX / 3);
      l.id[c] = (int32_t)n_total++;
    }

  mesh->n_internal = n_internal;
  mesh->n_total    = (int)n_total;
  CC_CALL(cc_malloc((size_t)n_total, sizeof(int64_t), &mesh->global_id));
  for (int k = l.lo[2]; k <= l.hi[2]; k++)
    for (int j = l.lo[1]; j <= l.hi[1]; j++)
      for (int i = l.lo[0]; i <= l.hi[0]; i++) {
        int32_t id = cc_mesh_lookup_get(&l, i, j, k);
        if (id >= 0) mesh->global_id[id] = i + (int64_t)o->nx * (j + (int64_t)o->ny * k);
      }
  cc_free(&l.id);
  return CC_OK;
}

cc_err cc_mesh_lookup_create(const cc_mesh *mesh, cc_mesh_lookup *l)
{
  for (int d = 0; d < 3; d++) l->lo[d] = INT32_MAX, l->hi[d] = -1;
  for (int v = 0; v < mesh->n_total; v++) {
    int c[3];
    cc_mesh_coords(mesh, mesh->global_id[v], &c[0], &c[1], &c[2]);
    for (int d = 0; d < 3; d++) {
      if (c[d] < l->lo[d]) l->lo[d] = c[d];
      if (c[d] > l->hi[d]) l->hi[d] = c[d];
    }
  }
  CC_CHECK(mesh->n_total > 0, CC_ERR_ARG, "mesh without local nodes");
  l->wx         = l->hi[0] - l->lo[0] + 1;
  l->wy         = l->hi[1] - l->lo[1] + 1;
  int64_t cells = l->wx * l->wy * (l->hi[2] - l->lo[2] + 1);
  CC_CALL(cc_malloc((size_t)cells, sizeof(int32_t), &l->id));
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < cells; c++) l->id[c] = -1;
  for (int v = 0; v < mesh->n_total; v++) {
    int i, j, k;
    cc_mesh_coords(mesh, mesh->global_id[v], &i, &j, &k);
    l->id[(i - l->lo[0]) + l->wx * ((j - l->lo[1]) + l->wy * (k - l->lo[2]))] = v;
  }
  return CC_OK;
}

void cc_mesh_lookup_free(cc_mesh_lookup *l)
{
  cc_free(&l->id);
}
