/* ckpt_manifest.c: the checkpoint manifest (manifest.json): what was written, by how many ranks,
 * the parameters of the system, and the size and CRC32C of every file. Written and read with cJSON
 * (Debian's libcjson): any formatting parses, unknown keys are tolerated, a missing or mistyped
 * required key is refused naming the key and the file. */
#include "io_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

/* cJSON allocation failures (NULL) become one error, checked once at the end of building */
static cJSON *add_string(cJSON *o, const char *key, const char *value, bool *ok)
{
  cJSON *item = cJSON_AddStringToObject(o, key, value);
  *ok &= item != NULL;
  return item;
}

/* Numbers are written as raw text, not with cJSON_AddNumber: cJSON 1.7.15 prints a double with
 * %.15g whenever that reads back within a relative DBL_EPSILON, which loses the last bit (0.1 + 0.2
 * came back as 0.3). %.17g reads back bitwise; integers are printed exactly. */
static void add_raw(cJSON *o, const char *key, const char *text, bool *ok)
{
  *ok &= cJSON_AddRawToObject(o, key, text) != NULL;
}

static void add_number(cJSON *o, const char *key, int64_t value, bool *ok)
{
  char text[32];
  snprintf(text, sizeof text, "%lld", (long long)value);
  add_raw(o, key, text, ok);
}

static void add_double(cJSON *o, const char *key, double value, bool *ok)
{
  char text[40];
  snprintf(text, sizeof text, "%.17g", value);
  *ok &= isfinite(value); /* JSON has no inf / nan; the driver's options are finite */
  add_raw(o, key, text, ok);
}

/* The run's settings, "option=value" lines, as the object "settings": {"option": "value", ...}
 * (strings: each value reads back as the option parser reads it, doubles with all their bits). */
static void add_settings(cJSON *top, const char *text, bool *ok)
{
  if (!text[0]) return;
  cJSON *settings = cJSON_AddObjectToObject(top, "settings");
  *ok &= settings != NULL;
  for (const char *line = text; settings && *line;) {
    const char *end    = strchr(line, '\n');
    const char *equals = memchr(line, '=', end ? (size_t)(end - line) : strlen(line));
    size_t length      = end ? (size_t)(end - line) : strlen(line);
    char key[64], value[CC_IO_SETTINGS_MAX];
    if (equals && (size_t)(equals - line) < sizeof key) {
      snprintf(key, sizeof key, "%.*s", (int)(equals - line), line);
      snprintf(value, sizeof value, "%.*s", (int)(length - (size_t)(equals - line) - 1),
               equals + 1);
      add_string(settings, key, value, ok);
    } else
      *ok = false; /* the driver's text is always option=value */
    line += length + (end ? 1 : 0);
  }
}

