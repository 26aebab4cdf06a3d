/* io_hdf5.c: the parallel-HDF5 backend: one shared file, one dataset [n_global][vpn] per vector in
 * global node order; each rank writes the contiguous block [offset_r, offset_r + n_r) (offset from
 * MPI_Exscan) after an MPI_Alltoallv by global id, with collective MPI-IO transfers (HDF5 1.10,
 * H5Pset_fapl_mpio, H5FD_MPIO_COLLECTIVE). Global order lets a restart use any number of ranks. */
#include "ckpt_names.h"
#include "io_internal.h"

#ifdef CUBECG_HAVE_HDF5
#include <hdf5.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers shared with io_export.c -------------------------------------------------------- */
static herr_t innermost_error(unsigned n, const H5E_error2_t *e, void *data)
{
  if (n == 0) snprintf(data, 256, "%s(): %s", e->func_name, e->desc);
  return 0;
}

/* The most specific entry of HDF5's error stack (printing is off: errors travel up as cc_err). */
static const char *h5_reason(void)
{
  static _Thread_local char text[256];
  text[0] = '\0';
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, text);
  H5Eclear2(H5E_DEFAULT);
  return text[0] ? text : "no HDF5 error recorded";
}

static const char *file_name(hid_t file)
{
  static _Thread_local char name[IO_PATH_MAX];
  if (H5Fget_name(file, name, sizeof name) < 0) snprintf(name, sizeof name, "(unknown file)");
  return name;
}

