/* test_mesh_counting.c: structure of the distributed mesh and matrix (GeoFEM local data):
 * - block counts: an interior row has 27 blocks; the total over ranks equals, by brute force, the
 *   number of node pairs within one element; columns sorted, diagonal found;
 * - ownership: every global node is internal on exactly one rank; local numbering ascending;
 * - comm table: my export to q has the size of q's import from me (MPI_Alltoall) and the same
 *   global ids in the same order (point-to-point exchange);
 * - the reported edge cut equals the brute-force cut of the 27-point node graph.
 */
#include "cc_mesh.h"
#include "cc_test.h"

#include <stdlib.h>

static int failures = 0, rank = 0, size = 1;
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      printf("[%d] FAIL %s:%d: ", rank, __FILE__, __LINE__);                                       \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

static int near(int64_t g, int64_t h, const cc_mesh *m)
{
  int64_t nxy = (int64_t)m->nx * m->ny;
  return llabs(g % m->nx - h % m->nx) <= 1 && llabs((g % nxy) / m->nx - (h % nxy) / m->nx) <= 1 &&
         llabs(g / nxy - h / nxy) <= 1;
}

static void check_matrix(const cc_mesh *m, const cc_bcrs *a, int *owner)
{
  int64_t n = m->n_global_nodes, pairs = 0, blocks = a->n_blocks;
  for (int64_t g = 0; g < n; g++) /* brute force O(N^2): tiny meshes only */
    for (int64_t h = 0; h < n; h++) pairs += near(g, h, m);
  MPI_Allreduce(MPI_IN_PLACE, &blocks, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT(blocks == pairs, "total blocks %lld != node pairs sharing an element %lld",
         (long long)blocks, (long long)pairs);
  for (int v = 0; v < a->n_rows; v++) {
    int64_t g = m->global_id[v], expect = 0;
    for (int64_t h = 0; h < n; h++) expect += near(g, h, m);
    EXPECT(a->row_ptr[v + 1] - a->row_ptr[v] == expect,
           "row of node %lld: %lld blocks, expected %lld", (long long)g,
           (long long)(a->row_ptr[v + 1] - a->row_ptr[v]), (long long)expect);
    int64_t nxy = (int64_t)m->nx * m->ny, i = g % m->nx, j = (g % nxy) / m->nx, k = g / nxy;
    if (i > 0 && j > 0 && k > 0 && i < m->nx - 1 && j < m->ny - 1 && k < m->nz - 1)
      EXPECT(a->row_ptr[v + 1] - a->row_ptr[v] == 27, "interior node %lld has %lld blocks",
             (long long)g, (long long)(a->row_ptr[v + 1] - a->row_ptr[v]));
    EXPECT(a->col_idx[a->diag_pos[v]] == v, "row %d: diag_pos points to column %d", v,
           a->col_idx[a->diag_pos[v]]);
    for (int64_t t = a->row_ptr[v]; t < a->row_ptr[v + 1]; t++) {
      EXPECT(t == a->row_ptr[v] || a->col_idx[t - 1] < a->col_idx[t],
             "row %d columns not ascending", v);
      EXPECT(near(g, m->global_id[a->col_idx[t]], m), "row %d: column node %lld not adjacent", v,
             (long long)m->global_id[a->col_idx[t]]);
    }
  }
  /* every node internal on exactly one rank */
  for (int64_t g = 0; g < n; g++) owner[g] = 0;
  for (int v = 0; v < m->n_internal; v++) owner[m->global_id[v]] += 1;
  MPI_Allreduce(MPI_IN_PLACE, owner, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int64_t g = 0; g < n; g++)
    EXPECT(owner[g] == 1, "node %lld internal on %d ranks", (long long)g, owner[g]);
  for (int v = 1; v < m->n_total; v++)
    EXPECT(v == m->n_internal || m->global_id[v - 1] < m->global_id[v], "local %d not ascending",
           v);
}

static void check_edge_cut(const cc_mesh *m, int *owner)
{
  int64_t n = m->n_global_nodes, cut = 0;
  for (int64_t g = 0; g < n; g++) owner[g] = -1;
  for (int v = 0; v < m->n_internal; v++) owner[m->global_id[v]] = rank;
  MPI_Allreduce(MPI_IN_PLACE, owner, (int)n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (int64_t g = 0; g < n; g++)
    for (int64_t h = g + 1; h < n; h++) cut += near(g, h, m) && owner[g] != owner[h];
  EXPECT(cut == m->edge_cut, "edge cut %lld, brute force %lld", (long long)m->edge_cut,
         (long long)cut);
  EXPECT((size > 1) == (cut > 0), "edge cut %lld on %d ranks", (long long)cut, size);
}

static void check_comm_table(const cc_mesh *m)
{
  const cc_comm_table *t = &m->comm;
  int *send, *recv;
  TEST_CALL(cc_calloc((size_t)size, sizeof(int), &send));
  TEST_CALL(cc_calloc((size_t)size, sizeof(int), &recv));
  for (int s = 0; s < t->n_neighbors; s++) {
    int q = t->neighbor_rank[s];
    EXPECT(q != rank && (s == 0 || t->neighbor_rank[s - 1] < q), "neighbour list not ascending");
    send[q] = t->export_index[s + 1] - t->export_index[s];
  }
  MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
  for (int s = 0; s < t->n_neighbors; s++) {
    int q = t->neighbor_rank[s], n_imp = t->import_index[s + 1] - t->import_index[s];
    EXPECT(recv[q] == n_imp, "rank %d exports %d nodes to me, I import %d", q, recv[q], n_imp);
    recv[q] = 0;
  }
  for (int q = 0; q < size; q++) EXPECT(recv[q] == 0, "rank %d exports to me, not my neighbour", q);
  EXPECT(t->import_index[t->n_neighbors] == m->n_total - m->n_internal,
         "%d imports for %d external", t->import_index[t->n_neighbors], m->n_total - m->n_internal);
  /* import items: each external node exactly once, ascending within a neighbour */
  int *seen;
  TEST_CALL(cc_calloc((size_t)(m->n_total - m->n_internal), sizeof(int), &seen));
  for (int s = 0; s < t->n_neighbors; s++)
    for (int e = t->import_index[s]; e < t->import_index[s + 1]; e++) {
      int v = t->import_item[e];
      EXPECT(v >= m->n_internal && v < m->n_total, "import item %d = %d not external", e, v);
      if (v < m->n_internal || v >= m->n_total) continue;
      seen[v - m->n_internal]++;
      EXPECT(e == t->import_index[s] || t->import_item[e - 1] < v, "imports from %d not ascending",
             t->neighbor_rank[s]);
    }
  for (int v = 0; v < m->n_total - m->n_internal; v++)
    EXPECT(seen[v] == 1, "external node %d imported %d times", m->n_internal + v, seen[v]);
  cc_free(&seen);
  if (failures) return; /* sizes disagree: the exchange below would not match */

  /* exchange global ids of export items; they must equal those of my import items, in order */
  int n_exp = t->export_index[t->n_neighbors], n_imp = t->import_index[t->n_neighbors];
  int64_t *sbuf, *rbuf;
  MPI_Request *req;
  MPI_Status *status;
  TEST_CALL(cc_malloc(2 * (size_t)t->n_neighbors, sizeof(MPI_Status), &status));
  TEST_CALL(cc_malloc((size_t)n_exp, sizeof(int64_t), &sbuf));
  TEST_CALL(cc_malloc((size_t)n_imp, sizeof(int64_t), &rbuf));
  TEST_CALL(cc_malloc(2 * (size_t)t->n_neighbors, sizeof(MPI_Request), &req));
  for (int e = 0; e < n_exp; e++) {
    EXPECT(t->export_item[e] >= 0 && t->export_item[e] < m->n_internal,
           "export item %d not internal", e);
    sbuf[e] = m->global_id[t->export_item[e]];
  }
  for (int s = 0; s < t->n_neighbors; s++) {
    MPI_Irecv(rbuf + t->import_index[s], t->import_index[s + 1] - t->import_index[s], MPI_INT64_T,
              t->neighbor_rank[s], 7, MPI_COMM_WORLD, &req[s]);
    MPI_Isend(sbuf + t->export_index[s], t->export_index[s + 1] - t->export_index[s], MPI_INT64_T,
              t->neighbor_rank[s], 7, MPI_COMM_WORLD, &req[t->n_neighbors + s]);
  }
  MPI_Waitall(2 * t->n_neighbors, req, status);
  for (int e = 0; e < n_imp; e++)
    EXPECT(rbuf[e] == m->global_id[t->import_item[e]],
           "import %d: neighbour sends node %lld, I expect %lld", e, (long long)rbuf[e],
           (long long)m->global_id[t->import_item[e]]);
  cc_free(&sbuf);
  cc_free(&rbuf);
  cc_free(&req);
  cc_free(&status);
  cc_free(&send);
  cc_free(&recv);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int sizes[3][3] = {{3, 3, 3}, {9, 5, 7}, {6, 3, 5}};
  for (int s = 0; s < 3; s++)
    for (int kind = 0; kind < 2; kind++) {
      cc_mesh_params p;
      cc_mesh_params_default(&p);
      p.nx = sizes[s][0], p.ny = sizes[s][1], p.nz = sizes[s][2];
      p.partition = kind ? CC_PARTITION_METIS : CC_PARTITION_BOX;
      cc_mesh m;
      cc_bcrs a;
      double *b;
      int *owner, before = failures;
      TEST_CALL(cc_mesh_create(&p, MPI_COMM_WORLD, &m));
      TEST_CALL(cc_mesh_assemble(&m, &p, &a, &b));
      TEST_CALL(cc_malloc((size_t)m.n_global_nodes, sizeof(int), &owner));
      check_matrix(&m, &a, owner);
      check_edge_cut(&m, owner);
      check_comm_table(&m);
      int bad = failures - before;
      MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (rank == 0)
        printf("%s %dx%dx%d %s np=%d: edge cut %lld, grid %dx%dx%d, %d failure(s)\n",
               bad ? "FAIL" : "PASS", p.nx, p.ny, p.nz, kind ? "metis" : "box", size,
               (long long)m.edge_cut, m.px, m.py, m.pz, bad);
      cc_free(&owner);
      cc_free(&b);
      cc_bcrs_free(&a);
      cc_mesh_free(&m);
    }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return failures ? 1 : 0;
}