cc_err io_manifest_write(const char *path, const io_manifest *m, bool durable)
{
  bool ok    = true;
  cJSON *top = cJSON_CreateObject();
  CC_CHECK(top != NULL, CC_ERR_MEM, "cannot build manifest %s: out of memory", path);
  add_number(top, "cubecg_checkpoint_version", m->version, &ok);
  add_string(top, "kind", "checkpoint", &ok);
  add_string(top, "cubecg_version", CC_VERSION, &ok);
  add_string(top, "backend", m->backend, &ok);
  add_number(top, "iteration", m->iteration, &ok);
  add_string(top, "solver", m->solver, &ok);
  cJSON *mesh = cJSON_AddObjectToObject(top, "mesh");
  ok &= mesh != NULL;
  if (mesh) {
    add_number(mesh, "nx", m->nx, &ok);
    add_number(mesh, "ny", m->ny, &ok);
    add_number(mesh, "nz", m->nz, &ok);
  }
  add_number(top, "n_global_nodes", m->n_global_nodes, &ok);
  add_number(top, "values_per_node", m->values_per_node, &ok);
  add_number(top, "ranks", m->ranks, &ok);
  add_string(top, "partition", m->partition, &ok);
  add_string(top, "ordering", m->ordering, &ok);
  if (m->has_problem) { /* cJSON prints doubles so that they read back bitwise equal */
    cJSON *pb = cJSON_AddObjectToObject(top, "problem");
    ok &= pb != NULL;
    if (pb) {
      add_double(pb, "E", m->E, &ok);
      add_double(pb, "nu", m->nu, &ok);
      add_double(pb, "traction", m->traction, &ok);
      add_string(pb, "precond", m->precond, &ok);
      add_number(pb, "colors", m->colors, &ok);
      add_number(pb, "asdd_iterations", m->asdd_iters, &ok);
      if (m->asdd_residual[0]) add_string(pb, "asdd_residual", m->asdd_residual, &ok);
    }
  }
  add_settings(top, m->settings, &ok);
  ok &= cJSON_AddBoolToObject(top, "durable", m->durable) != NULL;
  add_string(top, "checksum", "crc32c", &ok);
  cJSON *vectors = cJSON_AddArrayToObject(top, "vectors");
  ok &= vectors != NULL;
  for (int v = 0; vectors && v < m->n_vectors; v++) {
    cJSON *name = cJSON_CreateString(m->vector_name[v]);
    ok &= name != NULL && cJSON_AddItemToArray(vectors, name);
  }
  cJSON *files = cJSON_AddArrayToObject(top, "files");
  ok &= files != NULL;
  for (int i = 0; files && i < m->n_files; i++) {
    char crc[16];
    snprintf(crc, sizeof crc, "%08x", m->files[i].crc32c);
    cJSON *f = cJSON_CreateObject();
    ok &= f != NULL && cJSON_AddItemToArray(files, f);
    if (!f) continue;
    add_string(f, "file", m->files[i].file, &ok);
    add_number(f, "rank", m->files[i].rank, &ok);
    add_number(f, "bytes", m->files[i].bytes, &ok);
    add_string(f, "crc32c", crc, &ok);
    if (m->files[i].crc_of_data) add_string(f, "crc_of", "data", &ok);
  }
  char *text = ok ? cJSON_Print(top) : NULL;
  cJSON_Delete(top);
  CC_CHECK(text != NULL, CC_ERR_MEM,
           "cannot build manifest %s (out of memory or a non-finite value)", path);
  FILE *f = fopen(path, "w");
  if (!f) cJSON_free(text);
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create %s: %s", path, strerror(errno));
  int failed = fputs(text, f) < 0 || fputc('\n', f) == EOF;
  cJSON_free(text);
  failed |= fflush(f) != 0 || ferror(f);
  if (!failed && durable) failed = fsync(fileno(f)) != 0;
  int saved = errno;
  failed |= fclose(f) != 0;
  CC_CHECK(!failed, CC_ERR_IO, "writing %s failed: %s", path, strerror(saved));
  return CC_OK;
}

/* ---- reading: required keys must be present with their type; unknown keys are ignored -------- */
static cc_err get_item(const cJSON *o, const char *where, const char *key, const char *path,
                       const cJSON **item)
{
  *item = cJSON_GetObjectItemCaseSensitive(o, key);
  CC_CHECK(*item != NULL, CC_ERR_IO, "%s: key \"%s%s\" missing (corrupt manifest?)", path, where,
           key);
  return CC_OK;
}

/* an integral JSON number within [lo, hi] */
static cc_err get_int(const cJSON *o, const char *where, const char *key, const char *path,
                      int64_t lo, int64_t hi, int64_t *value)
{
  const cJSON *item;
  CC_CALL(get_item(o, where, key, path, &item));
  double d = cJSON_IsNumber(item) ? item->valuedouble : NAN;
  CC_CHECK(cJSON_IsNumber(item) && d == floor(d) && d >= (double)lo && d <= (double)hi, CC_ERR_IO,
           "%s: \"%s%s\" is not an integer in [%lld, %lld]", path, where, key, (long long)lo,
           (long long)hi);
  *value = (int64_t)d;
  return CC_OK;
}

static cc_err get_int32(const cJSON *o, const char *where, const char *key, const char *path,
                        int lo, int *value)
{
  int64_t v = 0;
  CC_CALL(get_int(o, where, key, path, lo, INT32_MAX, &v));
  *value = (int)v;
  return CC_OK;
}

static cc_err get_double(const cJSON *o, const char *where, const char *key, const char *path,
                         double *value)
{
  const cJSON *item;
  CC_CALL(get_item(o, where, key, path, &item));
  CC_CHECK(cJSON_IsNumber(item) && isfinite(item->valuedouble), CC_ERR_IO,
           "%s: \"%s%s\" is not a finite number", path, where, key);
  *value = item->valuedouble;
  return CC_OK;
}

