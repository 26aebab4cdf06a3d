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
  params->keep               = 2;
  params->durable            = true;
  params->io_writeback_bytes = CC_IO_WRITEBACK_DEFAULT;
  params->queue_depth        = IO_QUEUE_DEPTH;
  params->start_iteration    = -1; /* not known: newer checkpoints are not looked for */
}

/* "ckpt.<n>" exactly (committed checkpoints; not "ckpt.<n>.tmp") */
static bool committed_name(const char *name, int *iteration)
{
  bool temporary;
  return ckpt_name_parse(name, iteration, &temporary) && !temporary;
}

/* ---- what is cubecg's own ------------------------------------------------------------------
 * Only what cubecg wrote is ever removed: inside a checkpoint (or its temporary), the files the
 * manifest lists and the names cubecg's backends write; a directory that still holds anything else
 * after that is kept and reported. */

/* The manifest of checkpoint dir/name, read and parsed (io_manifest_free it). */
static cc_err read_manifest(const char *dir, const char *name, io_manifest *m)
{
  char path[IO_PATH_MAX];
  snprintf(path, sizeof path, "%s/%s/" CKPT_MANIFEST, dir, name);
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
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, CKPT_MANIFEST))
      continue;
    bool listed = ckpt_file_name(e->d_name);
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
  snprintf(child, sizeof child, "%s/" CKPT_MANIFEST, path);
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
  int n;
  bool temporary;
  return ckpt_name_parse(name, &n, &temporary) && temporary;
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
    } else if (!strcmp(e->d_name, CKPT_LATEST_TMP)) {
      struct stat st;
      if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) != 0)
        fprintf(stderr, "cubecg: warning: cannot remove %s: %s\n", path, strerror(errno));
    }
  }
  closedir(d);
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

/* The committed checkpoints of dir that are cubecg's own (ckpt_own_checkpoint), as iterations;
 * entries named ckpt.<n> that are not (a user's file or directory) are left alone (and named on
 * stderr when report). */
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

/* The first entry of directory path (a checkpoint or its temporary) that cubecg did not write: not
 * a name its backends write nor a file manifest m lists (m may be NULL), or not a regular file;
 * "" when there is none or path does not exist. */
static void foreign_entry(const char *path, const io_manifest *m, char *name, size_t n)
{
  name[0] = '\0';
  DIR *d  = opendir(path);
  if (!d) return;
  struct dirent *e;
  char child[IO_PATH_MAX];
  while (!name[0] && (e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    bool listed = ckpt_file_name(e->d_name);
    for (int i = 0; m && !listed && i < m->n_files; i++)
      listed = !strcmp(m->files[i].file, e->d_name);
    struct stat st;
    if (!listed || !ckpt_join(child, sizeof child, path, e->d_name) || lstat(child, &st) != 0 ||
        !S_ISREG(st.st_mode))
      snprintf(name, n, "%.100s", e->d_name);
  }
  closedir(d);
}

/* Whether this run may write the checkpoint of iteration it (a multiple of params.every past its
 * start): the checkpoints it would replace are checked up front. */
static bool will_write(const cc_io_checkpoint_params *p, int it)
{
  return p->every >= 1 && it > p->start_iteration && it > 0 && it % p->every == 0;
}

/* Rank 0, the lock held: an entry at an iteration this run will checkpoint that it could not
 * replace (a ckpt.<n> that is not cubecg's, a checkpoint or temporary holding a user's file) would
 * stop the run there; a latest.tmp cubecg did not write would be overwritten: refused now. */
static cc_err check_collisions(const cc_io_checkpoint_params *p)
{
  const char *dir = p->dir;
  DIR *d          = opendir(dir);
  if (!d && errno == ENOENT) return CC_OK; /* a fresh (sub)directory */
  CC_CHECK(d != NULL, CC_ERR_SYS, "cannot open directory %s: %s", dir, strerror(errno));
  struct dirent *e;
  char clash[IO_NAME_MAX] = "", inner[128] = "", path[IO_PATH_MAX];
  int it;
  bool temporary;
  while ((e = readdir(d)) != NULL && !clash[0]) {
    if (!ckpt_name_parse(e->d_name, &it, &temporary) || !will_write(p, it)) continue;
    io_manifest m;
    bool own = temporary || ckpt_own_checkpoint(dir, e->d_name, &m);
    if (own && ckpt_join(path, sizeof path, dir, e->d_name)) {
      foreign_entry(path, temporary ? NULL : &m, inner, sizeof inner);
      if (!temporary) io_manifest_free(&m);
    }
    if (!own || inner[0]) snprintf(clash, sizeof clash, "%.40s", e->d_name);
  }
  closedir(d);
  CC_CHECK(!clash[0], CC_ERR_ARG,
           "%s/%s %s%s, and this run (--checkpoint-every %d) would write its checkpoint there: "
           "move it away or use another --checkpoint-dir",
           dir, clash, inner[0] ? "holds " : "is not a cubecg checkpoint", inner, p->every);
  char text[IO_NAME_MAX];
  size_t len;
  bool exists;
  cc_err err = CC_OK;
  if (ckpt_join(path, sizeof path, dir, CKPT_LATEST_TMP)) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    exists = fd >= 0 || errno != ENOENT;
    len    = fd >= 0 ? (size_t)read(fd, text, sizeof text - 1) : 0;
    if (fd >= 0) close(fd);
    if (exists && !ckpt_latest_parse(text, len < sizeof text ? len : 0, &it))
      err = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                          "%s is not cubecg's (it holds no checkpoint pointer), and this run "
                          "would overwrite it: move it away or use another --checkpoint-dir",
                          path);
  }
  CC_CALL(err);
  return CC_OK;
}

