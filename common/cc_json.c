/* cc_json.c: a minimal streaming JSON writer for the run report. */
#include "cc_common.h"

#include <math.h>

static void json_key(cc_json *js, const char *key)
{
  if (js->need_comma[js->depth]) fputc(',', js->out);
  fputc('\n', js->out);
  for (int i = 0; i < js->depth; i++) fputs("  ", js->out);
  js->need_comma[js->depth] = 1;
  if (key) fprintf(js->out, "\"%s\": ", key);
}

static void json_open(cc_json *js, const char *key, char bracket)
{
  json_key(js, key);
  fputc(bracket, js->out);
  if (js->depth < 31) js->depth++;
  js->need_comma[js->depth] = 0;
}

static void json_close(cc_json *js, char bracket)
{
  int had_items = js->need_comma[js->depth];
  if (js->depth > 0) js->depth--;
  if (had_items) {
    fputc('\n', js->out);
    for (int i = 0; i < js->depth; i++) fputs("  ", js->out);
  }
  fputc(bracket, js->out);
  if (js->depth == 0) fputc('\n', js->out);
}

void cc_json_begin_object(cc_json *js, const char *key)
{
  if (js->depth == 0 && !js->need_comma[0]) {
    fputc('{', js->out); /* the top-level object */
    js->need_comma[0] = 1;
    js->depth         = 1;
    js->need_comma[1] = 0;
    return;
  }
  json_open(js, key, '{');
}
void cc_json_end_object(cc_json *js)
{
  json_close(js, '}');
}
void cc_json_begin_array(cc_json *js, const char *key)
{
  json_open(js, key, '[');
}
void cc_json_end_array(cc_json *js)
{
  json_close(js, ']');
}

void cc_json_string(cc_json *js, const char *key, const char *value)
{
  json_key(js, key);
  if (!value) {
    fputs("null", js->out);
    return;
  }
  fputc('"', js->out);
  for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(js->out, "\\%c", *c);
    else if (*c == '\n')
      fputs("\\n", js->out);
    else if (*c < 0x20)
      fprintf(js->out, "\\u%04x", *c);
    else
      fputc(*c, js->out);
  }
  fputc('"', js->out);
}

/* a number with digits significant digits; JSON has no Inf or NaN: null */
static void json_number(cc_json *js, const char *key, double value, int digits)
{
  json_key(js, key);
  if (isfinite(value))
    fprintf(js->out, "%.*g", digits, value);
  else
    fputs("null", js->out);
}

void cc_json_double(cc_json *js, const char *key, double value)
{
  json_number(js, key, value, 9);
}

void cc_json_int(cc_json *js, const char *key, int64_t value)
{
  json_key(js, key);
  fprintf(js->out, "%lld", (long long)value);
}

void cc_json_bool(cc_json *js, const char *key, int value)
{
  json_key(js, key);
  fputs(value ? "true" : "false", js->out);
}

void cc_json_double_exact(cc_json *js, const char *key, double value)
{
  json_number(js, key, value, 17); /* 17 digits: the double back bit for bit */
}
