/* options.c: the driver's options, one table for parsing, --help and the report (PETSc-like
 * -key value handling, with GNU-style --key value / --key=value). */
#include "cc_driver.h"
#include "cc_io.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum { OPT_INT, OPT_DOUBLE, OPT_STRING, OPT_CHOICE, OPT_SIZE, OPT_FLAG } opt_type;

/* Where an OPT_CHOICE option takes its names from: the registries of solvers/ and io/ (and two
 * lists of the driver's own). The option holds the index of the name chosen (an enum value). */
typedef enum {
  CHOICES_NONE,
  CHOICES_PARTITION,  /* cc_partition_kind */
  CHOICES_SOLVER,     /* cc_krylov_list, or CC_CHOICE_ALL */
  CHOICES_REDUCTION,  /* cc_reduction_list (cc_reduction_mode), or CC_CHOICE_ALL */
  CHOICES_PROGRESS,   /* cc_progress_list (cc_progress_mode) */
  CHOICES_PRECOND,    /* cc_precond_list */
  CHOICES_ORDERING,   /* cc_ordering_list */
  CHOICES_CHECKPOINT, /* cc_io_backend_name() (built backends only), or CC_CHOICE_NONE */
  CHOICES_TIMING,     /* CC_TIMING_OFF, CC_TIMING_ON */
  CHOICES_OVERLAP,    /* CC_HALO_OVERLAP_OFF, CC_HALO_OVERLAP_ON */
  CHOICES_LEVELS,     /* CC_LEVEL_ORDER_OFF, CC_LEVEL_ORDER_ON */
  CHOICES_PRECISION,  /* cc_precision_list (cc_precision) */
  CHOICES_SSTEP_BASIS /* cc_sstep_basis_list (cc_sstep_basis) */
} choice_list;

typedef struct {
  const char *name;
  opt_type type;
  size_t offset;
  const char *default_value; /* parsed like user input at start-up */
  choice_list choices;       /* OPT_CHOICE only */
  const char *help;
} opt_spec;

static const cc_mode_kind partition_list[] = {
    [CC_PARTITION_BOX]   = {"box", "px x py x pz boxes of nodes"},
    [CC_PARTITION_METIS] = {"metis", "METIS k-way partition of the node graph"},
};
static const cc_mode_kind timing_list[] = {
    [CC_TIMING_OFF] = {"off", "operation counts only"},
    [CC_TIMING_ON]  = {"on", "per-kernel timers"},
};
static const cc_mode_kind halo_overlap_list[] = {
    [CC_HALO_OVERLAP_OFF] = {"off", "wait for the whole halo before any row"},
    [CC_HALO_OVERLAP_ON]  = {"on", "interior rows while the halo messages fly, then the others"},
};
static const cc_mode_kind level_order_list[] = {
    [CC_LEVEL_ORDER_OFF] = {"off", "SpMV by ascending rows, SGS sweeps color by color (Nakajima)"},
    [CC_LEVEL_ORDER_ON]  = {"on", "cm-rcm: SpMV level by level, SGS sweeps in chunks of levels"},
};
#define LIST_LENGTH(list) ((int)(sizeof list / sizeof list[0]))

/* Entry i of a choice list (NULL past the end); *description gets its one-line help. */
static const char *choice_name(choice_list list, int i, const char **description)
{
  const char *name = NULL, *text = NULL;
  if (i < 0) return NULL;
  switch (list) {
  case CHOICES_NONE:
    break;
  case CHOICES_PARTITION:
    if (i < LIST_LENGTH(partition_list))
      name = partition_list[i].name, text = partition_list[i].description;
    break;
  case CHOICES_SOLVER:
    for (int k = 0; cc_krylov_list[k]; k++)
      if (k == i) name = cc_krylov_list[k]->name, text = cc_krylov_list[k]->description;
    break;
  case CHOICES_REDUCTION:
    if (i < CC_REDUCTION_COUNT)
      name = cc_reduction_list[i].name, text = cc_reduction_list[i].description;
    break;
  case CHOICES_PROGRESS:
    if (i < CC_PROGRESS_COUNT)
      name = cc_progress_list[i].name, text = cc_progress_list[i].description;
    break;
  case CHOICES_PRECOND:
    for (int k = 0; cc_precond_list[k].name; k++)
      if (k == i) name = cc_precond_list[k].name, text = cc_precond_list[k].description;
    break;
  case CHOICES_ORDERING:
    for (int k = 0; cc_ordering_list[k].name; k++)
      if (k == i) name = cc_ordering_list[k].name, text = cc_ordering_list[k].description;
    break;
  case CHOICES_CHECKPOINT:
    name = cc_io_backend_name(i);
    text = "";
    break;
  case CHOICES_TIMING:
    if (i < LIST_LENGTH(timing_list)) name = timing_list[i].name, text = timing_list[i].description;
    break;
  case CHOICES_OVERLAP:
    if (i < LIST_LENGTH(halo_overlap_list))
      name = halo_overlap_list[i].name, text = halo_overlap_list[i].description;
    break;
  case CHOICES_LEVELS:
    if (i < LIST_LENGTH(level_order_list))
      name = level_order_list[i].name, text = level_order_list[i].description;
    break;
  case CHOICES_PRECISION:
    if (i < CC_PRECISION_COUNT)
      name = cc_precision_list[i].name, text = cc_precision_list[i].description;
    break;
  case CHOICES_SSTEP_BASIS:
    if (i < CC_SSTEP_BASIS_COUNT)
      name = cc_sstep_basis_list[i].name, text = cc_sstep_basis_list[i].description;
    break;
  }
  if (description) *description = text;
  return name;
}