cc_err io_h5_open(const char *path, MPI_Comm comm, cc_io_mode mode, int64_t *file)
{
  *file = -1;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  CC_H5(fapl);
  CC_H5(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
  /* objects of 1 MiB or more start on 1 MiB boundaries (file-system stripes and blocks) */
  CC_H5(H5Pset_alignment(fapl, 1 << 20, 1 << 20));
  CC_H5(H5Pset_all_coll_metadata_ops(fapl, 1));
  CC_H5(H5Pset_coll_metadata_write(fapl, 1));
  hid_t f = mode == CC_IO_WRITE ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                                : H5Fopen(path, H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  CC_CHECK(f >= 0, CC_ERR_H5, "cannot %s HDF5 file %s: %s", mode == CC_IO_WRITE ? "create" : "open",
           path, h5_reason());
  *file = f;
  return CC_OK;
}

cc_err io_h5_close(int64_t *file)
{
  if (*file < 0) return CC_OK;
  herr_t rc = H5Fclose(*file);
  *file     = -1;
  CC_CHECK(rc >= 0, CC_ERR_H5, "H5Fclose failed: %s", h5_reason());
  return CC_OK;
}

static const char *io_mode_name(H5D_mpio_actual_io_mode_t mode)
{
  switch (mode) {
  case H5D_MPIO_NO_COLLECTIVE:
    return "no collective";
  case H5D_MPIO_CHUNK_INDEPENDENT:
    return "chunk independent";
  case H5D_MPIO_CHUNK_COLLECTIVE:
    return "chunk collective";
  case H5D_MPIO_CHUNK_MIXED:
    return "chunk mixed";
  case H5D_MPIO_CONTIGUOUS_COLLECTIVE:
    return "contiguous collective";
  }
  return "unknown";
}

/* Select [start, start+count) in file and memory spaces (none when empty: still collective). */
static cc_err select_block(int ndims, const hsize_t *dims, const uint64_t *start,
                           const uint64_t *count, hid_t *file_space, hid_t *mem_space)
{
  hsize_t h_start[8], h_count[8];
  hsize_t n = 1;
  for (int d = 0; d < ndims; d++) {
    h_start[d] = start[d];
    h_count[d] = count[d];
    n *= count[d];
  }
  *file_space = H5Screate_simple(ndims, dims, NULL);
  CC_H5(*file_space);
  *mem_space = H5Screate_simple(ndims, n ? h_count : dims, NULL);
  CC_H5(*mem_space);
  if (n)
    CC_H5(H5Sselect_hyperslab(*file_space, H5S_SELECT_SET, h_start, NULL, h_count, NULL));
  else {
    CC_H5(H5Sselect_none(*file_space));
    CC_H5(H5Sselect_none(*mem_space));
  }
  return CC_OK;
}

cc_err io_h5_write(MPI_Comm comm, int64_t file, const char *name, int ndims, const uint64_t *dims,
                   const uint64_t *start, const uint64_t *count, const double *data, char *io_mode,
                   size_t n_io_mode)
{
  CC_CHECK(ndims >= 1 && ndims <= 8, CC_ERR_ARG, "dataset %s: %d dimensions", name, ndims);
  hsize_t h_dims[8];
  uint64_t bytes = sizeof(double);
  for (int d = 0; d < ndims; d++) h_dims[d] = dims[d], bytes *= count[d];
  hid_t fs = -1, ms = -1, dcpl = -1, ds = -1, dxpl = -1;
  /* Every collective below is entered by all ranks or by none: a rank that fails first only
   * reports, and the agreement decides. A collective one rank skips never returns on the others
   * (ENOSPC on one rank left the others in H5Dwrite's MPI_File_set_view forever). */
  cc_err err = select_block(ndims, h_dims, start, count, &fs, &ms);
  if (!err) {
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (dcpl < 0 || dxpl < 0 || H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0 || /* all written */
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ||
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
      err = cc_error_push(CC_ERR_H5, __FILE__, __LINE__, __func__,
                          "property lists for dataset %s: %s", name, h5_reason());
  }
  err = cc_agree(comm, err);
  if (!err) {
    ds = H5Dcreate2(file, name, H5T_IEEE_F64LE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0)
      err = cc_error_push(CC_ERR_H5, __FILE__, __LINE__, __func__,
                          "H5Dcreate2(%s) in %s failed: %s", name, file_name(file), h5_reason());
  }
  if (!err && io_inject_enospc((size_t)bytes)) /* test seam: this rank's transfer would fail */
    err = cc_error_push(CC_ERR_H5, __FILE__, __LINE__, __func__,
                        "collective H5Dwrite of dataset %s in %s failed: %s (injected)", name,
                        file_name(file), strerror(ENOSPC));
  err = cc_agree(comm, err);
  if (!err) {
    herr_t rc = H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, data);
    if (rc < 0)
      err = cc_error_push(CC_ERR_H5, __FILE__, __LINE__, __func__,
                          "collective H5Dwrite of dataset %s in %s failed: %s", name,
                          file_name(file), h5_reason());
    H5D_mpio_actual_io_mode_t mode = H5D_MPIO_NO_COLLECTIVE;
    if (rc >= 0 && io_mode && H5Pget_mpio_actual_io_mode(dxpl, &mode) >= 0)
      snprintf(io_mode, n_io_mode, "%s", io_mode_name(mode));
  }
  if (dxpl >= 0) H5Pclose(dxpl);
  if (dcpl >= 0) H5Pclose(dcpl);
  if (ds >= 0) H5Dclose(ds);
  if (fs >= 0) H5Sclose(fs);
  if (ms >= 0) H5Sclose(ms);
  CC_CALL(err);
  return CC_OK;
}

/* Collective. Each rank reserves its own slice of the bytes of the file at path, rank r the
 * bytes [r B / P, (r + 1) B / P) (posix_fallocate; HDF5 truncates the file to its real end when it
 * closes it): no rank reserves the others' share, and the slices together cover the file. A full
 * file system is then seen here, by a call on some rank, and agreed on before any collective
 * transfer: ROMIO writes non-interleaved blocks independently, so an ENOSPC inside a collective
 * H5Dwrite reaches one rank only while the others wait in HDF5's next collective forever. */
cc_err io_h5_reserve(const char *path, MPI_Comm comm, int64_t bytes)
{
  int rank, size;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  int64_t from = (int64_t)((__int128)bytes * rank / size);
  int64_t to   = (int64_t)((__int128)bytes * (rank + 1) / size);
  cc_err err   = CC_OK;
  if (to > from) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    int rc = fd < 0 ? errno : posix_fallocate(fd, (off_t)from, (off_t)(to - from));
    if (fd >= 0) close(fd);
    if (rc)
      err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                          "cannot reserve bytes %lld to %lld of %s: %s", (long long)from,
                          (long long)to, path, strerror(rc));
  }
  CC_CALL(cc_agree(comm, err));
  return CC_OK;
}

/* What a file of n datasets of bytes each takes at most: objects of 1 MiB or more start on 1 MiB
 * boundaries (H5Pset_alignment in io_h5_open), plus room for the metadata. */
int64_t io_h5_estimate(int n, int64_t bytes)
{
  const int64_t align = 1 << 20;
  int64_t each        = bytes >= align ? (bytes + 2 * align - 1) / align * align : bytes;
  return (int64_t)n * each + (256 << 10);
}

