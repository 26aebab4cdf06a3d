/* ckpt_owner.c: what a checkpoint directory holds that is cubecg's own (committed checkpoints,
 * temporaries of an interrupted run; a user's files are left alone), the problem a checkpoint
 * belongs to, and the creation of a checkpointer, which checks the directory before it removes
 * anything. */
#include "ckpt_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void cc_io_checkpoint_params_default(cc_io_checkpoint_params *params)
{
  memset(params, 0, sizeof *params);
  snprintf(params->backend, sizeof params->backend, "posix");
  params->keep            = 2;
  params->durable         = true;
  params->io_writeback_bytes = CC_IO_WRITEBACK_DEFAULT;
  params->queue_depth     = IO_QUEUE_DEPTH;
  params->start_iteration = -1; /* not known: newer checkpoints are not looked for */
}

/* "ckpt.<n>" exactly (committed checkpoints; not "ckpt.<n>.tmp") */
static bool committed_name(const char *name, int *iteration)
{
  int n    = -1;
  char end = 0;
  if (sscanf(name, "ckpt.%d%c", &n, &end) != 1 || n < 0) return false;
  char canonical[32];
  snprintf(canonical, sizeof canonical, "ckpt.%d", n);
  if (strcmp(canonical, name)) return false;
  *iteration = n;
  return true;
}

/* ---- what is cubecg's own ------------------------------------------------------------------
 * Only what cubecg wrote is ever removed: inside a checkpoint (or its temporary), the files the
 * manifest lists and the names cubecg's backends write; a directory that still holds anything else
 * after that is kept and reported. */

/* The names cubecg's backends write inside a checkpoint: manifest.json, rank.<r>.<ext> (per-rank
 * files, gas receipts), gas.<owner>.pages (gas page files), state.h5 / state.xmf (hdf5). */
static bool cubecg_file_name(const char *name)
{
  int n = -1, used = 0;
  if (!strcmp(name, "manifest.json") || !strcmp(name, "state.h5") || !strcmp(name, "state.xmf"))
    return true;
  if (sscanf(name, "rank.%d.%n", &n, &used) == 1 && used > 0 && n >= 0 && name[used] &&
      !strchr(name + used, '/'))
    return true;
  used = 0;
  return sscanf(name, "gas.%d.pages%n", &n, &used) == 1 && used > 0 && n >= 0 && name[used] == '\0';
}

/* The manifest of checkpoint dir/name, read and parsed (io_manifest_free it). */
static cc_err read_manifest(const char *dir, const char *name, io_manifest *m)
{
  char path[IO_PATH_MAX];
  snprintf(path, sizeof path, "%s/%s/manifest.json", dir, name);
  char *text = NULL;
  cc_err err = io_read_text(path, &text, NULL);
  if (!err) err = io_manifest_parse(text, path, m);
  cc_free(&text);
  return err;
}

/* Whether dir/name is one of cubecg's committed checkpoints: a real directory (not a symlink) with
 * a readable manifest.json; *m gets the manifest (io_manifest_free it) when m is not NULL. */
bool ckpt_own_checkpoint(const char *dir, const char *name, io_manifest *m)
{
  char path[IO_PATH_MAX];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  io_manifest local;
  if (read_manifest(dir, name, &local)) {
    cc_error_clear();
    return false;
  }
  if (m)
    *m = local;
  else
    io_manifest_free(&local);
  return true;
}

/* Removes from directory path the files m lists (m may be NULL) and the files cubecg names, then
 * the directory itself. Anything else in it is left, with the directory, and named in *kept (""
 * when the directory went). */
