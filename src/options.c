/* options.c: the driver's options, one table for parsing, --help and the report (PETSc-like
 * -key value handling, with GNU-style --key value / --key=value). */
#include "cc_driver.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum { OPT_INT, OPT_DOUBLE, OPT_STRING, OPT_CHOICE, OPT_SIZE, OPT_FLAG } opt_type;

typedef struct {
  const char *name;
  opt_type type;
  size_t offset;
  const char *default_value; /* parsed like user input at start-up */
  const char *choices;       /* '|'-separated, OPT_CHOICE only */
  const char *help;
} opt_spec;

#define OFF(field) offsetof(cc_options, field)
static const opt_spec option_table[] = {
    {"nx", OPT_INT, OFF(mesh.nx), "16", NULL, "nodes in x (DOF = 3 nx ny nz)"},
    {"ny", OPT_INT, OFF(mesh.ny), "16", NULL, "nodes in y"},
    {"nz", OPT_INT, OFF(mesh.nz), "16", NULL, "nodes in z"},
    {"partition", OPT_CHOICE, OFF(partition), "box", "box|metis",
     "partitioning of the nodes over ranks"},
    {"px", OPT_INT, OFF(mesh.px), "0", NULL, "box partition: ranks in x (0 = choose)"},
    {"py", OPT_INT, OFF(mesh.py), "0", NULL, "box partition: ranks in y (0 = choose)"},
    {"pz", OPT_INT, OFF(mesh.pz), "0", NULL, "box partition: ranks in z (0 = choose)"},
    {"E", OPT_DOUBLE, OFF(mesh.E), "1.0", NULL, "Young's modulus"},
    {"nu", OPT_DOUBLE, OFF(mesh.nu), "0.3", NULL, "Poisson's ratio (0 <= nu < 0.5)"},
    {"traction", OPT_DOUBLE, OFF(mesh.traction), "1.0", NULL, "uniform traction in +z on z = zmax"},
    {"tol", OPT_DOUBLE, OFF(tol), "1e-8", NULL, "stopping rule |r|/|b| < tol"},
    {"maxit", OPT_INT, OFF(maxit), "20000", NULL, "maximum iterations"},
    {"solver", OPT_CHOICE, OFF(solver), "pcg", "pcg|cgcg|pipecg|gropp|all",
     "CG variant: Alg.1 pcg, Alg.2 cgcg, Alg.3 pipecg, Alg.4 gropp, or all"},
    {"reduction", OPT_CHOICE, OFF(reduction), "ar", "ar|iar|all",
     "ar = blocking MPI_Allreduce, iar = MPI_Iallreduce overlapped (pcg: ar only)"},
    {"replace-every", OPT_INT, OFF(replace_every), "50", NULL,
     "residual replacement r = b - Ax every N iterations (0 = off)"},
    {"progress", OPT_CHOICE, OFF(progress), "none", "none|poll",
     "poll: kernels call MPI_Test on the pending reduction"},
    {"inject-reduction-latency", OPT_DOUBLE, OFF(inject_latency_us), "0", NULL,
     "SIMULATED: every global reduction completes no earlier than USEC after it was posted"},
    {"precond", OPT_CHOICE, OFF(precond), "asdd", "asdd|sgs|jacobi|none",
     "preconditioner (asdd = additive Schwarz of multicolor SGS)"},
    {"ordering", OPT_CHOICE, OFF(ordering), "cm-rcm", "cm-rcm|mc|rcm|natural",
     "node ordering for the SGS sweeps"},
    {"colors", OPT_INT, OFF(colors), "10", NULL, "K of CM-RCM(K) / MC(K), >= 2"},
    {"asdd-iters", OPT_INT, OFF(asdd_iters), "2", NULL,
     "ASDD iterations (1 = localized block Jacobi SGS)"},
    {"report", OPT_STRING, OFF(report), "", NULL, "JSON report file (rank 0 writes it)"},
    {"export-matrix", OPT_STRING, OFF(export_matrix), "", NULL,
     "write the global matrix (Matrix Market, global DOF numbering)"},
    {"export-solution", OPT_STRING, OFF(export_solution), "", NULL,
     "write FILE.h5 + FILE.xmf (hexahedra, displacement) for ParaView/VisIt/meshio"},
    {"checkpoint", OPT_CHOICE, OFF(checkpoint), "",
     "|posix|uring|offload|offload-uring|hdf5|fortran|gas",
     "checkpoint backend (empty = no checkpoints)"},
    {"checkpoint-dir", OPT_STRING, OFF(checkpoint_dir), "checkpoints", NULL,
     "checkpoint directory"},
    {"checkpoint-every", OPT_INT, OFF(checkpoint_every), "50", NULL,
     "checkpoint period in iterations"},
    {"checkpoint-keep", OPT_INT, OFF(checkpoint_keep), "2", NULL, "checkpoints kept (>= 1)"},
    {"durable", OPT_FLAG, OFF(durable), "1", NULL, "fsync checkpoint files and directories (0|1)"},
    {"io-buffer", OPT_SIZE, OFF(io_buffer), "512k", NULL,
     "stdio buffer of the posix backend (setvbuf)"},
    {"io-fallback", OPT_FLAG, OFF(io_fallback), "0", NULL,
     "allow the uring backend's explicit fallback chain (else a clear error)"},
    {"checkpoint-overwrite", OPT_FLAG, OFF(checkpoint_overwrite), "0", NULL,
     "remove checkpoints of another problem in --checkpoint-dir (else refused)"},
    {"gas-page", OPT_SIZE, OFF(gas_page), "4M", NULL,
     "gas checkpoints: page of the global memory store (power of two >= 4k)"},
    {"gas-dram", OPT_SIZE, OFF(gas_dram), "64M", NULL,
     "gas checkpoints: DRAM page cache per rank (>= one page; LRU pages go to the SSD file)"},
    {"gas-ssd-bytes", OPT_SIZE, OFF(gas_ssd_bytes), "0", NULL,
     "gas checkpoints: SSD capacity per owner (0 = free space of the SSD directory)"},
    {"gas-ssd-dir", OPT_STRING, OFF(gas_ssd_dir), "", NULL,
     "gas checkpoints: the owners' page files (empty = inside each checkpoint directory)"},
    {"restart", OPT_STRING, OFF(restart), "", NULL,
     "resume from the newest complete checkpoint in DIR"},
    {"timing", OPT_CHOICE, OFF(timing), "on", "on|off", "per-kernel timers (off: counts only)"},
    {"analytic-tol", OPT_DOUBLE, OFF(analytic_tol), "1e-6", NULL,
     "built-in check: max relative error against the analytic solution"},
    {"memory-fraction", OPT_DOUBLE, OFF(memory_fraction), "0.8", NULL,
     "refuse meshes whose estimate exceeds this fraction of the node's RAM, in [0.001, 1]"},
    {"placement", OPT_STRING, OFF(placement), "", NULL,
     "name of the rank/thread placement, echoed in the report (else CUBECG_PLACEMENT)"},
    {"quiet", OPT_FLAG, OFF(quiet), "0", NULL,
     "no stage, checkpoint, summary lines (an explicit --monitor N still prints)"},
    {"monitor", OPT_INT, OFF(monitor), "0", NULL,
     "print |r|/|b|, ms/it, time left every N iterations (0 = after 3 s, then every 10 s; -1 off)"},
    {"export-deformed", OPT_FLAG, OFF(export_deformed), "0", NULL,
     "with --export-solution: also x + u (attribute, and FILE-deformed.xmf)"},
    {"options-file", OPT_STRING, OFF(options_file), "", NULL,
     "read options from FILE (words as on the command line, # comments; see README)"},
    {"version", OPT_FLAG, OFF(version), "0", NULL, "print the version and build (also -V)"},
    {"help", OPT_FLAG, OFF(help), "0", NULL, "print this help (also -h)"},
};
#define N_OPTIONS ((int)(sizeof option_table / sizeof option_table[0]))
_Static_assert(sizeof option_table / sizeof option_table[0] <= CC_MAX_OPTIONS,
               "raise CC_MAX_OPTIONS in cc_driver.h");