cc_err io_h5_read(int64_t file, const char *name, int ndims, const uint64_t *dims,
                  const uint64_t *start, const uint64_t *count, double *data)
{
  CC_CHECK(ndims >= 1 && ndims <= 8, CC_ERR_ARG, "dataset %s: %d dimensions", name, ndims);
  hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
  CC_CHECK(ds >= 0, CC_ERR_H5, "dataset %s missing: %s", name, h5_reason());
  hid_t space = H5Dget_space(ds);
  hsize_t have[8];
  int nd = H5Sget_simple_extent_dims(space, have, NULL);
  H5Sclose(space);
  int same = nd == ndims;
  for (int d = 0; same && d < ndims; d++) same = have[d] == dims[d];
  if (!same) H5Dclose(ds);
  CC_CHECK(same, CC_ERR_IO, "dataset %s has %d dimensions (%llu ...), expected %d (%llu ...)", name,
           nd, (unsigned long long)have[0], ndims, (unsigned long long)dims[0]);
  hsize_t h_dims[8];
  for (int d = 0; d < ndims; d++) h_dims[d] = dims[d];
  hid_t fs = -1, ms = -1;
  CC_CALL(select_block(ndims, h_dims, start, count, &fs, &ms));
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  CC_H5(dxpl);
  CC_H5(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
  herr_t rc       = H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, data);
  const char *why = rc < 0 ? h5_reason() : "";
  H5Pclose(dxpl);
  H5Dclose(ds);
  H5Sclose(fs);
  H5Sclose(ms);
  CC_CHECK(rc >= 0, CC_ERR_H5, "collective H5Dread of dataset %s in %s failed: %s", name,
           file_name(file), why);
  return CC_OK;
}

/* ---- attributes ----------------------------------------------------------------------------- */
static cc_err attr_write(hid_t loc, const char *name, hid_t type, hsize_t n, const void *data)
{
  hid_t space = H5Screate_simple(1, &n, NULL);
  CC_H5(space);
  hid_t a = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Sclose(space);
  CC_CHECK(a >= 0, CC_ERR_H5, "H5Acreate2(%s) failed: %s", name, h5_reason());
  herr_t rc = H5Awrite(a, type, data);
  H5Aclose(a);
  CC_CHECK(rc >= 0, CC_ERR_H5, "H5Awrite(%s) failed: %s", name, h5_reason());
  return CC_OK;
}

static cc_err attr_read(hid_t loc, const char *name, hid_t type, hsize_t n, void *data)
{
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  if (a < 0) H5Eclear2(H5E_DEFAULT);
  CC_CHECK(a >= 0, CC_ERR_IO, "HDF5 attribute %s missing (not a cubecg checkpoint?)", name);
  hid_t space   = H5Aget_space(a);
  hssize_t have = H5Sget_simple_extent_npoints(space);
  H5Sclose(space);
  herr_t rc = have == (hssize_t)n ? H5Aread(a, type, data) : -1;
  H5Aclose(a);
  CC_CHECK(rc >= 0, CC_ERR_IO, "HDF5 attribute %s: %lld values, expected %llu", name,
           (long long)have, (unsigned long long)n);
  return CC_OK;
}

static hid_t string_type(size_t n)
{
  hid_t t = H5Tcopy(H5T_C_S1);
  if (t >= 0) H5Tset_size(t, n);
  return t;
}

/* ---- redistribution cache ---------------------------------------------------------------------
 */
/* Checkpoints of one run share their layout: keep its redistribution and block buffer, so that a
 * checkpoint neither re-sorts the global ids nor faults in fresh pages (page faults cost more than
 * the copies here). Reuse is decided collectively: creating a redistribution is collective. The
 * cache belongs to the owner (io_resources of a checkpointer or handle), or to one open without. */
typedef struct {
  bool valid;
  MPI_Comm comm;
  const int64_t *ids;
  int64_t n_local, n_global;
  int vpn;
  uint32_t ids_crc;
  io_redist rd;
  double *block;
} io_h5_cache;

extern const cc_io_backend_ops io_backend_hdf5; /* this file's: its slot in the owner's resources */

/* frees an MPI datatype: before MPI_Finalize */
static void h5_cache_destroy(io_h5_cache **cache)
{
  if (!*cache) return;
  if ((*cache)->valid) io_redist_free(&(*cache)->rd);
  cc_free(&(*cache)->block);
  cc_free(cache);
}

/* The backend's release entry: the owner's cache. */
static void h5_release(void **slot)
{
  io_h5_cache *cache = *slot;
  h5_cache_destroy(&cache);
  *slot = NULL;
}