/* The value beside a list's entries (stored as CC_CHOICE_ALL = CC_CHOICE_NONE), NULL if none. */
static const char *choice_extra(choice_list list)
{
  return list == CHOICES_SOLVER || list == CHOICES_REDUCTION ? "all"
         : list == CHOICES_CHECKPOINT                        ? ""
                                                             : NULL;
}

static const char *choice_value_name(choice_list list, int value)
{
  if (value == CC_CHOICE_ALL && choice_extra(list)) return choice_extra(list);
  const char *name = choice_name(list, value, NULL);
  return name ? name : "?";
}

/* "a|b|c" of a choice list, for messages and --help. Returns the length the whole text needs:
 * cc_options_parse refuses a registry whose names do not fit (never a silent cut). */
#define CC_CHOICES_TEXT_MAX 256
static size_t choice_names(choice_list list, char *out, size_t size)
{
  size_t needed = 0;
  out[0]        = '\0';
  const char *name;
  for (int i = 0; (name = choice_name(list, i, NULL)) != NULL; i++) {
    size_t used = strlen(out);
    needed += (size_t)snprintf(out + used, size - used, "%s%s", i ? "|" : "", name);
  }
  const char *extra = choice_extra(list);
  if (extra && extra[0]) {
    size_t used = strlen(out);
    needed += (size_t)snprintf(out + used, size - used, "|%s", extra);
  }
  return needed;
}

