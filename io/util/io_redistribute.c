/* io_redistribute.c: move node values between the owners' layout (any global ids) and contiguous
 * blocks of the global order (what a collective HDF5 hyperslab write needs): a counting sort by
 * destination block and one MPI_Alltoallv of vpn-double items each way. */
#include "io_internal.h"

#include <limits.h>

static int owner_of(const int64_t *block_start, int size, int64_t g)
{
  int lo = 0, hi = size; /* block_start[lo] <= g < block_start[hi] */
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (block_start[mid] <= g)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Every rank's block of the global order (block_start given, or rank r's starting at the sum of
 * the n_local of ranks < r), checked to cover the n_global_nodes the ranks own; rd->identity when
 * every rank already holds its block in order (no exchange). */
static cc_err redist_blocks(const cc_io_layout *layout, const int64_t *block_start, int rank,
                            io_redist *rd)
{
  int size = rd->size;
  CC_CALL(cc_malloc((size_t)size + 1, sizeof(int64_t), &rd->block_start));
  if (block_start)
    memcpy(rd->block_start, block_start, ((size_t)size + 1) * sizeof(int64_t));
  else { /* rank r's block starts at the sum of the n_local of ranks < r */
    int64_t offset = 0;
    CC_MPI(MPI_Exscan(&rd->n_local, &offset, 1, MPI_INT64_T, MPI_SUM, rd->comm));
    if (rank == 0) offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
    CC_MPI(MPI_Allgather(&offset, 1, MPI_INT64_T, rd->block_start, 1, MPI_INT64_T, rd->comm));
    rd->block_start[size] = layout->n_global_nodes;
  }
  int64_t total;
  CC_MPI(MPI_Allreduce(&rd->n_local, &total, 1, MPI_INT64_T, MPI_SUM, rd->comm));
  CC_CHECK(total == layout->n_global_nodes && rd->block_start[size] == total, CC_ERR_ARG,
           "layout: the ranks own %lld nodes in all, n_global_nodes is %lld", (long long)total,
           (long long)layout->n_global_nodes);
  rd->n_block = rd->block_start[rank + 1] - rd->block_start[rank];
  /* the common cases (contiguous partitions, the benchmark) need no exchange at all */
  int identity = rd->n_local == rd->n_block;
  for (int64_t i = 0; identity && i < rd->n_local; i++)
    identity = layout->global_node_id[i] == rd->block_start[rank] + i;
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &identity, 1, MPI_INT, MPI_LAND, rd->comm));
  rd->identity = identity;
  return CC_OK;
}

/* What this rank sends: a counting sort of its nodes by destination block (send_count,
 * send_displ, send_order) and each sent node's global id (*send_gid, in send order). A global id
 * outside [0, n_global) goes into *local and is not sent: the collectives must still match. */
static cc_err redist_send_plan(const cc_io_layout *layout, io_redist *rd, int64_t **send_gid,
                               cc_err *local)
{
  int size = rd->size;
  int *dest, *next;
  CC_CALL(cc_malloc((size_t)rd->n_local, sizeof(int), &dest));
  CC_CALL(cc_malloc((size_t)size, sizeof(int), &next));
  for (int64_t i = 0; i < rd->n_local; i++) {
    int64_t g = layout->global_node_id[i];
    dest[i]   = -1;
    if (g < 0 || g >= layout->n_global_nodes) {
      if (!*local)
        *local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                               "global node id %lld of local node %lld outside [0, %lld)",
                               (long long)g, (long long)i, (long long)layout->n_global_nodes);
      continue; /* keep going: the collectives below must still match */
    }
    dest[i] = owner_of(rd->block_start, size, g);
    rd->send_count[dest[i]]++;
  }
  for (int r = 1; r < size; r++) rd->send_displ[r] = rd->send_displ[r - 1] + rd->send_count[r - 1];
  CC_CALL(cc_malloc((size_t)rd->n_local, sizeof(int64_t), &rd->send_order));
  CC_CALL(cc_malloc((size_t)rd->n_local, sizeof(int64_t), send_gid));
  memcpy(next, rd->send_displ, (size_t)size * sizeof(int));
  for (int64_t i = 0; i < rd->n_local; i++)
    if (dest[i] >= 0) {
      int k             = next[dest[i]]++;
      rd->send_order[k] = i;
      (*send_gid)[k]    = layout->global_node_id[i];
    }
  cc_free(&dest);
  cc_free(&next);
  return CC_OK;
}

