/* mesh_internal.h: private helpers shared by the files of mesh/ (not part of the module interface):
 * the node -> rank ownership function of a partition and the local-id lookup over a bounding box.
 */
#ifndef CC_MESH_INTERNAL_H
#define CC_MESH_INTERNAL_H

#include "cc_mesh.h"

/* Ownership of the nodes a rank touches. Box: rank = ox + px*(oy + py*oz) with per-direction slab
 * tables (O(nx+ny+nz) memory). METIS: the slabs give a node's block coordinate in the block grid
 * mb[0] x mb[1] x mb[2] (cc_mesh_metis_blocks), and block_owner[] holds the owners of the blocks
 * in [blo, bhi] (block coordinates, inclusive) that this rank received: its own blocks and their 26
 * neighbours, O(local share) memory; any other node reports owner -1. own_lo/own_hi/own_count:
 * bounding box (node indices, inclusive) and number of this rank's nodes. */
typedef struct {
  cc_partition_kind kind;
  int nx, ny, nz;
  int px, py, pz;
  int *slab_x, *slab_y,
      *slab_z;               /* box: rank coordinate, metis: block coordinate; [nx], [ny], [nz] */
  int mb[3], blo[3], bhi[3]; /* metis: block grid and the received blocks' bounding box */
  int64_t bw[2];             /* metis: bhi - blo + 1 in x and y */
  int32_t *block_owner;      /* metis: [bw0 * bw1 * (bhi2 - blo2 + 1)], -1 = not received */
  int own_lo[3], own_hi[3];
  int64_t own_count;
} cc_mesh_owner;

static inline int cc_mesh_owner_of(const cc_mesh_owner *o, int i, int j, int k)
{
  if (o->kind == CC_PARTITION_BOX)
    return o->slab_x[i] + o->px * (o->slab_y[j] + o->py * o->slab_z[k]);
  int a = o->slab_x[i], b = o->slab_y[j], c = o->slab_z[k];
  if (a < o->blo[0] || a > o->bhi[0] || b < o->blo[1] || b > o->bhi[1] || c < o->blo[2] ||
      c > o->bhi[2])
    return -1;
  return o
      ->block_owner[(a - o->blo[0]) + o->bw[0] * ((b - o->blo[1]) + o->bw[1] * (c - o->blo[2]))];
}
/* slab[i] = the r with r*n/p <= i < (r+1)*n/p (p slabs of n indices, sizes differing by <= 1). */
void cc_mesh_fill_slabs(int n, int p, int *slab);
/* Block grid of the METIS partition into n_parts: blocks of about N / (n_parts *
 * CC_MESH_METIS_BLOCKS_PER_PART) nodes, slabs per direction as in the box partition; single nodes
 * when the mesh has fewer nodes than that, one block for one part. */
#define CC_MESH_METIS_BLOCKS_PER_PART 128
void cc_mesh_metis_blocks(const int n[3], int n_parts, int m[3]);
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
/* Edge cut of the 27-point node graph and load imbalance (largest part / mean) of the box grid
 * dims[3] on the mesh n[3], from the slab sizes alone. */
void cc_mesh_box_quality(const int n[3], const int dims[3], int64_t *edge_cut, double *imbalance);
/* METIS k-way partition of the block graph (rank 0 partitions it, each rank receives the owners of
 * its blocks and their neighbours); fills the METIS fields of o and mesh's edge_cut,
 * load_imbalance and coarse_vertices. */
CC_WUR cc_err cc_mesh_partition_metis(const cc_mesh_params *params, MPI_Comm comm, cc_mesh_owner *o,
                                      cc_mesh *mesh);
/* Local numbering (internal, then external nodes) and global_id[] of this rank. */
CC_WUR cc_err cc_mesh_number(const cc_mesh_owner *o, int rank, cc_mesh *mesh);
/* GeoFEM communication table from the numbering and the ownership function. */
CC_WUR cc_err cc_mesh_comm_table_build(const cc_mesh_owner *o, MPI_Comm comm, cc_mesh *mesh);

#endif
