/* io_rankfile.c: the per-rank checkpoint file (posix, uring, offload, fortran backends): a
 * 4096-byte header (layout, names, scalars, CRC32C of the header and of the global ids), then the
 * vectors back to back, little-endian doubles. The CRC32C of the whole file is computed on the
 * bytes as they stream through (Fortran record markers included), so nothing is read twice. */
#include "ckpt_names.h"
#include "io_internal.h"

#include <limits.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#define RANKFILE_MAGIC "CCRANK01"

typedef struct {
  char magic[8];
  uint32_t header_bytes, format_version;
  int32_t rank, n_ranks;
  int64_t n_local_nodes, n_global_nodes;
  int32_t values_per_node, n_vectors, n_scalars, iteration;
  uint32_t global_id_crc, reserved;
  char solver[16];
  char vector_name[CC_IO_MAX_VECTORS][CC_IO_NAME_LEN];
  char scalar_name[CC_IO_MAX_SCALARS][CC_IO_NAME_LEN];
  double scalar[CC_IO_MAX_SCALARS];
  uint32_t header_crc; /* CRC32C of every byte before it */
} rank_header;
_Static_assert(sizeof(rank_header) <= IO_RANKFILE_HEADER, "rank header must fit its block");

struct io_rankfile {
  const io_stream_ops *stream;
  void *sctx;
  cc_io_options opt;
  cc_io_mode mode;
  char path[IO_PATH_MAX];
  int rank, n_ranks, vpn;
  int64_t n_local, n_global;
  uint32_t gid_crc;
  uint32_t crc;  /* of the bytes streamed so far */
  int64_t bytes; /* streamed so far, markers included */
  double seconds;
};

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* not MPI_Wtime: may run on the offload thread */
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

uint32_t io_global_id_crc(const cc_io_layout *layout)
{
  return cc_io_crc32c(0, layout->global_node_id, (size_t)layout->n_local_nodes * sizeof(int64_t));
}

/* Fortran-style streams frame each record with its length before and after; the file's CRC covers
 * exactly the bytes on disk, so the markers go into it too. */
static void account(io_rankfile *rf, const void *data, size_t n)
{
  if (rf->stream->record_marker) {
    int32_t marker = (int32_t)n;
    if (rf->opt.checksum) rf->crc = cc_io_crc32c(rf->crc, &marker, sizeof marker);
    if (rf->opt.checksum) rf->crc = cc_io_crc32c(rf->crc, data, n);
    if (rf->opt.checksum) rf->crc = cc_io_crc32c(rf->crc, &marker, sizeof marker);
    rf->bytes += (int64_t)n + 2 * (int64_t)sizeof marker;
  } else {
    if (rf->opt.checksum) rf->crc = cc_io_crc32c(rf->crc, data, n);
    rf->bytes += (int64_t)n;
  }
}

static size_t record_size(const io_rankfile *rf, size_t n)
{
  size_t max = rf->stream->max_record;
  return (max && n > max) ? max : n;
}

/* n bytes written from p (write) or read into it, in records of at most the stream's max_record,
 * each accounted (size, CRC32C) as it passes. */
static cc_err transfer(io_rankfile *rf, char *p, size_t n, bool write)
{
  do {
    size_t chunk = record_size(rf, n);
    if (write)
      CC_CALL(rf->stream->write(rf->sctx, p, chunk));
    else
      CC_CALL(rf->stream->read(rf->sctx, p, chunk));
    account(rf, p, chunk);
    p += chunk;
    n -= chunk;
  } while (n > 0);
  return CC_OK;
}

static cc_err put(io_rankfile *rf, const void *data, size_t n)
{
  CC_CALL(transfer(rf, (char *)data, n, true)); /* a write only reads data */
  return CC_OK;
}

static cc_err get(io_rankfile *rf, void *data, size_t n)
{
  CC_CALL(transfer(rf, data, n, false));
  return CC_OK;
}

cc_err io_rankfile_open_as(const io_stream_ops *stream, const cc_io_options *opt, int rank,
                           int n_ranks, int64_t n_local, int64_t n_global, int values_per_node,
                           uint32_t gid_crc, const char *dir, cc_io_mode mode, void **ctx)
{
  *ctx = NULL;
  CC_CHECK(n_local >= 0 && values_per_node >= 1, CC_ERR_ARG,
           "bad layout: n_local_nodes %lld, values_per_node %d", (long long)n_local,
           values_per_node);
  io_rankfile *rf;
  CC_CALL(cc_calloc(1, sizeof *rf, &rf));
  rf->stream   = stream;
  rf->opt      = *opt;
  rf->mode     = mode;
  rf->rank     = rank;
  rf->n_ranks  = n_ranks;
  rf->n_local  = n_local;
  rf->n_global = n_global;
  rf->vpn      = values_per_node;
  rf->gid_crc  = gid_crc;
  snprintf(rf->path, sizeof rf->path, "%s/" CKPT_RANK_FILE, dir, rank, stream->extension);
  double t0  = now_s();
  cc_err err = stream->open(rf->path, mode, opt, &rf->sctx);
  if (err) cc_free(&rf);
  CC_CALL(err);
  rf->seconds += now_s() - t0;
  *ctx = rf;
  return CC_OK;
}

