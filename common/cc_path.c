/* cc_path.c: the parent directory of a path, in place (output paths are checked against their
 * directory before any large allocation; the gas store measures free space where its files go). */
#include "cc_common.h"

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
