/* options.c: the driver's options, one table for parsing, --help and the report (PETSc-like
 * -key value handling, with GNU-style --key value / --key=value): the table, its choice lists, one
 * value parsed into its field, --help and the report's echo. The sources of the words are in
 * options_parse.c, the checks across options in options_check.c. */
#include "cc_io.h"
#include "cc_topology.h"
#include "options_impl.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

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
static const cc_mode_kind asdd_residual_list[] = {
    [CC_ASDD_RESIDUAL_FUSED] = {"fused", "t = r - A z fused into the next forward sweep (L and the "
                                         "external blocks only; docs/performance.md)"},
    [CC_ASDD_RESIDUAL_FULL]  = {"full", "t = r - A z in a pass of its own over every block (the "
                                         "study's ASDD)"},
};
static const cc_mode_kind level_order_list[] = {
    [CC_LEVEL_ORDER_OFF] = {"off", "SpMV by ascending rows, SGS sweeps color by color (Nakajima)"},
    [CC_LEVEL_ORDER_ON]  = {"on", "cm-rcm: SpMV level by level, SGS sweeps in chunks of levels"},
};
static const cc_mode_kind overlap_probe_list[] = {
    [CC_OVERLAP_PROBE_OFF] = {"off", "no start-up probe (the report says it was skipped)"},
    [CC_OVERLAP_PROBE_ON]  = {"on", "IMB-NBC overlap of the reductions with SpMV, measured"},
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
  case CHOICES_ASDD_RESIDUAL:
    if (i < LIST_LENGTH(asdd_residual_list))
      name = asdd_residual_list[i].name, text = asdd_residual_list[i].description;
    break;
  case CHOICES_OVERLAP_PROBE:
    if (i < LIST_LENGTH(overlap_probe_list))
      name = overlap_probe_list[i].name, text = overlap_probe_list[i].description;
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

size_t cc_option_choice_names(choice_list list, char *out, size_t size)
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
const opt_spec cc_option_table[] = {
    {"nx", OPT_INT, OFF(mesh.nx), "16", CHOICES_NONE, "nodes in x (DOF = 3 nx ny nz)", NULL,
     NEEDS_NOTHING, SETTING_FIXED},
    {"ny", OPT_INT, OFF(mesh.ny), "16", CHOICES_NONE, "nodes in y", NULL, NEEDS_NOTHING,
     SETTING_FIXED},
    {"nz", OPT_INT, OFF(mesh.nz), "16", CHOICES_NONE, "nodes in z", NULL, NEEDS_NOTHING,
     SETTING_FIXED},
    {"partition", OPT_CHOICE, OFF(partition), "box", CHOICES_PARTITION,
     "partitioning of the nodes over ranks", NULL, NEEDS_NOTHING, SETTING_DECOMPOSITION},
    {"px", OPT_INT, OFF(mesh.px), "0", CHOICES_NONE, "box partition: ranks in x (0 = choose)", NULL,
     NEEDS_NOTHING, SETTING_DECOMPOSITION},
    {"py", OPT_INT, OFF(mesh.py), "0", CHOICES_NONE, "box partition: ranks in y (0 = choose)", NULL,
     NEEDS_NOTHING, SETTING_DECOMPOSITION},
    {"pz", OPT_INT, OFF(mesh.pz), "0", CHOICES_NONE, "box partition: ranks in z (0 = choose)", NULL,
     NEEDS_NOTHING, SETTING_DECOMPOSITION},
    {"E", OPT_DOUBLE, OFF(mesh.E), "1.0", CHOICES_NONE, "Young's modulus", NULL, NEEDS_NOTHING,
     SETTING_FIXED},
    {"nu", OPT_DOUBLE, OFF(mesh.nu), "0.3", CHOICES_NONE, "Poisson's ratio (0 <= nu < 0.5)", NULL,
     NEEDS_NOTHING, SETTING_FIXED},
    {"traction", OPT_DOUBLE, OFF(mesh.traction), "1.0", CHOICES_NONE,
     "uniform traction in +z on z = zmax", NULL, NEEDS_NOTHING, SETTING_FIXED},
    {"tol", OPT_DOUBLE, OFF(tol), "1e-8", CHOICES_NONE, "stopping rule |r|/|b| < tol", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"maxit", OPT_INT, OFF(maxit), "20000", CHOICES_NONE, "maximum iterations", NULL, NEEDS_NOTHING,
     SETTING_NO},
    {"solver", OPT_CHOICE, OFF(solver), "pcg", CHOICES_SOLVER, "CG variant, or all", NULL,
     NEEDS_NOTHING, SETTING_FIXED},
    {"reduction", OPT_CHOICE, OFF(reduction), "ar", CHOICES_REDUCTION,
     "global reductions, or all (each variant with the ones it has)", NULL, NEEDS_NOTHING,
     SETTING_FIXED},
    {"replace-every", OPT_INT, OFF(replace_every), "50", CHOICES_NONE,
     "residual replacement r = b - Ax every N iterations (0 = off; auto = when the estimated "
     "gap |b - Ax - r|/|b| needs it)",
     "pcg cgcg pipecg gropp", NEEDS_NOTHING, SETTING_FIXED},
    {"pipeline-depth", OPT_INT, OFF(pipeline_depth), "2", CHOICES_NONE,
     "plcg: pipeline depth L, 1..8 (reductions hidden behind L SpMV + M^-1)", "plcg", NEEDS_NOTHING,
     SETTING_FIXED},
    {"spectrum-bounds", OPT_STRING, OFF(spectrum_bounds), "", CHOICES_NONE,
     "plcg, sstep: LMIN,LMAX of M^-1 A for the shifts / basis (empty = Lanczos estimate)",
     "plcg sstep", NEEDS_NOTHING, SETTING_FIXED},
    {"sstep", OPT_INT, OFF(sstep), "4", CHOICES_NONE,
     "sstep: steps per block S, 1..10 (one reduction per S iterations)", "sstep", NEEDS_NOTHING,
     SETTING_FIXED},
    {"sstep-basis", OPT_CHOICE, OFF(sstep_basis), "chebyshev", CHOICES_SSTEP_BASIS,
     "sstep: polynomials of the block's Krylov basis", "sstep", NEEDS_NOTHING, SETTING_FIXED},
    {"fused", OPT_FLAG, OFF(fused), "1", CHOICES_NONE,
     "fused vector kernels: a variant's updates and dots in as few passes as it allows (0|1)", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"residual-history", OPT_FLAG, OFF(residual_history), "0", CHOICES_NONE,
     "report every iteration's recursive |r|/|b| (solves[].residual_history)", NULL, NEEDS_NOTHING,
     SETTING_NO},
    {"progress", OPT_CHOICE, OFF(progress), "none", CHOICES_PROGRESS,
     "progress of a pending non-blocking reduction", NULL, NEEDS_NOTHING, SETTING_NO},
    {"overlap-probe", OPT_CHOICE, OFF(overlap_probe), "on", CHOICES_OVERLAP_PROBE,
     "runs with iar: a start-up probe of how much of a reduction one SpMV hides (report "
     "overlap_probe)", NULL, NEEDS_NOTHING, SETTING_NO},
    {"inject-reduction-latency", OPT_DOUBLE, OFF(inject_latency_us), "0", CHOICES_NONE,
     "SIMULATED: every global reduction completes no earlier than USEC after it was posted", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"precond", OPT_CHOICE, OFF(precond), "asdd", CHOICES_PRECOND, "preconditioner", NULL,
     NEEDS_NOTHING, SETTING_FIXED},
    {"ordering", OPT_CHOICE, OFF(ordering), "cm-rcm", CHOICES_ORDERING,
     "node ordering for the SGS sweeps", NULL, NEEDS_NOTHING, SETTING_FIXED},
    {"colors", OPT_INT, OFF(colors), "10", CHOICES_NONE, "K of CM-RCM(K) / MC(K), >= 2", NULL,
     NEEDS_COLORED_ORDERING, SETTING_FIXED},
    {"asdd-iters", OPT_INT, OFF(asdd_iters), "2", CHOICES_NONE,
     "ASDD iterations (1 = localized block Jacobi SGS)", NULL, NEEDS_ASDD, SETTING_FIXED},
    {"asdd-residual", OPT_CHOICE, OFF(asdd_residual), "fused", CHOICES_ASDD_RESIDUAL,
     "ASDD's inner residual: fused into the next sweep, or a pass of its own", NULL,
     NEEDS_ASDD_RESIDUAL, SETTING_FIXED},
    {"precond-precision", OPT_CHOICE, OFF(precond_precision), "double", CHOICES_PRECISION,
     "precision of the preconditioner's stored blocks", NULL, NEEDS_NOTHING, SETTING_FIXED},
    {"report", OPT_STRING, OFF(report), "", CHOICES_NONE, "JSON report file (rank 0 writes it)",
     NULL, NEEDS_NOTHING, SETTING_NO},
    {"export-matrix", OPT_STRING, OFF(export_matrix), "", CHOICES_NONE,
     "write the global matrix (Matrix Market, global DOF numbering)", NULL, NEEDS_NOTHING,
     SETTING_NO},
    {"export-solution", OPT_STRING, OFF(export_solution), "", CHOICES_NONE,
     "write FILE.h5 + FILE.xmf (hexahedra, displacement) for ParaView/VisIt/meshio", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"checkpoint", OPT_CHOICE, OFF(checkpoint), "", CHOICES_CHECKPOINT,
     "checkpoint backend (empty = no checkpoints; only backends built in)", NULL, NEEDS_NOTHING,
     SETTING_NO},
    {"checkpoint-dir", OPT_STRING, OFF(checkpoint_dir), "checkpoints", CHOICES_NONE,
     "checkpoint directory", NULL, NEEDS_CHECKPOINT, SETTING_NO},
    {"checkpoint-every", OPT_INT, OFF(checkpoint_every), "50", CHOICES_NONE,
     "checkpoint period in iterations", NULL, NEEDS_CHECKPOINT, SETTING_NO},
    {"checkpoint-keep", OPT_INT, OFF(checkpoint_keep), "2", CHOICES_NONE, "checkpoints kept (>= 1)",
     NULL, NEEDS_CHECKPOINT, SETTING_NO},
    {"checkpoint-exact", OPT_FLAG, OFF(checkpoint_exact), "0", CHOICES_NONE,
     "plcg, sstep: restart the recurrence after each checkpoint so that a restart continues bit "
     "for bit (costs iterations) (0|1)",
     "plcg sstep", NEEDS_CHECKPOINT, SETTING_FIXED},
    {"durable", OPT_FLAG, OFF(durable), "1", CHOICES_NONE,
     "fsync checkpoint files and directories (0|1)", NULL, NEEDS_CHECKPOINT, SETTING_NO},
    {"io-buffer", OPT_SIZE, OFF(io_buffer), "512k", CHOICES_NONE,
     "stdio buffer of the posix backend (setvbuf)", NULL, NEEDS_CHECKPOINT_OR_RESTART, SETTING_NO},
    {"io-writeback", OPT_SIZE, OFF(io_writeback), "16M", CHOICES_NONE,
     "posix, durable checkpoints: start the kernel's writeback every SIZE bytes written "
     "(sync_file_range), so the final fsync waits for less (0: off)",
     NULL, NEEDS_CHECKPOINT, SETTING_NO},
    {"io-fallback", OPT_FLAG, OFF(io_fallback), "0", CHOICES_NONE,
     "allow the uring backend's explicit fallback chain (else a clear error)", NULL,
     NEEDS_CHECKPOINT_OR_RESTART, SETTING_NO},
    {"checkpoint-overwrite", OPT_FLAG, OFF(checkpoint_overwrite), "0", CHOICES_NONE,
     "replace cubecg's own checkpoints of another problem, or newer ones of this problem, in "
     "--checkpoint-dir (else refused; other files are never removed)",
     NULL, NEEDS_CHECKPOINT, SETTING_NO},
    {"gas-page", OPT_SIZE, OFF(gas_page), "4M", CHOICES_NONE,
     "gas checkpoints: page of the global memory store (power of two >= 4k)", NULL,
     NEEDS_GAS_OR_RESTART, SETTING_NO},
    {"gas-dram", OPT_SIZE, OFF(gas_dram), "64M", CHOICES_NONE,
     "gas checkpoints: DRAM page cache per rank (>= one page; LRU pages go to the SSD file)", NULL,
     NEEDS_GAS_OR_RESTART, SETTING_NO},
    {"gas-ssd-bytes", OPT_SIZE, OFF(gas_ssd_bytes), "0", CHOICES_NONE,
     "gas checkpoints: SSD capacity per owner (0 = free space of the SSD directory)", NULL,
     NEEDS_GAS_OR_RESTART, SETTING_NO},
    {"gas-ssd-dir", OPT_STRING, OFF(gas_ssd_dir), "", CHOICES_NONE,
     "gas checkpoints: the owners' page files (empty = inside each checkpoint directory)", NULL,
     NEEDS_GAS_OR_RESTART, SETTING_NO},
    {"restart", OPT_STRING, OFF(restart), "", CHOICES_NONE,
     "resume from the newest complete checkpoint in DIR (the settings left at their default come "
     "from its manifest; one given differently is refused)",
     NULL, NEEDS_NOTHING, SETTING_NO},
    {"timing", OPT_CHOICE, OFF(timing), "on", CHOICES_TIMING, "per-kernel timers", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"precision-reference", OPT_FLAG, OFF(precision_reference), "0", CHOICES_NONE,
     "with --precond-precision single|half: each solve again with the double preconditioner; "
     "the summary and report compare iterations (bound +10 %)",
     NULL, NEEDS_LOW_PRECISION, SETTING_NO},
    {"roofline", OPT_FLAG, OFF(roofline), "0", CHOICES_NONE,
     "STREAM triad (arrays 4x the LLC per node) before and after each solve: roofline_fraction",
     NULL, NEEDS_NOTHING, SETTING_NO},
    {"halo-overlap", OPT_CHOICE, OFF(halo_overlap), "on", CHOICES_OVERLAP,
     "hide SpMV's and ASDD's halo exchange behind the rows that need no halo value", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"level-order", OPT_CHOICE, OFF(level_order), "on", CHOICES_LEVELS,
     "visit CM-RCM's rows level by level where the order is free (same bits; keeps the vectors a "
     "row reads in cache)",
     NULL, NEEDS_NOTHING, SETTING_NO},
    {"sweep-chunk-rows", OPT_INT, OFF(sweep_chunk_rows), "0", CHOICES_NONE,
     "--level-order on: rows per chunk of levels in the SGS sweeps (0 = 65536)", NULL,
     NEEDS_LEVEL_ORDER, SETTING_NO},
    {"analytic-tol", OPT_DOUBLE, OFF(analytic_tol), "1e-6", CHOICES_NONE,
     "built-in check: max relative error against the analytic solution", NULL, NEEDS_NOTHING,
     SETTING_NO},
    {"memory-fraction", OPT_DOUBLE, OFF(memory_fraction), "0.8", CHOICES_NONE,
     "refuse meshes whose estimate exceeds this fraction of the node's RAM, in [0.001, 1]", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"placement", OPT_STRING, OFF(placement), "", CHOICES_NONE,
     "name of the rank/thread placement, echoed in the report (else CUBECG_PLACEMENT)", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"quiet", OPT_FLAG, OFF(quiet), "0", CHOICES_NONE,
     "no stage, checkpoint, summary lines (an explicit --monitor N still prints)", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"monitor", OPT_INT, OFF(monitor), "0", CHOICES_NONE,
     "print |r|/|b|, ms/it, time left every N iterations (0 = after 3 s, then every 10 s; -1 off)",
     NULL, NEEDS_NOTHING, SETTING_NO},
    {"export-deformed", OPT_FLAG, OFF(export_deformed), "0", CHOICES_NONE,
     "with --export-solution: also x + u (attribute, and FILE-deformed.xmf)", NULL,
     NEEDS_EXPORT_SOLUTION, SETTING_NO},
    {"trace", OPT_STRING, OFF(trace), "", CHOICES_NONE,
     "write an OTF2 trace of every rank's solve iterations into DIR (DIR/traces.otf2)", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"trace-iterations", OPT_INT, OFF(trace_iterations), "10", CHOICES_NONE,
     "with --trace: iterations each solve records (0 = all)", NULL, NEEDS_TRACE, SETTING_NO},
    {"options-file", OPT_STRING, OFF(options_file), "", CHOICES_NONE,
     "read options from FILE (words as on the command line, # comments; see README)", NULL,
     NEEDS_NOTHING, SETTING_NO},
    {"version", OPT_FLAG, OFF(version), "0", CHOICES_NONE, "print the version and build (also -V)",
     NULL, NEEDS_NOTHING, SETTING_NO},
    {"help", OPT_FLAG, OFF(help), "0", CHOICES_NONE, "print this help (also -h)", NULL,
     NEEDS_NOTHING, SETTING_NO},
};
const int cc_option_count = (int)(sizeof cc_option_table / sizeof cc_option_table[0]);
_Static_assert(sizeof cc_option_table / sizeof cc_option_table[0] <= CC_MAX_OPTIONS,
               "raise CC_MAX_OPTIONS in options.h");

static const char *const origin_name[] = {"default", "file", "env", "cmdline", "checkpoint"};

static cc_err parse_size(const char *where, const char *name, const char *text, int64_t *out)
{
  /* the project's one strict byte-size parser; the option's name in front of its message */
  if (cc_parse_bytes(text, out) == CC_OK) return CC_OK;
  cc_error_clear();
  CC_FAIL(CC_ERR_ARG,
          "%s--%s: '%s' is not a size (an integer with optional k, M, G: e.g. 8k, 512k, 4M)", where,
          name, text);
}

cc_err cc_option_set(const opt_spec *spec, const char *text, const char *where, cc_options *opts)
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
    /* -1 is CC_REPLACE_AUTO inside: only the word auto means the guard */
    CC_CHECK(spec->offset != OFF(replace_every) || value >= 0, CC_ERR_ARG,
             "%s--replace-every '%s': must be >= 0 (0 = off) or auto", where, text);
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
    cc_option_choice_names(spec->choices, names, sizeof names);
    CC_CHECK(found != -2, CC_ERR_ARG, "%s--%s: unknown value '%s' (choose %s)", where, spec->name,
             text, names);
    *(int *)field = found;
    break;
  }
  case OPT_STRING: {
    /* every string field holds CC_PATH_MAX bytes but --spectrum-bounds' */
    const size_t capacity =
        spec->offset == OFF(spectrum_bounds) ? sizeof opts->spectrum_bounds : CC_PATH_MAX;
    CC_CHECK(strlen(text) < capacity, CC_ERR_ARG, "%s--%s: value too long (at most %zu bytes)",
             where, spec->name, capacity - 1);
    strcpy(field, text);
    break;
  }
  }
  return CC_OK;
}

