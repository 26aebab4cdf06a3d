/* checkpoint.c: the checkpoint manager. Start/complete bracketing (every rank reports, MPI decides)
 * and the write-to-temporary + fsync + rename + atomic pointer protocol of crash-consistent
 * applications (Pillai et al., OSDI 2014; SCR's "complete" marker), a manifest with CRC32C of
 * every file, bounded retention, and the verified restart. See cc_io.h for the protocol. */
#include "io_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What one rank's commit wrote (cc_io_file_info), gathered on rank 0 for the manifest; offload:
 * also whether its write failed, and why (the agreement of phase 2). */
typedef struct {
  int64_t bytes; /* of name[0] */
  uint32_t crc;
  int has_crc, n_files;
  char name[CC_IO_MAX_FILES][CC_IO_FILE_NAME_LEN];
  int err;                          /* offload: this rank's write failed (cc_err) */
  char message[IO_MESSAGE_MAX / 2]; /* ... with this innermost message */
  double write_s;                   /* offload: the helper's write + fsync */
} rank_file;

/* Offload: what rank 0 tells every rank once the commit is decided (phase 3's outcome). */
typedef struct {
  int32_t err;       /* CC_OK: committed */
  int32_t committed; /* the new checkpoint is latest */
  int64_t total;     /* bytes of all ranks */
  double commit_s;   /* rank 0's helper: manifest, fsyncs, renames, latest, retention */
  char message[IO_MESSAGE_MAX];
} ckpt_outcome;

/* Offload commit phases of the pending checkpoint (cc_io.h, "Offload commit"). */
typedef enum {
  PHASE_IDLE,       /* nothing pending */
  PHASE_WRITING,    /* 1: the helper writes + fsyncs this rank's file */
  PHASE_AGREEING,   /* 2: MPI_Igather of every rank's outcome to rank 0 posted */
  PHASE_COMMITTING, /* 3: rank 0's helper publishes (or discards) the checkpoint */
  PHASE_OUTCOME     /* MPI_Ibcast of rank 0's verdict posted */
} ckpt_phase;

struct cc_io_checkpointer {
  cc_io_checkpoint_params params;
  cc_io_options opt;
  const cc_io_backend_ops *ops;
  io_resources *resources; /* this checkpointer's offload helper / uring ring, nobody else's */
  cc_io_layout layout;
  cc_io_metadata meta;
  int rank, size;
  /* the checkpoint written but not yet committed */
  bool pending;
  void *ctx;
  cc_err pending_err;
  int iteration, n_vectors;
  char vector_name[CC_IO_MAX_VECTORS][CC_IO_NAME_LEN];
  char tmp[CC_IO_CKPT_DIR_MAX];
  cc_io_file_info info;
  cc_io_checkpoint_stats stats;
  int checkpoint_number; /* of this process (test seams) */
  /* per checkpoint, oldest first */
  cc_io_checkpoint_record *records;
  int n_records, records_capacity;
  /* offload (ops->asynchronous): the pending checkpoint's commit, advanced without blocking by
   * cc_io_checkpointer_poll and completed by the next write or finish */
  MPI_Comm comm; /* private duplicate of layout.comm: only these collectives, in order */
  ckpt_phase phase;
  MPI_Request request;
  rank_file mine;       /* Igather's send buffer */
  rank_file *all;       /* rank 0: every rank's (Igather's receive buffer) */
  ckpt_outcome outcome; /* Ibcast's buffer */
  int failed_rank;      /* rank 0: the lowest rank whose write failed (-1: none) */
};