static cc_err cached_redist(io_h5_cache *c, const cc_io_layout *layout, io_redist **rd,
                            double **block)
{
  uint32_t crc = io_global_id_crc(layout);
  int hit      = c->valid && c->comm == layout->comm && c->ids == layout->global_node_id &&
            c->n_local == layout->n_local_nodes && c->n_global == layout->n_global_nodes &&
            c->vpn == layout->values_per_node && c->ids_crc == crc;
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &hit, 1, MPI_INT, MPI_LAND, layout->comm));
  if (!hit) {
    if (c->valid) io_redist_free(&c->rd);
    cc_free(&c->block);
    c->valid = false;
    CC_CALL(io_redist_create(layout, NULL, &c->rd));
    cc_err err = c->rd.identity ? CC_OK
                                : cc_malloc((size_t)c->rd.n_block * (size_t)layout->values_per_node,
                                            sizeof(double), &c->block);
    err        = cc_agree(layout->comm, err);
    if (err) io_redist_free(&c->rd);
    CC_CALL(err);
    c->valid    = true;
    c->comm     = layout->comm;
    c->ids      = layout->global_node_id;
    c->n_local  = layout->n_local_nodes;
    c->n_global = layout->n_global_nodes;
    c->vpn      = layout->values_per_node;
    c->ids_crc  = crc;
  }
  *rd    = &c->rd;
  *block = c->block;
  return CC_OK;
}

/* ---- backend -------------------------------------------------------------------------------- */
typedef struct {
  cc_io_layout layout;
  cc_io_options opt;
  cc_io_mode mode;
  int rank;
  char path[IO_PATH_MAX], xmf[IO_PATH_MAX]; /* DIR/state.h5, DIR/state.xmf */
  hid_t file;
  char io_mode[48];
  double seconds;
  io_h5_cache *cache; /* the owner's, or own_cache */
  bool own_cache;
  int n_vectors; /* written, for the XDMF description */
  char vector_name[CC_IO_MAX_VECTORS][CC_IO_NAME_LEN];
  uint32_t data_crc; /* written: h5_data_crc of what was written */
} h5_ctx;

/* The attributes every rank writes must be identical: take rank 0's. */
typedef struct {
  char solver[16];
  int iteration, n_vectors, n_scalars;
  char vector_name[CC_IO_MAX_VECTORS][CC_IO_NAME_LEN];
  char scalar_name[CC_IO_MAX_SCALARS][CC_IO_NAME_LEN];
  double scalar[CC_IO_MAX_SCALARS];
} h5_header;

/* ---- the data's CRC32C, computed by the ranks that hold it ---------------------------------
 * Rank r holds the block [block_start[r], block_start[r+1]) of every dataset; the CRC of a whole
 * dataset in global order is the rank-ordered combination of the blocks' CRCs (crc(A||B) =
 * cc_io_crc32c_combine(crc(A), crc(B), |B|)), reduced by a non-commutative MPI operation over
 * (crc, bytes) pairs: O(log P) per rank, and nobody reads the file back. The checkpoint's data
 * CRC is that of header || dataset 0 || dataset 1 ..., header = iteration, counts and scalars. */

/* inout <- in || inout, pair by pair (MPI gives in from the lower ranks) */
static void crc_pairs_combine(void *in, void *inout, int *len, MPI_Datatype *type)
{
  (void)type;
  const uint64_t *a = in;
  uint64_t *b       = inout;
  for (int i = 0; i + 1 < *len; i += 2) {
    b[i] = cc_io_crc32c_combine((uint32_t)a[i], (uint32_t)b[i], (int64_t)b[i + 1]);
    b[i + 1] += a[i + 1];
  }
}

/* The data CRC from this rank's block CRCs (pairs[2v] = crc, pairs[2v+1] = bytes of vector v's
 * block), the same on every rank. Collective. */
static cc_err h5_data_crc(MPI_Comm comm, int iteration, int n_vectors, int n_scalars,
                          const double *scalar, uint64_t *pairs, uint32_t *crc)
{
  MPI_Op op;
  CC_MPI(MPI_Op_create(crc_pairs_combine, 0 /* not commutative: rank order */, &op));
  int rc = n_vectors ? MPI_Allreduce(MPI_IN_PLACE, pairs, 2 * n_vectors, MPI_UINT64_T, op, comm)
                     : MPI_SUCCESS;
  MPI_Op_free(&op);
  CC_CHECK(rc == MPI_SUCCESS, CC_ERR_MPI, "MPI_Allreduce of the data CRC failed");
  struct {
    int32_t iteration, n_vectors, n_scalars, pad;
    double scalar[CC_IO_MAX_SCALARS];
  } header;
  memset(&header, 0, sizeof header);
  header.iteration = iteration, header.n_vectors = n_vectors, header.n_scalars = n_scalars;
  for (int s = 0; s < n_scalars && s < CC_IO_MAX_SCALARS; s++) header.scalar[s] = scalar[s];
  uint32_t c = cc_io_crc32c(0, &header, sizeof header);
  for (int v = 0; v < n_vectors; v++)
    c = cc_io_crc32c_combine(c, (uint32_t)pairs[2 * v], (int64_t)pairs[2 * v + 1]);
  *crc = c;
  return CC_OK;
}

