/* io_manifest.c: the checkpoint manifest (manifest.json): what was written, by how many ranks, and
 * the size and CRC32C of every file. Written with the shared JSON writer; read back by key lookup
 * (the format is cubecg's own: keys are unique, one value per line). */
#include "io_internal.h"

#include <stdlib.h>
#include <unistd.h>

cc_err io_manifest_write(const char *path, const io_manifest *m, bool durable)
{
  FILE *f = fopen(path, "w");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create %s: %s", path, strerror(errno));
  cc_json js = {.out = f};
  cc_json_begin_object(&js, NULL);
  cc_json_int(&js, "cubecg_checkpoint_version", m->version);
  cc_json_string(&js, "kind", "checkpoint");
  cc_json_string(&js, "cubecg_version", CC_VERSION);
  cc_json_string(&js, "backend", m->backend);
  cc_json_int(&js, "iteration", m->iteration);
  cc_json_string(&js, "solver", m->solver);
  cc_json_begin_object(&js, "mesh");
  cc_json_int(&js, "nx", m->nx);
  cc_json_int(&js, "ny", m->ny);
  cc_json_int(&js, "nz", m->nz);
  cc_json_end_object(&js);
  cc_json_int(&js, "n_global_nodes", m->n_global_nodes);
  cc_json_int(&js, "values_per_node", m->values_per_node);
  cc_json_int(&js, "ranks", m->ranks);
  cc_json_string(&js, "partition", m->partition);
  cc_json_string(&js, "ordering", m->ordering);
  cc_json_bool(&js, "durable", m->durable);
  cc_json_string(&js, "checksum", "crc32c");
  cc_json_begin_array(&js, "vectors");
  for (int v = 0; v < m->n_vectors; v++) cc_json_string(&js, NULL, m->vector_name[v]);
  cc_json_end_array(&js);
  cc_json_begin_array(&js, "files");
  for (int i = 0; i < m->n_files; i++) {
    char crc[16];
    snprintf(crc, sizeof crc, "%08x", m->files[i].crc32c);
    cc_json_begin_object(&js, NULL);
    cc_json_string(&js, "file", m->files[i].file);
    cc_json_int(&js, "rank", m->files[i].rank);
    cc_json_int(&js, "bytes", m->files[i].bytes);
    cc_json_string(&js, "crc32c", crc);
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  cc_json_end_object(&js);
  int failed = fflush(f) != 0 || ferror(f);
  if (!failed && durable) failed = fsync(fileno(f)) != 0;
  int saved = errno;
  failed |= fclose(f) != 0;
  CC_CHECK(!failed, CC_ERR_IO, "writing %s failed: %s", path, strerror(saved));
  return CC_OK;
}

/* The value text after "key": at or after from; NULL if absent. */
static const char *find_value(const char *from, const char *key)
{
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *p = strstr(from, pattern);
  if (!p) return NULL;
  p += strlen(pattern);
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

static cc_err get_int(const char *from, const char *key, const char *path, int64_t *value)
{
  const char *p = find_value(from, key);
  CC_CHECK(p != NULL, CC_ERR_IO, "%s: key \"%s\" missing (corrupt manifest?)", path, key);
  char *end;
  errno       = 0;
  long long v = strtoll(p, &end, 10);
  CC_CHECK(end != p && errno == 0, CC_ERR_IO, "%s: \"%s\" is not an integer", path, key);
  *value = v;
  return CC_OK;
}

static cc_err get_string(const char *from, const char *key, const char *path, char *out, size_t n)
{
  const char *p = find_value(from, key);
  CC_CHECK(p != NULL && *p == '"', CC_ERR_IO, "%s: string \"%s\" missing (corrupt manifest?)", path,
           key);
  const char *end = strchr(p + 1, '"');
  CC_CHECK(end != NULL && (size_t)(end - p - 1) < n, CC_ERR_IO, "%s: bad value of \"%s\"", path,
           key);
  memcpy(out, p + 1, (size_t)(end - p - 1));
  out[end - p - 1] = '\0';
  return CC_OK;
}

static cc_err parse(const char *text, const char *path, io_manifest *m)
{
  int64_t v;
  CC_CALL(get_int(text, "cubecg_checkpoint_version", path, &v));
  m->version = (int)v;
  CC_CHECK(m->version == CC_IO_MANIFEST_VERSION, CC_ERR_IO,
           "%s: manifest version %d, this cubecg reads version %d", path, m->version,
           CC_IO_MANIFEST_VERSION);
  CC_CALL(get_string(text, "backend", path, m->backend, sizeof m->backend));
  CC_CALL(get_int(text, "iteration", path, &v));
  m->iteration = (int)v;
  CC_CALL(get_string(text, "solver", path, m->solver, sizeof m->solver));
  CC_CALL(get_int(text, "nx", path, &v));
  m->nx = (int)v;
  CC_CALL(get_int(text, "ny", path, &v));
  m->ny = (int)v;
  CC_CALL(get_int(text, "nz", path, &v));
  m->nz = (int)v;
  CC_CALL(get_int(text, "n_global_nodes", path, &m->n_global_nodes));
  CC_CALL(get_int(text, "values_per_node", path, &v));
  m->values_per_node = (int)v;
  CC_CALL(get_int(text, "ranks", path, &v));
  m->ranks = (int)v;
  CC_CALL(get_string(text, "partition", path, m->partition, sizeof m->partition));
  CC_CALL(get_string(text, "ordering", path, m->ordering, sizeof m->ordering));
  const char *d = find_value(text, "durable");
  m->durable    = d && !strncmp(d, "true", 4);

  const char *files = find_value(text, "files");
  CC_CHECK(files != NULL, CC_ERR_IO, "%s: \"files\" missing", path);
  int count = 0;
  for (const char *p = files; (p = find_value(p, "file")) != NULL; p++) count++;
  CC_CHECK(count > 0, CC_ERR_IO, "%s lists no files", path);
  CC_CALL(cc_calloc((size_t)count, sizeof *m->files, &m->files));
  m->n_files    = count;
  const char *p = files;
  for (int i = 0; i < count; i++) {
    p = strstr(p, "\"file\":"); /* this entry's keys follow it, before the next entry's */
    io_manifest_file *f = &m->files[i];
    CC_CALL(get_string(p, "file", path, f->file, sizeof f->file));
    CC_CHECK(!strchr(f->file, '/') && strcmp(f->file, "..") && f->file[0], CC_ERR_IO,
             "%s: bad file name '%s'", path, f->file);
    CC_CALL(get_int(p, "rank", path, &v));
    f->rank = (int)v;
    CC_CALL(get_int(p, "bytes", path, &f->bytes));
    char crc[16];
    CC_CALL(get_string(p, "crc32c", path, crc, sizeof crc));
    char *end;
    f->crc32c = (uint32_t)strtoul(crc, &end, 16);
    CC_CHECK(*end == '\0' && strlen(crc) == 8, CC_ERR_IO, "%s: bad crc32c '%s'", path, crc);
    p++;
  }
  return CC_OK;
}

cc_err io_manifest_parse(const char *text, const char *path, io_manifest *m)
{
  memset(m, 0, sizeof *m);
  cc_err err = parse(text, path, m);
  if (err) io_manifest_free(m);
  CC_CALL(err);
  return CC_OK;
}

void io_manifest_free(io_manifest *m)
{
  cc_free(&m->files);
  m->n_files = 0;
}
