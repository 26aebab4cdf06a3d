/* cc_trace_dir.c: what a --trace directory may be (missing, empty, or cubecg's own: it holds the
 * marker file), and its claim when a trace opens: the marker written first, then the archive a
 * previous trace left removed (only the names OTF2 writes), as checkpoint directories keep a
 * user's files (io/checkpoint/ckpt_ownership.c).
 */
#include "cc_trace.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files OTF2 writes in DIR/traces/: <location>.evt and <location>.def. */
static bool location_file(const char *name)
{
  unsigned long n = 0;
  int used        = 0;
  return sscanf(name, "%lu.%n", &n, &used) == 1 && used > 0 &&
         (!strcmp(name + used, "evt") || !strcmp(name + used, "def"));
}

/* The first entry of directory path that keep (NULL: nothing) does not accept, "" when none. */
static cc_err first_foreign(const char *path, bool (*keep)(const char *), char *first, size_t n)
{
  first[0] = '\0';
  DIR *d   = opendir(path);
  CC_CHECK(d != NULL, CC_ERR_ARG, "--trace %s: cannot open it: %s", path, strerror(errno));
  struct dirent *e;
  while ((e = readdir(d)) != NULL && !first[0])
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!keep || !keep(e->d_name)))
      snprintf(first, n, "%.100s", e->d_name);
  closedir(d);
  return CC_OK;
}

cc_err cc_trace_check_dir(const char *dir)
{
  CC_CHECK(cc_trace_available, CC_ERR_ARG, "--trace %s: this build has no OTF2 tracing (%s)", dir,
           cc_trace_library);
  CC_CHECK(dir[0] && strlen(dir) + sizeof "/traces/4294967295.evt" < PATH_MAX, CC_ERR_ARG,
           "--trace '%.80s': empty or too long for the archive's names", dir);
  struct stat st;
  if (lstat(dir, &st) != 0) { /* created when the trace opens (mkdir -p) */
    CC_CHECK(errno == ENOENT, CC_ERR_ARG, "--trace %s: %s", dir, strerror(errno));
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    int rc;
    do { /* "." and "/" exist: the loop ends */
      cc_path_to_parent(parent, sizeof parent);
      rc = stat(parent, &st);
    } while (rc != 0 && errno == ENOENT);
    CC_CHECK(rc == 0 && S_ISDIR(st.st_mode) && access(parent, W_OK | X_OK) == 0, CC_ERR_ARG,
             "--trace %s: %s is not a writable directory", dir, parent);
    return CC_OK;
  }
  CC_CHECK(S_ISDIR(st.st_mode), CC_ERR_ARG, "--trace %s: exists and is not a directory", dir);
  char path[PATH_MAX], first[128];
  snprintf(path, sizeof path, "%s/%s", dir, CC_TRACE_MARKER);
  if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) return CC_OK; /* cubecg's own */
  CC_CALL(first_foreign(dir, NULL, first, sizeof first)); /* another's files, or another's OTF2 */
  CC_CHECK(!first[0], CC_ERR_ARG,
           "--trace %s: not a cubecg trace directory (no %s; it holds %s): move it away or name "
           "another",
           dir, CC_TRACE_MARKER, first);
  CC_CHECK(access(dir, W_OK | X_OK) == 0, CC_ERR_ARG, "--trace %s: not writable", dir);
  return CC_OK;
}

/* Remove dir/traces/ (its per-location files only: anything else is refused) and the two files. */
static cc_err remove_archive(const char *dir)
{
  char path[PATH_MAX], file[PATH_MAX + NAME_MAX + 2], first[128];
  snprintf(path, sizeof path, "%s/traces", dir);
  struct stat st;
  if (lstat(path, &st) == 0) {
    CC_CHECK(S_ISDIR(st.st_mode), CC_ERR_ARG, "--trace %s: %s is not OTF2's directory", dir, path);
    CC_CALL(first_foreign(path, location_file, first, sizeof first));
    CC_CHECK(!first[0], CC_ERR_ARG,
             "--trace %s: %s holds %s, which OTF2 did not write: move it away", dir, path, first);
    DIR *d = opendir(path);
    CC_CHECK(d != NULL, CC_ERR_SYS, "cannot open %s: %s", path, strerror(errno));
    struct dirent *e;
    cc_err err = CC_OK;
    while (!err && (e = readdir(d)) != NULL) {
      if (!location_file(e->d_name)) continue;
      snprintf(file, sizeof file, "%s/%s", path, e->d_name);
      if (unlink(file) != 0)
        err = cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__, "cannot remove %s: %s", file,
                            strerror(errno));
    }
    closedir(d);
    CC_CALL(err);
    CC_CHECK(rmdir(path) == 0, CC_ERR_SYS, "cannot remove %s: %s", path, strerror(errno));
  }
  const char *files[] = {"traces.otf2", "traces.def"};
  for (int i = 0; i < 2; i++) {
    snprintf(file, sizeof file, "%s/%s", dir, files[i]);
    CC_CHECK(unlink(file) == 0 || errno == ENOENT, CC_ERR_SYS, "cannot remove %s: %s", file,
             strerror(errno));
  }
  return CC_OK;
}

cc_err cc_trace_claim_dir(const char *dir)
{
  CC_CALL(cc_trace_check_dir(dir)); /* again: the directory may have changed since the options */
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s", dir);
  /* mkdir -p: each missing ancestor, then dir */
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    CC_CHECK(mkdir(path, 0777) == 0 || errno == EEXIST, CC_ERR_ARG,
             "--trace %s: cannot create %s: %s", dir, path, strerror(errno));
    *p = '/';
  }
  CC_CHECK(mkdir(path, 0777) == 0 || errno == EEXIST, CC_ERR_ARG,
           "--trace %s: cannot create it: %s", dir, strerror(errno));
  snprintf(path, sizeof path, "%s/%s", dir, CC_TRACE_MARKER);
  FILE *f = fopen(path, "w");
  CC_CHECK(f != NULL, CC_ERR_SYS, "cannot write %s: %s", path, strerror(errno));
  fprintf(f,
          "cubecg %s trace directory: traces.otf2 is an OTF2 archive (otf2-print, python3-otf2; "
          "docs/user-guide.md). cubecg replaces the archive here at its next --trace.\n",
          CC_VERSION);
  CC_CHECK(fclose(f) == 0, CC_ERR_SYS, "cannot write %s: %s", path, strerror(errno));
  CC_CALL(remove_archive(dir));
  return CC_OK;
}