static cc_err h5_open(const cc_io_options *opt, const cc_io_layout *layout, const char *dir,
                      cc_io_mode mode, void **ctx)
{
  h5_ctx *h;
  CC_CALL(cc_calloc(1, sizeof *h, &h));
  h->layout = *layout;
  h->opt    = *opt;
  h->mode   = mode;
  h->file   = -1;
  snprintf(h->path, sizeof h->path, "%s/" CKPT_HDF5_STATE, dir);
  snprintf(h->xmf, sizeof h->xmf, "%s/" CKPT_HDF5_XDMF, dir);
  double t0    = MPI_Wtime();
  cc_err err   = MPI_Comm_rank(layout->comm, &h->rank) == MPI_SUCCESS ? CC_OK : CC_ERR_MPI;
  void **owned = io_resources_slot(opt->resources, &io_backend_hdf5);
  if (!err && owned && !*owned) err = cc_calloc(1, sizeof(io_h5_cache), owned);
  if (!err && owned)
    h->cache = *owned;
  else if (!err) {
    err          = cc_calloc(1, sizeof *h->cache, &h->cache);
    h->own_cache = !err;
  }
  if (!err) err = io_h5_open(h->path, layout->comm, mode, &h->file);
  err = cc_agree(layout->comm, err);
  if (err) {
    if (h->own_cache) h5_cache_destroy(&h->cache);
    cc_free(&h);
  }
  CC_CALL(err);
  h->seconds = MPI_Wtime() - t0;
  *ctx       = h;
  return CC_OK;
}

static cc_err write_attributes(h5_ctx *h, const h5_header *hd)
{
  int vpn          = h->layout.values_per_node;
  int64_t n_global = h->layout.n_global_nodes;
  hid_t s32 = string_type(CC_IO_NAME_LEN), s16 = string_type(16), s24 = string_type(24);
  CC_H5(s32);
  CC_H5(s16);
  CC_H5(s24);
  cc_err err = attr_write(h->file, "cubecg_format", s24, 1, "cubecg-checkpoint-1\0\0\0\0");
  if (!err) err = attr_write(h->file, "solver", s16, 1, hd->solver);
  if (!err) err = attr_write(h->file, "iteration", H5T_NATIVE_INT, 1, &hd->iteration);
  if (!err) err = attr_write(h->file, "values_per_node", H5T_NATIVE_INT, 1, &vpn);
  if (!err) err = attr_write(h->file, "n_global_nodes", H5T_NATIVE_INT64, 1, &n_global);
  if (!err) err = attr_write(h->file, "n_vectors", H5T_NATIVE_INT, 1, &hd->n_vectors);
  if (!err) err = attr_write(h->file, "n_scalars", H5T_NATIVE_INT, 1, &hd->n_scalars);
  if (!err && hd->n_vectors)
    err = attr_write(h->file, "vector_names", s32, (hsize_t)hd->n_vectors, hd->vector_name);
  if (!err && hd->n_scalars)
    err = attr_write(h->file, "scalar_names", s32, (hsize_t)hd->n_scalars, hd->scalar_name);
  if (!err && hd->n_scalars)
    err =
        attr_write(h->file, "scalar_values", H5T_NATIVE_DOUBLE, (hsize_t)hd->n_scalars, hd->scalar);
  H5Tclose(s32);
  H5Tclose(s16);
  H5Tclose(s24);
  CC_CALL(err);
  return CC_OK;
}

