/* mesh_comm_table.c: GeoFEM communication table of a rank (Nakajima's GeoFEM local data structure):
 * neighbours in ascending rank; import items = our external nodes owned by the neighbour, export
 * items = our internal nodes the neighbour imports. Both lists are in ascending global id, so our
 * export list to q matches q's import list from us item by item, without communication.
 */
#include "mesh_internal.h"

/* Distinct ranks other than `rank` owning a neighbour of internal node (i,j,k); returns count. */
static int foreign_owners(const cc_mesh_owner *o, int rank, int i, int j, int k, int owners[26])
{
  int n = 0;
  for (int c = (k > 0 ? k - 1 : k); c <= (k < o->nz - 1 ? k + 1 : k); c++)
    for (int b = (j > 0 ? j - 1 : j); b <= (j < o->ny - 1 ? j + 1 : j); b++)
      for (int a = (i > 0 ? i - 1 : i); a <= (i < o->nx - 1 ? i + 1 : i); a++) {
        int q = cc_mesh_owner_of(o, a, b, c), seen = 0;
        if (q == rank) continue;
        for (int s = 0; s < n && !seen; s++) seen = owners[s] == q;
        if (!seen) owners[n++] = q;
      }
  return n;
}

cc_err cc_mesh_comm_table_build(const cc_mesh_owner *o, MPI_Comm comm, cc_mesh *mesh)
{
  cc_comm_table *t = &mesh->comm;
  t->comm          = comm;
  CC_MPI(MPI_Comm_rank(comm, &t->rank));
  CC_MPI(MPI_Comm_size(comm, &t->size));
  int n_int = mesh->n_internal, n_ext = mesh->n_total - mesh->n_internal;
  int *n_import, *n_export, *slot; /* per rank: counts, then neighbour index */
  CC_CALL(cc_calloc((size_t)t->size, sizeof(int), &n_import));
  CC_CALL(cc_calloc((size_t)t->size, sizeof(int), &n_export));
  CC_CALL(cc_malloc((size_t)t->size, sizeof(int), &slot));
  int *ext_owner;
  CC_CALL(cc_malloc((size_t)n_ext, sizeof(int), &ext_owner));
  for (int e = 0; e < n_ext; e++) {
    int i, j, k;
    cc_mesh_coords(mesh, mesh->global_id[n_int + e], &i, &j, &k);
    ext_owner[e] = cc_mesh_owner_of(o, i, j, k);
    CC_CHECK(ext_owner[e] >= 0 && ext_owner[e] < t->size, CC_ERR_CHECK,
             "external node %lld of rank %d has no known owner",
             (long long)mesh->global_id[n_int + e], t->rank);
    CC_CHECK(ext_owner[e] != t->rank, CC_ERR_CHECK, "external node %lld owned by its own rank %d",
             (long long)mesh->global_id[n_int + e], t->rank);
    n_import[ext_owner[e]]++;
  }
  int owners[26];
  for (int v = 0; v < n_int; v++) {
    int i, j, k;
    cc_mesh_coords(mesh, mesh->global_id[v], &i, &j, &k);
    int n = foreign_owners(o, t->rank, i, j, k, owners);
    for (int s = 0; s < n; s++) {
      CC_CHECK(owners[s] >= 0, CC_ERR_CHECK,
               "a neighbour of node %lld of rank %d has no known owner",
               (long long)mesh->global_id[v], t->rank);
      n_export[owners[s]]++;
    }
  }

  /* neighbours: ranks we import from; adjacency is symmetric, so exactly those we export to */
  t->n_neighbors = 0;
  for (int q = 0; q < t->size; q++) {
    CC_CHECK((n_import[q] > 0) == (n_export[q] > 0), CC_ERR_CHECK,
             "rank %d imports %d and exports %d nodes with rank %d", t->rank, n_import[q],
             n_export[q], q);
    slot[q] = n_import[q] > 0 ? t->n_neighbors++ : -1;
  }
  int nn = t->n_neighbors;
  CC_CALL(cc_malloc((size_t)nn, sizeof(int), &t->neighbor_rank));
  CC_CALL(cc_calloc((size_t)nn + 1, sizeof(int), &t->import_index));
  CC_CALL(cc_calloc((size_t)nn + 1, sizeof(int), &t->export_index));
  for (int q = 0; q < t->size; q++)
    if (slot[q] >= 0) {
      t->neighbor_rank[slot[q]]    = q;
      t->import_index[slot[q] + 1] = n_import[q];
      t->export_index[slot[q] + 1] = n_export[q];
    }
  for (int s = 0; s < nn; s++) {
    t->import_index[s + 1] += t->import_index[s];
    t->export_index[s + 1] += t->export_index[s];
  }
  CC_CALL(cc_malloc((size_t)t->import_index[nn], sizeof(int), &t->import_item));
  CC_CALL(cc_malloc((size_t)t->export_index[nn], sizeof(int), &t->export_item));

  /* fill in ascending local id = ascending global id within each group; counts reused as cursors */
  for (int s = 0; s < nn; s++) {
    n_import[t->neighbor_rank[s]] = t->import_index[s];
    n_export[t->neighbor_rank[s]] = t->export_index[s];
  }
  for (int e = 0; e < n_ext; e++) t->import_item[n_import[ext_owner[e]]++] = n_int + e;
  for (int v = 0; v < n_int; v++) {
    int i, j, k;
    cc_mesh_coords(mesh, mesh->global_id[v], &i, &j, &k);
    int n = foreign_owners(o, t->rank, i, j, k, owners);
    for (int s = 0; s < n; s++) t->export_item[n_export[owners[s]]++] = v;
  }
  cc_free(&ext_owner);
  cc_free(&slot);
  cc_free(&n_export);
  cc_free(&n_import);
  CC_CALL(cc_comm_table_buffers(t)); /* the halo exchange's scratch, owned by the table */
  return CC_OK;
}