#define OFF(field) offsetof(cc_options, field)
static const opt_spec option_table[] = {
    {"nx", OPT_INT, OFF(mesh.nx), "16", CHOICES_NONE, "nodes in x (DOF = 3 nx ny nz)"},
    {"ny", OPT_INT, OFF(mesh.ny), "16", CHOICES_NONE, "nodes in y"},
    {"nz", OPT_INT, OFF(mesh.nz), "16", CHOICES_NONE, "nodes in z"},
    {"partition", OPT_CHOICE, OFF(partition), "box", CHOICES_PARTITION,
     "partitioning of the nodes over ranks"},
    {"px", OPT_INT, OFF(mesh.px), "0", CHOICES_NONE, "box partition: ranks in x (0 = choose)"},
    {"py", OPT_INT, OFF(mesh.py), "0", CHOICES_NONE, "box partition: ranks in y (0 = choose)"},
    {"pz", OPT_INT, OFF(mesh.pz), "0", CHOICES_NONE, "box partition: ranks in z (0 = choose)"},
    {"E", OPT_DOUBLE, OFF(mesh.E), "1.0", CHOICES_NONE, "Young's modulus"},
    {"nu", OPT_DOUBLE, OFF(mesh.nu), "0.3", CHOICES_NONE, "Poisson's ratio (0 <= nu < 0.5)"},
    {"traction", OPT_DOUBLE, OFF(mesh.traction), "1.0", CHOICES_NONE,
     "uniform traction in +z on z = zmax"},
    {"tol", OPT_DOUBLE, OFF(tol), "1e-8", CHOICES_NONE, "stopping rule |r|/|b| < tol"},
    {"maxit", OPT_INT, OFF(maxit), "20000", CHOICES_NONE, "maximum iterations"},
    {"solver", OPT_CHOICE, OFF(solver), "pcg", CHOICES_SOLVER, "CG variant, or all"},
    {"reduction", OPT_CHOICE, OFF(reduction), "ar", CHOICES_REDUCTION,
     "global reductions, or all (each variant with the ones it has)"},
    {"replace-every", OPT_INT, OFF(replace_every), "50", CHOICES_NONE,
     "residual replacement r = b - Ax every N iterations (0 = off; auto = when the estimated "
     "gap |b - Ax - r|/|b| needs it)"},
    {"pipeline-depth", OPT_INT, OFF(pipeline_depth), "2", CHOICES_NONE,
     "plcg: pipeline depth L, 1..8 (reductions hidden behind L SpMV + M^-1)"},
    {"spectrum-bounds", OPT_STRING, OFF(spectrum_bounds), "", CHOICES_NONE,
     "plcg, sstep: LMIN,LMAX of M^-1 A for the shifts / basis (empty = Lanczos estimate)"},
    {"sstep", OPT_INT, OFF(sstep), "4", CHOICES_NONE,
     "sstep: steps per block S, 1..10 (one reduction per S iterations)"},
    {"sstep-basis", OPT_CHOICE, OFF(sstep_basis), "chebyshev", CHOICES_SSTEP_BASIS,
     "sstep: polynomials of the block's Krylov basis"},
    {"fused", OPT_FLAG, OFF(fused), "1", CHOICES_NONE,
     "fused vector kernels: a variant's updates and dots in as few passes as it allows (0|1)"},
    {"residual-history", OPT_FLAG, OFF(residual_history), "0", CHOICES_NONE,
     "report every iteration's recursive |r|/|b| (solves[].residual_history)"},
    {"progress", OPT_CHOICE, OFF(progress), "none", CHOICES_PROGRESS,
     "progress of a pending non-blocking reduction"},
    {"inject-reduction-latency", OPT_DOUBLE, OFF(inject_latency_us), "0", CHOICES_NONE,
     "SIMULATED: every global reduction completes no earlier than USEC after it was posted"},
    {"precond", OPT_CHOICE, OFF(precond), "asdd", CHOICES_PRECOND, "preconditioner"},
    {"ordering", OPT_CHOICE, OFF(ordering), "cm-rcm", CHOICES_ORDERING,
     "node ordering for the SGS sweeps"},
    {"colors", OPT_INT, OFF(colors), "10", CHOICES_NONE, "K of CM-RCM(K) / MC(K), >= 2"},
    {"asdd-iters", OPT_INT, OFF(asdd_iters), "2", CHOICES_NONE,
     "ASDD iterations (1 = localized block Jacobi SGS)"},
    {"precond-precision", OPT_CHOICE, OFF(precond_precision), "double", CHOICES_PRECISION,
     "precision of the preconditioner's stored blocks"},
    {"report", OPT_STRING, OFF(report), "", CHOICES_NONE, "JSON report file (rank 0 writes it)"},
    {"export-matrix", OPT_STRING, OFF(export_matrix), "", CHOICES_NONE,
     "write the global matrix (Matrix Market, global DOF numbering)"},
    {"export-solution", OPT_STRING, OFF(export_solution), "", CHOICES_NONE,
     "write FILE.h5 + FILE.xmf (hexahedra, displacement) for ParaView/VisIt/meshio"},
    {"checkpoint", OPT_CHOICE, OFF(checkpoint), "", CHOICES_CHECKPOINT,
     "checkpoint backend (empty = no checkpoints; only backends built in)"},
    {"checkpoint-dir", OPT_STRING, OFF(checkpoint_dir), "checkpoints", CHOICES_NONE,
     "checkpoint directory"},
    {"checkpoint-every", OPT_INT, OFF(checkpoint_every), "50", CHOICES_NONE,
     "checkpoint period in iterations"},
    {"checkpoint-keep", OPT_INT, OFF(checkpoint_keep), "2", CHOICES_NONE,
     "checkpoints kept (>= 1)"},
    {"checkpoint-exact", OPT_FLAG, OFF(checkpoint_exact), "0", CHOICES_NONE,
     "plcg, sstep: restart the recurrence after each checkpoint so that a restart continues bit "
     "for bit (costs iterations) (0|1)"},
    {"durable", OPT_FLAG, OFF(durable), "1", CHOICES_NONE,
     "fsync checkpoint files and directories (0|1)"},
    {"io-buffer", OPT_SIZE, OFF(io_buffer), "512k", CHOICES_NONE,
     "stdio buffer of the posix backend (setvbuf)"},
    {"io-fallback", OPT_FLAG, OFF(io_fallback), "0", CHOICES_NONE,
     "allow the uring backend's explicit fallback chain (else a clear error)"},
    {"checkpoint-overwrite", OPT_FLAG, OFF(checkpoint_overwrite), "0", CHOICES_NONE,
     "replace cubecg's own checkpoints of another problem, or newer ones of this problem, in "
     "--checkpoint-dir (else refused; other files are never removed)"},
    {"gas-page", OPT_SIZE, OFF(gas_page), "4M", CHOICES_NONE,
     "gas checkpoints: page of the global memory store (power of two >= 4k)"},
    {"gas-dram", OPT_SIZE, OFF(gas_dram), "64M", CHOICES_NONE,
     "gas checkpoints: DRAM page cache per rank (>= one page; LRU pages go to the SSD file)"},
    {"gas-ssd-bytes", OPT_SIZE, OFF(gas_ssd_bytes), "0", CHOICES_NONE,
     "gas checkpoints: SSD capacity per owner (0 = free space of the SSD directory)"},
    {"gas-ssd-dir", OPT_STRING, OFF(gas_ssd_dir), "", CHOICES_NONE,
     "gas checkpoints: the owners' page files (empty = inside each checkpoint directory)"},
    {"restart", OPT_STRING, OFF(restart), "", CHOICES_NONE,
     "resume from the newest complete checkpoint in DIR (problem options left at their default "
     "come from its manifest)"},
    {"timing", OPT_CHOICE, OFF(timing), "on", CHOICES_TIMING, "per-kernel timers"},
    {"precision-reference", OPT_FLAG, OFF(precision_reference), "0", CHOICES_NONE,
     "with --precond-precision single|half: each solve again with the double preconditioner; "
     "the summary and report compare iterations (bound +10 %)"},
    {"roofline", OPT_FLAG, OFF(roofline), "0", CHOICES_NONE,
     "STREAM triad (arrays 4x the LLC per node) before and after each solve: roofline_fraction"},
    {"halo-overlap", OPT_CHOICE, OFF(halo_overlap), "on", CHOICES_OVERLAP,
     "hide SpMV's and ASDD's halo exchange behind the rows that need no halo value"},
    {"level-order", OPT_CHOICE, OFF(level_order), "on", CHOICES_LEVELS,
     "visit CM-RCM's rows level by level where the order is free (same bits; keeps the vectors a "
     "row reads in cache)"},
    {"sweep-chunk-rows", OPT_INT, OFF(sweep_chunk_rows), "0", CHOICES_NONE,
     "--level-order on: rows per chunk of levels in the SGS sweeps (0 = 65536)"},
    {"analytic-tol", OPT_DOUBLE, OFF(analytic_tol), "1e-6", CHOICES_NONE,
     "built-in check: max relative error against the analytic solution"},
    {"memory-fraction", OPT_DOUBLE, OFF(memory_fraction), "0.8", CHOICES_NONE,
     "refuse meshes whose estimate exceeds this fraction of the node's RAM, in [0.001, 1]"},
    {"placement", OPT_STRING, OFF(placement), "", CHOICES_NONE,
     "name of the rank/thread placement, echoed in the report (else CUBECG_PLACEMENT)"},
    {"quiet", OPT_FLAG, OFF(quiet), "0", CHOICES_NONE,
     "no stage, checkpoint, summary lines (an explicit --monitor N still prints)"},
    {"monitor", OPT_INT, OFF(monitor), "0", CHOICES_NONE,
     "print |r|/|b|, ms/it, time left every N iterations (0 = after 3 s, then every 10 s; -1 off)"},
    {"export-deformed", OPT_FLAG, OFF(export_deformed), "0", CHOICES_NONE,
     "with --export-solution: also x + u (attribute, and FILE-deformed.xmf)"},
    {"options-file", OPT_STRING, OFF(options_file), "", CHOICES_NONE,
     "read options from FILE (words as on the command line, # comments; see README)"},
    {"version", OPT_FLAG, OFF(version), "0", CHOICES_NONE, "print the version and build (also -V)"},
    {"help", OPT_FLAG, OFF(help), "0", CHOICES_NONE, "print this help (also -h)"},
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
    if (spec->offset == OFF(replace_every) && strcmp(text, "auto") == 0) {
      *(int *)field = CC_REPLACE_AUTO; /* the residual-gap guard */
      break;
    }
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
    const char *extra = choice_extra(spec->choices);
    int found         = extra && strcmp(text, extra) == 0 ? CC_CHOICE_ALL : -2;
    for (int i = 0; found == -2 && choice_name(spec->choices, i, NULL); i++)
      if (strcmp(text, choice_name(spec->choices, i, NULL)) == 0) found = i;
    char names[CC_CHOICES_TEXT_MAX];
    choice_names(spec->choices, names, sizeof names);
    CC_CHECK(found != -2, CC_ERR_ARG, "%s--%s: unknown value '%s' (choose %s)", where, spec->name,
             text, names);
    *(int *)field = found;
    break;
  }
  case OPT_STRING:
    CC_CHECK(strlen(text) < CC_PATH_MAX, CC_ERR_ARG, "%s--%s: value too long", where, spec->name);
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
  for (int i = 0; i < N_OPTIONS; i++) {
    char names[CC_CHOICES_TEXT_MAX];
    size_t needed = choice_names(option_table[i].choices, names, sizeof names);
    CC_CHECK(needed < sizeof names, CC_ERR_CHECK,
             "the names of --%s need %zu bytes, more than CC_CHOICES_TEXT_MAX = %d",
             option_table[i].name, needed + 1, CC_CHOICES_TEXT_MAX);
    CC_CALL(set_option(&option_table[i], option_table[i].default_value, "", opts));
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
    if (spec->choices) {
      char names[CC_CHOICES_TEXT_MAX];
      choice_names(spec->choices, names, sizeof names);
      fprintf(out, " {%s}", names);
    }
    fputc('\n', out);
    const char *text;
    for (int c = 0; spec->choices && choice_name(spec->choices, c, &text); c++)
      if (text[0])
        fprintf(out, "  %33s%-14s %s%s\n", "", choice_name(spec->choices, c, NULL), text,
                spec->choices == CHOICES_SOLVER && !cc_krylov_list[c]->supports_iar
                    ? " (reduction ar only)"
                    : "");
  }
  fprintf(
      out,
      "\nenvironment: OMP_NUM_THREADS (threads per rank; unset: CPUs per host / ranks per host),\n"
      "CUBECG_PLACEMENT (placement name when --placement is not given), the progress thread of\n"
      "the MPI library loaded: MPICH MPIR_CVAR_ASYNC_PROGRESS=1 or MPICH_ASYNC_PROGRESS=1 (then\n"
      "MPI_THREAD_MULTIPLE; pin MPIR_CVAR_PROGRESS_THREAD_AFFINITY), Intel MPI\n"
      "I_MPI_ASYNC_PROGRESS=1 (I_MPI_ASYNC_PROGRESS_THREADS, pin I_MPI_ASYNC_PROGRESS_PIN), Cray\n"
      "MPICH MPICH_ASYNC_PROGRESS=1 with MPICH_MAX_THREAD_SAFETY=multiple, MVAPICH\n"
      "MV2_ASYNC_PROGRESS=1; Open MPI has none (a knob set there is refused: --progress poll);\n"
      "CUBECG_IO_INJECT (I/O test seams),\n"
      "CUBECG_KRYLOV_INJECT (solver test seam), CUBECG_SIGNAL_CHECK_EVERY (iterations between\n"
      "signal checks, default 10), CUBECG_OPTIONS (options as on the command line; the command\n"
      "line wins), CUBECG_TRACE=1 (print the file:line trace of an error)\n"
      "signals: SIGTERM, SIGINT, SIGUSR1 stop after the current iteration (last checkpoint,\n"
      "report marked interrupted, exit code 4); a second one kills at once\n");
  if (!cc_build_have_hdf5)
    fprintf(out, "hdf5 checkpoint backend and --export-solution: not in this build (%s)\n",
            cc_build_hdf5);
}

