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

static cc_err redist_setup(const cc_io_layout *layout, const int64_t *block_start, io_redist *rd,
                           cc_err *local)
{
  int rank;
  CC_MPI(MPI_Comm_rank(rd->comm, &rank));
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
  if (identity) return CC_OK;
  CC_CHECK(rd->n_local < INT_MAX && rd->n_block < INT_MAX, CC_ERR_UNSUPPORTED,
           "more than INT_MAX nodes on one rank (%lld, %lld)", (long long)rd->n_local,
           (long long)rd->n_block);

  CC_CALL(cc_calloc((size_t)size, sizeof(int), &rd->send_count));
  CC_CALL(cc_calloc((size_t)size, sizeof(int), &rd->send_displ));
  CC_CALL(cc_calloc((size_t)size, sizeof(int), &rd->recv_count));
  CC_CALL(cc_calloc((size_t)size, sizeof(int), &rd->recv_displ));
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
  int64_t *send_gid;
  CC_CALL(cc_malloc((size_t)rd->n_local, sizeof(int64_t), &send_gid));
  memcpy(next, rd->send_displ, (size_t)size * sizeof(int));
  int64_t n_send = 0;
  for (int64_t i = 0; i < rd->n_local; i++)
    if (dest[i] >= 0) {
      int k             = next[dest[i]]++;
      rd->send_order[k] = i;
      send_gid[k]       = layout->global_node_id[i];
      n_send++;
    }
  cc_free(&dest);
  cc_free(&next);

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

  /* every position of the block must arrive exactly once */
  unsigned char *seen;
  CC_CALL(cc_calloc((size_t)rd->n_block, 1, &seen));
  int64_t first = rd->block_start[rank];
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
  (void)n_send;

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

cc_err io_redist_forward(io_redist *rd, const double *local, double *block)
{
  size_t vpn = (size_t)rd->vpn;
  if (rd->identity) {
    if (block != local) memcpy(block, local, (size_t)rd->n_local * vpn * sizeof(double));
    return CC_OK;
  }
  int64_t n_recv = rd->recv_displ[rd->size - 1] + rd->recv_count[rd->size - 1];
  for (int64_t k = 0; k < rd->n_local; k++) /* pack by destination */
    for (size_t c = 0; c < vpn; c++) rd->send_buf[k * vpn + c] = local[rd->send_order[k] * vpn + c];
  CC_MPI(MPI_Alltoallv(rd->send_buf, rd->send_count, rd->send_displ, rd->node_type, rd->recv_buf,
                       rd->recv_count, rd->recv_displ, rd->node_type, rd->comm));
  for (int64_t k = 0; k < n_recv; k++)
    for (size_t c = 0; c < vpn; c++)
      block[rd->recv_position[k] * vpn + c] = rd->recv_buf[k * vpn + c];
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
  for (int64_t k = 0; k < n_recv; k++)
    for (size_t c = 0; c < vpn; c++)
      rd->recv_buf[k * vpn + c] = block[rd->recv_position[k] * vpn + c];
  CC_MPI(MPI_Alltoallv(rd->recv_buf, rd->recv_count, rd->recv_displ, rd->node_type, rd->send_buf,
                       rd->send_count, rd->send_displ, rd->node_type, rd->comm));
  for (int64_t k = 0; k < rd->n_local; k++)
    for (size_t c = 0; c < vpn; c++) local[rd->send_order[k] * vpn + c] = rd->send_buf[k * vpn + c];
  return CC_OK;
}

void io_redist_free(io_redist *rd)
{
  cc_free(&rd->block_start);
  cc_free(&rd->send_count);
  cc_free(&rd->send_displ);
  cc_free(&rd->recv_count);
  cc_free(&rd->recv_displ);
  cc_free(&rd->send_order);
  cc_free(&rd->recv_position);
  cc_free(&rd->send_buf);
  cc_free(&rd->recv_buf);
  if (rd->node_type != MPI_DATATYPE_NULL) MPI_Type_free(&rd->node_type);
  rd->node_type = MPI_DATATYPE_NULL;
}