const opt_spec *cc_option_find(const char *key, size_t length)
{
  for (int i = 0; i < cc_option_count; i++)
    if (strlen(cc_option_table[i].name) == length &&
        strncmp(cc_option_table[i].name, key, length) == 0)
      return &cc_option_table[i];
  return NULL;
}

int cc_option_from_user(const cc_options *opts, const opt_spec *spec)
{
  const int origin = opts->origin[spec - cc_option_table];
  return origin == ORIGIN_FILE || origin == ORIGIN_ENV || origin == ORIGIN_CMDLINE;
}

const char *cc_option_source(const cc_options *opts, const opt_spec *spec)
{
  static char text[4][CC_PATH_MAX + 48];
  static int next;
  char *out        = text[next++ % 4];
  const size_t i   = (size_t)(spec - cc_option_table);
  const int origin = opts->origin[i];
  if (origin == ORIGIN_FILE)
    snprintf(out, sizeof text[0], " (options file %s:%d)", opts->origin_file, opts->origin_line[i]);
  else
    snprintf(out, sizeof text[0], "%s",
             origin == ORIGIN_ENV          ? " (CUBECG_OPTIONS)"
             : origin == ORIGIN_CMDLINE    ? " (command line)"
             : origin == ORIGIN_CHECKPOINT ? " (the --restart checkpoint's manifest)"
                                           : "");
  return out;
}