static cc_err h5_write(void *ctx, const cc_io_state *state)
{
  h5_ctx *h     = ctx;
  MPI_Comm comm = h->layout.comm;
  h5_header hd;
  memset(&hd, 0, sizeof hd);
  snprintf(hd.solver, sizeof hd.solver, "%s", state->solver);
  hd.iteration = state->iteration;
  hd.n_vectors = state->n_vectors;
  hd.n_scalars = state->n_scalars;
  CC_CHECK(hd.n_vectors >= 0 && hd.n_vectors <= CC_IO_MAX_VECTORS && hd.n_scalars >= 0 &&
               hd.n_scalars <= CC_IO_MAX_SCALARS,
           CC_ERR_ARG, "state has %d vectors, %d scalars", hd.n_vectors, hd.n_scalars);
  for (int v = 0; v < hd.n_vectors; v++)
    snprintf(hd.vector_name[v], CC_IO_NAME_LEN, "%s", state->vector_name[v]);
  for (int s = 0; s < hd.n_scalars; s++) {
    snprintf(hd.scalar_name[s], CC_IO_NAME_LEN, "%s", state->scalar_name[s]);
    hd.scalar[s] = state->scalar[s];
  }
  CC_MPI(MPI_Bcast(&hd, sizeof hd, MPI_BYTE, 0, comm));
  double t0 = MPI_Wtime();
  io_redist *rd;
  double *block; /* NULL when the layout already is the block (rd->identity) */
  CC_CALL(cached_redist(h->cache, &h->layout, &rd, &block));
  int vpn = h->layout.values_per_node;
  uint64_t pairs[2 * CC_IO_MAX_VECTORS];
  cc_err err = io_h5_reserve(
      h->path, comm,
      io_h5_estimate(hd.n_vectors, h->layout.n_global_nodes * vpn * (int64_t)sizeof(double)));
  for (int v = 0; v < hd.n_vectors && !err; v++) {
    const double *data = rd->identity ? state->vector[v] : block;
    if (!rd->identity) err = io_redist_forward(rd, state->vector[v], block);
    size_t bytes     = (size_t)rd->n_block * (size_t)vpn * sizeof(double);
    pairs[2 * v]     = cc_io_crc32c(0, data, bytes); /* this rank's block, from memory */
    pairs[2 * v + 1] = bytes;
    if (!err) {
      uint64_t dims[2]  = {(uint64_t)h->layout.n_global_nodes, (uint64_t)vpn};
      uint64_t start[2] = {(uint64_t)rd->block_start[h->rank], 0};
      uint64_t count[2] = {(uint64_t)rd->n_block, (uint64_t)vpn};
      err = io_h5_write(comm, h->file, hd.vector_name[v], 2, dims, start, count, data, h->io_mode,
                        sizeof h->io_mode);
    }
    err = cc_agree(comm, err);
    if (v == 0) io_inject_kill_point(); /* test seam: die after the first dataset */
  }
  if (hd.n_vectors == 0) io_inject_kill_point();
  if (!err) err = cc_agree(comm, write_attributes(h, &hd));
  if (!err)
    err =
        h5_data_crc(comm, hd.iteration, hd.n_vectors, hd.n_scalars, hd.scalar, pairs, &h->data_crc);
  CC_CALL(err);
  h->n_vectors = hd.n_vectors;
  memcpy(h->vector_name, hd.vector_name, sizeof h->vector_name);
  h->seconds += MPI_Wtime() - t0;
  return CC_OK;
}

/* HDF5 1.10 leaves a file whose H5Fclose failed (metadata not writable: ENOSPC, EFBIG) half
 * destroyed but registered, and closes it again at exit, which crashes. So when the metadata
 * cannot be flushed the file is not closed at all: its id is abandoned (HDF5 gives up on it at
 * exit) and its temporary directory is removed by the checkpoint manager. H5Fflush and H5Fclose are
 * collective: whether to close or abandon is agreed on, so that every rank does the same; why gets
 * this rank's reason. */
static bool flush_agreed(h5_ctx *h, char *why, size_t n)
{
  int ok = H5Fflush(h->file, H5F_SCOPE_GLOBAL) >= 0;
  snprintf(why, n, "%s", ok ? "failed on another rank" : h5_reason());
  if (MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, h->layout.comm) != MPI_SUCCESS) {
    snprintf(why, n, "MPI_Allreduce of the flush result failed");
    ok = 0;
  }
  if (!ok) h->file = -1; /* abandoned on every rank */
  return ok;
}

static cc_err h5_commit(void *ctx, cc_io_file_info *info)
{
  h5_ctx *h = ctx;
  double t0 = MPI_Wtime();
  /* H5Fflush ends in MPI_File_sync (all ranks' data on stable storage); the fsync after the close
   * covers the metadata H5Fclose still writes */
  char why[256];
  CC_CHECK(!h->opt.durable || flush_agreed(h, why, sizeof why), CC_ERR_H5, "H5Fflush(%s): %s",
           h->path, why);
  cc_err err = io_h5_close(&h->file);
  if (!err && h->opt.durable && h->rank == 0) err = io_fsync_path(h->path);
  /* the viewers' description beside the file (ParaView opens the checkpoint as a grid) */
  const int *g  = h->opt.grid;
  int64_t cells = (int64_t)g[0] * g[1] * g[2];
  bool xdmf     = cells > 0 && cells == h->layout.n_global_nodes;
  if (!err && xdmf && h->rank == 0) {
    err = io_write_xdmf_state(h->xmf, CKPT_HDF5_STATE, g[0], g[1], g[2], h->layout.values_per_node,
                              h->n_vectors, (const char(*)[CC_IO_NAME_LEN])h->vector_name);
    if (!err && h->opt.durable) err = io_fsync_path(h->xmf);
  }
  CC_CALL(cc_agree(h->layout.comm, err));
  h->seconds += MPI_Wtime() - t0;
  memset(info, 0, sizeof *info);
  if (h->rank == 0) {
    struct stat st;
    snprintf(info->file, sizeof info->file, "%s", h->path);
    if (stat(h->path, &st) == 0) info->bytes = st.st_size;
    info->n_files     = xdmf ? 2 : 1;
    info->crc32c      = h->data_crc; /* the ranks' pieces, combined: the file is not read back */
    info->has_crc     = true;
    info->crc_of_data = true;
    snprintf(info->name[0], sizeof info->name[0], CKPT_HDF5_STATE);
    snprintf(info->name[1], sizeof info->name[1], CKPT_HDF5_XDMF);
  }
  snprintf(info->written_as, sizeof info->written_as, "hdf5");
  info->write_s = h->seconds;
  snprintf(info->path_used, sizeof info->path_used, "mpio-collective");
  snprintf(info->detail, sizeof info->detail, "H5Dwrite actual I/O mode: %s",
           h->io_mode[0] ? h->io_mode : "none (no vectors)");
  return CC_OK;
}