void cc_io_checkpoint_params_default(cc_io_checkpoint_params *params)
{
  memset(params, 0, sizeof *params);
  snprintf(params->backend, sizeof params->backend, "posix");
  params->keep            = 2;
  params->durable         = true;
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
static bool own_checkpoint(const char *dir, const char *name, io_manifest *m)
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

/* Removes checkpoint dir/name if it is cubecg's own (own_checkpoint); anything else is left and
 * reported on stderr. */
static cc_err remove_checkpoint(const char *dir, const char *name)
{
  char path[IO_PATH_MAX], kept[IO_NAME_MAX * 2];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  io_manifest m;
  if (!own_checkpoint(dir, name, &m)) {
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
static cc_err remove_temporary(const char *path)
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
      if (remove_temporary(path)) {
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

/* ---- the problem a checkpoint belongs to -------------------------------------------------------
 */
/* The first parameter of meta that differs from manifest m, as "--E 2 differs from the
 * checkpoint's E = 1" in msg; false when every recorded parameter agrees. Parameters the manifest
 * does not hold (older cubecg) are not compared: *unverified says so. */
static bool problem_differs(const io_manifest *m, const cc_io_metadata *meta, char *msg, size_t n,
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
  return false;
}

static cc_err read_latest(const char *dir, char *name, size_t n);

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

/* The committed checkpoints of dir that are cubecg's own (own_checkpoint), as iterations; entries
 * named ckpt.<n> that are not (a user's file or directory) are left alone (and named on stderr when
 * report). */
static cc_err own_checkpoints(const char *dir, bool report, int **found, size_t *n)
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
    if (!own_checkpoint(dir, e->d_name, NULL)) {
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
        it % every == 0 && !own_checkpoint(dir, e->d_name, NULL))
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
  CC_CALL(own_checkpoints(dir, true, &found, &count)); /* reported once, at create */
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
    cc_err err = read_latest(dir, name, sizeof name);
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
      if (!problem_differs(&m, &ck->meta, differs, sizeof differs, &unverified)) differs[0] = '\0';
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
          err = remove_checkpoint(dir, name);
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
    err = remove_checkpoint(dir, name);
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

/* ---- commit -----------------------------------------------------------------------------------
 */
static cc_err read_latest(const char *dir, char *name, size_t n)
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

static int newest_first(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x < y) - (x > y);
}

/* After a commit: the series' checkpoints older than the keep newest (the new one among them) go;
 * only cubecg's own of this problem, never one newer than the new checkpoint. */
static cc_err retention(const cc_io_checkpointer *ck)
{
  const char *dir = ck->params.dir;
  int *found      = NULL;
  size_t n        = 0;
  CC_CALL(own_checkpoints(dir, false, &found, &n));
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
    snprintf(name, sizeof name, "ckpt.%d", found[i]);
    io_manifest m;
    bool unverified = false, same = own_checkpoint(dir, name, &m);
    if (same) {
      same = !problem_differs(&m, &ck->meta, differs, sizeof differs, &unverified);
      io_manifest_free(&m);
    }
    if (same)
      err = remove_checkpoint(dir, name);
    else
      fprintf(stderr,
              "cubecg: warning: retention keeps %s/%s: not a checkpoint of this problem%s%s\n", dir,
              name, differs[0] ? ": " : "", differs);
  }
  cc_free(&found);
  CC_CALL(err);
  return CC_OK;
}

/* Rank 0: manifest, fsyncs, rename, latest, retention. Knows no backend: the files are those the
 * ranks' commits listed (side files included, written by the backend), the backend name the one
 * they were written as. */
static cc_err publish(cc_io_checkpointer *ck, const rank_file *files, const char *written_as)
{
  const char *dir = ck->params.dir;
  bool durable    = ck->params.durable;
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
  m.durable    = durable;
  m.n_vectors  = ck->n_vectors;
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
      f->rank = ck->ops->shared_file ? -1 : r;
      if (i == 0 && files[r].has_crc) {
        f->bytes  = files[r].bytes;
        f->crc32c = files[r].crc;
      } else {
        snprintf(path, sizeof path, "%s/%s", ck->tmp, f->file);
        err = cc_io_file_crc32c(path, &f->crc32c, &f->bytes);
      }
    }
  if (!err) {
    snprintf(path, sizeof path, "%s/manifest.json", ck->tmp);
    err = io_inject_commit_enospc(ck->checkpoint_number) /* test seam: the disk fills up here */
              ? cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                              "writing %s failed: %s (injected)", path, strerror(ENOSPC))
              : io_manifest_write(path, &m, durable);
  }
  cc_free(&m.files);
  CC_CALL(err);
  if (durable) CC_CALL(io_fsync_path(ck->tmp));           /* the files' directory entries */
  io_inject_kill_step("manifest", ck->checkpoint_number); /* test seam: complete, not renamed */

  char final[CC_IO_CKPT_DIR_MAX], latest[IO_NAME_MAX] = "";
  snprintf(final, sizeof final, "%s/ckpt.%d", dir, ck->iteration);
  struct stat st;
  if (stat(final, &st) == 0) { /* an older run's checkpoint of the same iteration (same problem) */
    snprintf(path, sizeof path, "%s/latest", dir);
    if (stat(path, &st) == 0) CC_CALL(read_latest(dir, latest, sizeof latest));
    if (!strcmp(latest, final + strlen(dir) + 1)) {
      /* it is latest: swap the two directories atomically, so that latest names a complete
       * checkpoint at every instant; the old one, now at the temporary name, goes */
      CC_CHECK(own_checkpoint(dir, final + strlen(dir) + 1, NULL), CC_ERR_IO,
               "%s exists and is not a cubecg checkpoint: refusing to replace it (move it away)",
               final);
      CC_CHECK(renameat2(AT_FDCWD, ck->tmp, AT_FDCWD, final, RENAME_EXCHANGE) == 0, CC_ERR_SYS,
               "renameat2(%s, %s, RENAME_EXCHANGE) to replace the latest checkpoint: %s", ck->tmp,
               final, strerror(errno));
      if (durable) CC_CALL(io_fsync_path(dir));
      CC_CALL(remove_checkpoint(dir, strrchr(ck->tmp, '/') + 1));
    } else {
      CC_CHECK(own_checkpoint(dir, final + strlen(dir) + 1, NULL), CC_ERR_IO,
               "%s exists and is not a cubecg checkpoint: refusing to replace it (move it away)",
               final);
      CC_CALL(remove_checkpoint(dir, final + strlen(dir) + 1)); /* not pointed to: safe first */
      CC_CHECK(lstat(final, &st) != 0, CC_ERR_IO,
               "%s holds files cubecg did not write: refusing to replace it (move them away)",
               final);
      CC_CHECK(rename(ck->tmp, final) == 0, CC_ERR_SYS, "rename(%s, %s): %s", ck->tmp, final,
               strerror(errno));
    }
  } else
    CC_CHECK(rename(ck->tmp, final) == 0, CC_ERR_SYS, "rename(%s, %s): %s", ck->tmp, final,
             strerror(errno));
  if (durable) CC_CALL(io_fsync_path(dir));

  /* test seam: killed here, the new checkpoint is complete under its name but latest still names
   * the previous one, which a restart takes */
  io_inject_kill_commit_point(ck->checkpoint_number);
  /* latest: write a temporary, make it durable, rename over the old pointer (atomic) */
  char tmp_latest[IO_PATH_MAX], new_latest[IO_PATH_MAX];
  snprintf(tmp_latest, sizeof tmp_latest, "%s/latest.tmp", dir);
  snprintf(new_latest, sizeof new_latest, "%s/latest", dir);
  FILE *f = fopen(tmp_latest, "w");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create %s: %s", tmp_latest, strerror(errno));
  int failed = fprintf(f, "ckpt.%d\n", ck->iteration) < 0 || fflush(f) != 0;
  if (!failed && durable) failed = fsync(fileno(f)) != 0;
  failed |= fclose(f) != 0;
  CC_CHECK(!failed, CC_ERR_IO, "writing %s failed: %s", tmp_latest, strerror(errno));
  CC_CHECK(rename(tmp_latest, new_latest) == 0, CC_ERR_SYS, "rename(%s, %s): %s", tmp_latest,
           new_latest, strerror(errno));
  if (durable) CC_CALL(io_fsync_path(dir));
  io_inject_kill_step("latest", ck->checkpoint_number); /* test seam: latest moved, no retention */
  CC_CALL(retention(ck)); /* only now that the new checkpoint is durable */
  return CC_OK;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* not MPI_Wtime: also read on the offload helper */
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The record of the checkpoint being written (appended by begin). */
static cc_io_checkpoint_record *current_record(cc_io_checkpointer *ck)
{
  return ck->n_records ? &ck->records[ck->n_records - 1] : NULL;
}

static cc_err add_record(cc_io_checkpointer *ck, int iteration)
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
static cc_err failed_error(cc_io_checkpointer *ck, cc_err err, const char *why)
{
  char latest[IO_NAME_MAX] = "none";
  if (ck->stats.last_iteration >= 0)
    snprintf(latest, sizeof latest, "ckpt.%d", ck->stats.last_iteration);
  CC_FAIL(err ? err : CC_ERR_IO,
          "checkpoint of iteration %d failed and was discarded; %s/%s remains the latest%s%s",
          ck->iteration, ck->params.dir, latest, why ? ": " : "", why ? why : "");
}

static void discard(cc_io_checkpointer *ck)
{
  MPI_Barrier(ck->layout.comm); /* every rank has closed its files */
  if (ck->rank == 0 && remove_temporary(ck->tmp)) {
    cc_error_print(stderr, 0); /* the checkpoint's own error is already on its way up */
  }
}

/* Synchronous backends: every rank has written and synced its file; agree, gather, publish. */
static cc_err complete(cc_io_checkpointer *ck)
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
    CC_CALL(failed_error(ck, err, NULL));
  }
  rank_file mine;
  memset(&mine, 0, sizeof mine);
  mine.bytes   = ck->info.bytes;
  mine.crc     = ck->info.crc32c;
  mine.has_crc = ck->info.has_crc;
  mine.n_files = ck->info.n_files;
  CC_CHECK(mine.n_files >= 0 && mine.n_files <= CC_IO_MAX_FILES, CC_ERR_IO,
           "backend %s listed %d files (at most %d)", ck->params.backend, mine.n_files,
           CC_IO_MAX_FILES);
  memcpy(mine.name, ck->info.name, sizeof mine.name);
  rank_file *all = NULL;
  if (ck->rank == 0) CC_CALL(cc_malloc((size_t)ck->size, sizeof *all, &all));
  CC_MPI(MPI_Gather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, 0, ck->layout.comm));
  int64_t total;
  CC_MPI(MPI_Allreduce(&ck->info.bytes, &total, 1, MPI_INT64_T, MPI_SUM, ck->layout.comm));
  double p0    = now_s();
  cc_err local = ck->rank == 0 ? publish(ck, all, ck->info.written_as) : CC_OK;
  double p1    = now_s();
  cc_free(&all);
  if (cc_agree(ck->layout.comm, local)) {
    if (ck->rank == 0 && remove_temporary(ck->tmp)) { /* if the rename did not happen */
    }
    CC_FAIL(local ? local : CC_ERR_IO, "committing checkpoint %d in %s failed", ck->iteration,
            ck->params.dir);
  }
  cc_io_checkpoint_record *rec = current_record(ck);
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

