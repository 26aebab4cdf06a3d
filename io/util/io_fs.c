/* io_fs.c: file-system helpers of the checkpoint protocol (fsync of files and directories, as the
 * rename-based atomic commit needs: see Pillai et al., OSDI 2014 "All file systems are not created
 * equal"), directory walks, and whole-file reads. The fault-injection seam is in io_inject.c. */
#include "io_internal.h"

#include <fcntl.h>
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

cc_err io_dir_open(const char *path, DIR **d)
{
  *d = opendir(path);
  CC_CHECK(*d != NULL, CC_ERR_SYS, "cannot open directory %s: %s", path, strerror(errno));
  return CC_OK;
}

struct dirent *io_dir_next(DIR *d)
{
  struct dirent *e;
  while ((e = readdir(d)) != NULL && (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")))
    continue;
  return e;
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