void cc_option_value_text(const opt_spec *spec, const cc_options *opts, char *out, size_t size)
{
  const char *field = (const char *)opts + spec->offset;
  if (spec->offset == OFF(replace_every) && *(const int *)field == CC_REPLACE_AUTO)
    snprintf(out, size, "auto");
  else if (spec->type == OPT_INT || spec->type == OPT_FLAG)
    snprintf(out, size, "%d", *(const int *)field);
  else if (spec->type == OPT_DOUBLE)
    snprintf(out, size, "%.17g", *(const double *)field);
  else if (spec->type == OPT_SIZE)
    snprintf(out, size, "%lld", (long long)*(const int64_t *)field);
  else if (spec->type == OPT_CHOICE)
    snprintf(out, size, "%s", choice_value_name(spec->choices, *(const int *)field));
  else
    snprintf(out, size, "%s", field);
}

/* Whether variant name is one of the words of list ("plcg sstep"). */
static int variant_listed(const char *list, const char *name)
{
  const size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  return 0;
}

/* What needs asks of the configuration; NULL when opts has it, else the text for messages. */
static const char *needs_missing(opt_needs needs, const cc_options *opts)
{
  const char *backend = cc_options_checkpoint(opts);
  switch (needs) {
  case NEEDS_NOTHING:
    return NULL;
  case NEEDS_CHECKPOINT:
    return backend ? NULL : "--checkpoint BACKEND (no checkpoints are written)";
  case NEEDS_CHECKPOINT_OR_RESTART:
    return backend || opts->restart[0] ? NULL : "--checkpoint BACKEND or --restart DIR";
  case NEEDS_GAS_OR_RESTART:
    return (backend && !strcmp(backend, "gas")) || opts->restart[0] ? NULL : "--checkpoint gas";
  case NEEDS_LOW_PRECISION:
    return opts->precond_precision != CC_PRECISION_DOUBLE ? NULL
                                                          : "--precond-precision single|half";
  case NEEDS_ASDD_RESIDUAL:
    return cc_options_asdd_residual(opts)[0] ? NULL : "--precond asdd with --asdd-iters >= 2";
  case NEEDS_EXPORT_SOLUTION:
    return opts->export_solution[0] ? NULL : "--export-solution FILE";
  case NEEDS_TRACE:
    return opts->trace[0] ? NULL : "--trace DIR";
  case NEEDS_COLORED_ORDERING:
    return cc_ordering_list[opts->ordering].needs_colors ? NULL : "--ordering mc|cm-rcm";
  case NEEDS_ASDD:
    return strcmp(cc_precond_list[opts->precond].name, "asdd") == 0 ? NULL : "--precond asdd";
  case NEEDS_LEVEL_ORDER:
    return opts->level_order == CC_LEVEL_ORDER_ON &&
                   strcmp(cc_ordering_list[opts->ordering].name, "cm-rcm") == 0
               ? NULL
               : "--ordering cm-rcm with --level-order on";
  }
  return NULL;
}