static cc_err h5_read(void *ctx, cc_io_state *state, cc_io_file_info *info)
{
  h5_ctx *h     = ctx;
  MPI_Comm comm = h->layout.comm;
  double t0     = MPI_Wtime();
  int given     = h->opt.read_into ? state->n_vectors : 0;
  CC_CHECK(given >= 0 && given <= CC_IO_MAX_VECTORS, CC_ERR_ARG, "read_into: %d vectors", given);
  double *given_vector[CC_IO_MAX_VECTORS];
  for (int v = 0; v < given && v < CC_IO_MAX_VECTORS; v++) given_vector[v] = state->vector[v];
  memset(state, 0, sizeof *state);
  h5_header hd;
  memset(&hd, 0, sizeof hd);
  int vpn          = 0;
  int64_t n_global = 0;
  hid_t s32 = string_type(CC_IO_NAME_LEN), s16 = string_type(16);
  CC_H5(s32);
  CC_H5(s16);
  /* every rank reads the same attributes: failures are the same everywhere */
  cc_err err = attr_read(h->file, "solver", s16, 1, hd.solver);
  if (!err) err = attr_read(h->file, "iteration", H5T_NATIVE_INT, 1, &hd.iteration);
  if (!err) err = attr_read(h->file, "values_per_node", H5T_NATIVE_INT, 1, &vpn);
  if (!err) err = attr_read(h->file, "n_global_nodes", H5T_NATIVE_INT64, 1, &n_global);
  if (!err) err = attr_read(h->file, "n_vectors", H5T_NATIVE_INT, 1, &hd.n_vectors);
  if (!err) err = attr_read(h->file, "n_scalars", H5T_NATIVE_INT, 1, &hd.n_scalars);
  if (!err && (hd.n_vectors < 0 || hd.n_vectors > CC_IO_MAX_VECTORS || hd.n_scalars < 0 ||
               hd.n_scalars > CC_IO_MAX_SCALARS))
    err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__, "%s: %d vectors, %d scalars",
                        h->path, hd.n_vectors, hd.n_scalars);
  if (!err && hd.n_vectors)
    err = attr_read(h->file, "vector_names", s32, (hsize_t)hd.n_vectors, hd.vector_name);
  if (!err && hd.n_scalars)
    err = attr_read(h->file, "scalar_names", s32, (hsize_t)hd.n_scalars, hd.scalar_name);
  if (!err && hd.n_scalars)
    err = attr_read(h->file, "scalar_values", H5T_NATIVE_DOUBLE, (hsize_t)hd.n_scalars, hd.scalar);
  H5Tclose(s32);
  H5Tclose(s16);
  if (!err && (vpn != h->layout.values_per_node || n_global != h->layout.n_global_nodes))
    err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                        "%s holds %lld nodes x %d values, this run has %lld x %d", h->path,
                        (long long)n_global, vpn, (long long)h->layout.n_global_nodes,
                        h->layout.values_per_node);
  if (!err && given && hd.n_vectors != given)
    err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                        "%s holds %d vectors, the caller gave %d buffers", h->path, hd.n_vectors,
                        given);
  CC_CALL(cc_agree(comm, err));

  snprintf(state->solver, sizeof state->solver, "%.15s", hd.solver);
  state->iteration = hd.iteration;
  state->n_scalars = hd.n_scalars;
  for (int s = 0; s < hd.n_scalars; s++) {
    snprintf(state->scalar_name[s], CC_IO_NAME_LEN, "%.31s", hd.scalar_name[s]);
    state->scalar[s] = hd.scalar[s];
  }
  io_redist *rd;
  double *block;
  CC_CALL(cached_redist(h->cache, &h->layout, &rd, &block));
  size_t count = (size_t)h->layout.n_local_nodes * (size_t)vpn;
  uint64_t pairs[2 * CC_IO_MAX_VECTORS];
  for (int v = 0; v < hd.n_vectors && !err; v++) {
    snprintf(state->vector_name[v], CC_IO_NAME_LEN, "%.31s", hd.vector_name[v]);
    if (given)
      state->vector[v] = given_vector[v];
    else
      err = cc_malloc(count, sizeof(double), &state->vector[v]);
    state->n_vectors  = v + 1;
    uint64_t dims[2]  = {(uint64_t)n_global, (uint64_t)vpn};
    uint64_t start[2] = {(uint64_t)rd->block_start[h->rank], 0};
    uint64_t cnt[2]   = {(uint64_t)rd->n_block, (uint64_t)vpn};
    if (!err)
      err = io_h5_read(h->file, hd.vector_name[v], 2, dims, start, cnt,
                       rd->identity ? state->vector[v] : block);
    size_t bytes     = (size_t)rd->n_block * (size_t)vpn * sizeof(double);
    pairs[2 * v]     = err ? 0 : cc_io_crc32c(0, rd->identity ? state->vector[v] : block, bytes);
    pairs[2 * v + 1] = bytes;
    err              = cc_agree(comm, err);
    if (!err && !rd->identity) err = io_redist_backward(rd, block, state->vector[v]);
  }
  uint32_t crc = 0; /* what was read, CRC'd by the ranks that read it */
  if (!err)
    err = h5_data_crc(comm, hd.iteration, hd.n_vectors, hd.n_scalars, hd.scalar, pairs, &crc);
  if (err && !given) cc_io_state_free(state);
  CC_CALL(err);
  h->seconds += MPI_Wtime() - t0;
  memset(info, 0, sizeof *info);
  info->crc32c      = crc;
  info->has_crc     = true;
  info->crc_of_data = true;
  snprintf(info->file, sizeof info->file, "%s", h->path);
  info->write_s = h->seconds;
  snprintf(info->path_used, sizeof info->path_used, "mpio-collective");
  return CC_OK;
}

