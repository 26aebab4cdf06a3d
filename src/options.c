/* options.c: the driver's options, one table for parsing, --help and the report (PETSc-like
 * -key value handling, with GNU-style --key value / --key=value). */
#include "cc_driver.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
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
     "write displacements to HDF5 (+ XDMF beside it for ParaView)"},
    {"checkpoint", OPT_CHOICE, OFF(checkpoint), "",
     "|posix|uring|offload|offload-uring|hdf5|fortran|gas",
     "checkpoint backend (empty = no checkpoints)"},
    {"checkpoint-dir", OPT_STRING, OFF(checkpoint_dir), "checkpoints", NULL,
     "checkpoint directory"},
    {"checkpoint-every", OPT_INT, OFF(checkpoint_every), "50", NULL,
     "checkpoint period in iterations"},
    {"checkpoint-keep", OPT_INT, OFF(checkpoint_keep), "2", NULL, "checkpoints kept (>= 1)"},
    {"durable", OPT_INT, OFF(durable), "1", NULL, "fsync checkpoint files and directories (0|1)"},
    {"io-buffer", OPT_SIZE, OFF(io_buffer), "512k", NULL,
     "stdio buffer of the posix backend (setvbuf)"},
    {"io-fallback", OPT_FLAG, OFF(io_fallback), "0", NULL,
     "allow the uring backend's explicit fallback chain (else a clear error)"},
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
     "refuse meshes whose estimate exceeds this fraction of the node's RAM"},
    {"quiet", OPT_FLAG, OFF(quiet), "0", NULL, "no summary on stdout"},
    {"help", OPT_FLAG, OFF(help), "0", NULL, "print this help"},
};
#define N_OPTIONS ((int)(sizeof option_table / sizeof option_table[0]))

static cc_err parse_size(const char *name, const char *text, int64_t *out)
{
  char *end;
  errno           = 0;
  double number   = strtod(text, &end);
  long long scale = 1;
  switch (tolower((unsigned char)*end)) {
  case 'k':
    scale = 1LL << 10, end++;
    break;
  case 'm':
    scale = 1LL << 20, end++;
    break;
  case 'g':
    scale = 1LL << 30, end++;
    break;
  default:
    break;
  }
  if (tolower((unsigned char)*end) == 'b' || tolower((unsigned char)*end) == 'i') end++;
  CC_CHECK(end != text && *end == '\0' && errno == 0 && number >= 0 && number * scale < 9e18,
           CC_ERR_ARG, "--%s: '%s' is not a size (e.g. 8k, 512k, 4M)", name, text);
  *out = (int64_t)(number * scale);
  return CC_OK;
}

static cc_err set_option(const opt_spec *spec, const char *text, cc_options *opts)
{
  char *field = (char *)opts + spec->offset;
  char *end;
  errno = 0;
  switch (spec->type) {
  case OPT_INT: {
    long value = strtol(text, &end, 10);
    CC_CHECK(end != text && *end == '\0', CC_ERR_ARG, "--%s: '%s' is not an integer", spec->name,
             text);
    CC_CHECK(errno == 0 && value >= INT_MIN && value <= INT_MAX, CC_ERR_ARG,
             "--%s: '%s' is out of range for an integer", spec->name, text);
    *(int *)field = (int)value;
    break;
  }
  case OPT_FLAG: {
    long value = strtol(text, &end, 10);
    CC_CHECK(end != text && *end == '\0' && (value == 0 || value == 1), CC_ERR_ARG,
             "--%s: '%s' must be 0 or 1", spec->name, text);
    *(int *)field = (int)value;
    break;
  }
  case OPT_DOUBLE: {
    double value = strtod(text, &end);
    CC_CHECK(end != text && *end == '\0' && errno == 0 && isfinite(value), CC_ERR_ARG,
             "--%s: '%s' is not a finite number", spec->name, text);
    *(double *)field = value;
    break;
  }
  case OPT_SIZE:
    CC_CALL(parse_size(spec->name, text, (int64_t *)field));
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
    CC_CHECK(found, CC_ERR_ARG, "--%s: unknown value '%s' (choose %s)", spec->name, text,
             spec->choices[0] == '|' ? spec->choices + 1 : spec->choices);
  }
    /* fall through */
  case OPT_STRING:
    CC_CHECK(strlen(text) < (spec->type == OPT_CHOICE ? CC_NAME_MAX : CC_PATH_MAX), CC_ERR_ARG,
             "--%s: value too long", spec->name);
    strcpy(field, text);
    break;
  }
  return CC_OK;
}