static cc_err get_string(const cJSON *o, const char *where, const char *key, const char *path,
                         char *out, size_t n)
{
  const cJSON *item;
  CC_CALL(get_item(o, where, key, path, &item));
  CC_CHECK(cJSON_IsString(item) && item->valuestring, CC_ERR_IO, "%s: \"%s%s\" is not a string",
           path, where, key);
  size_t len = strlen(item->valuestring);
  CC_CHECK(len < n, CC_ERR_IO, "%s: \"%s%s\" is longer than %zu characters", path, where, key,
           n - 1);
  memcpy(out, item->valuestring, len + 1);
  return CC_OK;
}

static cc_err get_object(const cJSON *o, const char *key, const char *path, const cJSON **item)
{
  CC_CALL(get_item(o, "", key, path, item));
  CC_CHECK(cJSON_IsObject(*item), CC_ERR_IO, "%s: \"%s\" is not an object", path, key);
  return CC_OK;
}

#define IO_MANIFEST_MAX_FILES (1 << 20) /* ranks of one checkpoint */

static cc_err parse_problem(const cJSON *top, const char *path, io_manifest *m)
{
  const cJSON *pb = cJSON_GetObjectItemCaseSensitive(top, "problem");
  if (!pb) return CC_OK; /* written before the problem was recorded: has_problem stays false */
  CC_CHECK(cJSON_IsObject(pb), CC_ERR_IO, "%s: \"problem\" is not an object", path);
  CC_CALL(get_double(pb, "problem.", "E", path, &m->E));
  CC_CALL(get_double(pb, "problem.", "nu", path, &m->nu));
  CC_CALL(get_double(pb, "problem.", "traction", path, &m->traction));
  CC_CALL(get_string(pb, "problem.", "precond", path, m->precond, sizeof m->precond));
  CC_CALL(get_int32(pb, "problem.", "colors", path, 0, &m->colors));
  CC_CALL(get_int32(pb, "problem.", "asdd_iterations", path, 0, &m->asdd_iters));
  if (cJSON_GetObjectItemCaseSensitive(pb, "asdd_residual"))
    CC_CALL(get_string(pb, "problem.", "asdd_residual", path, m->asdd_residual,
                       sizeof m->asdd_residual));
  else /* written before --asdd-residual: ASDD's residual was the full pass */
    snprintf(m->asdd_residual, sizeof m->asdd_residual, "%s",
             !strncmp(m->precond, "asdd", 4) && m->asdd_iters >= 2 ? "full" : "");
  m->has_problem = true;
  return CC_OK;
}

/* "settings" back into "option=value" lines; absent in a manifest written before the settings
 * were recorded (m->settings stays ""). Every value must be a string. */
static cc_err parse_settings(const cJSON *top, const char *path, io_manifest *m)
{
  const cJSON *settings = cJSON_GetObjectItemCaseSensitive(top, "settings");
  if (!settings) return CC_OK;
  CC_CHECK(cJSON_IsObject(settings), CC_ERR_IO, "%s: \"settings\" is not an object", path);
  size_t used = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, settings)
  {
    CC_CHECK(cJSON_IsString(item) && item->valuestring && item->string, CC_ERR_IO,
             "%s: \"settings.%s\" is not a string", path, item->string ? item->string : "?");
    CC_CHECK(!strpbrk(item->string, "=\n") && !strchr(item->valuestring, '\n'), CC_ERR_IO,
             "%s: \"settings.%s\" holds a '=' or a line break", path, item->string);
    int n = snprintf(m->settings + used, sizeof m->settings - used, "%s=%s\n", item->string,
                     item->valuestring);
    CC_CHECK(n > 0 && (size_t)n < sizeof m->settings - used, CC_ERR_IO,
             "%s: \"settings\" longer than %d characters", path, CC_IO_SETTINGS_MAX - 1);
    used += (size_t)n;
  }
  return CC_OK;
}