/* What a checkpoint directory holds, as rank 0 examined it (dir_examine). */
typedef struct {
  int *found; /* cubecg's committed checkpoints, as iterations */
  size_t count;
  int newest;        /* the newest committed progress (what latest names, else the newest found) */
  bool fresh;        /* no checkpoint and no latest */
  char differs[400]; /* "" when of this problem */
} dir_state;

/* The problem of the checkpoint ds->newest names, compared with meta (ds->differs). */
static void compare_problem(const char *dir, const cc_io_metadata *meta, bool report, dir_state *ds)
{
  char name[IO_NAME_MAX];
  ckpt_name(name, sizeof name, ds->newest, false);
  io_manifest m;
  bool unverified = false;
  if (read_manifest(dir, name, &m)) {
    snprintf(ds->differs, sizeof ds->differs, "%.40s/" CKPT_MANIFEST " cannot be read", name);
    cc_error_clear();
    return;
  }
  if (!ckpt_problem_differs(&m, meta, ds->differs, sizeof ds->differs, &unverified))
    ds->differs[0] = '\0';
  io_manifest_free(&m);
  if (unverified && report)
    fprintf(stderr,
            "cubecg: warning: %s/%s was written without E, nu, traction and preconditioner: "
            "they cannot be verified; its checkpoints are taken as this problem's\n",
            dir, name);
}

/* Rank 0, the lock held, nothing changed: whether this run may use dir (CC_ERR_ARG naming why
 * not), and what it holds. Free ds->found. */
static cc_err dir_examine(const cc_io_checkpoint_params *p, const cc_io_metadata *meta, bool report,
                          dir_state *ds)
{
  memset(ds, 0, sizeof *ds);
  ds->newest = -1;
  CC_CALL(check_collisions(p));
  struct stat st;
  if (stat(p->dir, &st) != 0 && errno == ENOENT) { /* a fresh (sub)directory */
    ds->fresh = true;
    return CC_OK;
  }
  bool has_latest = false;
  int latest      = -1;
  CC_CALL(ckpt_latest_read(p->dir, &has_latest, &latest)); /* a user's latest: refused */
  CC_CALL(ckpt_own_checkpoints(p->dir, report, &ds->found, &ds->count));
  for (size_t i = 0; i < ds->count; i++)
    if (ds->found[i] > ds->newest) ds->newest = ds->found[i];
  ds->fresh = !ds->count && !has_latest;
  if (ds->fresh) return CC_OK;
  /* committed progress is what latest names: a checkpoint above it is a commit killed before
   * latest moved (replaced when this run reaches its iteration, or removed by overwrite) */
  if (has_latest) ds->newest = latest;
  compare_problem(p->dir, meta, report, ds);
  cc_err err = CC_OK;
  int start  = p->start_iteration;
  char name[IO_NAME_MAX];
  ckpt_name(name, sizeof name, ds->newest, false);
  /* the same problem: checkpoints newer than this run's start are another run's progress (a
   * requeued job, the same command again): never removed without being asked */
  if (!ds->differs[0] && start >= 0 && ds->newest > start && !p->overwrite)
    err = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                        "--checkpoint-dir %s holds %s of this problem, newer than this run's "
                        "start (iteration %d): continue it with --restart %s (and the same "
                        "options), or replace it with --checkpoint-overwrite",
                        p->dir, name, start, p->dir);
  else if (ds->differs[0] && !p->overwrite)
    err = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                        "--checkpoint-dir %s holds checkpoints of another problem (%s): refusing "
                        "to mix them; use another directory or --checkpoint-overwrite",
                        p->dir, ds->differs);
  if (err) cc_free(&ds->found);
  CC_CALL(err);
  return CC_OK;
}

