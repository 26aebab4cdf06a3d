/* mesh_partition_metis.c: METIS k-way partition (METIS_PartGraphKway, METIS 5) of a graph coarsened
 * from the cube's own structure: the nodes are grouped into a grid of blocks (slabs per direction,
 * about CC_MESH_METIS_BLOCKS_PER_PART blocks per part), a block is a vertex weighted by its nodes,
 * and two blocks sharing a face, an edge or a corner are adjacent, weighted by the 27-point node
 * graph's edges between them. Rank 0 builds and partitions this O(P k) graph with a fixed seed and
 * sends each rank the owners of its own blocks and of their neighbours only (Scatterv), so no rank
 * holds an O(N) array and numbering never scans the global mesh. P == 1 is one block, no METIS.
 */
#include "mesh_internal.h"

#include <math.h>
#include <metis.h>

_Static_assert(sizeof(idx_t) == sizeof(int32_t), "METIS built with 64-bit idx_t: adapt the graph");

void cc_mesh_metis_blocks(const int n[3], int n_parts, int m[3])
{
  double nodes = (double)n[0] * n[1] * n[2];
  double want  = (double)n_parts * CC_MESH_METIS_BLOCKS_PER_PART;
  if (n_parts == 1) {
    m[0] = m[1] = m[2] = 1;
    return;
  }
  double side  = nodes > want ? cbrt(nodes / want) : 1; /* block edge in nodes */
  double count = 1;
  for (int d = 0; d < 3; d++) {
    m[d] = (int)fmin(n[d], fmax(1, ceil(n[d] / side)));
    count *= m[d];
  }
  if (count < n_parts) /* blocks clamped on a thin direction: fall back to single nodes */
    for (int d = 0; d < 3; d++) m[d] = n[d];
}

/* Nodes of block b along a direction of n nodes cut into m slabs. */
static int64_t block_len(int n, int m, int b)
{
  return (int64_t)(b + 1) * n / m - (int64_t)b * n / m;
}

/* The neighbours of block id blk (ascending id) and the 27-point node edges to each: per direction
 * 3L - 2 pairs (|a - b| <= 1 within a slab of L nodes) where the offset is 0, one pair across the
 * slab boundary where it is not. Returns the count. */
static int block_neighbours(const int n[3], const int m[3], int64_t blk, int64_t nb[26],
                            int64_t w[26])
{
  int c[3] = {(int)(blk % m[0]), (int)((blk / m[0]) % m[1]), (int)(blk / ((int64_t)m[0] * m[1]))};
  int cnt  = 0;
  for (int s = 0; s < 27; s++) {
    int off[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1}, q[3], inside = s != 13;
    int64_t wt = 1;
    for (int d = 0; d < 3 && inside; d++) {
      q[d]   = c[d] + off[d];
      inside = q[d] >= 0 && q[d] < m[d];
      if (off[d] == 0) wt *= 3 * block_len(n[d], m[d], c[d]) - 2;
    }
    if (!inside) continue;
    nb[cnt]  = q[0] + (int64_t)m[0] * (q[1] + (int64_t)m[1] * q[2]);
    w[cnt++] = wt;
  }
  return cnt;
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

/* CSR of the block graph: vertex weights = nodes per block; edge weights = node edges between the
 * blocks divided by q >= 1 (rounded up) so that their total fits idx_t. */
static cc_err graph_build(const int n[3], const int m[3], idx_t **xadj, idx_t **adjncy,
                          idx_t **vwgt, idx_t **adjwgt)
{
  int64_t nb = (int64_t)m[0] * m[1] * m[2], edges = 0, total = 0, id[26], w[26];
  CC_CALL(cc_malloc((size_t)nb + 1, sizeof(idx_t), xadj));
  CC_CALL(cc_malloc((size_t)nb, sizeof(idx_t), vwgt));
  (*xadj)[0] = 0;
  for (int64_t b = 0; b < nb; b++) {
    int cnt = block_neighbours(n, m, b, id, w);
    for (int t = 0; t < cnt; t++) total += w[t];
    edges += cnt;
    (*xadj)[b + 1] = (idx_t)edges; /* edges < 26 nb < INT32_MAX: cc_mesh_params_validate */
    (*vwgt)[b]     = (idx_t)(block_len(n[0], m[0], (int)(b % m[0])) *
                         block_len(n[1], m[1], (int)((b / m[0]) % m[1])) *
                         block_len(n[2], m[2], (int)(b / ((int64_t)m[0] * m[1]))));
  }
  int64_t q = total / (INT32_MAX / 4) + 1;
  CC_CALL(cc_malloc((size_t)edges, sizeof(idx_t), adjncy));
  CC_CALL(cc_malloc((size_t)edges, sizeof(idx_t), adjwgt));
  for (int64_t b = 0, pos = 0; b < nb; b++) {
    int cnt = block_neighbours(n, m, b, id, w);
    for (int t = 0; t < cnt; t++, pos++) {
      (*adjncy)[pos] = (idx_t)id[t];
      (*adjwgt)[pos] = (idx_t)((w[t] + q - 1) / q);
    }
  }
  return CC_OK;
}

/* Rank 0: part[nb] of the block graph, the exact node edge cut and the largest part's nodes. */
static cc_err metis_on_root(const int n[3], const int m[3], int n_parts, idx_t *part,
                            int64_t info[2])
{
  idx_t *xadj = NULL, *adjncy = NULL, *vwgt = NULL, *adjwgt = NULL;
  cc_err err  = graph_build(n, m, &xadj, &adjncy, &vwgt, &adjwgt);
  idx_t nvtxs = (idx_t)((int64_t)m[0] * m[1] * m[2]), ncon = 1, nparts = n_parts, objval = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED]      = 20230711; /* fixed: the same partition on every run */
  options[METIS_OPTION_NUMBERING] = 0;
  int status                      = METIS_OK;
  if (!err)
    status = METIS_PartGraphKway(&nvtxs, &ncon, xadj, adjncy, vwgt, NULL, adjwgt, &nparts, NULL,
                                 NULL, options, &objval, part);
  int64_t *weight = NULL;
  if (!err && status == METIS_OK) err = cc_calloc((size_t)n_parts, sizeof(int64_t), &weight);
  int64_t cut = 0, id[26], w[26];
  for (int64_t b = 0; weight && b < nvtxs; b++) {
    weight[part[b]] += vwgt[b];
    int cnt = block_neighbours(n, m, b, id, w);
    for (int t = 0; t < cnt; t++) cut += part[id[t]] != part[b] ? w[t] : 0;
  }
  int empty = -1;
  info[0] = info[1] = 0;
  for (int r = 0; weight && r < n_parts; r++) {
    if (weight[r] == 0 && empty < 0) empty = r;
    if (weight[r] > info[1]) info[1] = weight[r];
  }
  info[0] = cut / 2; /* each edge counted from both ends */
  cc_free(&weight), cc_free(&xadj), cc_free(&adjncy), cc_free(&vwgt), cc_free(&adjwgt);
  CC_CALL(err);
  CC_CHECK(status == METIS_OK, CC_ERR_METIS,
           "METIS_PartGraphKway(%d blocks, %d parts) returned %s (%d)", (int)nvtxs, n_parts,
           metis_status_name(status), status);
  CC_CHECK(empty < 0, CC_ERR_ARG,
           "METIS left rank %d without nodes (mesh %dx%dx%d, %d ranks): use fewer ranks or "
           "--partition box",
           empty, n[0], n[1], n[2], n_parts);
  return CC_OK;
}