/* ---- offload: the commit without a stall
 * --------------------------------------------------------- Phase 1 (each rank's helper): write +
 * fsync the rank file. Phase 2 (main thread, non-blocking): MPI_Igather of every rank's outcome to
 * rank 0 on the checkpointer's own communicator. Phase 3 (rank 0's helper): manifest, fsyncs,
 * rename, latest, retention when every rank succeeded, else the temporary is removed; rank 0 then
 * MPI_Ibcasts the verdict. advance() moves through the phases as far as it can without blocking
 * (wait: to the end). */

/* Phase 3 on rank 0's helper thread: no MPI, nothing of ck changes meanwhile (the next checkpoint
 * waits for this one). */
static cc_err commit_task(void *arg)
{
  cc_io_checkpointer *ck = arg;
  double t0              = now_s();
  cc_err err =
      ck->failed_rank >= 0 ? remove_temporary(ck->tmp) : publish(ck, ck->all, ck->info.written_as);
  if (err && ck->failed_rank < 0 && remove_temporary(ck->tmp)) { /* if the rename did not happen */
  }
  ck->outcome.commit_s = now_s() - t0;
  return err;
}

/* Phase 1 is over on this rank: collect the helper's result into ck->mine (its error as text, the
 * local chain cleared: the verdict comes from rank 0 for every rank alike). */
