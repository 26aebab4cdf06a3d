/* cc_path.c: the parent directory of a path, in place (output paths are checked against their
 * directory before any large allocation; the gas store measures free space where its files go),
 * and the check of an output file that the benchmarks run before their work. */
#include "cc_common.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

void cc_path_to_parent(char *path, size_t size)
{
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/') path[--n] = '\0'; /* trailing slashes */
  char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(path, size, "."); /* a name in the working directory */
  else if (slash == path)
    path[1] = '\0'; /* "/name": the root */
  else
    *slash = '\0';
}

cc_err cc_check_output_file(const char *option, const char *path, size_t longest_suffix)
{
  CC_CHECK(path[0] != '\0', CC_ERR_ARG, "--%s: empty path", option);
  const char *slash = strrchr(path, '/');
  const char *base  = slash ? slash + 1 : path;
  CC_CHECK(strlen(path) + longest_suffix < PATH_MAX && strlen(base) + longest_suffix <= NAME_MAX,
           CC_ERR_ARG,
           "--%s %.80s...: too long (with its temporary name it must fit %d characters "
           "a name)",
           option, path, NAME_MAX - (int)longest_suffix);
  struct stat st;
  if (stat(path, &st) == 0) {
    CC_CHECK(!S_ISDIR(st.st_mode), CC_ERR_ARG, "--%s %s: is a directory", option, path);
    CC_CHECK(access(path, W_OK) == 0, CC_ERR_ARG, "--%s %s: not writable: %s", option, path,
             strerror(errno));
  }
  return cc_check_output_dir(option, path);
}

cc_err cc_check_output_dir(const char *option, const char *path)
{
  char dir[PATH_MAX];
  struct stat st;
  snprintf(dir, sizeof dir, "%s", path);
  cc_path_to_parent(dir, sizeof dir);
  CC_CHECK(stat(dir, &st) == 0, CC_ERR_ARG, "--%s %s: directory %s: %s", option, path, dir,
           strerror(errno));
  CC_CHECK(S_ISDIR(st.st_mode), CC_ERR_ARG, "--%s %s: %s is not a directory", option, path, dir);
  CC_CHECK(access(dir, W_OK | X_OK) == 0, CC_ERR_ARG, "--%s %s: directory %s is not writable",
           option, path, dir);
  return CC_OK;
}