cc_err cc_options_parse(int argc, char **argv, cc_options *opts)
{
  memset(opts, 0, sizeof *opts);
  cc_mesh_params_default(&opts->mesh);
  for (int i = 0; i < N_OPTIONS; i++)
    CC_CALL(set_option(&option_table[i], option_table[i].default_value, opts));

  for (int arg = 1; arg < argc; arg++) {
    const char *word = argv[arg];
    CC_CHECK(strncmp(word, "--", 2) == 0 && word[2] != '\0', CC_ERR_ARG,
             "unexpected argument '%s' (options are --key value or --key=value; see --help)", word);
    const char *key      = word + 2;
    const char *equals   = strchr(key, '=');
    size_t length        = equals ? (size_t)(equals - key) : strlen(key);
    const opt_spec *spec = NULL;
    for (int i = 0; i < N_OPTIONS && !spec; i++)
      if (strlen(option_table[i].name) == length && strncmp(option_table[i].name, key, length) == 0)
        spec = &option_table[i];
    CC_CHECK(spec != NULL, CC_ERR_ARG, "unknown option '%.*s' (see --help)", (int)length + 2, word);
    const char *value = NULL;
    if (equals)
      value = equals + 1;
    else if (spec->type == OPT_FLAG && (arg + 1 >= argc || strncmp(argv[arg + 1], "--", 2) == 0))
      value = "1";
    else {
      CC_CHECK(arg + 1 < argc, CC_ERR_ARG, "option --%s needs a value", spec->name);
      value = argv[++arg];
    }
    CC_CALL(set_option(spec, value, opts));
  }
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
      "\nenvironment: OMP_NUM_THREADS (threads per rank), MPIR_CVAR_ASYNC_PROGRESS=1 or\n"
      "MPICH_ASYNC_PROGRESS=1 (MPICH progress thread; cubecg then asks for MPI_THREAD_MULTIPLE),\n"
      "MPIR_CVAR_PROGRESS_THREAD_AFFINITY (pin it), CUBECG_IO_INJECT (I/O test seams)\n");
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
  CC_CHECK(opts->analytic_tol > 0, CC_ERR_ARG, "--analytic-tol %g must be > 0", opts->analytic_tol);
  CC_CHECK(opts->memory_fraction > 0 && opts->memory_fraction <= 1, CC_ERR_ARG,
           "--memory-fraction %g must be in (0, 1]", opts->memory_fraction);

  /* The memory limit per rank: this node's RAM shared by the ranks on this node. */
  MPI_Comm node;
  int ranks_on_node;
  CC_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  CC_MPI(MPI_Comm_size(node, &ranks_on_node));
  CC_MPI(MPI_Comm_free(&node));
  int64_t ram   = (int64_t)sysconf(_SC_PHYS_PAGES) * (int64_t)sysconf(_SC_PAGESIZE);
  int64_t limit = ram > 0 ? (int64_t)(opts->memory_fraction * (double)ram / ranks_on_node) : 0;
  CC_CALL(cc_mesh_params_validate(&opts->mesh, ranks, limit));
  if (!strcmp(opts->checkpoint, "gas")) CC_CALL(cc_driver_gas_validate(opts, comm));
  return CC_OK;
}
