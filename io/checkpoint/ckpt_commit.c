/* ckpt_commit.c: the commit protocol of the checkpoint manager. Start/complete bracketing (every
 * rank reports, MPI decides) and the write-to-temporary + fsync + rename + atomic pointer protocol
 * of crash-consistent applications (Pillai et al., OSDI 2014; SCR's "complete" marker), a manifest
 * with CRC32C of every file, bounded retention. See cc_io.h for the protocol. */
#include "ckpt_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- commit -----------------------------------------------------------------------------------
 */
static int newest_first(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x < y) - (x > y);
}

/* After a commit: the series' checkpoints older than the keep newest (the new one among them) are
 * retired into *retired (beyond CKPT_RETIRE_MAX removed here); only cubecg's own of this problem,
 * never one newer than the new checkpoint. */
static cc_err retention(const cc_io_checkpointer *ck, ckpt_retired *retired)
{
  const char *dir = ck->params.dir;
  int *found      = NULL;
  size_t n        = 0;
  retired->n      = 0;
  CC_CALL(ckpt_own_checkpoints(dir, false, &found, &n));
  if (n > 1) qsort(found, n, sizeof *found, newest_first); /* found is NULL when n = 0 */
  int kept   = 1;
  cc_err err = CC_OK;
  for (size_t i = 0; i < n && !err; i++) {
    if (found[i] >= ck->iteration) continue; /* the new one, or newer: not this series' past */
    if (kept < ck->params.keep) {
      kept++;
      continue;
    }
    char name[IO_NAME_MAX], differs[400] = "";
    ckpt_name(name, sizeof name, found[i], false);
    io_manifest m;
    bool unverified = false, same = ckpt_own_checkpoint(dir, name, &m);
    if (same) {
      same = !ckpt_problem_differs(&m, &ck->meta, differs, sizeof differs, &unverified);
      io_manifest_free(&m);
    }
    if (same && retired->n < CKPT_RETIRE_MAX)
      retired->iteration[retired->n++] = found[i];
    else if (same)
      err = ckpt_remove_checkpoint(dir, name);
    else
      fprintf(stderr,
              "cubecg: warning: retention keeps %s/%s: not a checkpoint of this problem%s%s\n", dir,
              name, differs[0] ? ": " : "", differs);
  }
  cc_free(&found);
  CC_CALL(err);
  return CC_OK;
}

void ckpt_unlink_own(const cc_io_checkpointer *ck, const ckpt_retired *retired)
{
  char cdir[CC_IO_CKPT_DIR_MAX], path[IO_PATH_MAX];
  for (int k = 0; k < retired->n; k++) {
    if (!ckpt_path(cdir, sizeof cdir, ck->params.dir, retired->iteration[k], false)) continue;
    for (int i = 0; i < ck->info.n_files && i < CC_IO_MAX_FILES; i++) {
      const char *name = ck->info.name[i];
      /* only the names a backend writes (never the manifest, never a path): what is left, and a
       * file another backend named, goes with rank 0's pass */
      if (!name[0] || !strcmp(name, CKPT_MANIFEST) || !ckpt_file_name(name) ||
          !ckpt_join(path, sizeof path, cdir, name))
        continue;
      if (unlink(path) != 0 && errno != ENOENT)
        fprintf(stderr, "cubecg: warning: cannot remove %s: %s\n", path, strerror(errno));
    }
  }
}

cc_err ckpt_remove_retired(const cc_io_checkpointer *ck, ckpt_retired *r)
{
  char name[IO_NAME_MAX];
  cc_err err = CC_OK;
  for (int k = 0; k < r->n && !err; k++) {
    ckpt_name(name, sizeof name, r->iteration[k], false);
    err = ckpt_remove_checkpoint(ck->params.dir, name);
  }
  r->n = 0;
  CC_CALL(err);
  return CC_OK;
}

/* Rank 0: the manifest of the checkpoint in ck->tmp, over the files the ranks listed (side files
 * included, written by the backend) and the backend they were written as. */
