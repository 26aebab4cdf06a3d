/* benchlib.c: the benchmarks' shared command-line parsing and report framing (benchlib.h). */
#include "benchlib.h"
#include "cc_io.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

cc_err bench_option(int argc, char **argv, int *i, const char *const *flags, char key[64],
                    char **value)
{
  const char *arg = argv[*i];
  char *eq        = strchr(arg, '=');
  snprintf(key, 64, "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
  *value    = eq ? eq + 1 : NULL;
  bool flag = false;
  for (int f = 0; flags[f] && !flag; f++) flag = !strcmp(key, flags[f]);
  if (!flag && !*value) {
    CC_CHECK(*i + 1 < argc, CC_ERR_ARG, "option %s needs a value (see --help)", key);
    *value = argv[++*i];
  }
  return CC_OK;
}

cc_err bench_parse_sizes(const char *text, size_t *out, int *n, int max)
{
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", text);
  *n = 0;
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    CC_CHECK(*n < max, CC_ERR_ARG, "more than %d entries in '%s'", max, text);
    CC_CALL(cc_io_parse_bytes(tok, &out[(*n)++]));
  }
  CC_CHECK(*n > 0, CC_ERR_ARG, "empty list '%s'", text);
  return CC_OK;
}

bool bench_strict_int(const char *text, int *out)
{
  char *end;
  errno      = 0;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || value < INT_MIN || value > INT_MAX) return false;
  *out = (int)value;
  return true;
}

void bench_json_begin(cc_json *js, FILE *f, const char *kind)
{
  *js = (cc_json){.out = f};
  cc_json_begin_object(js, NULL);
  cc_json_int(js, "cubecg_report_version", CC_REPORT_VERSION);
  cc_json_string(js, "kind", kind);
  cc_json_string(js, "cubecg_version", CC_VERSION);
}

cc_err bench_json_end(cc_json *js, FILE *f, const char *path)
{
  cc_json_end_object(js);
  int failed = ferror(f);
  failed |= fclose(f) != 0;
  CC_CHECK(!failed, CC_ERR_IO, "writing %s failed", path);
  return CC_OK;
}