static cc_err remove_files_of(const char *path, const io_manifest *m, char *kept, size_t n_kept)
{
  kept[0] = '\0';
  DIR *d  = opendir(path);
  CC_CHECK(d != NULL, CC_ERR_SYS, "cannot open directory %s: %s", path, strerror(errno));
  struct dirent *e;
  char child[IO_PATH_MAX];
  cc_err err = CC_OK;
  while (!err && (e = readdir(d)) != NULL) {
    /* the manifest goes last: a removal killed half-way leaves a checkpoint still recognised as
     * cubecg's own (and removed by the next run), never an unknown directory */
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "manifest.json"))
      continue;
    bool listed = cubecg_file_name(e->d_name);
    for (int i = 0; m && !listed && i < m->n_files; i++)
      listed = !strcmp(m->files[i].file, e->d_name);
    struct stat st;
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    if (!listed || lstat(child, &st) != 0 || S_ISDIR(st.st_mode)) {
      if (!kept[0]) snprintf(kept, n_kept, "%.100s", e->d_name);
      continue;
    }
    if (unlink(child) != 0 && errno != ENOENT)
      err = cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__, "cannot remove %s: %s", child,
                          strerror(errno));
  }
  closedir(d);
  CC_CALL(err);
  io_inject_kill_step("retention", 0); /* test seam: killed with the manifest still there */
  snprintf(child, sizeof child, "%s/manifest.json", path);
  CC_CHECK(unlink(child) == 0 || errno == ENOENT, CC_ERR_SYS, "cannot remove %s: %s", child,
           strerror(errno));
  if (kept[0]) return CC_OK;
  CC_CHECK(rmdir(path) == 0 || errno == ENOENT, CC_ERR_SYS, "cannot remove directory %s: %s", path,
           strerror(errno));
  return CC_OK;
}

/* Removes checkpoint dir/name if it is cubecg's own (ckpt_own_checkpoint); anything else is left
 * and reported on stderr. */
cc_err ckpt_remove_checkpoint(const char *dir, const char *name)
{
  char path[IO_PATH_MAX], kept[IO_NAME_MAX * 2];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  io_manifest m;
  if (!ckpt_own_checkpoint(dir, name, &m)) {
    fprintf(stderr,
            "cubecg: warning: %s is not a cubecg checkpoint (no readable manifest.json): "
            "left as it is\n",
            path);
    return CC_OK;
  }
  cc_err err = remove_files_of(path, &m, kept, sizeof kept);
  io_manifest_free(&m);
  CC_CALL(err);
  if (kept[0])
    fprintf(stderr,
            "cubecg: warning: kept %s: it holds %s, which cubecg did not write (its checkpoint "
            "files are removed)\n",
            path, kept);
  return CC_OK;
}

/* A temporary checkpoint directory (path = dir/ckpt.<n>.tmp): its cubecg files go; it stays, with
 * an error, when it holds anything else. */
cc_err ckpt_remove_temporary(const char *path)
{
  struct stat st;
  if (lstat(path, &st) != 0) return CC_OK; /* already gone */
  CC_CHECK(S_ISDIR(st.st_mode), CC_ERR_IO,
           "%s is not a directory cubecg made: refusing to remove it (move it away)", path);
  char kept[IO_NAME_MAX * 2];
  CC_CALL(remove_files_of(path, NULL, kept, sizeof kept));
  CC_CHECK(!kept[0], CC_ERR_IO,
           "%s holds %s, which cubecg did not write: refusing to remove it (move it away)", path,
           kept);
  return CC_OK;
}

/* "ckpt.<n>.tmp" exactly */
static bool temporary_name(const char *name)
{
  int n = -1, used = 0;
  return sscanf(name, "ckpt.%d.tmp%n", &n, &used) == 1 && used > 0 && name[used] == '\0' && n >= 0;
}

/* Rank 0 at create, with the lock held and the problem checked: the temporaries of an interrupted
 * run of this series (their cubecg files; anything else is reported and left). */
static cc_err remove_stale_temporaries(const char *dir)
{
  DIR *d = opendir(dir);
  CC_CHECK(d != NULL, CC_ERR_SYS, "cannot open directory %s: %s", dir, strerror(errno));
  struct dirent *e;
  char path[IO_PATH_MAX];
  while ((e = readdir(d)) != NULL) {
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (temporary_name(e->d_name)) {
      if (ckpt_remove_temporary(path)) {
        fprintf(stderr, "cubecg: warning: %s\n", cc_error_message());
        cc_error_clear();
      }
    } else if (!strcmp(e->d_name, "latest.tmp")) {
      struct stat st;
      if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) != 0)
        fprintf(stderr, "cubecg: warning: cannot remove %s: %s\n", path, strerror(errno));
    }
  }
  closedir(d);
  return CC_OK;
}

