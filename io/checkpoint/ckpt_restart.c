/* ckpt_restart.c: the verified restart: latest (or the named checkpoint) located, its manifest
 * checked against the layout and the problem, every file's size and CRC32C verified, the state
 * read through the backend that wrote it. */
#include "ckpt_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- restart ----------------------------------------------------------------------------------
 */
static cc_err locate(const char *dir, char *cdir, size_t n, char **text)
{
  char path[IO_PATH_MAX];
  struct stat st;
  bool has_latest = false;
  int latest      = -1;
  CC_CALL(ckpt_latest_read(dir, &has_latest, &latest));
  if (has_latest) {
    CC_CHECK(ckpt_path(cdir, n, dir, latest, false), CC_ERR_ARG, "path too long: %s", dir);
  } else {
    ckpt_join(path, sizeof path, dir, CKPT_MANIFEST);
    CC_CHECK(stat(path, &st) == 0, CC_ERR_ARG, /* bad input: nothing to restart from */
             "no checkpoint in %s: neither %s/" CKPT_LATEST " nor %s/" CKPT_MANIFEST " exists", dir,
             dir, dir);
    snprintf(cdir, n, "%s", dir);
  }
  ckpt_join(path, sizeof path, cdir, CKPT_MANIFEST);
  CC_CALL(io_read_text(path, text, NULL));
  return CC_OK;
}

static cc_err check_manifest(const io_manifest *m, int n_listed, const char *cdir,
                             const cc_io_layout *layout, const cc_io_metadata *expect, int rank,
                             int size, const cc_io_backend_ops **ops, cc_io_options *opt)
{
  *ops = cc_io_backend_find(m->backend, opt);
  CC_CHECK(*ops != NULL, CC_ERR_UNSUPPORTED, "%s was written by backend '%s', not built here (%s)",
           cdir, m->backend, cc_io_backend_names());
  if (expect && (expect->nx || expect->ny || expect->nz))
    CC_CHECK(m->nx == expect->nx && m->ny == expect->ny && m->nz == expect->nz, CC_ERR_ARG,
             "%s holds a %dx%dx%d mesh, this run has %dx%dx%d: refusing to restart", cdir, m->nx,
             m->ny, m->nz, expect->nx, expect->ny, expect->nz);
  if (expect && expect->solver[0])
    CC_CHECK(!strcmp(m->solver, expect->solver), CC_ERR_ARG,
             "%s holds the state of solver %s, this run uses %s: refusing to restart", cdir,
             m->solver, expect->solver);
  char differs[400];
  bool unverified = false;
  if (expect && ckpt_problem_differs(m, expect, differs, sizeof differs, &unverified))
    CC_FAIL(CC_ERR_ARG, "%s (%s): refusing to restart", differs, cdir);
  if (unverified && rank == 0)
    fprintf(stderr,
            "cubecg: warning: %s was written without E, nu, traction, preconditioner, colors and "
            "ASDD iterations: they cannot be verified against this run\n",
            cdir);
  CC_CHECK(m->n_global_nodes == layout->n_global_nodes &&
               m->values_per_node == layout->values_per_node,
           CC_ERR_IO, "%s holds %lld nodes x %d values, this run has %lld x %d", cdir,
           (long long)m->n_global_nodes, m->values_per_node, (long long)layout->n_global_nodes,
           layout->values_per_node);
  CC_CHECK((*ops)->any_rank_count || m->ranks == size, CC_ERR_IO,
           "%s was written by %d ranks with the per-rank-file backend %s; this run has %d ranks: "
           "restart with %d ranks (only hdf5 checkpoints can change the rank count)",
           cdir, m->ranks, m->backend, size, m->ranks);
  CC_CHECK((*ops)->shared_file || n_listed == m->ranks, CC_ERR_IO, "%s lists %d files for %d ranks",
           cdir, n_listed, m->ranks);
  return CC_OK;
}

