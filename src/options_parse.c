/* options_parse.c: where the options' words come from, in PETSc's order (later sources win): the
 * defaults, an options file, CUBECG_OPTIONS, the command line (--restart DIR's settings:
 * options_settings.c). */
#include "cc_io.h"
#include "options_impl.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#define CC_OPTIONS_TEXT_MAX (1 << 20) /* options file or CUBECG_OPTIONS: at most 1 MiB */
#define CC_OPTIONS_WORDS_MAX 4096

/* Apply words[0..n) ("--key value", "--key=value", flags, -h, -V) from one source. line[i] (files)
 * or 0 names the location in messages. */
static cc_err apply_words(int n, char *const *words, const int *line, int origin,
                          const char *source, cc_options *opts)
{
  for (int arg = 0; arg < n; arg++) {
    char where[CC_PATH_MAX + 64] = "";
    if (origin == ORIGIN_FILE)
      snprintf(where, sizeof where, "%s:%d: ", source, line ? line[arg] : 0);
    else if (origin == ORIGIN_ENV)
      snprintf(where, sizeof where, "%s: ", source);
    const char *word = words[arg];
    if (strcmp(word, "-h") == 0) word = "--help";
    if (strcmp(word, "-V") == 0) word = "--version";
    CC_CHECK(strncmp(word, "--", 2) == 0 && word[2] != '\0', CC_ERR_ARG,
             "%sunexpected argument '%s' (options are --key value or --key=value; see --help)",
             where, word);
    const char *key      = word + 2;
    const char *equals   = strchr(key, '=');
    size_t length        = equals ? (size_t)(equals - key) : strlen(key);
    const opt_spec *spec = cc_option_find(key, length);
    CC_CHECK(spec != NULL, CC_ERR_ARG, "%sunknown option '%.*s' (see --help)", where,
             (int)(length < 200 ? length + 2 : 202), word);
    CC_CHECK(origin != ORIGIN_FILE || spec->offset != offsetof(cc_options, options_file),
             CC_ERR_ARG, "%s--options-file inside an options file: options files do not nest",
             where);
    const char *value = NULL;
    if (equals)
      value = equals + 1;
    else if (spec->type == OPT_FLAG &&
             (arg + 1 >= n || strncmp(words[arg + 1], "--", 2) == 0 ||
              strcmp(words[arg + 1], "-h") == 0 || strcmp(words[arg + 1], "-V") == 0))
      value = "1";
    else {
      CC_CHECK(arg + 1 < n, CC_ERR_ARG, "%soption --%s needs a value", where, spec->name);
      value = words[++arg];
    }
    CC_CALL(cc_option_set(spec, value, where, opts));
    opts->origin[spec - cc_option_table]      = (unsigned char)origin;
    opts->origin_line[spec - cc_option_table] = origin == ORIGIN_FILE && line ? line[arg] : 0;
  }
  return CC_OK;
}

/* Split text in place into words at white space; '#' starts a comment to the end of the line. */
static cc_err split_words(char *text, int comments, char **words, int *line, int *n,
                          const char *source)
{
  int at_line = 1;
  *n          = 0;
  for (char *c = text; *c;) {
    if (*c == '\n') at_line++;
    if (isspace((unsigned char)*c)) {
      c++;
      continue;
    }
    if (comments && *c == '#') {
      while (*c && *c != '\n') c++;
      continue;
    }
    CC_CHECK(*n < CC_OPTIONS_WORDS_MAX, CC_ERR_ARG, "%s: more than %d words", source,
             CC_OPTIONS_WORDS_MAX);
    line[*n]      = at_line;
    words[(*n)++] = c;
    while (*c && !isspace((unsigned char)*c)) c++;
    if (*c) {
      if (*c == '\n') at_line++;
      *c++ = '\0';
    }
  }
  return CC_OK;
}

/* The value of the last "--options-file F" / "--options-file=F" among words, or NULL. */
static const char *find_options_file(int n, char *const *words)
{
  const char *found = NULL;
  for (int i = 0; i < n; i++) {
    if (strncmp(words[i], "--options-file=", 15) == 0)
      found = words[i] + 15;
    else if (strcmp(words[i], "--options-file") == 0 && i + 1 < n)
      found = words[++i];
  }
  return found;
}

typedef struct {
  char *words[CC_OPTIONS_WORDS_MAX];
  int line[CC_OPTIONS_WORDS_MAX];
  int n;
} word_list;