/* The ranks that need block b (its owner and its neighbours' owners), distinct; returns count. */
static int block_readers(const int n[3], const int m[3], const idx_t *part, int64_t b,
                         int readers[27])
{
  int64_t id[26], w[26];
  int cnt = block_neighbours(n, m, b, id, w), nr = 1;
  readers[0] = part[b];
  for (int t = 0; t < cnt; t++) {
    int q = part[id[t]], seen = 0;
    for (int s = 0; s < nr && !seen; s++) seen = readers[s] == q;
    if (!seen) readers[nr++] = q;
  }
  return nr;
}

/* Rank 0 sends each rank the (block, owner) pairs of the blocks it reads, in ascending block id. */
static cc_err scatter_blocks(const int n[3], const int m[3], const idx_t *part, MPI_Comm comm,
                             int32_t **pairs, int *n_pairs)
{
  int rank, size, readers[27], *count = NULL, *displ = NULL, mine = 0;
  int32_t *send = NULL;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  int64_t nb = (int64_t)m[0] * m[1] * m[2];
  if (rank == 0) {
    CC_CALL(cc_calloc((size_t)size, sizeof(int), &count));
    CC_CALL(cc_calloc((size_t)size + 1, sizeof(int), &displ));
    for (int64_t b = 0; b < nb; b++)
      for (int r = 0, nr = block_readers(n, m, part, b, readers); r < nr; r++)
        count[readers[r]] += 2;
    for (int q = 0; q < size; q++) displ[q + 1] = displ[q] + count[q];
    CC_CALL(cc_malloc((size_t)displ[size], sizeof(int32_t), &send));
    for (int64_t b = 0; b < nb; b++)
      for (int r = 0, nr = block_readers(n, m, part, b, readers); r < nr; r++) {
        send[displ[readers[r]]++] = (int32_t)b;
        send[displ[readers[r]]++] = part[b];
      }
    for (int q = 0; q < size; q++) displ[q] -= count[q]; /* back to the starts */
  }
  CC_MPI(MPI_Scatter(count, 1, MPI_INT, &mine, 1, MPI_INT, 0, comm));
  CC_CALL(cc_malloc((size_t)mine, sizeof(int32_t), pairs));
  CC_MPI(MPI_Scatterv(send, count, displ, MPI_INT32_T, *pairs, mine, MPI_INT32_T, 0, comm));
  cc_free(&send), cc_free(&count), cc_free(&displ);
  *n_pairs = mine / 2;
  return CC_OK;
}