void cc_options_json(const cc_options *opts, cc_json *js)
{
  cc_json_begin_object(js, "parameters");
  for (int i = 0; i < N_OPTIONS; i++) {
    const opt_spec *spec = &option_table[i];
    const char *field    = (const char *)opts + spec->offset;
    if (spec->offset == OFF(replace_every) && *(const int *)field == CC_REPLACE_AUTO)
      cc_json_string(js, spec->name, "auto");
    else if (spec->type == OPT_INT || spec->type == OPT_FLAG)
      cc_json_int(js, spec->name, *(const int *)field);
    else if (spec->type == OPT_DOUBLE)
      cc_json_double(js, spec->name, *(const double *)field);
    else if (spec->type == OPT_SIZE)
      cc_json_int(js, spec->name, *(const int64_t *)field);
    else if (spec->type == OPT_CHOICE)
      cc_json_string(js, spec->name, choice_value_name(spec->choices, *(const int *)field));
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
  CC_CHECK(lstat(path, &st) != 0 || !S_ISLNK(st.st_mode) || stat(path, &st) == 0, CC_ERR_ARG,
           "--%s %s: a symbolic link to a missing file", option, path);
  char resolved[PATH_MAX]; /* a symlink is written through: its target's names are checked */
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, resolved)) path = resolved;
  if (stat(path, &st) == 0) {
    CC_CHECK(!S_ISDIR(st.st_mode), CC_ERR_ARG, "--%s %s: is a directory", option, path);
    if (!S_ISREG(st.st_mode)) {
      CC_CHECK(access(path, W_OK) == 0, CC_ERR_ARG, "--%s %s: not writable: %s", option, path,
               strerror(errno));
      return CC_OK;
    }
  }
  /* the names written: the path itself, its temporary (PATH.tmp) or, for an export, PATH.h5, .xmf,
   * -deformed.xmf; each must fit the file system's limits, and no directory may sit there */
  const char *base            = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  const size_t longest_suffix = sizeof "-deformed.xmf" - 1;
  CC_CHECK(strlen(path) + longest_suffix < CC_PATH_MAX && strlen(base) + longest_suffix <= NAME_MAX,
           CC_ERR_ARG,
           "--%s %.80s...: too long (the file and its temporary or companion names "
           "must fit %d characters a name, %d a path)",
           option, path, NAME_MAX - (int)longest_suffix, CC_PATH_MAX - (int)longest_suffix - 1);
  char tmp[CC_PATH_MAX + 16];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  CC_CHECK(stat(tmp, &st) != 0 || !S_ISDIR(st.st_mode), CC_ERR_ARG,
           "--%s %s: its temporary name %s is a directory", option, path, tmp);
  return cc_check_output_dir(option, path);
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
    cc_path_to_parent(dir, sizeof dir); /* "." and "/" exist: the loop ends */
  }
}