/* The n_recv global ids this rank received, made positions in its block (first = its start):
 * every position must arrive exactly once (the first failure into *local). */
static cc_err redist_check_positions(io_redist *rd, int64_t first, int64_t n_recv, cc_err *local)
{
  unsigned char *seen;
  CC_CALL(cc_calloc((size_t)rd->n_block, 1, &seen));
  for (int64_t k = 0; k < n_recv; k++) {
    int64_t p            = rd->recv_position[k] - first;
    rd->recv_position[k] = p;
    if (p < 0 || p >= rd->n_block || seen[p]++) {
      if (!*local)
        *local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                               "global node id %lld is owned by more than one rank",
                               (long long)(p + first));
      rd->recv_position[k] = -1;
    }
  }
  for (int64_t p = 0; p < rd->n_block && !*local; p++)
    if (!seen[p])
      *local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                             "global node id %lld is owned by no rank", (long long)(p + first));
  cc_free(&seen);
  return CC_OK;
}

static cc_err redist_setup(const cc_io_layout *layout, const int64_t *block_start, io_redist *rd,
                           cc_err *local)
{
  int rank;
  CC_MPI(MPI_Comm_rank(rd->comm, &rank));
  int size = rd->size;
  CC_CALL(redist_blocks(layout, block_start, rank, rd));
  if (rd->identity) return CC_OK;
  CC_CHECK(rd->n_local < INT_MAX && rd->n_block < INT_MAX, CC_ERR_UNSUPPORTED,
           "more than INT_MAX nodes on one rank (%lld, %lld)", (long long)rd->n_local,
           (long long)rd->n_block);

  CC_CALL(cc_calloc((size_t)size, sizeof(int), &rd->send_count));
  CC_CALL(cc_calloc((size_t)size, sizeof(int), &rd->send_displ));
  CC_CALL(cc_calloc((size_t)size, sizeof(int), &rd->recv_count));
  CC_CALL(cc_calloc((size_t)size, sizeof(int), &rd->recv_displ));
  int64_t *send_gid = NULL;
  CC_CALL(redist_send_plan(layout, rd, &send_gid, local));

  CC_MPI(MPI_Alltoall(rd->send_count, 1, MPI_INT, rd->recv_count, 1, MPI_INT, rd->comm));
  int64_t n_recv = 0;
  for (int r = 0; r < size; r++) {
    rd->recv_displ[r] = (int)n_recv;
    n_recv += rd->recv_count[r];
  }
  CC_CHECK(n_recv < INT_MAX, CC_ERR_UNSUPPORTED, "%lld nodes sent to one rank", (long long)n_recv);
  CC_CALL(cc_malloc((size_t)n_recv, sizeof(int64_t), &rd->recv_position));
  CC_MPI(MPI_Alltoallv(send_gid, rd->send_count, rd->send_displ, MPI_INT64_T, rd->recv_position,
                       rd->recv_count, rd->recv_displ, MPI_INT64_T, rd->comm));
  cc_free(&send_gid);
  CC_CALL(redist_check_positions(rd, rd->block_start[rank], n_recv, local));

  size_t vpn = (size_t)rd->vpn;
  CC_CALL(cc_malloc((size_t)rd->n_local * vpn, sizeof(double), &rd->send_buf));
  CC_CALL(cc_malloc((size_t)n_recv * vpn, sizeof(double), &rd->recv_buf));
  CC_MPI(MPI_Type_contiguous(rd->vpn, MPI_DOUBLE, &rd->node_type));
  CC_MPI(MPI_Type_commit(&rd->node_type));
  return CC_OK;
}