static void collect_write(cc_io_checkpointer *ck)
{
  cc_err err = ck->pending_err;
  if (!err) err = ck->ops->commit(ck->ctx, &ck->info);
  if (ck->ctx) {
    cc_err cerr = ck->ops->close(ck->ctx);
    if (!err) err = cerr;
    ck->ctx = NULL;
  }
  rank_file *m = &ck->mine;
  memset(m, 0, sizeof *m);
  if (!err && (ck->info.n_files < 0 || ck->info.n_files > CC_IO_MAX_FILES))
    err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                        "backend %s listed %d files (at most %d)", ck->params.backend,
                        ck->info.n_files, CC_IO_MAX_FILES);
  m->err = err;
  if (err) {
    const char *inner = strstr(cc_error_message(), "(): ");
    snprintf(m->message, sizeof m->message, "%s", inner ? inner + 4 : cc_error_message());
    cc_error_clear();
  } else {
    m->bytes   = ck->info.bytes;
    m->crc     = ck->info.crc32c;
    m->has_crc = ck->info.has_crc;
    m->n_files = ck->info.n_files;
    memcpy(m->name, ck->info.name, sizeof m->name);
  }
  m->write_s                  = ck->info.write_s;
  current_record(ck)->write_s = ck->info.write_s;
  ck->pending_err             = CC_OK;
}