/* Where a value came from (the report's "parameter_sources"); later sources win. */
enum { ORIGIN_DEFAULT, ORIGIN_FILE, ORIGIN_ENV, ORIGIN_CMDLINE };
static const char *const origin_name[] = {"default", "file", "env", "cmdline"};
#define CC_OPTIONS_TEXT_MAX (1 << 20) /* options file or CUBECG_OPTIONS: at most 1 MiB */
#define CC_OPTIONS_WORDS_MAX 4096

static cc_err parse_size(const char *where, const char *name, const char *text, int64_t *out)
{
  /* the project's one strict byte-size parser; the option's name in front of its message */
  if (cc_parse_bytes(text, out) == CC_OK) return CC_OK;
  cc_error_clear();
  CC_FAIL(CC_ERR_ARG,
          "%s--%s: '%s' is not a size (an integer with optional k, M, G: e.g. 8k, 512k, 4M)", where,
          name, text);
}

static cc_err set_option(const opt_spec *spec, const char *text, const char *where,
                         cc_options *opts)
{
  char *field = (char *)opts + spec->offset;
  char *end;
  errno = 0;
  switch (spec->type) {
  case OPT_INT: {
    long value = strtol(text, &end, 10);
    CC_CHECK(end != text && *end == '\0', CC_ERR_ARG, "%s--%s: '%s' is not an integer", where,
             spec->name, text);
    CC_CHECK(errno == 0 && value >= INT_MIN && value <= INT_MAX, CC_ERR_ARG,
             "%s--%s: '%s' is out of range for an integer", where, spec->name, text);
    *(int *)field = (int)value;
    break;
  }
  case OPT_FLAG: {
    long value = strtol(text, &end, 10);
    CC_CHECK(end != text && *end == '\0' && (value == 0 || value == 1), CC_ERR_ARG,
             "%s--%s: '%s' must be 0 or 1", where, spec->name, text);
    *(int *)field = (int)value;
    break;
  }
  case OPT_DOUBLE: {
    double value = strtod(text, &end);
    CC_CHECK(end != text && *end == '\0' && errno == 0 && isfinite(value), CC_ERR_ARG,
             "%s--%s: '%s' is not a finite number", where, spec->name, text);
    *(double *)field = value;
    break;
  }
  case OPT_SIZE:
    CC_CALL(parse_size(where, spec->name, text, (int64_t *)field));
    break;
  case OPT_CHOICE: {
    size_t length = strlen(text);
    int found     = 0;
    for (const char *c = spec->choices; c && !found;) {
      const char *bar = strchr(c, '|');
      size_t n        = bar ? (size_t)(bar - c) : strlen(c);
      found           = (n == length && strncmp(c, text, n) == 0);
      c               = bar ? bar + 1 : NULL;
    }
    CC_CHECK(found, CC_ERR_ARG, "%s--%s: unknown value '%s' (choose %s)", where, spec->name, text,
             spec->choices[0] == '|' ? spec->choices + 1 : spec->choices);
  }
    /* fall through */
  case OPT_STRING:
    CC_CHECK(strlen(text) < (spec->type == OPT_CHOICE ? CC_NAME_MAX : CC_PATH_MAX), CC_ERR_ARG,
             "%s--%s: value too long", where, spec->name);
    strcpy(field, text);
    break;
  }
  return CC_OK;
}