static cc_err h5_close(void *ctx)
{
  h5_ctx *h = ctx;
  if (!h) return CC_OK;
  /* a file still open for writing is closed here only after a failure; see flush_agreed (this
   * error is not reported: the one that brought us here is on its way up) */
  char why[256];
  if (h->file >= 0 && h->mode == CC_IO_WRITE) (void)flush_agreed(h, why, sizeof why);
  cc_err err = io_h5_close(&h->file);
  if (h->own_cache) h5_cache_destroy(&h->cache);
  cc_free(&h);
  CC_CALL(err);
  return CC_OK;
}

const cc_io_backend_ops io_backend_hdf5 = {
    .name           = "hdf5",
    .shared_file    = true,
    .any_rank_count = true,
    .open           = h5_open,
    .write_vectors  = h5_write,
    .commit         = h5_commit,
    .read_vectors   = h5_read,
    .close          = h5_close,
    .release        = h5_release,
};

#else /* built without a parallel HDF5 of this MPI: every entry point says why (cc_build_hdf5) */
#include "cc_topology.h" /* cc_build_hdf5 */
#define H5_ABSENT(what)                                                                            \
  CC_FAIL(CC_ERR_ARG, "%s: this build has no hdf5 backend (%s)", what, cc_build_hdf5)

cc_err io_h5_open(const char *path, MPI_Comm comm, cc_io_mode mode, int64_t *file)
{
  (void)comm, (void)mode, (void)file;
  H5_ABSENT(path);
}
cc_err io_h5_close(int64_t *file)
{
  (void)file;
  return CC_OK;
}
cc_err io_h5_write(MPI_Comm comm, int64_t file, const char *name, int ndims, const uint64_t *dims,
                   const uint64_t *start, const uint64_t *count, const double *data, char *io_mode,
                   size_t io_mode_size)
{
  (void)comm, (void)file, (void)ndims, (void)dims, (void)start, (void)count, (void)data;
  (void)io_mode, (void)io_mode_size;
  H5_ABSENT(name);
}
cc_err io_h5_reserve(const char *path, MPI_Comm comm, int64_t bytes)
{
  (void)comm, (void)bytes;
  H5_ABSENT(path);
}
int64_t io_h5_estimate(int n, int64_t bytes)
{
  (void)n, (void)bytes;
  return 0;
}
cc_err io_h5_read(int64_t file, const char *name, int ndims, const uint64_t *dims,
                  const uint64_t *start, const uint64_t *count, double *data)
{
  (void)file, (void)ndims, (void)dims, (void)start, (void)count, (void)data;
  H5_ABSENT(name);
}
#endif
