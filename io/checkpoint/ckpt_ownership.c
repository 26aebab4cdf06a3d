/* ckpt_ownership.c: what a checkpoint directory holds that is cubecg's own (committed checkpoints
 * with a readable manifest, temporaries of an interrupted run, the files cubecg's backends write)
 * and their removal; a user's files are never removed (docs/checkpoint-safety.md). */
#include "ckpt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Whether cubecg wrote the entry name of a checkpoint (or its temporary): a name its backends
 * write or a file manifest m lists (m may be NULL). */
static bool cubecg_file(const char *name, const io_manifest *m)
{
  bool listed = ckpt_file_name(name);
  for (int i = 0; m && !listed && i < m->n_files; i++) listed = !strcmp(m->files[i].file, name);
  return listed;
}

/* The manifest of checkpoint dir/name, read and parsed (io_manifest_free it). */
cc_err ckpt_read_manifest(const char *dir, const char *name, io_manifest *m)
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
  if (ckpt_read_manifest(dir, name, &local)) {
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
  DIR *d;
  CC_CALL(io_dir_open(path, &d));
  struct dirent *e;
  char child[IO_PATH_MAX];
  cc_err err = CC_OK;
  while (!err && (e = io_dir_next(d)) != NULL) {
    /* the manifest goes last: a removal killed half-way leaves a checkpoint still recognised as
     * cubecg's own (and removed by the next run), never an unknown directory */
    if (!strcmp(e->d_name, CKPT_MANIFEST)) continue;
    struct stat st;
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    if (!cubecg_file(e->d_name, m) || lstat(child, &st) != 0 || S_ISDIR(st.st_mode)) {
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
            "cubecg: warning: %s is not a cubecg checkpoint (no readable " CKPT_MANIFEST "): "
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

/* The committed checkpoints of dir that are cubecg's own (ckpt_own_checkpoint), as iterations;
 * entries named ckpt.<n> that are not (a user's file or directory) are left alone (and named on
 * stderr when report). */
cc_err ckpt_own_checkpoints(const char *dir, bool report, int **found, size_t *n)
{
  *found = NULL;
  *n     = 0;
  DIR *d;
  CC_CALL(io_dir_open(dir, &d));
  size_t capacity = 0;
  cc_err err      = CC_OK;
  struct dirent *e;
  int it;
  while (!err && (e = io_dir_next(d)) != NULL) { /* every entry, however many */
    if (!committed_name(e->d_name, &it)) continue;
    if (!ckpt_own_checkpoint(dir, e->d_name, NULL)) {
      if (report)
        fprintf(stderr,
                "cubecg: warning: %s/%s is named like a checkpoint but is not one of cubecg's (no "
                "readable " CKPT_MANIFEST "): left as it is\n",
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
void ckpt_foreign_entry(const char *path, const io_manifest *m, char *name, size_t n)
{
  name[0] = '\0';
  DIR *d  = opendir(path);
  if (!d) return;
  struct dirent *e;
  char child[IO_PATH_MAX];
  while (!name[0] && (e = io_dir_next(d)) != NULL) {
    struct stat st;
    if (!cubecg_file(e->d_name, m) || !ckpt_join(child, sizeof child, path, e->d_name) ||
        lstat(child, &st) != 0 || !S_ISREG(st.st_mode))
      snprintf(name, n, "%.100s", e->d_name);
  }
  closedir(d);
}