cc_err io_redist_create(const cc_io_layout *layout, const int64_t *block_start, io_redist *rd)
{
  memset(rd, 0, sizeof *rd);
  rd->comm      = layout->comm;
  rd->vpn       = layout->values_per_node;
  rd->n_local   = layout->n_local_nodes;
  rd->node_type = MPI_DATATYPE_NULL;
  CC_MPI(MPI_Comm_size(rd->comm, &rd->size));
  cc_err local = CC_OK;
  cc_err err   = redist_setup(layout, block_start, rd, &local);
  if (!local) local = err;
  err = cc_agree(rd->comm, local);
  if (err) io_redist_free(rd);
  CC_CALL(err);
  return CC_OK;
}

/* dst[k] = src[index[k]] for the n nodes of vpn values (pack). */
static void gather_nodes(double *dst, const double *src, const int64_t *index, int64_t n,
                         size_t vpn)
{
  for (int64_t k = 0; k < n; k++)
    for (size_t c = 0; c < vpn; c++) dst[k * vpn + c] = src[index[k] * vpn + c];
}

/* dst[index[k]] = src[k] for the n nodes of vpn values (unpack). */
static void scatter_nodes(double *dst, const int64_t *index, const double *src, int64_t n,
                          size_t vpn)
{
  for (int64_t k = 0; k < n; k++)
    for (size_t c = 0; c < vpn; c++) dst[index[k] * vpn + c] = src[k * vpn + c];
}

cc_err io_redist_forward(io_redist *rd, const double *local, double *block)
{
  size_t vpn = (size_t)rd->vpn;
  if (rd->identity) {
    if (block != local) memcpy(block, local, (size_t)rd->n_local * vpn * sizeof(double));
    return CC_OK;
  }
  int64_t n_recv = rd->recv_displ[rd->size - 1] + rd->recv_count[rd->size - 1];
  gather_nodes(rd->send_buf, local, rd->send_order, rd->n_local, vpn); /* by destination */
  CC_MPI(MPI_Alltoallv(rd->send_buf, rd->send_count, rd->send_displ, rd->node_type, rd->recv_buf,
                       rd->recv_count, rd->recv_displ, rd->node_type, rd->comm));
  scatter_nodes(block, rd->recv_position, rd->recv_buf, n_recv, vpn);
  return CC_OK;
}

cc_err io_redist_backward(io_redist *rd, const double *block, double *local)
{
  size_t vpn = (size_t)rd->vpn;
  if (rd->identity) {
    if (block != local) memcpy(local, block, (size_t)rd->n_local * vpn * sizeof(double));
    return CC_OK;
  }
  int64_t n_recv = rd->recv_displ[rd->size - 1] + rd->recv_count[rd->size - 1];
  gather_nodes(rd->recv_buf, block, rd->recv_position, n_recv, vpn);
  CC_MPI(MPI_Alltoallv(rd->recv_buf, rd->recv_count, rd->recv_displ, rd->node_type, rd->send_buf,
                       rd->send_count, rd->send_displ, rd->node_type, rd->comm));
  scatter_nodes(local, rd->send_order, rd->send_buf, rd->n_local, vpn);
  return CC_OK;
}

void io_redist_free(io_redist *rd)
{
  cc_free_all((void *[]){&rd->block_start, &rd->send_count, &rd->send_displ, &rd->recv_count,
                         &rd->recv_displ, &rd->send_order, &rd->recv_position, &rd->send_buf,
                         &rd->recv_buf, NULL});
  if (rd->node_type != MPI_DATATYPE_NULL) MPI_Type_free(&rd->node_type);
  rd->node_type = MPI_DATATYPE_NULL;
}
