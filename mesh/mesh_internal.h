/* mesh_internal.h: private helpers shared by the files of mesh/ (not part of the module interface):
 * the node -> rank ownership function of a partition and the local-id lookup over a bounding box.
 */
#ifndef CC_MESH_INTERNAL_H
#define CC_MESH_INTERNAL_H

#include "cc_mesh.h"

/* Ownership of every global node. Box: rank = ox + px*(oy + py*oz) with per-direction slab tables
 * (O(nx+ny+nz) memory). METIS: the global partition vector part[g] (O(N_global) memory on every
 * rank: fine for the mesh sizes of interest, and it keeps numbering free of communication). */
typedef struct {
  cc_partition_kind kind;
  int nx, ny, nz;
  int px, py, pz;
  int *slab_x, *slab_y, *slab_z; /* box: [nx], [ny], [nz] */
  int32_t *part;                 /* metis: [nx*ny*nz] */
} cc_mesh_owner;

static inline int cc_mesh_owner_of(const cc_mesh_owner *o, int i, int j, int k)
{
  if (o->kind == CC_PARTITION_BOX)
    return o->slab_x[i] + o->px * (o->slab_y[j] + o->py * o->slab_z[k]);
  return o->part[i + (int64_t)o->nx * (j + (int64_t)o->ny * k)];
}
void cc_mesh_owner_free(cc_mesh_owner *o);

/* Global node id -> (i, j, k). */
static inline void cc_mesh_coords(const cc_mesh *m, int64_t g, int *i, int *j, int *k)
{
  int64_t nxy = (int64_t)m->nx * m->ny;
  *k          = (int)(g / nxy);
  int64_t r   = g - (int64_t)(*k) * nxy;
  *j          = (int)(r / m->nx);
  *i          = (int)(r - (int64_t)(*j) * m->nx);
}

/* Local id lookup over the box [lo, hi] (inclusive node indices): id[(i-lo0) + wx*((j-lo1) +
 * wy*(k-lo2))] holds the local id of node (i,j,k) or -1. All nodes a rank touches lie in the
 * bounding box of its owned nodes grown by one layer, so for a box partition this is O(local
 * nodes). */
typedef struct {
  int lo[3], hi[3];
  int64_t wx, wy;
  int32_t *id;
} cc_mesh_lookup;

static inline int32_t cc_mesh_lookup_get(const cc_mesh_lookup *l, int i, int j, int k)
{
  return l->id[(i - l->lo[0]) + l->wx * ((j - l->lo[1]) + l->wy * (k - l->lo[2]))];
}
/* Build the lookup of a mesh's local nodes (internal and external) from mesh->global_id. */
CC_WUR cc_err cc_mesh_lookup_create(const cc_mesh *mesh, cc_mesh_lookup *l);
void cc_mesh_lookup_free(cc_mesh_lookup *l);

/* Box partition: choose (params px,py,pz all 0) or check the rank grid; fills out[3]. */
CC_WUR cc_err cc_mesh_box_dims(const cc_mesh_params *params, int n_ranks, int out[3]);
/* Box partition of n_ranks: ownership slabs and the edge cut of the 27-point node graph. */
CC_WUR cc_err cc_mesh_partition_box(const cc_mesh_params *params, int n_ranks, cc_mesh_owner *o,
                                    int64_t *edge_cut);
/* METIS k-way partition of the 27-point node graph (rank 0 computes, broadcasts part[]). */
CC_WUR cc_err cc_mesh_partition_metis(const cc_mesh_params *params, MPI_Comm comm, cc_mesh_owner *o,
                                      int64_t *edge_cut);
/* Local numbering (internal, then external nodes) and global_id[] of this rank. */
CC_WUR cc_err cc_mesh_number(const cc_mesh_owner *o, int rank, cc_mesh *mesh);
/* GeoFEM communication table from the numbering and the ownership function. */
CC_WUR cc_err cc_mesh_comm_table_build(const cc_mesh_owner *o, MPI_Comm comm, cc_mesh *mesh);

#endif