cc_err io_rankfile_open(const io_stream_ops *stream, const cc_io_options *opt,
                        const cc_io_layout *layout, const char *dir, cc_io_mode mode, void **ctx)
{
  int rank, size;
  CC_MPI(MPI_Comm_rank(layout->comm, &rank));
  CC_MPI(MPI_Comm_size(layout->comm, &size));
  CC_CALL(io_rankfile_open_as(stream, opt, rank, size, layout->n_local_nodes,
                              layout->n_global_nodes, layout->values_per_node,
                              io_global_id_crc(layout), dir, mode, ctx));
  return CC_OK;
}

cc_err io_rankfile_write(void *ctx, const cc_io_state *state)
{
  io_rankfile *rf = ctx;
  CC_CHECK(rf->mode == CC_IO_WRITE, CC_ERR_ARG, "%s was opened for reading", rf->path);
  CC_CHECK(state->n_vectors >= 0 && state->n_vectors <= CC_IO_MAX_VECTORS &&
               state->n_scalars >= 0 && state->n_scalars <= CC_IO_MAX_SCALARS,
           CC_ERR_ARG, "state has %d vectors, %d scalars (at most %d, %d)", state->n_vectors,
           state->n_scalars, CC_IO_MAX_VECTORS, CC_IO_MAX_SCALARS);
  double t0 = now_s();
  rank_header *h;
  CC_CALL(cc_calloc(1, IO_RANKFILE_HEADER, &h));
  memcpy(h->magic, RANKFILE_MAGIC, 8);
  h->header_bytes    = IO_RANKFILE_HEADER;
  h->format_version  = 1;
  h->rank            = rf->rank;
  h->n_ranks         = rf->n_ranks;
  h->n_local_nodes   = rf->n_local;
  h->n_global_nodes  = rf->n_global;
  h->values_per_node = rf->vpn;
  h->n_vectors       = state->n_vectors;
  h->n_scalars       = state->n_scalars;
  h->iteration       = state->iteration;
  h->global_id_crc   = rf->gid_crc;
  snprintf(h->solver, sizeof h->solver, "%s", state->solver);
  for (int v = 0; v < state->n_vectors; v++)
    snprintf(h->vector_name[v], CC_IO_NAME_LEN, "%s", state->vector_name[v]);
  for (int s = 0; s < state->n_scalars; s++) {
    snprintf(h->scalar_name[s], CC_IO_NAME_LEN, "%s", state->scalar_name[s]);
    h->scalar[s] = state->scalar[s];
  }
  h->header_crc = cc_io_crc32c(0, h, offsetof(rank_header, header_crc));
  size_t bytes  = (size_t)rf->n_local * (size_t)rf->vpn * sizeof(double);
  cc_err err    = CC_OK;
  if (rf->stream->reserve)
    err = rf->stream->reserve(rf->sctx, IO_RANKFILE_HEADER + (int64_t)bytes * state->n_vectors);
  if (!err) err = put(rf, h, IO_RANKFILE_HEADER);
  cc_free(&h);
  CC_CALL(err);
  for (int v = 0; v < state->n_vectors; v++) {
    CC_CHECK(state->vector[v] != NULL || bytes == 0, CC_ERR_ARG, "vector '%s' is NULL",
             state->vector_name[v]);
    if (bytes) CC_CALL(put(rf, state->vector[v], bytes));
    if (v == 0) io_inject_kill_point(); /* test seam: die with half a file written */
  }
  if (state->n_vectors == 0) io_inject_kill_point();
  rf->seconds += now_s() - t0;
  return CC_OK;
}

static void fill_info(io_rankfile *rf, cc_io_file_info *info)
{
  memset(info, 0, sizeof *info);
  snprintf(info->file, sizeof info->file, "%s", rf->path);
  const char *slash = strrchr(rf->path, '/'), *name = slash ? slash + 1 : rf->path;
  info->n_files = 1; /* rank.<r>.<extension>: at most 24 bytes, it fits */
  snprintf(info->name[0], sizeof info->name[0], "%.*s", (int)sizeof info->name[0] - 1, name);
  snprintf(info->written_as, sizeof info->written_as, "%s", rf->stream->name);
  info->bytes   = rf->bytes;
  info->crc32c  = rf->crc;
  info->has_crc = rf->opt.checksum;
  info->write_s = rf->seconds;
  rf->stream->describe(rf->sctx, info->path_used, sizeof info->path_used, info->detail,
                       sizeof info->detail);
}