int cc_option_applies(const opt_spec *spec, const cc_options *opts, char *why, size_t size)
{
  char value[CC_PATH_MAX];
  cc_option_value_text(spec, opts, value, sizeof value);
  if (spec->variants) {
    int any = 0;
    for (int i = 0; cc_krylov_list[i] && !any; i++)
      any = (opts->solver == CC_CHOICE_ALL || opts->solver == i) &&
            variant_listed(spec->variants, cc_krylov_list[i]->name);
    if (!any) {
      char wanted[CC_CHOICES_TEXT_MAX];
      snprintf(wanted, sizeof wanted, "%s", spec->variants);
      for (char *c = wanted; *c; c++) *c = *c == ' ' ? '|' : *c;
      snprintf(why, size, "--%s %s applies to --solver %s (got %s)", spec->name, value, wanted,
               cc_options_choice(opts, "solver"));
      return 0;
    }
  }
  const char *missing = needs_missing(spec->needs, opts);
  if (missing) snprintf(why, size, "--%s has no effect without %s", spec->name, missing);
  return missing == NULL;
}

/* --help's "[setting]" (recorded in checkpoints, taken by a restart) and "[applies to: ...]" */
static void print_applies(FILE *out, const opt_spec *spec)
{
  static const char *const needs_text[] = {
      [NEEDS_CHECKPOINT]            = "--checkpoint",
      [NEEDS_CHECKPOINT_OR_RESTART] = "--checkpoint or --restart",
      [NEEDS_GAS_OR_RESTART]        = "--checkpoint gas or --restart",
      [NEEDS_LOW_PRECISION]         = "--precond-precision single|half",
      [NEEDS_ASDD_RESIDUAL]         = "--precond asdd --asdd-iters >= 2",
      [NEEDS_EXPORT_SOLUTION]       = "--export-solution",
      [NEEDS_TRACE]                 = "--trace",
      [NEEDS_COLORED_ORDERING]      = "--ordering mc|cm-rcm",
      [NEEDS_ASDD]                  = "--precond asdd",
      [NEEDS_LEVEL_ORDER]           = "--ordering cm-rcm --level-order on"};
  if (spec->setting != SETTING_NO) fputs(" [setting]", out);
  if (!spec->variants && spec->needs == NEEDS_NOTHING) return;
  fputs(" [applies to:", out);
  if (spec->variants) fprintf(out, " --solver %s", spec->variants);
  if (spec->needs != NEEDS_NOTHING)
    fprintf(out, "%s%s", spec->variants ? " with " : " ", needs_text[spec->needs]);
  fputc(']', out);
}