cc_err cc_options_parse_text(const char *text, size_t length, const char *source, cc_options *opts)
{
  CC_CHECK(length <= CC_OPTIONS_TEXT_MAX, CC_ERR_ARG, "%s: larger than %d bytes", source,
           CC_OPTIONS_TEXT_MAX);
  CC_CHECK(memchr(text, '\0', length) == NULL, CC_ERR_ARG, "%s: contains a NUL byte", source);
  char *copy = malloc(length + 1);
  CC_CHECK(copy != NULL, CC_ERR_MEM, "%s: out of memory", source);
  memcpy(copy, text, length);
  copy[length] = '\0';
  snprintf(opts->origin_file, sizeof opts->origin_file, "%s", source);
  word_list *list = malloc(sizeof *list);
  cc_err err      = list ? CC_OK : CC_ERR_MEM;
  if (!err) err = split_words(copy, 1, list->words, list->line, &list->n, source);
  if (!err) err = apply_words(list->n, list->words, list->line, ORIGIN_FILE, source, opts);
  free(list);
  free(copy);
  CC_CHECK(err != CC_ERR_MEM, CC_ERR_MEM, "%s: out of memory", source);
  return err ? cc_error_push(err, __FILE__, __LINE__, __func__, "in options file %s", source)
             : CC_OK;
}

/* where: the source that named the file ("" = command line, "CUBECG_OPTIONS: "). Only a regular
 * file is read: a fifo or a device would block or never end. */
static cc_err read_options_file(const char *path, const char *where, cc_options *opts)
{
  struct stat st;
  CC_CHECK(stat(path, &st) == 0, CC_ERR_ARG, "%s--options-file %s: %s", where, path,
           strerror(errno));
  CC_CHECK(S_ISREG(st.st_mode), CC_ERR_ARG, "%s--options-file %s: not a regular file", where, path);
  FILE *f = fopen(path, "r");
  CC_CHECK(f != NULL, CC_ERR_ARG, "%s--options-file %s: %s", where, path, strerror(errno));
  char *text    = malloc(CC_OPTIONS_TEXT_MAX + 1);
  size_t length = text ? fread(text, 1, CC_OPTIONS_TEXT_MAX + 1, f) : 0;
  int failed    = text == NULL || ferror(f);
  fclose(f);
  if (failed) free(text);
  CC_CHECK(!failed, CC_ERR_ARG, "%s--options-file %s: cannot read it", where, path);
  cc_err err = length > CC_OPTIONS_TEXT_MAX
                   ? cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                                   "%s--options-file %s: larger than %d bytes", where, path,
                                   CC_OPTIONS_TEXT_MAX)
                   : cc_options_parse_text(text, length, path, opts);
  free(text);
  return err;
}

cc_err cc_options_parse(int argc, char **argv, cc_options *opts)
{
  memset(opts, 0, sizeof *opts);
  cc_mesh_params_default(&opts->mesh);
  for (int i = 0; i < cc_option_count; i++) {
    char names[CC_CHOICES_TEXT_MAX];
    size_t needed = cc_option_choice_names(cc_option_table[i].choices, names, sizeof names);
    CC_CHECK(needed < sizeof names, CC_ERR_CHECK,
             "the names of --%s need %zu bytes, more than CC_CHOICES_TEXT_MAX = %d",
             cc_option_table[i].name, needed + 1, CC_CHOICES_TEXT_MAX);
    CC_CALL(cc_option_set(&cc_option_table[i], cc_option_table[i].default_value, "", opts));
  }

  /* PETSc's order (options file, PETSC_OPTIONS, command line): later sources win. */
  const char *env   = getenv("CUBECG_OPTIONS");
  size_t env_length = env ? strlen(env) : 0;
  CC_CHECK(env_length <= CC_OPTIONS_TEXT_MAX, CC_ERR_ARG, "CUBECG_OPTIONS: longer than %d bytes",
           CC_OPTIONS_TEXT_MAX);
  char *env_copy  = env ? strdup(env) : NULL;
  word_list *list = malloc(sizeof *list);
  cc_err err      = list && (!env || env_copy) ? CC_OK : CC_ERR_MEM;
  if (!err) list->n = 0;
  if (!err && env_copy)
    err = split_words(env_copy, 0, list->words, list->line, &list->n, "CUBECG_OPTIONS");
  if (!err) {
    const char *file  = find_options_file(argc - 1, argv + 1);
    const char *named = "";
    if (!file) file = find_options_file(list->n, list->words), named = "CUBECG_OPTIONS: ";
    if (file) err = read_options_file(file, named, opts);
  }
  if (!err) err = apply_words(list->n, list->words, NULL, ORIGIN_ENV, "CUBECG_OPTIONS", opts);
  if (!err) err = apply_words(argc - 1, argv + 1, NULL, ORIGIN_CMDLINE, "", opts);
  free(list);
  free(env_copy);
  CC_CHECK(err != CC_ERR_MEM, CC_ERR_MEM, "out of memory reading options");
  CC_CALL(err);
  opts->mesh.partition = (cc_partition_kind)opts->partition;
  return CC_OK;
}