static const opt_spec *find_option(const char *key, size_t length)
{
  for (int i = 0; i < N_OPTIONS; i++)
    if (strlen(option_table[i].name) == length && strncmp(option_table[i].name, key, length) == 0)
      return &option_table[i];
  return NULL;
}

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
    const opt_spec *spec = find_option(key, length);
    CC_CHECK(spec != NULL, CC_ERR_ARG, "%sunknown option '%.*s' (see --help)", where,
             (int)(length < 200 ? length + 2 : 202), word);
    CC_CHECK(origin != ORIGIN_FILE || spec->offset != OFF(options_file), CC_ERR_ARG,
             "%s--options-file inside an options file: options files do not nest", where);
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
    CC_CALL(set_option(spec, value, where, opts));
    opts->origin[spec - option_table] = (unsigned char)origin;
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
  for (int i = 0; i < N_OPTIONS; i++)
    CC_CALL(set_option(&option_table[i], option_table[i].default_value, "", opts));

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
  opts->mesh.partition =
      strcmp(opts->partition, "metis") == 0 ? CC_PARTITION_METIS : CC_PARTITION_BOX;
  return CC_OK;
}

void cc_options_help(FILE *out)
{
  fprintf(out, "usage: mpiexec.mpich -n P cubecg [--key value | --key=value] ...\n"
               "GeoFEM/Cube: 3D linear-elastic cube solved by CG variants (see README.md)\n\n");
  for (int i = 0; i < N_OPTIONS; i++) {
    const opt_spec *spec = &option_table[i];
    char left[64];
    snprintf(left, sizeof left, "--%s %s", spec->name,
             spec->type == OPT_FLAG     ? ""
             : spec->choices            ? "NAME"
             : spec->type == OPT_STRING ? "PATH"
                                        : "N");
    fprintf(out, "  %-32s %s [default: %s]", left, spec->help,
            spec->default_value[0] ? spec->default_value : "none");
    if (spec->choices)
      fprintf(out, " {%s}", spec->choices[0] == '|' ? spec->choices + 1 : spec->choices);
    fputc('\n', out);
  }
  fprintf(
      out,
      "\nenvironment: OMP_NUM_THREADS (threads per rank; unset: CPUs per host / ranks per host),\n"
      "CUBECG_PLACEMENT (placement name when --placement is not given), MPIR_CVAR_ASYNC_PROGRESS=1 or\n"
      "MPICH_ASYNC_PROGRESS=1 (MPICH progress thread; cubecg then asks for MPI_THREAD_MULTIPLE),\n"
      "MPIR_CVAR_PROGRESS_THREAD_AFFINITY (pin it), CUBECG_IO_INJECT (I/O test seams),\n"
      "CUBECG_KRYLOV_INJECT (solver test seam), CUBECG_SIGNAL_CHECK_EVERY (iterations between\n"
      "signal checks, default 10), CUBECG_OPTIONS (options as on the command line; the command\n"
      "line wins), CUBECG_TRACE=1 (print the file:line trace of an error)\n"
      "signals: SIGTERM, SIGINT, SIGUSR1 stop after the current iteration (last checkpoint,\n"
      "report marked interrupted, exit code 4); a second one kills at once\n");
}