static cc_err write_manifest(cc_io_checkpointer *ck, const rank_file *files, const char *written_as)
{
  bool durable = ck->params.durable;
  io_manifest m;
  memset(&m, 0, sizeof m);
  m.version = CC_IO_MANIFEST_VERSION;
  snprintf(m.backend, sizeof m.backend, "%s", written_as);
  m.iteration = ck->iteration;
  snprintf(m.solver, sizeof m.solver, "%s", ck->meta.solver);
  m.nx = ck->meta.nx, m.ny = ck->meta.ny, m.nz = ck->meta.nz;
  m.ranks           = ck->size;
  m.values_per_node = ck->layout.values_per_node;
  m.n_global_nodes  = ck->layout.n_global_nodes;
  snprintf(m.partition, sizeof m.partition, "%s", ck->meta.partition);
  snprintf(m.ordering, sizeof m.ordering, "%s", ck->meta.ordering);
  m.has_problem = ck->meta.has_problem;
  m.E           = ck->meta.E;
  m.nu          = ck->meta.nu;
  m.traction    = ck->meta.traction;
  snprintf(m.precond, sizeof m.precond, "%s", ck->meta.precond);
  m.colors     = ck->meta.colors;
  m.asdd_iters = ck->meta.asdd_iters;
  snprintf(m.asdd_residual, sizeof m.asdd_residual, "%s", ck->meta.asdd_residual);
  snprintf(m.settings, sizeof m.settings, "%s", ck->meta.settings);
  m.durable   = durable;
  m.n_vectors = ck->n_vectors;
  memcpy(m.vector_name, ck->vector_name, sizeof m.vector_name);
  char path[IO_PATH_MAX];
  cc_err err = CC_OK;
  for (int r = 0; r < ck->size; r++) m.n_files += files[r].n_files;
  CC_CALL(cc_calloc((size_t)(m.n_files > 0 ? m.n_files : 1), sizeof *m.files, &m.files));
  int k = 0;
  for (int r = 0; r < ck->size && !err; r++)
    for (int i = 0; i < files[r].n_files && !err; i++, k++) {
      io_manifest_file *f = &m.files[k];
      snprintf(f->file, sizeof f->file, "%s", files[r].name[i]);
      f->rank        = ck->ops->shared_file ? -1 : r;
      f->bytes       = files[r].sizes[i]; /* every CRC by the rank that wrote the file */
      f->crc32c      = files[r].crcs[i];
      f->crc_of_data = i == 0 && files[r].crc_of_data;
    }
  if (!err) {
    ckpt_join(path, sizeof path, ck->tmp, CKPT_MANIFEST);
    err = io_inject_commit_enospc(ck->checkpoint_number) /* test seam: the disk fills up here */
              ? cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                              "writing %s failed: %s (injected)", path, strerror(ENOSPC))
              : io_manifest_write(path, &m, durable);
  }
  cc_free(&m.files);
  CC_CALL(err);
  return CC_OK;
}

/* Rank 0: the complete temporary ck->tmp renamed to its final name dir/ckpt.<n>; an older run's
 * checkpoint of the same iteration there is replaced (swapped atomically when latest names it). */
static cc_err rename_into_place(cc_io_checkpointer *ck)
{
  const char *dir = ck->params.dir;
  bool durable    = ck->params.durable;
  char final[CC_IO_CKPT_DIR_MAX];
  ckpt_path(final, sizeof final, dir, ck->iteration, false);
  struct stat st;
  if (stat(final, &st) == 0) { /* an older run's checkpoint of the same iteration (same problem) */
    bool has_latest = false;
    int latest      = -1;
    CC_CALL(ckpt_latest_read(dir, &has_latest, &latest));
    CC_CHECK(ckpt_own_checkpoint(dir, final + strlen(dir) + 1, NULL), CC_ERR_IO,
             "%s exists and is not a cubecg checkpoint: refusing to replace it (move it away)",
             final);
    if (has_latest && latest == ck->iteration) {
      /* it is latest: swap the two directories atomically, so that latest names a complete
       * checkpoint at every instant; the old one, now at the temporary name, goes */
      CC_CHECK(renameat2(AT_FDCWD, ck->tmp, AT_FDCWD, final, RENAME_EXCHANGE) == 0, CC_ERR_SYS,
               "renameat2(%s, %s, RENAME_EXCHANGE) to replace the latest checkpoint: %s", ck->tmp,
               final, strerror(errno));
      if (durable) CC_CALL(io_fsync_path(dir));
      CC_CALL(ckpt_remove_checkpoint(dir, strrchr(ck->tmp, '/') + 1));
    } else {
      /* not pointed to: safe first */
      CC_CALL(ckpt_remove_checkpoint(dir, final + strlen(dir) + 1));
      CC_CHECK(lstat(final, &st) != 0, CC_ERR_IO,
               "%s holds files cubecg did not write: refusing to replace it (move them away)",
               final);
      CC_CHECK(rename(ck->tmp, final) == 0, CC_ERR_SYS, "rename(%s, %s): %s", ck->tmp, final,
               strerror(errno));
    }
  } else
    CC_CHECK(rename(ck->tmp, final) == 0, CC_ERR_SYS, "rename(%s, %s): %s", ck->tmp, final,
             strerror(errno));
  return CC_OK;
}

