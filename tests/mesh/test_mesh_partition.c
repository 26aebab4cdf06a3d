/* test_mesh_partition.c: a partition is valid whatever the partitioner: every global node is owned
 * by exactly one rank, every external node is a 27-point neighbour of an owned one, each rank's
 * import list from q is q's export list to it (global ids exchanged), the reported edge cut is the
 * number of node-graph edges between ranks counted from the local data, the reported load
 * imbalance is the largest part over the mean, and two partitions of the same mesh are identical
 * (fixed seed). Meshes with single-node and with multi-node METIS blocks.
 * Usage: test_mesh_partition box|metis
 */
#include "cc_mesh.h"
#include "cc_test.h"

#include <math.h>
#include <stdlib.h>

static int failures = 0;

static void expect(int ok, const char *what, int nx, int ny, int nz, double got, double want)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("%s %dx%dx%d %s: %.17g (expected %.17g)\n", ok ? "PASS" : "FAIL", nx, ny, nz, what, got,
           want);
  failures += !ok;
}

/* Edges from owned nodes to external ones (each cut edge seen once from each side). */
static int64_t local_cut_ends(const cc_mesh *m)
{
  int64_t ends = 0;
  for (int v = 0; v < m->n_internal; v++) {
    int64_t g = m->global_id[v], nxy = (int64_t)m->nx * m->ny;
    int k = (int)(g / nxy), j = (int)((g % nxy) / m->nx), i = (int)(g % m->nx);
    for (int s = 0; s < 27; s++) {
      int x = i + s % 3 - 1, y = j + (s / 3) % 3 - 1, z = k + s / 9 - 1;
      if (s == 13 || x < 0 || y < 0 || z < 0 || x >= m->nx || y >= m->ny || z >= m->nz) continue;
      int64_t h = x + m->nx * ((int64_t)y + (int64_t)m->ny * z);
      int owned = 0; /* internal ids are in ascending global id */
      for (int lo = 0, hi = m->n_internal - 1; lo <= hi && !owned;) {
        int mid = (lo + hi) / 2;
        if (m->global_id[mid] == h) owned = 1;
        if (m->global_id[mid] < h)
          lo = mid + 1;
        else
          hi = mid - 1;
      }
      ends += !owned;
    }
  }
  return ends;
}

/* Our export list's global ids to each neighbour equal its import list's from us. */
static int halos_match(const cc_mesh *m)
{
  const cc_comm_table *t = &m->comm;
  int nn = t->n_neighbors, bad = 0;
  int n_exp = t->export_index[nn], n_imp = t->import_index[nn];
  int64_t *send    = malloc(sizeof(int64_t) * (size_t)(n_exp + 1));
  int64_t *recv    = malloc(sizeof(int64_t) * (size_t)(n_imp + 1));
  MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(2 * nn + 1));
  for (int e = 0; e < n_exp; e++) send[e] = m->global_id[t->export_item[e]];
  for (int s = 0; s < nn; s++) {
    MPI_Irecv(recv + t->import_index[s], t->import_index[s + 1] - t->import_index[s], MPI_INT64_T,
              t->neighbor_rank[s], 7, t->comm, req + s);
    MPI_Isend(send + t->export_index[s], t->export_index[s + 1] - t->export_index[s], MPI_INT64_T,
              t->neighbor_rank[s], 7, t->comm, req + nn + s);
  }
  MPI_Status *status = malloc(sizeof(MPI_Status) * (size_t)(2 * nn + 1));
  MPI_Waitall(2 * nn, req, status);
  free(status);
  for (int e = 0; e < n_imp; e++) bad += recv[e] != m->global_id[t->import_item[e]];
  free(send), free(recv), free(req);
  return bad == 0;
}

static void check_mesh(cc_partition_kind kind, int nx, int ny, int nz)
{
  cc_mesh_params params;
  cc_mesh_params_default(&params);
  params.nx = nx, params.ny = ny, params.nz = nz, params.partition = kind;
  cc_mesh m, again;
  TEST_CALL(cc_mesh_create(&params, MPI_COMM_WORLD, &m));
  TEST_CALL(cc_mesh_create(&params, MPI_COMM_WORLD, &again));
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int64_t n = (int64_t)nx * ny * nz;
  /* owned once: the owned counts add up to N and the owned ids' sums of g and g^2 match 0..N-1 */
  double sums[3] = {(double)m.n_internal, 0, 0}, largest = m.n_internal;
  for (int v = 0; v < m.n_internal; v++)
    sums[1] += (double)m.global_id[v], sums[2] += (double)m.global_id[v] * m.global_id[v];
  MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double want2 = (double)(n - 1) * n * (2 * n - 1) / 6;
  expect(sums[0] == n && sums[1] == 0.5 * n * (n - 1) && sums[2] == want2, "owned once (sum g^2)",
         nx, ny, nz, sums[2], want2);
  expect(largest * size / n == m.load_imbalance, "load imbalance", nx, ny, nz, m.load_imbalance,
         largest * size / n);
  int64_t ends = local_cut_ends(&m);
  MPI_Allreduce(MPI_IN_PLACE, &ends, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  expect(ends == 2 * m.edge_cut, "edge cut", nx, ny, nz, (double)m.edge_cut, ends / 2.0);
  int ok = halos_match(&m) && m.n_total == again.n_total && m.n_internal == again.n_internal;
  for (int v = 0; ok && v < m.n_total; v++) ok = m.global_id[v] == again.global_id[v];
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  expect(ok, "halos match, same partition twice", nx, ny, nz, ok, 1);
  if (kind == CC_PARTITION_METIS && size > 1)
    expect(m.coarse_vertices >= (int64_t)size * 64 || m.coarse_vertices == n,
           "METIS blocks per part >= 64 (or single nodes)", nx, ny, nz, (double)m.coarse_vertices,
           (double)size * 64);
  cc_mesh_free(&m);
  cc_mesh_free(&again);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (argc != 2 || (strcmp(argv[1], "box") && strcmp(argv[1], "metis"))) {
    fprintf(stderr, "usage: %s box|metis\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  cc_partition_kind kind = strcmp(argv[1], "box") ? CC_PARTITION_METIS : CC_PARTITION_BOX;
  const int sizes[4][3]  = {{9, 5, 7}, {4, 4, 4}, {40, 24, 30}, {33, 17, 65}};
  for (int s = 0; s < 4; s++) check_mesh(kind, sizes[s][0], sizes[s][1], sizes[s][2]);
  MPI_Finalize();
  return failures ? 1 : 0;
}