void cc_options_help(FILE *out)
{
  fprintf(out, "usage: mpiexec.mpich -n P cubecg [--key value | --key=value] ...\n"
               "GeoFEM/Cube: 3D linear-elastic cube solved by CG variants (see README.md)\n\n");
  for (int i = 0; i < cc_option_count; i++) {
    const opt_spec *spec = &cc_option_table[i];
    char left[64];
    snprintf(left, sizeof left, "--%s %s", spec->name,
             spec->type == OPT_FLAG     ? ""
             : spec->choices            ? "NAME"
             : spec->type == OPT_STRING ? "PATH"
                                        : "N");
    fprintf(out, "  %-32s %s [default: %s]", left, spec->help,
            spec->default_value[0] ? spec->default_value : "none");
    print_applies(out, spec);
    if (spec->choices) {
      char names[CC_CHOICES_TEXT_MAX];
      cc_option_choice_names(spec->choices, names, sizeof names);
      fprintf(out, " {%s}", names);
    }
    fputc('\n', out);
    const char *text, *name;
    for (int c = 0; spec->choices && (name = choice_name(spec->choices, c, &text)) != NULL; c++)
      if (text[0])
        fprintf(out, "  %33s%-14s %s%s\n", "", name, text,
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
      "CUBECG_KRYLOV_INJECT (solver test seam), CUBECG_PLCG_TRACE=1 (p(l)-CG prints each\n"
      "iteration's natural norm and square-root argument), CUBECG_SIGNAL_CHECK_EVERY\n"
      "(iterations between signal checks, default 10), CUBECG_OPTIONS (options as on the command "
      "line; the command\n"
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
  for (int i = 0; i < cc_option_count; i++) {
    const opt_spec *spec = &cc_option_table[i];
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
  for (int i = 0; i < cc_option_count; i++)
    cc_json_string(js, cc_option_table[i].name, origin_name[opts->origin[i]]);
  cc_json_end_object(js);
}

const char *cc_options_choice(const cc_options *opts, const char *option)
{
  for (int i = 0; i < cc_option_count; i++)
    if (cc_option_table[i].type == OPT_CHOICE && strcmp(cc_option_table[i].name, option) == 0)
      return choice_value_name(cc_option_table[i].choices,
                               *(const int *)((const char *)opts + cc_option_table[i].offset));
  return "?";
}

const char *cc_options_asdd_residual(const cc_options *opts)
{
  const int has_residual =
      !strcmp(cc_precond_list[opts->precond].name, "asdd") && opts->asdd_iters >= 2;
  return has_residual ? cc_options_choice(opts, "asdd-residual") : "";
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