cc_err io_rankfile_commit(void *ctx, cc_io_file_info *info)
{
  io_rankfile *rf = ctx;
  double t0       = now_s();
  CC_CALL(rf->stream->finish(rf->sctx, rf->opt.durable));
  rf->seconds += now_s() - t0;
  /* trust but verify: some runtimes (gfortran) swallow a failed write(2) of their buffer */
  struct stat st;
  CC_CHECK(stat(rf->path, &st) == 0, CC_ERR_IO, "cannot stat %s: %s", rf->path, strerror(errno));
  CC_CHECK(st.st_size == rf->bytes, CC_ERR_IO,
           "%s has %lld bytes after the flush, %lld were written: a write failed unreported "
           "(device full or file size limit?)",
           rf->path, (long long)st.st_size, (long long)rf->bytes);
  fill_info(rf, info);
  return CC_OK;
}

cc_err io_rankfile_read(void *ctx, cc_io_state *state, cc_io_file_info *info)
{
  io_rankfile *rf = ctx;
  CC_CHECK(rf->mode == CC_IO_READ, CC_ERR_ARG, "%s was opened for writing", rf->path);
  double t0 = now_s();
  /* caller-provided buffers (benchmark: no allocation inside the timed read) */
  int given = rf->opt.read_into ? state->n_vectors : 0;
  CC_CHECK(given >= 0 && given <= CC_IO_MAX_VECTORS, CC_ERR_ARG, "read_into: %d vectors", given);
  double *given_vector[CC_IO_MAX_VECTORS];
  for (int v = 0; v < given && v < CC_IO_MAX_VECTORS; v++) given_vector[v] = state->vector[v];
  rank_header *h;
  CC_CALL(cc_calloc(1, IO_RANKFILE_HEADER, &h));
  cc_err err = get(rf, h, IO_RANKFILE_HEADER);
  if (err) cc_free(&h);
  CC_CALL(err);
  /* every check names the file and both values */
  const char *bad = NULL;
  long long found = 0, want = 0;
  if (memcmp(h->magic, RANKFILE_MAGIC, 8) || h->header_bytes != IO_RANKFILE_HEADER)
    bad = "not a cubecg per-rank checkpoint (magic)";
  else if (h->header_crc != cc_io_crc32c(0, h, offsetof(rank_header, header_crc)))
    bad = "header checksum mismatch (corrupt header)";
  else if (h->rank != rf->rank)
    bad = "rank", found = h->rank, want = rf->rank;
  else if (h->n_ranks != rf->n_ranks)
    bad = "rank count", found = h->n_ranks, want = rf->n_ranks;
  else if (h->n_local_nodes != rf->n_local)
    bad = "local node count", found = h->n_local_nodes, want = rf->n_local;
  else if (h->values_per_node != rf->vpn)
    bad = "values per node", found = h->values_per_node, want = rf->vpn;
  else if (h->n_global_nodes != rf->n_global)
    bad = "global node count", found = h->n_global_nodes, want = rf->n_global;
  else if (h->global_id_crc != rf->gid_crc)
    bad = "global node ids (partition or ordering differs)", found = h->global_id_crc,
    want = rf->gid_crc;
  else if (h->n_vectors < 0 || h->n_vectors > CC_IO_MAX_VECTORS || h->n_scalars < 0 ||
           h->n_scalars > CC_IO_MAX_SCALARS)
    bad = "vector/scalar count";
  else if (given && h->n_vectors != given)
    bad = "vector count (caller's buffers)", found = h->n_vectors, want = given;
  if (bad) {
    cc_free(&h);
    CC_FAIL(CC_ERR_IO, "%s: %s (file %lld, this run %lld)", rf->path, bad, found, want);
  }
  memset(state, 0, sizeof *state);
  snprintf(state->solver, sizeof state->solver, "%.15s", h->solver);
  state->iteration = h->iteration;
  state->n_scalars = h->n_scalars;
  for (int s = 0; s < h->n_scalars; s++) {
    snprintf(state->scalar_name[s], CC_IO_NAME_LEN, "%.31s", h->scalar_name[s]);
    state->scalar[s] = h->scalar[s];
  }
  int n_vectors = h->n_vectors;
  for (int v = 0; v < n_vectors; v++)
    snprintf(state->vector_name[v], CC_IO_NAME_LEN, "%.31s", h->vector_name[v]);
  cc_free(&h);
  size_t count = (size_t)rf->n_local * (size_t)rf->vpn;
  for (int v = 0; v < n_vectors; v++) {
    if (given)
      state->vector[v] = given_vector[v];
    else
      err = cc_malloc(count, sizeof(double), &state->vector[v]);
    state->n_vectors = v + 1;
    if (!err && count) err = get(rf, state->vector[v], count * sizeof(double));
    if (err) {
      if (!given) cc_io_state_free(state);
      CC_CALL(err);
    }
  }
  rf->seconds += now_s() - t0;
  fill_info(rf, info);
  return CC_OK;
}

cc_err io_rankfile_close(void *ctx)
{
  io_rankfile *rf = ctx;
  if (!rf) return CC_OK;
  cc_err err = rf->stream->close(rf->sctx);
  cc_free(&rf);
  CC_CALL(err);
  return CC_OK;
}