static cc_err verify_file(const char *cdir, const io_manifest_file *f, bool crc)
{
  char path[IO_PATH_MAX];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", cdir, f->file);
  CC_CHECK(stat(path, &st) == 0, CC_ERR_IO, "checkpoint file %s is missing: %s", path,
           strerror(errno));
  CC_CHECK(st.st_size == f->bytes, CC_ERR_IO,
           "checkpoint file %s is %s: %lld bytes, the manifest says %lld; refusing to restart",
           path, st.st_size < f->bytes ? "truncated" : "longer than recorded",
           (long long)st.st_size, (long long)f->bytes);
  if (crc) {
    uint32_t c;
    int64_t bytes;
    CC_CALL(cc_io_file_crc32c(path, &c, &bytes));
    CC_CHECK(c == f->crc32c, CC_ERR_IO,
             "checkpoint file %s is corrupt: CRC32C %08x, the manifest says %08x; refusing to "
             "restart",
             path, c, f->crc32c);
  }
  return CC_OK;
}

static cc_err load_per_rank(const io_manifest *m, const char *cdir, const cc_io_backend_ops *ops,
                            const cc_io_options *opt, const cc_io_layout *layout, int rank,
                            cc_io_state *state)
{
  const io_manifest_file *f = NULL;
  for (int i = 0; i < m->n_files; i++)
    if (m->files[i].rank == rank) f = &m->files[i];
  CC_CHECK(f != NULL, CC_ERR_IO, "%s/" CKPT_MANIFEST " lists no file of rank %d", cdir, rank);
  CC_CALL(verify_file(cdir, f, false)); /* size now, CRC while loading */
  void *ctx;
  cc_io_file_info info;
  memset(&info, 0, sizeof info);
  CC_CALL(ops->open(opt, layout, cdir, CC_IO_READ, &ctx));
  cc_err err  = ops->read_vectors(ctx, state, &info);
  cc_err cerr = ops->close(ctx);
  CC_CALL(err);
  CC_CALL(cerr);
  if (info.has_crc && info.crc32c != f->crc32c) {
    cc_io_state_free(state);
    CC_FAIL(CC_ERR_IO,
            "checkpoint file %s/%s is corrupt: CRC32C %08x, the manifest says %08x; refusing to "
            "restart",
            cdir, f->file, info.crc32c, f->crc32c);
  }
  return CC_OK;
}

static cc_err load(const io_manifest *m, int n_listed, const char *cdir,
                   const cc_io_checkpoint_params *params, const cc_io_layout *layout,
                   const cc_io_metadata *expect, cc_io_state *state)
{
  int rank, size;
  CC_MPI(MPI_Comm_rank(layout->comm, &rank));
  CC_MPI(MPI_Comm_size(layout->comm, &size));
  cc_io_options opt;
  cc_io_options_default(&opt);
  opt.checksum = true;
  if (params) {
    opt.buffer_bytes = params->io_buffer_bytes;
    opt.queue_depth  = params->queue_depth > 0 ? params->queue_depth : IO_QUEUE_DEPTH;
    opt.fallback     = params->fallback;
    opt.gas          = params->gas;
    opt.keep         = params->keep;
  }
  const cc_io_backend_ops *ops;
  /* same manifest, same verdict on every rank: agreed, so the driver ends without MPI_Abort */
  CC_CALL(cc_agree(layout->comm,
                   check_manifest(m, n_listed, cdir, layout, expect, rank, size, &ops, &opt)));
  if (!ops->shared_file) {
    CC_CALL(cc_agree(layout->comm, load_per_rank(m, cdir, ops, &opt, layout, rank, state)));
    return CC_OK;
  }
  /* one shared file: rank 0 checks the sizes (and the CRC of a file whose manifest CRC is of its
   * bytes: side files, older checkpoints); a data CRC is checked by the ranks as they read */
  cc_err local                 = CC_OK;
  const io_manifest_file *data = NULL;
  for (int i = 0; i < m->n_files; i++)
    if (m->files[i].crc_of_data) data = &m->files[i];
  if (rank == 0)
    for (int i = 0; i < m->n_files && !local; i++)
      local = verify_file(cdir, &m->files[i], !m->files[i].crc_of_data);
  CC_CALL(cc_agree(layout->comm, local));
  void *ctx;
  cc_io_file_info info;
  memset(&info, 0, sizeof info);
  CC_CALL(ops->open(&opt, layout, cdir, CC_IO_READ, &ctx)); /* collective, agreed inside */
  cc_err err  = ops->read_vectors(ctx, state, &info);
  cc_err cerr = ops->close(ctx);
  CC_CALL(err);
  CC_CALL(cerr);
  /* the combined CRC is the same on every rank: the same verdict everywhere */
  if (data && !(info.has_crc && info.crc_of_data && info.crc32c == data->crc32c))
    local = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                          "checkpoint file %s/%s is corrupt: the CRC32C of its data is %08x, the "
                          "manifest says %08x; refusing to restart",
                          cdir, data->file, info.crc32c, data->crc32c);
  CC_CALL(cc_agree(layout->comm, local));
  return CC_OK;
}