static cc_err parse(const cJSON *top, const char *path, io_manifest *m)
{
  CC_CHECK(cJSON_IsObject(top), CC_ERR_IO, "%s: not a JSON object", path);
  CC_CALL(get_int32(top, "", "cubecg_checkpoint_version", path, INT32_MIN, &m->version));
  CC_CHECK(m->version == CC_IO_MANIFEST_VERSION, CC_ERR_IO,
           "%s: manifest version %d, this cubecg reads version %d", path, m->version,
           CC_IO_MANIFEST_VERSION);
  CC_CALL(get_string(top, "", "backend", path, m->backend, sizeof m->backend));
  CC_CALL(get_int32(top, "", "iteration", path, 0, &m->iteration));
  CC_CALL(get_string(top, "", "solver", path, m->solver, sizeof m->solver));
  const cJSON *mesh;
  CC_CALL(get_object(top, "mesh", path, &mesh));
  CC_CALL(get_int32(mesh, "mesh.", "nx", path, 0, &m->nx));
  CC_CALL(get_int32(mesh, "mesh.", "ny", path, 0, &m->ny));
  CC_CALL(get_int32(mesh, "mesh.", "nz", path, 0, &m->nz));
  CC_CALL(get_int(top, "", "n_global_nodes", path, 0, INT64_C(1) << 53, &m->n_global_nodes));
  CC_CALL(get_int32(top, "", "values_per_node", path, 1, &m->values_per_node));
  CC_CALL(get_int32(top, "", "ranks", path, 1, &m->ranks));
  CC_CALL(get_string(top, "", "partition", path, m->partition, sizeof m->partition));
  CC_CALL(get_string(top, "", "ordering", path, m->ordering, sizeof m->ordering));
  CC_CALL(parse_problem(top, path, m));
  CC_CALL(parse_settings(top, path, m));
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(top, "durable"); /* informative, optional */
  CC_CHECK(d == NULL || cJSON_IsBool(d), CC_ERR_IO, "%s: \"durable\" is not a boolean", path);
  m->durable = cJSON_IsTrue(d);

  const cJSON *files;
  CC_CALL(get_item(top, "", "files", path, &files));
  CC_CHECK(cJSON_IsArray(files), CC_ERR_IO, "%s: \"files\" is not an array", path);
  int count = cJSON_GetArraySize(files);
  CC_CHECK(count > 0 && count <= IO_MANIFEST_MAX_FILES, CC_ERR_IO, "%s lists %d files", path,
           count);
  CC_CALL(cc_calloc((size_t)count, sizeof *m->files, &m->files));
  m->n_files = count;
  int i      = 0;
  const cJSON *entry;
  cJSON_ArrayForEach(entry, files)
  {
    char where[48];
    snprintf(where, sizeof where, "files[%d].", i);
    CC_CHECK(cJSON_IsObject(entry), CC_ERR_IO, "%s: \"files[%d]\" is not an object", path, i);
    io_manifest_file *f = &m->files[i++];
    CC_CALL(get_string(entry, where, "file", path, f->file, sizeof f->file));
    CC_CHECK(!strchr(f->file, '/') && strcmp(f->file, "..") && strcmp(f->file, ".") && f->file[0],
             CC_ERR_IO, "%s: bad file name '%s'", path, f->file);
    int64_t rank;
    CC_CALL(get_int(entry, where, "rank", path, -1, m->ranks - 1, &rank));
    f->rank = (int)rank;
    CC_CALL(get_int(entry, where, "bytes", path, 0, INT64_C(1) << 53, &f->bytes));
    char crc[16];
    CC_CALL(get_string(entry, where, "crc32c", path, crc, sizeof crc));
    char *end;
    f->crc32c = (uint32_t)strtoul(crc, &end, 16);
    CC_CHECK(*end == '\0' && strlen(crc) == 8 && strspn(crc, "0123456789abcdefABCDEF") == 8,
             CC_ERR_IO, "%s: \"%scrc32c\" '%s' is not 8 hex digits", path, where, crc);
    /* optional (older manifests: the file's bytes) */
    const cJSON *of = cJSON_GetObjectItemCaseSensitive(entry, "crc_of");
    CC_CHECK(of == NULL || (cJSON_IsString(of) && !strcmp(of->valuestring, "data")), CC_ERR_IO,
             "%s: \"%scrc_of\" is not \"data\"", path, where);
    f->crc_of_data = of != NULL;
  }
  return CC_OK;
}

cc_err io_manifest_parse(const char *text, const char *path, io_manifest *m)
{
  memset(m, 0, sizeof *m);
  cJSON *top = cJSON_Parse(text);
  CC_CHECK(top != NULL, CC_ERR_IO, "%s is not valid JSON (corrupt manifest?)", path);
  cc_err err = parse(top, path, m);
  cJSON_Delete(top);
  if (err) io_manifest_free(m);
  CC_CALL(err);
  return CC_OK;
}

void io_manifest_free(io_manifest *m)
{
  cc_free(&m->files);
  m->n_files = 0;
}
