/* io_fs.c: file-system helpers of the checkpoint protocol (fsync of files and directories, as the
 * rename-based atomic commit needs: see Pillai et al., OSDI 2014 "All file systems are not created
 * equal") and the fault-injection test seam (the spec given to cc_io_set_inject). */
#include "io_internal.h"

#include <stdatomic.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

cc_err io_fsync_path(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  CC_CHECK(fd >= 0, CC_ERR_SYS, "cannot open %s for fsync: %s", path, strerror(errno));
  int rc = fsync(fd), saved = errno;
  close(fd);
  CC_CHECK(rc == 0, CC_ERR_SYS, "fsync(%s): %s", path, strerror(saved));
  return CC_OK;
}

cc_err io_mkdir_p(const char *path)
{
  char buf[IO_PATH_MAX];
  size_t n = strlen(path);
  CC_CHECK(n > 0 && n < sizeof buf, CC_ERR_ARG, "bad directory name '%s'", path);
  memcpy(buf, path, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (buf[i] != '/' && buf[i] != '\0') continue;
    char saved = buf[i];
    buf[i]     = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      CC_FAIL(CC_ERR_SYS, "cannot create directory %s: %s", buf, strerror(errno));
    buf[i] = saved;
  }
  struct stat st;
  CC_CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), CC_ERR_SYS, "%s is not a directory", path);
  return CC_OK;
}

cc_err io_remove_tree(const char *path)
{
  struct stat st;
  if (lstat(path, &st) != 0) return CC_OK; /* already gone */
  if (!S_ISDIR(st.st_mode)) {
    CC_CHECK(unlink(path) == 0, CC_ERR_SYS, "cannot remove %s: %s", path, strerror(errno));
    return CC_OK;
  }
  DIR *d = opendir(path);
  CC_CHECK(d != NULL, CC_ERR_SYS, "cannot open directory %s: %s", path, strerror(errno));
  struct dirent *e;
  char child[IO_PATH_MAX];
  cc_err err = CC_OK;
  while (!err && (e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    err = io_remove_tree(child);
  }
  closedir(d);
  CC_CALL(err);
  CC_CHECK(rmdir(path) == 0, CC_ERR_SYS, "cannot remove directory %s: %s", path, strerror(errno));
  return CC_OK;
}

cc_err io_read_text(const char *path, char **text, size_t *n)
{
  *text   = NULL;
  FILE *f = fopen(path, "rb");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || st.st_size > (1 << 26)) {
    fclose(f);
    CC_FAIL(CC_ERR_IO, "%s: cannot stat or larger than 64 MiB", path);
  }
  char *buf;
  cc_err err = cc_malloc((size_t)st.st_size + 1, 1, &buf);
  if (err) fclose(f);
  CC_CALL(err);
  size_t got = fread(buf, 1, (size_t)st.st_size, f);
  fclose(f);
  if (got != (size_t)st.st_size) {
    cc_free(&buf);
    CC_FAIL(CC_ERR_IO, "%s: read %zu of %lld bytes", path, got, (long long)st.st_size);
  }
  buf[got] = '\0';
  *text    = buf;
  if (n) *n = got;
  return CC_OK;
}

/* ---- test seam ---------------------------------------------------------------------------- */
static int inject_checkpoint_number; /* checkpoints written by this process so far */
/* the fault-injection spec the caller handed over (cc_io_set_inject); io/ reads no environment */
static const char *_Atomic inject_spec;

void cc_io_set_inject(const char *spec)
{
  inject_spec = spec && *spec ? spec : NULL;
}

bool cc_io_inject(const char *what)
{
  const char *env = inject_spec;
  if (!env || !*env) return false;
  size_t len = strlen(what);
  for (const char *p = env; *p;) {
    const char *end = strchr(p, ',');
    size_t n        = end ? (size_t)(end - p) : strlen(p);
    if (n >= len && !strncmp(p, what, len) && (n == len || p[len] == ':')) return true;
    p += n + (end ? 1 : 0);
  }
  return false;
}