/* The summary saved beside the report (declared in cc_driver.h; here because the options check
 * it before any allocation): a trailing ".json" replaced by ".summary.txt", else appended; none for
 * "-" (stdout) or an existing non-regular target (fifo, device), which is written directly. */
int cc_summary_path(const char *report, char *out, size_t size)
{
  struct stat st;
  if (!report[0] || strcmp(report, "-") == 0) return 0;
  if (stat(report, &st) == 0 && !S_ISREG(st.st_mode)) return 0;
  size_t len  = strlen(report);
  size_t keep = len > 5 && strcmp(report + len - 5, ".json") == 0 ? len - 5 : len;
  int n       = snprintf(out, size, "%.*s.summary.txt", (int)keep, report);
  return n > 0 && (size_t)n < size;
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
    char summary[CC_PATH_MAX + 16]; /* the summary saved beside the report */
    struct stat sst;
    if (!local && cc_summary_path(opts->report, summary, sizeof summary) &&
        stat(summary, &sst) == 0 && S_ISDIR(sst.st_mode))
      local = cc_error_push(CC_ERR_ARG, __FILE__, __LINE__, __func__,
                            "--report %s: its summary %s is a directory", opts->report, summary);
    if (!local) local = check_output_file("export-matrix", opts->export_matrix, 0);
    if (!local) local = check_output_file("export-solution", opts->export_solution, 0);
    if (!local && opts->checkpoint != CC_CHOICE_NONE)
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

/* CUBECG_ROOFLINE_EVERY (src/roofline.c's window length), read here so that --roofline is
 * validated with the other options, before any allocation. */
cc_err cc_roofline_every_env(int *every)
{
  const char *env = getenv("CUBECG_ROOFLINE_EVERY");
  *every          = 0;
  if (!env || !*env) return CC_OK;
  char *end;
  long v = strtol(env, &end, 10);
  CC_CHECK(!*end && v >= 1 && v <= 1 << 30, CC_ERR_ARG,
           "CUBECG_ROOFLINE_EVERY=%s: expected an integer >= 1 (iterations per window)", env);
  *every = (int)v;
  return CC_OK;
}

/* CUBECG_ROOFLINE_TRIAD_MB: MiB of the three triad arrays per node (0 when unset: 4x the LLC),
 * read here so that a bad value is refused with the other options, before any allocation. */
cc_err cc_roofline_triad_env(double *node_bytes)
{
  const char *env = getenv("CUBECG_ROOFLINE_TRIAD_MB");
  *node_bytes     = 0;
  if (!env || !*env) return CC_OK;
  char *end;
  double mb = strtod(env, &end);
  CC_CHECK(!*end && mb >= 1 && mb <= 1e9, CC_ERR_ARG,
           "CUBECG_ROOFLINE_TRIAD_MB=%s: expected a number of MiB in [1, 1e9] (the three triad "
           "arrays per node)",
           env);
  *node_bytes = mb * 1048576.0;
  return CC_OK;
}

/* Whether option name was given (command line, options file or CUBECG_OPTIONS), not defaulted. */
static int option_given(const cc_options *opts, const char *name)
{
  const opt_spec *spec = find_option(name, strlen(name));
  return spec && opts->origin[spec - option_table] != ORIGIN_DEFAULT;
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
    CC_FAIL(CC_ERR_ARG, "--restart %s: %s; name the problem with --nx --ny --nz --solver",
            opts->restart, inner ? inner + 4 : message);
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
    if (!from[i].known || option_given(opts, from[i].option)) continue;
    const opt_spec *spec = find_option(from[i].option, strlen(from[i].option));
    CC_CALL(set_option(spec, from[i].value, where, opts));
  }
  return CC_OK;
}