/* Rank 0: manifest, fsyncs, rename, latest, retention. Knows no backend: the files are those the
 * ranks' commits listed (side files included, written by the backend), the backend name the one
 * they were written as. */
cc_err ckpt_publish(cc_io_checkpointer *ck, const rank_file *files, const char *written_as,
                    ckpt_retired *retired)
{
  retired->n      = 0;
  const char *dir = ck->params.dir;
  bool durable    = ck->params.durable;
  CC_CALL(write_manifest(ck, files, written_as));
  if (durable) CC_CALL(io_fsync_path(ck->tmp));           /* the files' directory entries */
  io_inject_kill_step("manifest", ck->checkpoint_number); /* test seam: complete, not renamed */

  CC_CALL(rename_into_place(ck));
  if (durable) CC_CALL(io_fsync_path(dir));

  /* test seam: killed here, the new checkpoint is complete under its name but latest still names
   * the previous one, which a restart takes */
  io_inject_kill_commit_point(ck->checkpoint_number);
  /* latest: a temporary made durable, renamed over the old pointer (atomic) */
  CC_CALL(ckpt_latest_write(dir, ck->iteration, durable));
  io_inject_kill_step("latest", ck->checkpoint_number); /* test seam: latest moved, no retention */
  CC_CALL(retention(ck, retired)); /* only now that the new checkpoint is durable */
  return CC_OK;
}

cc_err ckpt_file_crcs(const cc_io_checkpointer *ck, rank_file *m)
{
  char path[IO_PATH_MAX];
  for (int i = 0; i < m->n_files && i < CC_IO_MAX_FILES; i++) {
    if (i == 0 && m->has_crc) {
      m->sizes[0] = m->bytes;
      m->crcs[0]  = m->crc;
      continue;
    }
    CC_CHECK(ckpt_join(path, sizeof path, ck->tmp, m->name[i]), CC_ERR_ARG, "path too long: %s",
             ck->tmp);
    CC_CALL(cc_io_file_crc32c(path, &m->crcs[i], &m->sizes[i]));
  }
  return CC_OK;
}

double ckpt_now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* not MPI_Wtime: also read on the offload helper */
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The record of the checkpoint being written (appended by begin). */
cc_io_checkpoint_record *ckpt_current_record(cc_io_checkpointer *ck)
{
  return ck->n_records ? &ck->records[ck->n_records - 1] : NULL;
}

cc_err ckpt_add_record(cc_io_checkpointer *ck, int iteration)
{
  if (ck->n_records == ck->records_capacity) { /* grow: twice the records */
    int capacity                    = ck->records_capacity ? 2 * ck->records_capacity : 16;
    cc_io_checkpoint_record *bigger = NULL;
    CC_CALL(cc_calloc((size_t)capacity, sizeof *bigger, &bigger));
    if (ck->n_records) memcpy(bigger, ck->records, (size_t)ck->n_records * sizeof *bigger);
    cc_free(&ck->records);
    ck->records          = bigger;
    ck->records_capacity = capacity;
  }
  cc_io_checkpoint_record *r = &ck->records[ck->n_records++];
  memset(r, 0, sizeof *r);
  r->iteration = iteration;
  return CC_OK;
}

/* The error of a failed checkpoint, the same on every rank: the previous one stays latest. */
cc_err ckpt_failed_error(cc_io_checkpointer *ck, cc_err err, const char *why)
{
  char latest[IO_NAME_MAX] = "none";
  if (ck->stats.last_iteration >= 0)
    ckpt_name(latest, sizeof latest, ck->stats.last_iteration, false);
  CC_FAIL(err ? err : CC_ERR_IO,
          "checkpoint of iteration %d failed and was discarded; %s/%s remains the latest%s%s",
          ck->iteration, ck->params.dir, latest, why ? ": " : "", why ? why : "");
}

