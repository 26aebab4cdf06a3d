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
    {"asdd-residual", OPT_CHOICE, OFF(asdd_residual), "fused", CHOICES_ASDD_RESIDUAL,
     "ASDD's inner residual: fused into the next sweep, or a pass of its own"},
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
    {"io-writeback", OPT_SIZE, OFF(io_writeback), "16M", CHOICES_NONE,
     "posix, durable checkpoints: start the kernel's writeback every SIZE bytes written "
     "(sync_file_range), so the final fsync waits for less (0: off)"},
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
    {"trace", OPT_STRING, OFF(trace), "", CHOICES_NONE,
     "write an OTF2 trace of every rank's solve iterations into DIR (DIR/traces.otf2)"},
    {"trace-iterations", OPT_INT, OFF(trace_iterations), "10", CHOICES_NONE,
     "with --trace: iterations each solve records (0 = all)"},
    {"options-file", OPT_STRING, OFF(options_file), "", CHOICES_NONE,
     "read options from FILE (words as on the command line, # comments; see README)"},
    {"version", OPT_FLAG, OFF(version), "0", CHOICES_NONE, "print the version and build (also -V)"},
    {"help", OPT_FLAG, OFF(help), "0", CHOICES_NONE, "print this help (also -h)"},
};
const int cc_option_count = (int)(sizeof cc_option_table / sizeof cc_option_table[0]);
_Static_assert(sizeof cc_option_table / sizeof cc_option_table[0] <= CC_MAX_OPTIONS,
               "raise CC_MAX_OPTIONS in options.h");

static const char *const origin_name[] = {"default", "file", "env", "cmdline"};

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
  case OPT_STRING:
    CC_CHECK(strlen(text) < CC_PATH_MAX, CC_ERR_ARG, "%s--%s: value too long", where, spec->name);
    strcpy(field, text);
    break;
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

int cc_option_given(const cc_options *opts, const char *name)
{
  const opt_spec *spec = cc_option_find(name, strlen(name));
  return spec && opts->origin[spec - cc_option_table] != ORIGIN_DEFAULT;
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
      "(iterations between signal checks, default 10), CUBECG_OPTIONS (options as on the command line; the command\n"
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
  const int has_residual = !strcmp(cc_precond_list[opts->precond].name, "asdd") &&
                           opts->asdd_iters >= 2;
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