/* OMP_NUM_THREADS as cubecg reads it: a list of positive integers (the first level is ours);
 * libgomp would only warn about anything else and run with its default, oversubscribing the node.
 */
static cc_err check_omp_num_threads(void)
{
  const char *env = getenv("OMP_NUM_THREADS");
  if (!env) return CC_OK;
  const char *p = env;
  do {
    char *end;
    errno      = 0;
    long value = strtol(p, &end, 10);
    CC_CHECK(
        end != p && errno == 0 && value >= 1 && value <= 4096 && (*end == '\0' || *end == ','),
        CC_ERR_ARG,
        "OMP_NUM_THREADS=%s: expected a positive integer (threads per rank), or a list of them",
        env);
    p = *end == ',' ? end + 1 : end;
  } while (*p);
  return CC_OK;
}

/* Options that do nothing in the chosen configuration: refused when the run would silently differ
 * from what was asked (checkpoint and gas settings without checkpoints or without gas). */
static cc_err check_without_effect(const cc_options *opts)
{
  const char *backend                        = cc_options_checkpoint(opts);
  static const char *const checkpoint_only[] = {
      "checkpoint-every", "checkpoint-keep", "checkpoint-dir", "checkpoint-overwrite", "durable"};
  for (size_t i = 0; !backend && i < sizeof checkpoint_only / sizeof checkpoint_only[0]; i++)
    CC_CHECK(!option_given(opts, checkpoint_only[i]), CC_ERR_ARG,
             "--%s has no effect without --checkpoint BACKEND (no checkpoints are written)",
             checkpoint_only[i]);
  static const char *const gas_only[] = {"gas-page", "gas-dram", "gas-ssd-bytes", "gas-ssd-dir"};
  int gas = (backend && !strcmp(backend, "gas")) || opts->restart[0]; /* a restart may read gas */
  for (size_t i = 0; !gas && i < sizeof gas_only / sizeof gas_only[0]; i++)
    CC_CHECK(!option_given(opts, gas_only[i]), CC_ERR_ARG,
             "--%s has no effect without --checkpoint gas", gas_only[i]);
  /* the SSD directory is a mount the user names: never created (a missing mount would put the
   * pages on another disk) */
  if (opts->gas_ssd_dir[0] && gas) {
    struct stat st;
    const char *why = stat(opts->gas_ssd_dir, &st) != 0 ? strerror(errno)
                      : !S_ISDIR(st.st_mode)            ? "not a directory"
                                                        : NULL;
    CC_CHECK(why == NULL, CC_ERR_ARG,
             "--gas-ssd-dir %s: %s (it is not created: a missing mount would put the pages on "
             "another disk)",
             opts->gas_ssd_dir, why);
  }
  CC_CHECK(!opts->export_deformed || opts->export_solution[0], CC_ERR_ARG,
           "--export-deformed needs --export-solution FILE");
  return CC_OK;
}

