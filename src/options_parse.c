/* options_parse.c: where the options' words come from, in PETSc's order (later sources win): the
 * defaults, an options file, CUBECG_OPTIONS, the command line; and --restart DIR, whose manifest
 * names the problem options the user left at their default. */
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
    opts->origin[spec - cc_option_table] = (unsigned char)origin;
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
  copy[length]    = '\0';
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

static cc_err read_options_file(const char *path, cc_options *opts)
{
  FILE *f = fopen(path, "r");
  CC_CHECK(f != NULL, CC_ERR_ARG, "--options-file %s: %s", path, strerror(errno));
  char *text    = malloc(CC_OPTIONS_TEXT_MAX + 1);
  size_t length = text ? fread(text, 1, CC_OPTIONS_TEXT_MAX + 1, f) : 0;
  int failed    = text == NULL || ferror(f);
  fclose(f);
  if (failed) free(text);
  CC_CHECK(!failed, CC_ERR_ARG, "--options-file %s: cannot read it", path);
  cc_err err =
      length > CC_OPTIONS_TEXT_MAX
          ? cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                          "--options-file %s: larger than %d bytes", path, CC_OPTIONS_TEXT_MAX)
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
    const char *file = find_options_file(argc - 1, argv + 1);
    if (!file) file = find_options_file(list->n, list->words);
    if (file) err = read_options_file(file, opts);
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

cc_err cc_options_from_checkpoint(cc_options *opts, MPI_Comm comm)
{
  /* rank 0's view decides, so that every rank gives the same verdict */
  int rank = 0, is_dir = 0;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  struct stat st;
  if (rank == 0) is_dir = stat(opts->restart, &st) == 0 && S_ISDIR(st.st_mode);
  CC_MPI(MPI_Bcast(&is_dir, 1, MPI_INT, 0, comm));
  CC_CHECK(is_dir, CC_ERR_ARG, "--restart %s: not a directory", opts->restart);
  cc_io_metadata meta;
  cc_err err = cc_io_checkpoint_describe(opts->restart, comm, &meta);
  if (err) { /* the same verdict on every rank: bad input, named */
    char message[600];
    snprintf(message, sizeof message, "%s", cc_error_message());
    const char *inner = strstr(message, "(): ");
    cc_error_clear();
    /* no checkpoint there is bad input (2); an unreadable or corrupt one a runtime failure (1) */
    CC_FAIL(err == CC_ERR_ARG ? CC_ERR_ARG : CC_ERR_IO,
            "--restart %s: %s; name the problem with --nx --ny --nz --solver", opts->restart,
            inner ? inner + 4 : message);
  }
  /* the values as text, through the parser: the same checks as on the command line */
  char precond[16];
  snprintf(precond, sizeof precond, "%s", meta.precond);
  char *single = strchr(precond, '+');
  if (single) *single = '\0';
  char text[10][40];
  snprintf(text[0], sizeof text[0], "%d", meta.nx);
  snprintf(text[1], sizeof text[1], "%d", meta.ny);
  snprintf(text[2], sizeof text[2], "%d", meta.nz);
  snprintf(text[3], sizeof text[3], "%.17g", meta.E);
  snprintf(text[4], sizeof text[4], "%.17g", meta.nu);
  snprintf(text[5], sizeof text[5], "%.17g", meta.traction);
  snprintf(text[6], sizeof text[6], "%d", meta.colors);
  snprintf(text[7], sizeof text[7], "%d", meta.asdd_iters);
  const struct {
    const char *option, *value;
    int known; /* the manifest holds it */
  } from[] = {{"nx", text[0], 1},
              {"ny", text[1], 1},
              {"nz", text[2], 1},
              {"solver", meta.solver, meta.solver[0] != '\0'},
              {"ordering", meta.ordering, meta.ordering[0] != '\0'},
              {"E", text[3], meta.has_problem},
              {"nu", text[4], meta.has_problem},
              {"traction", text[5], meta.has_problem},
              {"precond", precond, meta.has_problem},
              {"precond-precision", single ? "single" : "double", meta.has_problem},
              {"colors", text[6], meta.has_problem},
              {"asdd-iters", text[7], meta.has_problem}};
  char where[CC_PATH_MAX + 40];
  snprintf(where, sizeof where, "--restart %s: its manifest's ", opts->restart);
  for (size_t i = 0; i < sizeof from / sizeof from[0]; i++) {
    if (!from[i].known || cc_option_given(opts, from[i].option)) continue;
    const opt_spec *spec = cc_option_find(from[i].option, strlen(from[i].option));
    CC_CALL(cc_option_set(spec, from[i].value, where, opts));
  }
  return CC_OK;
}
