/* ckpt_create.c: the creation of a checkpointer (its parameters' defaults, backend, resources,
 * offload communicator) and the check of its directory before anything in it is removed: the
 * checkpoints there must be of this problem and not newer than this run's start, or be removed
 * when asked (--checkpoint-overwrite); entries this run would collide with are refused up front. */
#include "ckpt_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
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
  DIR *d;
  CC_CALL(io_dir_open(dir, &d));
  struct dirent *e;
  char path[IO_PATH_MAX];
  while ((e = io_dir_next(d)) != NULL) {
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
      ckpt_foreign_entry(path, temporary ? NULL : &m, inner, sizeof inner);
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
  ckpt_problem_of(p->dir, ds->newest, meta, report, ds->differs, sizeof ds->differs);
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