/* Removes dir's checkpoints above iteration above (all: above = -1), latest first moved to the
 * newest that stays (keep, -1: none). */
static cc_err remove_above(const cc_io_checkpoint_params *p, const dir_state *ds, int above,
                           int keep)
{
  CC_CALL(ckpt_latest_write(p->dir, keep, p->durable && keep >= 0));
  char name[IO_NAME_MAX];
  for (size_t i = 0; i < ds->count; i++)
    if (ds->found[i] > above) {
      ckpt_name(name, sizeof name, ds->found[i], false);
      CC_CALL(ckpt_remove_checkpoint(p->dir, name));
    }
  if (p->durable) CC_CALL(io_fsync_path(p->dir));
  return CC_OK;
}

/* Rank 0 at create, with the directory's lock held: the checkpoints dir already holds must be of
 * this problem and not newer than this run's start (dir_examine), or be removed (cubecg's own only)
 * when params->overwrite. */
static cc_err check_existing(const cc_io_checkpointer *ck)
{
  const cc_io_checkpoint_params *p = &ck->params;
  dir_state ds;
  CC_CALL(dir_examine(p, &ck->meta, true, &ds)); /* reported once, at create */
  int start  = p->start_iteration;
  cc_err err = CC_OK;
  if (ds.fresh || (!ds.differs[0] && (start < 0 || ds.newest <= start))) {
    cc_free(&ds.found);
    return CC_OK; /* the same problem: continue, same-numbered checkpoints are replaced */
  }
  if (!ds.differs[0]) { /* --checkpoint-overwrite of this problem's newer progress */
    fprintf(stderr,
            "cubecg: --checkpoint-overwrite: removing the checkpoints of %s newer than iteration "
            "%d\n",
            p->dir, start);
    int keep = -1; /* the newest that stays: latest names it */
    for (size_t i = 0; i < ds.count; i++)
      if (ds.found[i] <= start && ds.found[i] > keep) keep = ds.found[i];
    err = remove_above(p, &ds, start, keep);
  } else {
    fprintf(stderr, "cubecg: --checkpoint-overwrite: removing the checkpoints in %s (%s)\n", p->dir,
            ds.differs);
    err = remove_above(p, &ds, -1, -1); /* latest first: no pointer to a half-removed one */
  }
  cc_free(&ds.found);
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_io_checkpoint_dir_check(const cc_io_checkpoint_params *params, const cc_io_metadata *meta,
                                  MPI_Comm comm)
{
  int rank;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  cc_err local = CC_OK;
  if (rank == 0) {
    dir_state ds;
    local = dir_examine(params, meta, false, &ds);
    if (!local) cc_free(&ds.found);
  }
  CC_CALL(cc_agree(comm, local));
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
  ck->opt.buffer_bytes    = params->io_buffer_bytes;
  ck->opt.writeback_bytes = params->durable ? params->io_writeback_bytes : 0;
  ck->opt.queue_depth     = params->queue_depth > 0 ? params->queue_depth : IO_QUEUE_DEPTH;
  ck->opt.durable         = params->durable;
  ck->opt.fallback        = params->fallback;
  ck->opt.checksum        = true;
  ck->opt.gas             = params->gas;
  ck->opt.keep            = params->keep;
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