/* The checkpoint name that dir/latest holds. */
cc_err ckpt_read_latest(const char *dir, char *name, size_t n)
{
  char path[IO_PATH_MAX];
  snprintf(path, sizeof path, "%s/latest", dir);
  char *text;
  size_t len;
  CC_CALL(io_read_text(path, &text, &len));
  while (len && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\r'))
    text[--len] = '\0';
  bool ok = len > 0 && len < n && !strchr(text, '/');
  if (ok) memcpy(name, text, len + 1);
  cc_free(&text);
  CC_CHECK(ok, CC_ERR_IO, "%s does not name a checkpoint directory", path);
  return CC_OK;
}

/* ---- the problem a checkpoint belongs to -------------------------------------------------------
 */
/* The first parameter of meta that differs from manifest m, as "--E 2 differs from the
 * checkpoint's E = 1" in msg; false when every recorded parameter agrees. Parameters the manifest
 * does not hold (older cubecg) are not compared: *unverified says so. */
bool ckpt_problem_differs(const io_manifest *m, const cc_io_metadata *meta, char *msg, size_t n,
                            bool *unverified)
{
  *unverified = false;
  if ((meta->nx || meta->ny || meta->nz) &&
      (m->nx != meta->nx || m->ny != meta->ny || m->nz != meta->nz)) {
    snprintf(msg, n, "the mesh %dx%dx%d differs from the checkpoint's mesh %dx%dx%d", meta->nx,
             meta->ny, meta->nz, m->nx, m->ny, m->nz);
    return true;
  }
  if (meta->solver[0] && strcmp(m->solver, meta->solver)) {
    snprintf(msg, n, "--solver %s differs from the checkpoint's solver = %s", meta->solver,
             m->solver);
    return true;
  }
  if (meta->ordering[0] && strcmp(m->ordering, meta->ordering)) {
    snprintf(msg, n, "--ordering %s differs from the checkpoint's ordering = %s", meta->ordering,
             m->ordering);
    return true;
  }
  if (!meta->has_problem) return false;
  if (!m->has_problem) {
    *unverified = true;
    return false;
  }
  /* doubles are the same parameter bitwise: exact comparison, printed so that they read back */
  const struct {
    const char *option, *key;
    double mine, theirs;
  } real[] = {{"--E", "E", meta->E, m->E},
              {"--nu", "nu", meta->nu, m->nu},
              {"--traction", "traction", meta->traction, m->traction}};
  for (size_t i = 0; i < sizeof real / sizeof real[0]; i++)
    if (memcmp(&real[i].mine, &real[i].theirs, sizeof(double))) {
      snprintf(msg, n, "%s %.17g differs from the checkpoint's %s = %.17g", real[i].option,
               real[i].mine, real[i].key, real[i].theirs);
      return true;
    }
  if (strcmp(m->precond, meta->precond)) {
    const bool precision = strchr(meta->precond, '+') || strchr(m->precond, '+');
    snprintf(msg, n, "%s %s differs from the checkpoint's precond = %s",
             precision ? "--precond/--precond-precision" : "--precond", meta->precond, m->precond);
    return true;
  }
  if (m->colors != meta->colors) {
    snprintf(msg, n, "--colors %d differs from the checkpoint's colors = %d", meta->colors,
             m->colors);
    return true;
  }
  if (m->asdd_iters != meta->asdd_iters) {
    snprintf(msg, n, "--asdd-iters %d differs from the checkpoint's asdd_iterations = %d",
             meta->asdd_iters, m->asdd_iters);
    return true;
  }
  if (strcmp(m->asdd_residual, meta->asdd_residual)) {
    snprintf(msg, n, "--asdd-residual %s differs from the checkpoint's asdd_residual = %s",
             meta->asdd_residual[0] ? meta->asdd_residual : "(none)",
             m->asdd_residual[0] ? m->asdd_residual : "(none)");
    return true;
  }
  return false;
}


/* latest := name (a temporary made durable, renamed over the old pointer), or removed when name is
 * NULL. */
static cc_err point_latest(const char *dir, const char *name, bool durable)
{
  char tmp_latest[IO_PATH_MAX], new_latest[IO_PATH_MAX];
  snprintf(tmp_latest, sizeof tmp_latest, "%s/latest.tmp", dir);
  snprintf(new_latest, sizeof new_latest, "%s/latest", dir);
  if (!name) {
    CC_CHECK(unlink(new_latest) == 0 || errno == ENOENT, CC_ERR_SYS, "cannot remove %s: %s",
             new_latest, strerror(errno));
  } else {
    FILE *f = fopen(tmp_latest, "w");
    CC_CHECK(f != NULL, CC_ERR_IO, "cannot create %s: %s", tmp_latest, strerror(errno));
    int failed = fprintf(f, "%s\n", name) < 0 || fflush(f) != 0;
    if (!failed && durable) failed = fsync(fileno(f)) != 0;
    failed |= fclose(f) != 0;
    CC_CHECK(!failed, CC_ERR_IO, "writing %s failed: %s", tmp_latest, strerror(errno));
    CC_CHECK(rename(tmp_latest, new_latest) == 0, CC_ERR_SYS, "rename(%s, %s): %s", tmp_latest,
             new_latest, strerror(errno));
  }
  if (durable) CC_CALL(io_fsync_path(dir));
  return CC_OK;
}

/* The committed checkpoints of dir that are cubecg's own (ckpt_own_checkpoint), as iterations;
 * entries named ckpt.<n> that are not (a user's file or directory) are left alone (and named on stderr when
 * report). */
cc_err ckpt_own_checkpoints(const char *dir, bool report, int **found, size_t *n)
{
  *found = NULL;
  *n     = 0;
  DIR *d = opendir(dir);
  CC_CHECK(d != NULL, CC_ERR_SYS, "cannot open directory %s: %s", dir, strerror(errno));
  size_t capacity = 0;
  cc_err err      = CC_OK;
  struct dirent *e;
  int it;
  while (!err && (e = readdir(d)) != NULL) { /* every entry, however many */
    if (!committed_name(e->d_name, &it)) continue;
    if (!ckpt_own_checkpoint(dir, e->d_name, NULL)) {
      if (report)
        fprintf(stderr,
                "cubecg: warning: %s/%s is named like a checkpoint but is not one of cubecg's (no "
                "readable manifest.json): left as it is\n",
                dir, e->d_name);
      continue;
    }
    if (*n == capacity) { /* grow: twice the entries */
      int *bigger = NULL;
      capacity    = capacity ? 2 * capacity : 64;
      err         = cc_malloc(capacity, sizeof *bigger, &bigger);
      if (!err && *n) memcpy(bigger, *found, *n * sizeof **found);
      cc_free(found);
      *found = bigger;
    }
    if (!err) (*found)[(*n)++] = it;
  }
  closedir(d);
  if (err) cc_free(found), *n = 0;
  CC_CALL(err);
  return CC_OK;
}

/* Rank 0 at create: an entry ckpt.<n> that is not cubecg's at an iteration this run will
 * checkpoint (a multiple of params.every past its start) would stop the run there: refused now. */
static cc_err check_collisions(const cc_io_checkpointer *ck)
{
  const char *dir = ck->params.dir;
  int every       = ck->params.every, it;
  if (every < 1) return CC_OK; /* the period is not known (direct users of io/) */
  DIR *d = opendir(dir);
  CC_CHECK(d != NULL, CC_ERR_SYS, "cannot open directory %s: %s", dir, strerror(errno));
  struct dirent *e;
  char clash[IO_NAME_MAX] = "";
  while ((e = readdir(d)) != NULL && !clash[0])
    if (committed_name(e->d_name, &it) && it > ck->params.start_iteration && it > 0 &&
        it % every == 0 && !ckpt_own_checkpoint(dir, e->d_name, NULL))
      snprintf(clash, sizeof clash, "%.40s", e->d_name);
  closedir(d);
  CC_CHECK(!clash[0], CC_ERR_ARG,
           "%s/%s is not a cubecg checkpoint, and this run (--checkpoint-every %d) would write its "
           "checkpoint there: move it away or use another --checkpoint-dir",
           dir, clash, every);
  return CC_OK;
}

/* Rank 0 at create, with the directory's lock held: the checkpoints dir already holds (latest,
 * else the newest of cubecg's own) must be of this problem and not newer than this run's start,
 * or be removed (cubecg's own only) when params->overwrite. */
static cc_err check_existing(const cc_io_checkpointer *ck)
{
  const char *dir        = ck->params.dir;
  char name[IO_NAME_MAX] = "", path[IO_PATH_MAX];
  struct stat st;
  int *found = NULL;
  size_t count;
  CC_CALL(check_collisions(ck));
  CC_CALL(ckpt_own_checkpoints(dir, true, &found, &count)); /* reported once, at create */
  int newest = -1;
  for (size_t i = 0; i < count; i++)
    if (found[i] > newest) newest = found[i];
  snprintf(path, sizeof path, "%s/latest", dir);
  bool has_latest = stat(path, &st) == 0;
  if (!count && !has_latest) { /* a fresh directory */
    cc_free(&found);
    return CC_OK;
  }
  char differs[400] = "";
  bool unverified   = false;
  if (has_latest) {
    cc_err err = ckpt_read_latest(dir, name, sizeof name);
    if (err) {
      snprintf(differs, sizeof differs, "latest is unreadable");
      cc_error_clear();
    }
  } else
    snprintf(name, sizeof name, "ckpt.%d", newest);
  if (!differs[0]) {
    io_manifest m;
    if (read_manifest(dir, name, &m)) {
      snprintf(differs, sizeof differs, "%.40s/manifest.json cannot be read", name);
      cc_error_clear();
    } else {
      if (!ckpt_problem_differs(&m, &ck->meta, differs, sizeof differs, &unverified))
        differs[0] = '\0';
      io_manifest_free(&m);
    }
  }
  cc_err err = CC_OK;
  if (!differs[0]) {
    /* committed progress is what latest names: a checkpoint above it is a commit killed before
     * latest moved (replaced when this run reaches its iteration, or removed by overwrite) */
    int committed = -1;
    if (has_latest && sscanf(name, "ckpt.%d", &committed) == 1) newest = committed;
    if (unverified)
      fprintf(stderr,
              "cubecg: warning: %s/%s was written without E, nu, traction and preconditioner: "
              "they cannot be verified; its checkpoints are taken as this problem's\n",
              dir, name);
    /* the same problem: checkpoints newer than this run's start are another run's progress (a
     * requeued job, the same command again): never removed without being asked */
    int start = ck->params.start_iteration;
    if (start < 0) newest = start; /* the caller did not say where it starts: nothing is newer */
    if (newest > start && !ck->params.overwrite) {
      cc_free(&found);
      CC_FAIL(CC_ERR_ARG,
              "--checkpoint-dir %s holds ckpt.%d of this problem, newer than this run's start "
              "(iteration %d): continue it with --restart %s (and the same options), or replace "
              "it with --checkpoint-overwrite",
              dir, newest, start, dir);
    }
    if (newest > start) {
      fprintf(stderr,
              "cubecg: --checkpoint-overwrite: removing the checkpoints of %s newer than "
              "iteration %d\n",
              dir, start);
      int keep = -1; /* the newest that stays: latest names it */
      for (size_t i = 0; i < count; i++)
        if (found[i] <= start && found[i] > keep) keep = found[i];
      char kept_name[IO_NAME_MAX];
      snprintf(kept_name, sizeof kept_name, "ckpt.%d", keep);
      err = point_latest(dir, keep >= 0 ? kept_name : NULL, ck->params.durable);
      for (size_t i = 0; i < count && !err; i++)
        if (found[i] > start) {
          snprintf(name, sizeof name, "ckpt.%d", found[i]);
          err = ckpt_remove_checkpoint(dir, name);
        }
    }
    cc_free(&found);
    CC_CALL(err);
    if (ck->params.durable && newest > start) CC_CALL(io_fsync_path(dir));
    return CC_OK; /* the same problem: continue, same-numbered checkpoints are replaced */
  }
  if (!ck->params.overwrite) cc_free(&found);
  CC_CHECK(ck->params.overwrite, CC_ERR_ARG,
           "--checkpoint-dir %s holds checkpoints of another problem (%s): refusing to mix them; "
           "use another directory or --checkpoint-overwrite",
           dir, differs);
  fprintf(stderr, "cubecg: --checkpoint-overwrite: removing the checkpoints in %s (%s)\n", dir,
          differs);
  err = point_latest(dir, NULL, false); /* first: no pointer to a half-removed one */
  for (size_t i = 0; i < count && !err; i++) {
    snprintf(name, sizeof name, "ckpt.%d", found[i]);
    err = ckpt_remove_checkpoint(dir, name);
  }
  cc_free(&found);
  CC_CALL(err);
  if (ck->params.durable) CC_CALL(io_fsync_path(dir));
  return CC_OK;
}

cc_err cc_io_checkpointer_create(const cc_io_checkpoint_params *params, const cc_io_layout *layout,
                                 const cc_io_metadata *meta, cc_io_checkpointer **ckpt)
{
  *ckpt = NULL;
  CC_CHECK(params->dir[0] != '\0', CC_ERR_ARG, "checkpoint directory not set");
  CC_CHECK(params->keep >= 1, CC_ERR_ARG, "checkpoint keep %d, must be >= 1", params->keep);
  CC_CHECK(layout->values_per_node >= 1 && layout->n_local_nodes >= 0 &&
               (layout->global_node_id || layout->n_local_nodes == 0),
           CC_ERR_ARG, "bad layout: %lld local nodes, %d values per node",
           (long long)layout->n_local_nodes, layout->values_per_node);
  cc_io_checkpointer *ck;
  CC_CALL(cc_calloc(1, sizeof *ck, &ck));
  ck->params = *params;
  ck->layout = *layout;
  if (meta) ck->meta = *meta;
  cc_io_options_default(&ck->opt);
  ck->opt.buffer_bytes = params->io_buffer_bytes;
  ck->opt.writeback_bytes = params->durable ? params->io_writeback_bytes : 0;
  ck->opt.queue_depth  = params->queue_depth > 0 ? params->queue_depth : IO_QUEUE_DEPTH;
  ck->opt.durable      = params->durable;
  ck->opt.fallback     = params->fallback;
  ck->opt.checksum     = true;
  ck->opt.gas          = params->gas;
  ck->opt.keep         = params->keep;
  if (meta) {
    ck->opt.grid[0] = meta->nx;
    ck->opt.grid[1] = meta->ny;
    ck->opt.grid[2] = meta->nz;
  }
  ck->ops                  = cc_io_backend_find(params->backend, &ck->opt);
  ck->stats.last_iteration = -1;
  if (!ck->ops) cc_free(&ck);
  CC_CHECK(ck != NULL, CC_ERR_ARG, "unknown checkpoint backend '%s' (built: %s)", params->backend,
           cc_io_backend_names());
  CC_MPI(MPI_Comm_rank(layout->comm, &ck->rank));
  CC_MPI(MPI_Comm_size(layout->comm, &ck->size));
  /* collective owner: its finish releases collectively, so the gas backend keeps one store for
   * all its checkpoints */
  cc_err local      = io_resources_create(&ck->resources, true);
  ck->opt.resources = ck->resources;
  if (!local && ck->rank == 0) {
    local = io_mkdir_p(params->dir);
    /* nothing is removed before the directory's problem is checked (the caller holds its lock) */
    if (!local) local = check_existing(ck);
    if (!local) local = remove_stale_temporaries(params->dir);
  }
  if (!local && ck->ops->asynchronous && params->n_vectors_hint > 0)
    local = io_offload_reserve(ck->resources, (size_t)params->n_vectors_hint *
                                                  (size_t)layout->n_local_nodes *
                                                  (size_t)layout->values_per_node * sizeof(double));
  cc_err err = cc_agree(layout->comm, local);
  ck->comm   = MPI_COMM_NULL;
  if (!err && ck->ops->asynchronous) { /* the offload commit's own communicator (cc_io.h) */
    err = MPI_Comm_dup(layout->comm, &ck->comm) == MPI_SUCCESS
              ? CC_OK
              : cc_error_push(CC_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Comm_dup failed");
    if (!err && ck->rank == 0) err = cc_calloc((size_t)ck->size, sizeof *ck->all, &ck->all);
    err = cc_agree(layout->comm, err);
  }
  if (err) {
    if (ck->comm != MPI_COMM_NULL) MPI_Comm_free(&ck->comm);
    cc_free(&ck->all);
    io_resources_destroy(&ck->resources);
    cc_free(&ck);
  }
  CC_CALL(err);
  *ckpt = ck;
  return CC_OK;
}