/* Rank 0's parsed manifest to every rank: the header, and of the file list only the entries the
 * rank reads (its own and the shared ones, rank -1), in the list's order. No rank but 0 holds or
 * parses the O(P) list; *n_listed is the list's whole length, for the check against the ranks. */
static cc_err manifest_scatter(io_manifest *full, MPI_Comm comm, io_manifest *m, int *n_listed)
{
  int rank, size;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  const int entry = (int)sizeof(io_manifest_file);
  int *count = NULL, *displ = NULL, mine = 0;
  io_manifest_file *send = NULL;
  cc_err local           = CC_OK;
  if (rank == 0) {
    *m    = *full;
    local = cc_calloc((size_t)size, sizeof(int), &count);
    if (!local) local = cc_calloc((size_t)size, sizeof(int), &displ);
    int n_shared = 0, total = 0;
    for (int i = 0; !local && i < full->n_files; i++) {
      const int r = full->files[i].rank;
      if (r == -1)
        n_shared++;
      else if (r >= 0 && r < size)
        count[r]++;
    }
    for (int r = 0; !local && r < size; r++)
      count[r] += n_shared, displ[r] = total, total += count[r];
    if (!local) local = cc_calloc((size_t)total + 1, sizeof *send, &send);
    for (int i = 0; !local && i < full->n_files; i++) { /* displ[r] advances to r's end */
      const int r = full->files[i].rank;
      if (r >= 0 && r < size) send[displ[r]++] = full->files[i];
      for (int q = 0; r == -1 && q < size; q++) send[displ[q]++] = full->files[i];
    }
    for (int r = 0; !local && r < size; r++)
      displ[r] -= count[r], count[r] *= entry, displ[r] *= entry;
  }
  local = cc_agree(comm, local);
  if (!local) {
    CC_MPI(MPI_Bcast(m, sizeof *m, MPI_BYTE, 0, comm));
    *n_listed = m->n_files;
    CC_MPI(MPI_Scatter(count, 1, MPI_INT, &mine, 1, MPI_INT, 0, comm));
    m->files   = NULL;
    m->n_files = mine / entry;
    local      = cc_agree(comm, cc_calloc((size_t)m->n_files + 1, sizeof *m->files, &m->files));
  }
  if (!local) CC_MPI(MPI_Scatterv(send, count, displ, MPI_BYTE, m->files, mine, MPI_BYTE, 0, comm));
  cc_free(&send);
  cc_free(&count);
  cc_free(&displ);
  CC_CALL(local);
  return CC_OK;
}

