/* ckpt_names.c: the one place that spells the names of a checkpoint directory (ckpt.<n>,
 * ckpt.<n>.tmp, latest, cubecg.lock, manifest.json, the backends' file names) and the content that
 * makes latest and the lock cubecg's own: a file under one of these names that holds anything else
 * is a user's, never read as cubecg's, replaced or removed. */
#include "ckpt_names.h"
#include "io_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

bool ckpt_name(char *out, size_t n, int iteration, bool temporary)
{
  int k = snprintf(out, n, "ckpt.%d%s", iteration, temporary ? ".tmp" : "");
  return k > 0 && (size_t)k < n;
}

const char *cc_io_checkpoint_name(int iteration, char *out, size_t n)
{
  if (n && !ckpt_name(out, n, iteration, false)) out[0] = '\0';
  return out;
}

bool ckpt_path(char *out, size_t n, const char *dir, int iteration, bool temporary)
{
  int k = snprintf(out, n, "%s/ckpt.%d%s", dir, iteration, temporary ? ".tmp" : "");
  return k > 0 && (size_t)k < n;
}

bool ckpt_join(char *out, size_t n, const char *dir, const char *name)
{
  int k = snprintf(out, n, "%s/%s", dir, name);
  return k > 0 && (size_t)k < n;
}

/* canonical: the name is exactly what ckpt_name writes for that iteration */
bool ckpt_name_parse(const char *name, int *iteration, bool *temporary)
{
  int it    = -1;
  char c[2] = "";
  if (strncmp(name, "ckpt.", 5) || sscanf(name + 5, "%d%1s", &it, c) < 1 || it < 0) return false;
  char canonical[IO_NAME_MAX];
  for (int tmp = 0; tmp < 2; tmp++)
    if (ckpt_name(canonical, sizeof canonical, it, tmp) && !strcmp(canonical, name)) {
      *iteration = it;
      *temporary = tmp;
      return true;
    }
  return false;
}

bool ckpt_file_name(const char *name)
{
  int n = -1, used = 0;
  if (!strcmp(name, CKPT_MANIFEST) || !strcmp(name, CKPT_HDF5_STATE) ||
      !strcmp(name, CKPT_HDF5_XDMF))
    return true;
  if (sscanf(name, "rank.%d.%n", &n, &used) == 1 && used > 0 && n >= 0 && name[used] &&
      !strchr(name + used, '/'))
    return true;
  used = 0;
  return sscanf(name, "gas.%d.pages%n", &n, &used) == 1 && used > 0 && n >= 0 && name[used] == '\0';
}

/* ---- latest ------------------------------------------------------------------------------------
 * One line "ckpt.<n>\n": what every cubecg version wrote, what `cat DIR/latest` shows a script. */

bool ckpt_latest_parse(const char *text, size_t len, int *iteration)
{
  char name[IO_NAME_MAX];
  bool tmp;
  if (len < 2 || len >= sizeof name || text[len - 1] != '\n') return false;
  memcpy(name, text, len - 1);
  name[len - 1] = '\0';
  return strlen(name) == len - 1 && ckpt_name_parse(name, iteration, &tmp) && !tmp;
}

/* The first bytes of the regular file dir/name (not followed through a symlink): *exists false
 * when there is none; CC_ERR_ARG when the name is something else (a directory, a symlink). */
static cc_err read_small(const char *dir, const char *name, char *text, size_t n, size_t *len,
                         bool *exists)
{
  char path[IO_PATH_MAX];
  CC_CHECK(ckpt_join(path, sizeof path, dir, name), CC_ERR_ARG, "path too long: %s/%s", dir, name);
  *len    = 0;
  *exists = false;
  int fd  = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) return CC_OK;
  *exists = true;
  struct stat st;
  CC_CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode),
           (fd >= 0 || errno == ELOOP) ? CC_ERR_ARG : CC_ERR_SYS,
           "%s is not a file cubecg wrote (%s): refusing to use or replace it; move it away or "
           "use another --checkpoint-dir",
           path, fd < 0 ? strerror(errno) : "not a regular file");
  ssize_t got = read(fd, text, n - 1);
  close(fd);
  CC_CHECK(got >= 0, CC_ERR_SYS, "cannot read %s: %s", path, strerror(errno));
  text[got] = '\0';
  *len      = (size_t)got;
  return CC_OK;
}

cc_err ckpt_latest_read(const char *dir, bool *exists, int *iteration)
{
  char text[IO_NAME_MAX];
  size_t len;
  CC_CALL(read_small(dir, CKPT_LATEST, text, sizeof text, &len, exists));
  if (!*exists) return CC_OK;
  CC_CHECK(ckpt_latest_parse(text, len, iteration), CC_ERR_ARG,
           "%s/" CKPT_LATEST " does not hold the one line ckpt.<n> cubecg writes: it is not "
           "cubecg's; refusing to use or replace it (move it away or use another "
           "--checkpoint-dir)",
           dir);
  return CC_OK;
}

cc_err ckpt_latest_write(const char *dir, int iteration, bool durable)
{
  char tmp[IO_PATH_MAX], latest[IO_PATH_MAX], name[IO_NAME_MAX];
  CC_CHECK(ckpt_join(tmp, sizeof tmp, dir, CKPT_LATEST_TMP) &&
               ckpt_join(latest, sizeof latest, dir, CKPT_LATEST),
           CC_ERR_ARG, "checkpoint directory too long: %s", dir);
  if (iteration < 0) {
    CC_CHECK(unlink(latest) == 0 || errno == ENOENT, CC_ERR_SYS, "cannot remove %s: %s", latest,
             strerror(errno));
  } else {
    CC_CHECK(ckpt_name(name, sizeof name, iteration, false), CC_ERR_ARG, "iteration %d", iteration);
    FILE *f = fopen(tmp, "w");
    CC_CHECK(f != NULL, CC_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    int failed = fprintf(f, "%s\n", name) < 0 || fflush(f) != 0;
    if (!failed && durable) failed = fsync(fileno(f)) != 0;
    failed |= fclose(f) != 0;
    CC_CHECK(!failed, CC_ERR_IO, "writing %s failed: %s", tmp, strerror(errno));
    /* atomic: a reader sees the old pointer or the new one, never a partial file */
    CC_CHECK(rename(tmp, latest) == 0, CC_ERR_SYS, "rename(%s, %s): %s", tmp, latest,
             strerror(errno));
  }
  if (durable) CC_CALL(io_fsync_path(dir));
  return CC_OK;
}

/* ---- the lock ------------------------------------------------------------------------------- */

int ckpt_lock_text(char *out, size_t n, const char *host, long pid)
{
  return snprintf(out, n, "cubecg lock: host %s pid %ld\n", host, pid);
}

bool ckpt_lock_parse(const char *text, size_t len, char *host, size_t n_host, long *pid)
{
  char h[128], again[256];
  long p;
  if (strlen(text) != len || sscanf(text, "cubecg lock: host %127s pid %ld", h, &p) != 2)
    return false;
  int k = ckpt_lock_text(again, sizeof again, h, p);
  if (k <= 0 || (size_t)k != len || memcmp(again, text, len)) return false; /* exactly ours */
  snprintf(host, n_host, "%s", h);
  *pid = p;
  return true;
}