/* Test (or wait for) the posted request; *done says whether it completed. */
static cc_err request_done(cc_io_checkpointer *ck, bool wait, bool *done)
{
  int flag = 1;
  if (wait)
    CC_MPI(MPI_Wait(&ck->request, MPI_STATUS_IGNORE));
  else
    CC_MPI(MPI_Test(&ck->request, &flag, MPI_STATUS_IGNORE));
  *done = flag != 0;
  return CC_OK;
}

/* Rank 0, after the Igather: the verdict of phase 2, then phase 3 handed to the helper. */
static cc_err decide(cc_io_checkpointer *ck)
{
  memset(&ck->outcome, 0, sizeof ck->outcome);
  ck->failed_rank = -1;
  for (int r = 0; r < ck->size; r++) {
    ck->outcome.total += ck->all[r].bytes;
    if (ck->all[r].err && ck->failed_rank < 0) ck->failed_rank = r;
  }
  if (ck->failed_rank >= 0) {
    ck->outcome.err = ck->all[ck->failed_rank].err;
    snprintf(ck->outcome.message, sizeof ck->outcome.message, "rank %d: %s", ck->failed_rank,
             ck->all[ck->failed_rank].message);
  }
  CC_CALL(io_offload_task_submit(ck->resources, commit_task, ck));
  return CC_OK;
}

/* The verdict is known on this rank: statistics, or the failure kept for write/finish. */
static void conclude(cc_io_checkpointer *ck)
{
  cc_io_checkpoint_record *rec = current_record(ck);
  rec->commit_s                = ck->rank == 0 ? ck->outcome.commit_s : 0.0;
  ck->pending                  = false;
  ck->phase                    = PHASE_IDLE;
  if (ck->outcome.err) return; /* reported by the next write or finish (take_failure) */
  rec->committed = true;
  ck->stats.count++;
  ck->stats.write_s += ck->info.write_s;
  ck->stats.bytes += ck->info.bytes;
  ck->stats.bytes_all_ranks += ck->outcome.total;
  ck->stats.last_iteration = ck->iteration;
  snprintf(ck->stats.path_used, sizeof ck->stats.path_used, "%s", ck->info.path_used);
  snprintf(ck->stats.detail, sizeof ck->stats.detail, "%s", ck->info.detail);
}

/* Move the pending offloaded checkpoint on as far as possible; wait: until it is concluded. Main
 * thread; the MPI calls are on ck->comm only, in the same order on every rank. */