/* o->block_owner over the bounding box of the received blocks; own bounding box and node count. */
static cc_err owner_table(cc_mesh_owner *o, int rank, const int32_t *pairs, int n_pairs)
{
  int n[3] = {o->nx, o->ny, o->nz};
  for (int d = 0; d < 3; d++) o->blo[d] = o->own_lo[d] = INT32_MAX, o->bhi[d] = o->own_hi[d] = -1;
  o->own_count = 0;
  for (int p = 0; p < n_pairs; p++) {
    int64_t b     = pairs[2 * p];
    int c[3]      = {(int)(b % o->mb[0]), (int)((b / o->mb[0]) % o->mb[1]),
                     (int)(b / ((int64_t)o->mb[0] * o->mb[1]))};
    int64_t nodes = 1;
    for (int d = 0; d < 3; d++) {
      o->blo[d] = c[d] < o->blo[d] ? c[d] : o->blo[d];
      o->bhi[d] = c[d] > o->bhi[d] ? c[d] : o->bhi[d];
      if (pairs[2 * p + 1] != rank) continue;
      int first    = (int)((int64_t)c[d] * n[d] / o->mb[d]);
      int last     = first + (int)block_len(n[d], o->mb[d], c[d]) - 1;
      o->own_lo[d] = first < o->own_lo[d] ? first : o->own_lo[d];
      o->own_hi[d] = last > o->own_hi[d] ? last : o->own_hi[d];
      nodes *= last - first + 1;
    }
    if (pairs[2 * p + 1] == rank) o->own_count += nodes;
  }
  CC_CHECK(o->own_count > 0, CC_ERR_CHECK, "rank %d received no block of its own", rank);
  o->bw[0]      = o->bhi[0] - o->blo[0] + 1;
  o->bw[1]      = o->bhi[1] - o->blo[1] + 1;
  int64_t cells = o->bw[0] * o->bw[1] * (o->bhi[2] - o->blo[2] + 1);
  CC_CALL(cc_malloc((size_t)cells, sizeof(int32_t), &o->block_owner));
  for (int64_t c = 0; c < cells; c++) o->block_owner[c] = -1;
  for (int p = 0; p < n_pairs; p++) {
    int64_t b = pairs[2 * p];
    int a = (int)(b % o->mb[0]) - o->blo[0], bb = (int)((b / o->mb[0]) % o->mb[1]) - o->blo[1];
    int c = (int)(b / ((int64_t)o->mb[0] * o->mb[1])) - o->blo[2];
    o->block_owner[a + o->bw[0] * (bb + o->bw[1] * c)] = pairs[2 * p + 1];
  }
  return CC_OK;
}

cc_err cc_mesh_partition_metis(const cc_mesh_params *params, MPI_Comm comm, cc_mesh_owner *o,
                               cc_mesh *mesh)
{
  int rank, size;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  memset(o, 0, sizeof *o);
  o->kind = CC_PARTITION_METIS;
  o->nx = params->nx, o->ny = params->ny, o->nz = params->nz;
  int n[3] = {o->nx, o->ny, o->nz};
  cc_mesh_metis_blocks(n, size, o->mb);
  CC_CALL(cc_malloc((size_t)o->nx, sizeof(int), &o->slab_x));
  CC_CALL(cc_malloc((size_t)o->ny, sizeof(int), &o->slab_y));
  CC_CALL(cc_malloc((size_t)o->nz, sizeof(int), &o->slab_z));
  cc_mesh_fill_slabs(o->nx, o->mb[0], o->slab_x);
  cc_mesh_fill_slabs(o->ny, o->mb[1], o->slab_y);
  cc_mesh_fill_slabs(o->nz, o->mb[2], o->slab_z);
  int64_t nb      = (int64_t)o->mb[0] * o->mb[1] * o->mb[2];
  int64_t info[2] = {0, (int64_t)n[0] * n[1] * n[2]}; /* edge cut, largest part's nodes */
  idx_t *part     = NULL;
  cc_err err      = CC_OK;
  if (rank == 0) {
    err = cc_calloc((size_t)nb, sizeof(idx_t), &part);
    if (!err && size > 1) err = metis_on_root(n, o->mb, size, part, info);
  }
  /* one agreed failure: rank 0 prints it and every rank finalizes */
  err = cc_agree(comm, err);
  if (err) cc_free(&part);
  CC_CALL(err);
  CC_MPI(MPI_Bcast(info, 2, MPI_INT64_T, 0, comm));
  int32_t *pairs = NULL;
  int n_pairs    = 0;
  err            = scatter_blocks(n, o->mb, part, comm, &pairs, &n_pairs);
  cc_free(&part);
  if (!err) err = owner_table(o, rank, pairs, n_pairs);
  cc_free(&pairs);
  CC_CALL(err);
  mesh->edge_cut        = info[0];
  mesh->load_imbalance  = (double)info[1] * size / ((double)n[0] * n[1] * n[2]);
  mesh->coarse_vertices = nb;
  return CC_OK;
}