cc_err cc_io_checkpoint_read(const char *dir, const cc_io_checkpoint_params *params,
                             const cc_io_layout *layout, const cc_io_metadata *expect,
                             cc_io_state *state, cc_io_restart_info *info_out)
{
  memset(state, 0, sizeof *state);
  int rank;
  CC_MPI(MPI_Comm_rank(layout->comm, &rank));
  char cdir[CC_IO_CKPT_DIR_MAX] = "";
  char *text                    = NULL;
  cc_err local                  = CC_OK;
  if (rank == 0) local = locate(dir, cdir, sizeof cdir, &text);
  CC_CALL(cc_agree(layout->comm, local));
  CC_MPI(MPI_Bcast(cdir, sizeof cdir, MPI_CHAR, 0, layout->comm));
  char path[IO_PATH_MAX];
  ckpt_join(path, sizeof path, cdir, CKPT_MANIFEST);
  io_manifest full, m;
  memset(&full, 0, sizeof full);
  cc_err err = rank == 0 ? io_manifest_parse(text, path, &full) : CC_OK;
  cc_free(&text);
  CC_CALL(cc_agree(layout->comm, err));
  int n_listed = 0;
  err          = manifest_scatter(&full, layout->comm, &m, &n_listed);
  io_manifest_free(&full);
  CC_CALL(err);
  err = load(&m, n_listed, cdir, params, layout, expect, state);
  if (!err && info_out) {
    memset(info_out, 0, sizeof *info_out);
    snprintf(info_out->backend, sizeof info_out->backend, "%s", m.backend);
    snprintf(info_out->checkpoint_dir, sizeof info_out->checkpoint_dir, "%s", cdir);
    info_out->ranks_written = m.ranks;
    info_out->iteration     = m.iteration;
    snprintf(info_out->partition, sizeof info_out->partition, "%s", m.partition);
  }
  io_manifest_free(&m);
  if (err) cc_io_state_free(state);
  CC_CALL(err);
  return CC_OK;
}

/* Rank 0 alone: the newest checkpoint of dir and its manifest, parsed (the caller frees m). */
static cc_err newest_manifest(const char *dir, io_manifest *m)
{
  char cdir[CC_IO_CKPT_DIR_MAX], path[IO_PATH_MAX];
  char *text = NULL;
  cc_err err = locate(dir, cdir, sizeof cdir, &text);
  ckpt_join(path, sizeof path, cdir, CKPT_MANIFEST);
  if (!err) err = io_manifest_parse(text, path, m);
  cc_free(&text);
  return err;
}

cc_err cc_io_checkpoint_describe(const char *dir, MPI_Comm comm, cc_io_metadata *meta)
{
  memset(meta, 0, sizeof *meta);
  int rank;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  cc_err local = CC_OK;
  io_manifest m;
  if (rank == 0) local = newest_manifest(dir, &m);
  if (rank == 0 && !local) {
    meta->nx = m.nx, meta->ny = m.ny, meta->nz = m.nz;
    snprintf(meta->partition, sizeof meta->partition, "%s", m.partition);
    snprintf(meta->solver, sizeof meta->solver, "%s", m.solver);
    snprintf(meta->ordering, sizeof meta->ordering, "%s", m.ordering);
    meta->has_problem = m.has_problem;
    meta->E = m.E, meta->nu = m.nu, meta->traction = m.traction;
    snprintf(meta->precond, sizeof meta->precond, "%s", m.precond);
    meta->colors     = m.colors;
    meta->asdd_iters = m.asdd_iters;
    snprintf(meta->asdd_residual, sizeof meta->asdd_residual, "%s", m.asdd_residual);
    snprintf(meta->settings, sizeof meta->settings, "%s", m.settings);
    meta->ranks = m.ranks;
    io_manifest_free(&m);
  }
  CC_CALL(cc_agree(comm, local));
  CC_MPI(MPI_Bcast(meta, sizeof *meta, MPI_BYTE, 0, comm));
  return CC_OK;
}

cc_err cc_io_checkpoint_iteration(const char *dir, MPI_Comm comm, int *iteration)
{
  int rank;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  cc_err local = CC_OK;
  *iteration   = -1;
  io_manifest m;
  if (rank == 0) local = newest_manifest(dir, &m);
  if (rank == 0 && !local) *iteration = m.iteration, io_manifest_free(&m);
  CC_CALL(cc_agree(comm, local));
  CC_MPI(MPI_Bcast(iteration, 1, MPI_INT, 0, comm));
  return CC_OK;
}