void cc_options_json(const cc_options *opts, cc_json *js)
{
  cc_json_begin_object(js, "parameters");
  for (int i = 0; i < N_OPTIONS; i++) {
    const opt_spec *spec = &option_table[i];
    const char *field    = (const char *)opts + spec->offset;
    if (spec->type == OPT_INT || spec->type == OPT_FLAG)
      cc_json_int(js, spec->name, *(const int *)field);
    else if (spec->type == OPT_DOUBLE)
      cc_json_double(js, spec->name, *(const double *)field);
    else if (spec->type == OPT_SIZE)
      cc_json_int(js, spec->name, *(const int64_t *)field);
    else
      cc_json_string(js, spec->name, field);
  }
  cc_json_end_object(js);
  cc_json_begin_object(js, "parameter_sources"); /* default|file|env|cmdline for each parameter */
  for (int i = 0; i < N_OPTIONS; i++)
    cc_json_string(js, option_table[i].name, origin_name[opts->origin[i]]);
  cc_json_end_object(js);
}

/* One output path: "" (none) passes; "-" only where allow_dash (stdout); an existing target must
 * not be a directory (non-regular files such as fifos and devices are written directly); the
 * directory that will hold it must exist and be writable. */
static cc_err check_output_file(const char *option, const char *path, int allow_dash)
{
  if (!path[0]) return CC_OK;
  if (strcmp(path, "-") == 0) {
    CC_CHECK(allow_dash, CC_ERR_ARG, "--%s -: this output cannot go to stdout; name a file",
             option);
    return CC_OK;
  }
  struct stat st;
  if (stat(path, &st) == 0) {
    CC_CHECK(!S_ISDIR(st.st_mode), CC_ERR_ARG, "--%s %s: is a directory", option, path);
    if (!S_ISREG(st.st_mode)) {
      CC_CHECK(access(path, W_OK) == 0, CC_ERR_ARG, "--%s %s: not writable: %s", option, path,
               strerror(errno));
      return CC_OK;
    }
  }
  char dir[CC_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = '\0';
  else
    *slash = '\0';
  CC_CHECK(stat(dir, &st) == 0, CC_ERR_ARG, "--%s %s: directory %s: %s", option, path, dir,
           strerror(errno));
  CC_CHECK(S_ISDIR(st.st_mode), CC_ERR_ARG, "--%s %s: %s is not a directory", option, path, dir);
  CC_CHECK(access(dir, W_OK | X_OK) == 0, CC_ERR_ARG, "--%s %s: directory %s is not writable",
           option, path, dir);
  return CC_OK;
}

/* A directory created on demand (mkdir -p): it is a writable directory, or its nearest existing
 * ancestor is. */
static cc_err check_output_dir(const char *option, const char *path)
{
  char dir[CC_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  struct stat st;
  for (;;) {
    if (stat(dir, &st) == 0) {
      CC_CHECK(S_ISDIR(st.st_mode), CC_ERR_ARG, "--%s %s: %s exists and is not a directory", option,
               path, dir);
      CC_CHECK(access(dir, W_OK | X_OK) == 0, CC_ERR_ARG, "--%s %s: %s is not writable", option,
               path, dir);
      return CC_OK;
    }
    CC_CHECK(errno == ENOENT, CC_ERR_ARG, "--%s %s: %s: %s", option, path, dir, strerror(errno));
    char *slash = strrchr(dir, '/');
    while (slash && slash > dir && slash[1] == '\0') { /* trailing slashes */
      *slash = '\0';
      slash  = strrchr(dir, '/');
    }
    if (!slash)
      snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
      dir[1] = '\0';
    else
      *slash = '\0';
  }
}

/* Output paths are checked by rank 0 (the writer of the report; the shared file system for the
 * others) before any large allocation; every rank returns the same error. */
static cc_err check_output_paths(const cc_options *opts, MPI_Comm comm)
{
  int rank;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  cc_err local = CC_OK, global;
  if (rank == 0) {
    local = check_output_file("report", opts->report, 1);
    if (!local) local = check_output_file("export-matrix", opts->export_matrix, 0);
    if (!local) local = check_output_file("export-solution", opts->export_solution, 0);
    if (!local && opts->checkpoint[0])
      local = check_output_dir("checkpoint-dir", opts->checkpoint_dir);
    if (!local && opts->restart[0]) {
      struct stat st;
      if (stat(opts->restart, &st) != 0 || !S_ISDIR(st.st_mode))
        local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                              "--restart %s: not a directory", opts->restart);
    }
  }
  CC_CALL(cc_error_agree(comm, local, &global));
  CC_CHECK(global == CC_OK, global, "output paths refused");
  return CC_OK;
}

cc_err cc_options_validate(const cc_options *opts, MPI_Comm comm)
{
  int ranks;
  CC_MPI(MPI_Comm_size(comm, &ranks));
  CC_CHECK(opts->tol > 0 && opts->tol < 1, CC_ERR_ARG, "--tol %g must be in (0, 1)", opts->tol);
  CC_CHECK(opts->maxit >= 1, CC_ERR_ARG, "--maxit %d must be >= 1", opts->maxit);
  CC_CHECK(opts->replace_every >= 0, CC_ERR_ARG, "--replace-every %d must be >= 0",
           opts->replace_every);
  CC_CHECK(opts->colors >= 2, CC_ERR_ARG, "--colors %d must be >= 2", opts->colors);
  CC_CHECK(opts->asdd_iters >= 1, CC_ERR_ARG, "--asdd-iters %d must be >= 1", opts->asdd_iters);
  CC_CHECK(opts->inject_latency_us >= 0 && opts->inject_latency_us <= 1e7, CC_ERR_ARG,
           "--inject-reduction-latency %g must be in [0, 1e7] microseconds",
           opts->inject_latency_us);
  CC_CHECK(strcmp(opts->solver, "pcg") != 0 || strcmp(opts->reduction, "iar") != 0, CC_ERR_ARG,
           "--solver pcg has no non-blocking variant: use --reduction ar (or all)");
  CC_CHECK(!opts->restart[0] || strcmp(opts->solver, "all") != 0, CC_ERR_ARG,
           "--restart %s needs the checkpoint's solver (--solver pcg|cgcg|pipecg|gropp), not all",
           opts->restart);
  CC_CHECK(opts->checkpoint_every >= 1, CC_ERR_ARG, "--checkpoint-every %d must be >= 1",
           opts->checkpoint_every);
  CC_CHECK(opts->checkpoint_keep >= 1, CC_ERR_ARG, "--checkpoint-keep %d must be >= 1",
           opts->checkpoint_keep);
  CC_CHECK(opts->io_buffer >= 512 && opts->io_buffer <= (1LL << 30), CC_ERR_ARG,
           "--io-buffer %lld must be between 512 bytes and 1 GiB", (long long)opts->io_buffer);
  CC_CHECK(opts->monitor >= -1, CC_ERR_ARG, "--monitor %d must be >= -1", opts->monitor);
  CC_CHECK(!opts->export_deformed || opts->export_solution[0], CC_ERR_ARG,
           "--export-deformed needs --export-solution FILE");
  CC_CHECK(opts->analytic_tol > 0, CC_ERR_ARG, "--analytic-tol %g must be > 0", opts->analytic_tol);
  /* below 0.001 the limit would be meaningless (and rounds to 0 bytes, which is not "no limit") */
  CC_CHECK(opts->memory_fraction >= 1e-3 && opts->memory_fraction <= 1, CC_ERR_ARG,
           "--memory-fraction %g must be in [0.001, 1]", opts->memory_fraction);
  CC_CALL(check_output_paths(opts, comm));

  /* The memory limit per rank: this node's RAM shared by the ranks on this node. */
  MPI_Comm node;
  int ranks_on_node;
  CC_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  CC_MPI(MPI_Comm_size(node, &ranks_on_node));
  CC_MPI(MPI_Comm_free(&node));
  int64_t ram = (int64_t)sysconf(_SC_PHYS_PAGES) * (int64_t)sysconf(_SC_PAGESIZE);
  CC_CHECK(ram > 0, CC_ERR_SYS, "cannot read this node's RAM size (sysconf): no memory limit");
  int64_t limit = (int64_t)(opts->memory_fraction * (double)ram / ranks_on_node);
  if (limit < 1) limit = 1; /* 0 means "no limit" to the mesh library */
  cc_err err = cc_mesh_params_validate(&opts->mesh, ranks, limit);
  if (err == CC_ERR_MEM) {
    /* a mesh too large for the memory limit is bad input (exit 2), like any other refused size */
    char message[600];
    const char *inner = strstr(cc_error_message(), "(): ");
    snprintf(message, sizeof message, "%s", inner ? inner + 4 : cc_error_message());
    cc_error_clear();
    CC_FAIL(CC_ERR_ARG, "%s (--memory-fraction %g of %.1f GiB RAM, %d ranks on this node)", message,
            opts->memory_fraction, (double)ram / (1 << 30), ranks_on_node);
  }
  CC_CALL(err);
  if (!strcmp(opts->checkpoint, "gas")) CC_CALL(cc_driver_gas_validate(opts, comm));
  return CC_OK;
}