/* enospc-after: bytes of the current checkpoint written by this process (the offload helper adds
 * to it too); enospc-rank compares with the MPI_COMM_WORLD rank noted on the main thread */
static _Atomic int64_t inject_checkpoint_bytes;
static int inject_world_rank = -1;

void io_inject_note_rank(void)
{
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized && MPI_Comm_rank(MPI_COMM_WORLD, &inject_world_rank) != MPI_SUCCESS)
    inject_world_rank = -1;
}

void io_inject_next_checkpoint(void)
{
  inject_checkpoint_number++;
  inject_checkpoint_bytes = 0;
  io_inject_note_rank();
}

/* "KEY=VALUE" in the spec: the value text (up to ',' or the end), NULL if absent */
static const char *inject_value(const char *key)
{
  const char *env = inject_spec;
  if (!env) return NULL;
  size_t len = strlen(key);
  for (const char *p = env; *p;) {
    const char *end = strchr(p, ',');
    size_t n        = end ? (size_t)(end - p) : strlen(p);
    if (n > len && !strncmp(p, key, len) && p[len] == '=') return p + len + 1;
    p += n + (end ? 1 : 0);
  }
  return NULL;
}

bool io_inject_enospc(size_t n)
{
  const char *after = inject_value("enospc-after");
  if (!after) return false;
  const char *rank = inject_value("enospc-rank");
  if (rank && atoi(rank) != inject_world_rank) return false;
  long long limit = strtoll(after, NULL, 10);
  int64_t before  = atomic_fetch_add(&inject_checkpoint_bytes, (int64_t)n);
  return before + (int64_t)n > limit;
}

static bool inject_at(const char *what, int checkpoint_number);

void io_inject_kill_point(void)
{
  /* outside a checkpoint (benchmark, direct backend use) counts as the first */
  int current = inject_checkpoint_number > 0 ? inject_checkpoint_number : 1;
  if (!inject_at("kill-during-write", current)) return;
  fprintf(stderr, "cubecg: CUBECG_IO_INJECT=kill-during-write: raising SIGKILL (checkpoint %d)\n",
          current);
  fflush(stderr);
  raise(SIGKILL);
}

int io_inject_checkpoint_number(void)
{
  return inject_checkpoint_number;
}

/* "WHAT[:N]" in the spec and checkpoint_number is N (default 1) */
static bool inject_at(const char *what, int checkpoint_number)
{
  if (!cc_io_inject(what)) return false;
  const char *env = strstr(inject_spec, what);
  int nth         = 1;
  if (env[strlen(what)] == ':') nth = atoi(env + strlen(what) + 1);
  return checkpoint_number == nth;
}

bool io_inject_commit_enospc(int checkpoint_number)
{
  return inject_at("enospc-in-commit", checkpoint_number);
}

void io_inject_kill_commit_point(int checkpoint_number)
{
  if (!inject_at("kill-during-commit", checkpoint_number)) return;
  fprintf(stderr, "cubecg: CUBECG_IO_INJECT=kill-during-commit: raising SIGKILL (checkpoint %d)\n",
          checkpoint_number);
  fflush(stderr);
  raise(SIGKILL);
}

/* "kill-at-STEP[:N]": checkpoint N (default 1) of this process; checkpoint_number 0 (retention,
 * which runs inside the commit of the checkpoint being numbered) takes the current number. */
void io_inject_kill_step(const char *step, int checkpoint_number)
{
  char what[48];
  snprintf(what, sizeof what, "kill-at-%s", step);
  if (!inject_at(what, checkpoint_number ? checkpoint_number : inject_checkpoint_number)) return;
  fprintf(stderr, "cubecg: CUBECG_IO_INJECT=%s: raising SIGKILL (checkpoint %d)\n", what,
          checkpoint_number ? checkpoint_number : inject_checkpoint_number);
  fflush(stderr);
  raise(SIGKILL);
}