static cc_err advance(cc_io_checkpointer *ck, bool wait)
{
  bool done = true;
  if (ck->phase == PHASE_WRITING) {
    if (!wait && ck->ctx && ck->ops->ready && !ck->ops->ready(ck->ctx)) return CC_OK;
    collect_write(ck);
    CC_MPI(MPI_Igather(&ck->mine, sizeof ck->mine, MPI_BYTE, ck->all, sizeof ck->mine, MPI_BYTE, 0,
                       ck->comm, &ck->request));
    ck->phase = PHASE_AGREEING;
  }
  if (ck->phase == PHASE_AGREEING) {
    CC_CALL(request_done(ck, wait, &done));
    if (!done) return CC_OK;
    if (ck->rank == 0) CC_CALL(decide(ck));
    ck->phase = PHASE_COMMITTING;
  }
  if (ck->phase == PHASE_COMMITTING) {
    if (ck->rank == 0) {
      cc_err err                   = CC_OK;
      char message[IO_MESSAGE_MAX] = "";
      if (!io_offload_task_done(ck->resources, wait, &err, message, sizeof message)) return CC_OK;
      if (err && !ck->outcome.err) {
        ck->outcome.err = err;
        /* the helper's message cut to fit beside the prefix */
        snprintf(ck->outcome.message, sizeof ck->outcome.message, "committing it: %.*s",
                 (int)(sizeof ck->outcome.message - sizeof "committing it: "), message);
      } else if (err) /* the discard failed too: the temporary stays, the next run removes it */
        fprintf(stderr, "cubecg: warning: removing %s: %s\n", ck->tmp, message);
      ck->outcome.committed = !ck->outcome.err;
    }
    CC_MPI(MPI_Ibcast(&ck->outcome, sizeof ck->outcome, MPI_BYTE, 0, ck->comm, &ck->request));
    ck->phase = PHASE_OUTCOME;
  }
  if (ck->phase == PHASE_OUTCOME) {
    CC_CALL(request_done(ck, wait, &done));
    if (!done) return CC_OK;
    conclude(ck);
  }
  return CC_OK;
}

/* A concluded offloaded checkpoint that failed: its error, on every rank (agreed, so that the job
 * ends with MPI_Finalize); CC_OK when it committed. */
static cc_err take_failure(cc_io_checkpointer *ck)
{
  if (!ck->outcome.err) return CC_OK;
  cc_err err      = (cc_err)ck->outcome.err;
  ck->outcome.err = CC_OK;
  cc_err failed   = failed_error(ck, err, ck->outcome.message);
  CC_CALL(cc_agree(ck->layout.comm, failed)); /* the same verdict everywhere: marks it agreed */
  return CC_OK;
}

/* The pending offloaded checkpoint to its end (the next checkpoint or finish): the time waited is
 * its stall. */
static cc_err settle(cc_io_checkpointer *ck)
{
  if (ck->phase == PHASE_IDLE) return take_failure(ck);
  double t0                    = MPI_Wtime();
  cc_io_checkpoint_record *rec = current_record(ck);
  cc_err err                   = advance(ck, true);
  double waited                = MPI_Wtime() - t0;
  rec->wait_s += waited;
  rec->stall_s += waited;
  ck->stats.stall_s += waited;
  ck->stats.commit_s += waited;
  CC_CALL(err);
  CC_CALL(take_failure(ck));
  return CC_OK;
}

static cc_err begin(cc_io_checkpointer *ck, const cc_io_state *state)
{
  CC_CHECK(state->iteration >= 0 && state->n_vectors >= 0 && state->n_vectors <= CC_IO_MAX_VECTORS,
           CC_ERR_ARG, "checkpoint state: iteration %d, %d vectors", state->iteration,
           state->n_vectors);
  snprintf(ck->tmp, sizeof ck->tmp, "%s/ckpt.%d.tmp", ck->params.dir, state->iteration);
  CC_CALL(add_record(ck, state->iteration));
  if (!ck->ops->asynchronous) { /* offload: each rank's helper creates the directory */
    cc_err local = CC_OK;
    if (ck->rank == 0) {
      local = remove_temporary(ck->tmp);
      if (!local && mkdir(ck->tmp, 0755) != 0)
        local = cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__, "cannot create %s: %s",
                              ck->tmp, strerror(errno));
    }
    CC_CALL(cc_agree(ck->layout.comm, local));
  }
  ck->pending   = true;
  ck->iteration = state->iteration;
  ck->n_vectors = state->n_vectors;
  for (int v = 0; v < state->n_vectors; v++)
    snprintf(ck->vector_name[v], CC_IO_NAME_LEN, "%s", state->vector_name[v]);
  memset(&ck->info, 0, sizeof ck->info);
  /* failures are kept for complete() / the agreement: every rank must reach it */
  cc_err err = ck->ops->open(&ck->opt, &ck->layout, ck->tmp, CC_IO_WRITE, &ck->ctx);
  if (err) ck->ctx = NULL;
  if (!err) err = ck->ops->write_vectors(ck->ctx, state);
  if (!err && !ck->ops->asynchronous) err = ck->ops->commit(ck->ctx, &ck->info);
  ck->pending_err = err;
  if (ck->ops->asynchronous) ck->phase = PHASE_WRITING;
  return CC_OK;
}