cc_err cc_options_validate(const cc_options *opts, MPI_Comm comm)
{
  int ranks;
  CC_MPI(MPI_Comm_size(comm, &ranks));
  CC_CHECK(opts->tol > 0 && opts->tol < 1, CC_ERR_ARG, "--tol %g must be in (0, 1)", opts->tol);
  CC_CHECK(opts->maxit >= 1, CC_ERR_ARG, "--maxit %d must be >= 1", opts->maxit);
  CC_CHECK(opts->replace_every >= 0 || opts->replace_every == CC_REPLACE_AUTO, CC_ERR_ARG,
           "--replace-every %d must be >= 0 or auto", opts->replace_every);
  CC_CHECK(opts->pipeline_depth >= 1 && opts->pipeline_depth <= CC_PLCG_MAX_DEPTH, CC_ERR_ARG,
           "--pipeline-depth %d must be in 1..%d", opts->pipeline_depth, CC_PLCG_MAX_DEPTH);
  CC_CHECK(opts->sstep >= 1 && opts->sstep <= CC_SSTEP_MAX, CC_ERR_ARG,
           "--sstep %d must be in 1..%d", opts->sstep, CC_SSTEP_MAX);
  double spectrum_min, spectrum_max;
  CC_CALL(cc_options_spectrum_bounds(opts, &spectrum_min, &spectrum_max));
  CC_CHECK(opts->colors >= 2, CC_ERR_ARG, "--colors %d must be >= 2", opts->colors);
  CC_CHECK(opts->sweep_chunk_rows >= 0, CC_ERR_ARG, "--sweep-chunk-rows %d must be >= 0",
           opts->sweep_chunk_rows);
  CC_CHECK(opts->asdd_iters >= 1, CC_ERR_ARG, "--asdd-iters %d must be >= 1", opts->asdd_iters);
  CC_CHECK(opts->precond_precision == CC_PRECISION_DOUBLE ||
               cc_precond_list[opts->precond].has_single,
           CC_ERR_ARG,
           "--precond-precision %s: preconditioner '%s' has no %s-precision form (sgs, asdd have)",
           cc_precision_list[opts->precond_precision].name, cc_precond_list[opts->precond].name,
           cc_precision_list[opts->precond_precision].name);
  CC_CHECK(opts->inject_latency_us >= 0 && opts->inject_latency_us <= 1e7, CC_ERR_ARG,
           "--inject-reduction-latency %g must be in [0, 1e7] microseconds",
           opts->inject_latency_us);
  const cc_krylov *variant = cc_options_variant(opts);
  CC_CHECK(!variant || opts->reduction != CC_REDUCTION_IAR || variant->supports_iar, CC_ERR_ARG,
           "--solver %s has no non-blocking variant: use --reduction ar (or all)", variant->name);
  char solvers[CC_CHOICES_TEXT_MAX];
  choice_names(CHOICES_SOLVER, solvers, sizeof solvers);
  *strrchr(solvers, '|') = '\0'; /* without "all" */
  CC_CHECK(!opts->restart[0] || variant, CC_ERR_ARG,
           "--restart %s needs the checkpoint's solver (--solver %s), not all", opts->restart,
           solvers);
  CC_CHECK(opts->checkpoint_every >= 1, CC_ERR_ARG, "--checkpoint-every %d must be >= 1",
           opts->checkpoint_every);
  CC_CALL(check_without_effect(opts));
  CC_CALL(check_omp_num_threads());
  CC_CHECK(opts->checkpoint_keep >= 1, CC_ERR_ARG, "--checkpoint-keep %d must be >= 1",
           opts->checkpoint_keep);
  CC_CHECK(opts->io_buffer >= 512 && opts->io_buffer <= (1LL << 30), CC_ERR_ARG,
           "--io-buffer %lld must be between 512 bytes and 1 GiB", (long long)opts->io_buffer);
  CC_CHECK(opts->monitor >= -1, CC_ERR_ARG, "--monitor %d must be >= -1", opts->monitor);
  CC_CHECK(!opts->export_deformed || opts->export_solution[0], CC_ERR_ARG,
           "--export-deformed needs --export-solution FILE");
  /* the roofline fraction divides by the measured time per iteration */
  CC_CHECK(!opts->roofline || opts->timing == CC_TIMING_ON, CC_ERR_ARG,
           "--roofline needs --timing on (the fraction divides by the time per iteration)");
  int every;
  double triad_node_bytes;
  if (opts->roofline) CC_CALL(cc_roofline_every_env(&every));
  if (opts->roofline) CC_CALL(cc_roofline_triad_env(&triad_node_bytes));
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
  if (opts->precond_precision == CC_PRECISION_SINGLE) {
    /* the float copies of the preconditioner (precond_sgs_single.c: 27 blocks of 9 floats and a
     * float D^-1 per owned node, beside the double matrix), which the mesh library's estimate
     * does not know of: taken off the limit, for the average rank */
    double owned = ceil((double)opts->mesh.nx * opts->mesh.ny * opts->mesh.nz / ranks);
    limit -= (int64_t)(owned * (27.0 * 36.0 + 36.0));
  }
  if (opts->precond_precision == CC_PRECISION_HALF) {
    /* the binary16 copies (precond_sgs_half.c: 27 blocks of 9 halves, a half D^-1 and two double
     * scales per owned node), likewise */
    double owned = ceil((double)opts->mesh.nx * opts->mesh.ny * opts->mesh.nz / ranks);
    limit -= (int64_t)(owned * (27.0 * 18.0 + 18.0 + 16.0));
  }
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
  if (cc_options_checkpoint(opts) && !strcmp(cc_options_checkpoint(opts), "gas"))
    CC_CALL(cc_driver_gas_validate(opts, comm));
  return CC_OK;
}