static void discard(cc_io_checkpointer *ck)
{
  MPI_Barrier(ck->layout.comm); /* every rank has closed its files */
  if (ck->rank == 0 && ckpt_remove_temporary(ck->tmp)) {
    cc_error_print(stderr, 0); /* the checkpoint's own error is already on its way up */
  }
}

/* Synchronous backends: every rank has written and synced its file; agree, gather, publish. */
cc_err ckpt_complete(cc_io_checkpointer *ck)
{
  double t0  = MPI_Wtime();
  cc_err err = ck->pending_err;
  if (ck->ctx) {
    cc_err cerr = ck->ops->close(ck->ctx);
    if (!err) err = cerr;
    ck->ctx = NULL;
  }
  ck->pending = false;
  if (cc_agree(ck->layout.comm, err)) {
    discard(ck);
    CC_CALL(ckpt_failed_error(ck, err, NULL));
  }
  rank_file mine;
  memset(&mine, 0, sizeof mine);
  mine.bytes       = ck->info.bytes;
  mine.crc         = ck->info.crc32c;
  mine.has_crc     = ck->info.has_crc;
  mine.crc_of_data = ck->info.crc_of_data;
  mine.n_files     = ck->info.n_files;
  CC_CHECK(mine.n_files >= 0 && mine.n_files <= CC_IO_MAX_FILES, CC_ERR_IO,
           "backend %s listed %d files (at most %d)", ck->params.backend, mine.n_files,
           CC_IO_MAX_FILES);
  memcpy(mine.name, ck->info.name, sizeof mine.name);
  CC_CALL(cc_agree(ck->layout.comm, ckpt_file_crcs(ck, &mine))); /* each rank its own files */
  rank_file *all = NULL;
  if (ck->rank == 0) CC_CALL(cc_malloc((size_t)ck->size, sizeof *all, &all));
  CC_MPI(MPI_Gather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, 0, ck->layout.comm));
  int64_t total;
  CC_MPI(MPI_Allreduce(&ck->info.bytes, &total, 1, MPI_INT64_T, MPI_SUM, ck->layout.comm));
  double p0 = ckpt_now_s();
  ckpt_retired retired;
  memset(&retired, 0, sizeof retired);
  cc_err local = ck->rank == 0 ? ckpt_publish(ck, all, ck->info.written_as, &retired) : CC_OK;
  cc_free(&all);
  if (cc_agree(ck->layout.comm, local)) {
    if (ck->rank == 0 && ckpt_remove_temporary(ck->tmp)) { /* if the rename did not happen */
    }
    CC_FAIL(local ? local : CC_ERR_IO, "committing checkpoint %d in %s failed", ck->iteration,
            ck->params.dir);
  }
  /* retention: every rank its own files, then (all done: the agreement) rank 0 the rest */
  CC_MPI(MPI_Bcast(&retired, sizeof retired, MPI_BYTE, 0, ck->layout.comm));
  ckpt_unlink_own(ck, &retired);
  CC_MPI(MPI_Barrier(ck->layout.comm));
  local     = ck->rank == 0 ? ckpt_remove_retired(ck, &retired) : CC_OK;
  double p1 = ckpt_now_s();
  CC_CALL(cc_agree(ck->layout.comm, local));
  cc_io_checkpoint_record *rec = ckpt_current_record(ck);
  rec->committed               = true;
  rec->write_s                 = ck->info.write_s;
  rec->commit_s                = ck->rank == 0 ? p1 - p0 : 0.0;
  ck->stats.count++;
  ck->stats.write_s += ck->info.write_s;
  ck->stats.bytes += ck->info.bytes;
  ck->stats.bytes_all_ranks += total;
  ck->stats.last_iteration = ck->iteration;
  snprintf(ck->stats.path_used, sizeof ck->stats.path_used, "%s", ck->info.path_used);
  snprintf(ck->stats.detail, sizeof ck->stats.detail, "%s", ck->info.detail);
  ck->stats.commit_s += MPI_Wtime() - t0;
  return CC_OK;
}