cc_err cc_io_checkpointer_write(cc_io_checkpointer *ck, const cc_io_state *state)
{
  cc_err err = CC_OK;
  if (ck->ops->asynchronous) err = settle(ck); /* the previous checkpoint; its wait is its stall */
  double t0    = MPI_Wtime();
  int n_before = ck->n_records;
  if (!err) {
    io_inject_next_checkpoint();
    ck->checkpoint_number = io_inject_checkpoint_number();
    err                   = begin(ck, state);
  }
  if (!err && !ck->ops->asynchronous) err = complete(ck);
  double stalled = MPI_Wtime() - t0;
  ck->stats.stall_s += stalled;
  if (ck->n_records > n_before) current_record(ck)->stall_s += stalled; /* begin's record */
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_io_checkpointer_poll(cc_io_checkpointer *ck)
{
  if (!ck || ck->phase == PHASE_IDLE) return CC_OK;
  double t0                    = MPI_Wtime();
  cc_io_checkpoint_record *rec = current_record(ck);
  cc_err err                   = advance(ck, false);
  double spent                 = MPI_Wtime() - t0;
  rec->stall_s += spent;
  ck->stats.stall_s += spent;
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_io_checkpointer_finish(cc_io_checkpointer *ck)
{
  CC_CALL(io_resources_release_collective(ck->resources)); /* the gas store, collective */
  if (ck->ops->asynchronous) {            /* settle counts its wait as stall */
    CC_CALL(settle(ck));
    return CC_OK;
  }
  if (!ck->pending) return CC_OK;
  double t0  = MPI_Wtime();
  cc_err err = complete(ck);
  ck->stats.stall_s += MPI_Wtime() - t0;
  CC_CALL(err);
  return CC_OK;
}

void cc_io_checkpointer_stats(const cc_io_checkpointer *ck, cc_io_checkpoint_stats *stats)
{
  *stats = ck->stats;
}

void cc_io_checkpointer_records(const cc_io_checkpointer *ck, const cc_io_checkpoint_record **rec,
                                int *n)
{
  *rec = ck->records;
  *n   = ck->n_records;
}

void cc_io_checkpointer_destroy(cc_io_checkpointer **ckpt)
{
  cc_io_checkpointer *ck = *ckpt;
  if (!ck) return;
  if (ck->ctx) { /* abandoned: its temporary directory is removed by the next create */
    if (ck->ops->close(ck->ctx)) cc_error_clear();
  }
  /* an offloaded commit in phase 3 runs to its end on rank 0's helper (the checkpoint is complete
   * on every rank); requests of phase 2 still posted are abandoned with the communicator */
  io_resources_destroy(&ck->resources); /* this checkpointer's helper and ring only */
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (ck->comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&ck->comm);
  cc_free(&ck->all);
  cc_free(&ck->records);
  cc_free(ckpt);
}

/* ---- restart ----------------------------------------------------------------------------------
 */
static cc_err locate(const char *dir, char *cdir, size_t n, char **text)
{
  char path[IO_PATH_MAX], name[IO_NAME_MAX];
  struct stat st;
  snprintf(path, sizeof path, "%s/latest", dir);
  if (stat(path, &st) == 0) {
    CC_CALL(read_latest(dir, name, sizeof name));
    snprintf(cdir, n, "%s/%s", dir, name);
  } else {
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    CC_CHECK(stat(path, &st) == 0, CC_ERR_IO,
             "no checkpoint in %s: neither %s/latest nor %s/manifest.json exists", dir, dir, dir);
    snprintf(cdir, n, "%s", dir);
  }
  snprintf(path, sizeof path, "%s/manifest.json", cdir);
  CC_CALL(io_read_text(path, text, NULL));
  return CC_OK;
}

static cc_err check_manifest(const io_manifest *m, const char *cdir, const cc_io_layout *layout,
                             const cc_io_metadata *expect, int rank, int size,
                             const cc_io_backend_ops **ops, cc_io_options *opt)
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
  if (expect && problem_differs(m, expect, differs, sizeof differs, &unverified))
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
  CC_CHECK((*ops)->shared_file || m->n_files == m->ranks, CC_ERR_IO,
           "%s lists %d files for %d ranks", cdir, m->n_files, m->ranks);
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
  CC_CHECK(f != NULL, CC_ERR_IO, "%s/manifest.json lists no file of rank %d", cdir, rank);
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

static cc_err load(const io_manifest *m, const char *cdir, const cc_io_checkpoint_params *params,
                   const cc_io_layout *layout, const cc_io_metadata *expect, cc_io_state *state)
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
  CC_CALL(cc_agree(layout->comm, check_manifest(m, cdir, layout, expect, rank, size, &ops, &opt)));
  if (!ops->shared_file) {
    CC_CALL(cc_agree(layout->comm, load_per_rank(m, cdir, ops, &opt, layout, rank, state)));
    return CC_OK;
  }
  cc_err local = CC_OK;
  if (rank == 0) /* one shared file: rank 0 checks it whole before anyone reads */
    for (int i = 0; i < m->n_files && !local; i++) local = verify_file(cdir, &m->files[i], true);
  CC_CALL(cc_agree(layout->comm, local));
  void *ctx;
  cc_io_file_info info;
  CC_CALL(ops->open(&opt, layout, cdir, CC_IO_READ, &ctx)); /* collective, agreed inside */
  cc_err err  = ops->read_vectors(ctx, state, &info);
  cc_err cerr = ops->close(ctx);
  CC_CALL(err);
  CC_CALL(cerr);
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
  uint64_t length               = 0;
  cc_err local                  = CC_OK;
  if (rank == 0) {
    local = locate(dir, cdir, sizeof cdir, &text);
    if (!local) length = strlen(text);
  }
  CC_CALL(cc_agree(layout->comm, local));
  CC_MPI(MPI_Bcast(cdir, sizeof cdir, MPI_CHAR, 0, layout->comm));
  CC_MPI(MPI_Bcast(&length, 1, MPI_UINT64_T, 0, layout->comm));
  if (rank != 0) CC_CALL(cc_calloc(length + 1, 1, &text));
  CC_MPI(MPI_Bcast(text, (int)length, MPI_CHAR, 0, layout->comm));
  char path[IO_PATH_MAX];
  snprintf(path, sizeof path, "%s/manifest.json", cdir);
  io_manifest m;
  cc_err err = io_manifest_parse(text, path, &m); /* same text, same verdict everywhere */
  cc_free(&text);
  CC_CALL(cc_agree(layout->comm, err));
  err = load(&m, cdir, params, layout, expect, state);
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

cc_err cc_io_checkpoint_describe(const char *dir, MPI_Comm comm, cc_io_metadata *meta)
{
  memset(meta, 0, sizeof *meta);
  int rank;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  cc_err local = CC_OK;
  if (rank == 0) {
    char cdir[CC_IO_CKPT_DIR_MAX], path[IO_PATH_MAX];
    char *text = NULL;
    io_manifest m;
    local = locate(dir, cdir, sizeof cdir, &text);
    snprintf(path, sizeof path, "%s/manifest.json", cdir);
    if (!local) local = io_manifest_parse(text, path, &m);
    cc_free(&text);
    if (!local) {
      meta->nx = m.nx, meta->ny = m.ny, meta->nz = m.nz;
      snprintf(meta->partition, sizeof meta->partition, "%s", m.partition);
      snprintf(meta->solver, sizeof meta->solver, "%s", m.solver);
      snprintf(meta->ordering, sizeof meta->ordering, "%s", m.ordering);
      meta->has_problem = m.has_problem;
      meta->E = m.E, meta->nu = m.nu, meta->traction = m.traction;
      snprintf(meta->precond, sizeof meta->precond, "%s", m.precond);
      meta->colors     = m.colors;
      meta->asdd_iters = m.asdd_iters;
      io_manifest_free(&m);
    }
  }
  CC_CALL(cc_agree(comm, local));
  CC_MPI(MPI_Bcast(meta, sizeof *meta, MPI_BYTE, 0, comm));
  return CC_OK;
}