const char *cc_options_choice(const cc_options *opts, const char *option)
{
  for (int i = 0; i < N_OPTIONS; i++)
    if (option_table[i].type == OPT_CHOICE && strcmp(option_table[i].name, option) == 0)
      return choice_value_name(option_table[i].choices,
                               *(const int *)((const char *)opts + option_table[i].offset));
  return "?";
}

cc_err cc_options_spectrum_bounds(const cc_options *opts, double *lmin, double *lmax)
{
  *lmin = *lmax    = 0.0;
  const char *text = opts->spectrum_bounds;
  if (!text[0]) return CC_OK;
  char *end = NULL;
  errno     = 0;
  double lo = strtod(text, &end);
  int ok    = end != text && *end == ',' && errno == 0;
  double hi = 0.0;
  if (ok) {
    const char *second = end + 1;
    hi                 = strtod(second, &end);
    ok                 = end != second && *end == '\0' && errno == 0;
  }
  CC_CHECK(ok && isfinite(lo) && isfinite(hi), CC_ERR_ARG,
           "--spectrum-bounds '%s': expected LMIN,LMAX (two numbers)", text);
  CC_CHECK(lo >= 0.0 && hi > lo, CC_ERR_ARG,
           "--spectrum-bounds '%s': need 0 <= LMIN < LMAX (M^-1 A is SPD)", text);
  *lmin = lo, *lmax = hi;
  return CC_OK;
}

const cc_krylov *cc_options_variant(const cc_options *opts)
{
  return opts->solver == CC_CHOICE_ALL ? NULL : cc_krylov_list[opts->solver];
}

const char *cc_options_checkpoint(const cc_options *opts)
{
  return opts->checkpoint == CC_CHOICE_NONE ? NULL : cc_io_backend_name(opts->checkpoint);
}
