/* options_check.c: the options checked before any large allocation: each value's range, the
 * options that would do nothing, the output paths (rank 0 for all), the environment read with
 * them, the memory the mesh would take, and --checkpoint gas against its disk (options_gas.c). */
#include "options_gas.h"
#include "options_impl.h"

#include "cc_trace.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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
   * -deformed.xmf, .rhs.mtx, .pbjacobi.mtx (no longer than -deformed.xmf); each must fit the file
   * system's limits, and no directory may sit there */
  const char *base            = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  const size_t longest_suffix = sizeof "-deformed.xmf" - 1;
  _Static_assert(sizeof ".pbjacobi.mtx" <= sizeof "-deformed.xmf", "a longer companion name");
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

/* The summary saved beside the report (declared in options.h; here because the options check
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
    if (!local && opts->trace[0]) local = cc_trace_check_dir(opts->trace);
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

/* OMP_NUM_THREADS as cubecg reads it: a list of positive integers (the first level is ours);
 * libgomp would only warn about anything else and run with its default, oversubscribing the node.
 */
static cc_err check_omp_num_threads(void)
{
  const char *env = getenv("OMP_NUM_THREADS");
  if (!env || !env[0]) return CC_OK; /* empty = unset, as the user guide says */
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

/* Options that do nothing in the chosen configuration: every option given (options file,
 * CUBECG_OPTIONS, command line) must apply to it, as the option table says (a variant it changes,
 * at least one of --solver all's; what else it needs): the run would silently differ from what
 * was asked. */
static cc_err check_without_effect(const cc_options *opts)
{
  for (int i = 0; i < cc_option_count; i++) {
    const opt_spec *spec = &cc_option_table[i];
    char why[CC_PATH_MAX + 64];
    if (!cc_option_from_user(opts, spec) || cc_option_applies(spec, opts, why, sizeof why))
      continue;
    CC_FAIL(CC_ERR_ARG, "%s%s", why, cc_option_source(opts, spec));
  }
  /* the SSD directory is a mount the user names: never created (a missing mount would put the
   * pages on another disk) */
  if (opts->gas_ssd_dir[0]) {
    struct stat st;
    const char *why = stat(opts->gas_ssd_dir, &st) != 0 ? strerror(errno)
                      : !S_ISDIR(st.st_mode)            ? "not a directory"
                                                        : NULL;
    CC_CHECK(why == NULL, CC_ERR_ARG,
             "--gas-ssd-dir %s: %s (it is not created: a missing mount would put the pages on "
             "another disk)",
             opts->gas_ssd_dir, why);
  }
  return CC_OK;
}

/* An environment variable's integer, parsed as an OPT_INT option's value is: the whole text,
 * within [lo, hi]; unset or empty = *value unchanged. */
static cc_err env_int(const char *name, long lo, long hi, const char *what, int *value)
{
  const char *env = getenv(name);
  if (!env || !env[0]) return CC_OK;
  char *end;
  errno  = 0;
  long v = strtol(env, &end, 10);
  CC_CHECK(end != env && *end == '\0' && errno == 0 && v >= lo && v <= hi, CC_ERR_ARG,
           "%s=%s: expected an integer in [%ld, %ld] (%s)", name, env, lo, hi, what);
  *value = (int)v;
  return CC_OK;
}

/* A refused value's message (one at a time: the error chain copies it at once). */
__attribute__((format(printf, 1, 2))) static const char *refused(const char *format, ...)
{
  static char text[CC_PATH_MAX + 256];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

static const char *source_of(const cc_options *opts, const char *name)
{
  const opt_spec *spec = cc_option_find(name, strlen(name));
  return spec ? cc_option_source(opts, spec) : "";
}

/* The pending error's user-facing message into out, the error cleared: to refail with more. */
static void take_message(char *out, size_t size)
{
  const char *inner = strstr(cc_error_message(), "(): ");
  snprintf(out, size, "%s", inner ? inner + 4 : cc_error_message());
  cc_error_clear();
}

/* A check of option name's value: the message ends with where the value came from. */
#define CHECK_OPTION(name, cond, ...)                                                              \
  CC_CHECK(cond, CC_ERR_ARG, "%s%s", refused(__VA_ARGS__), source_of(opts, name))

/* Each value's own range, and the pairs of options that contradict each other. */
static cc_err check_ranges(const cc_options *opts)
{
  CHECK_OPTION("tol", opts->tol > 0 && opts->tol < 1, "--tol %g must be in (0, 1)", opts->tol);
  CHECK_OPTION("maxit", opts->maxit >= 1, "--maxit %d must be >= 1", opts->maxit);
  CHECK_OPTION("replace-every", opts->replace_every >= 0 || opts->replace_every == CC_REPLACE_AUTO,
               "--replace-every %d must be >= 0 or auto", opts->replace_every);
  CHECK_OPTION("pipeline-depth",
               opts->pipeline_depth >= 1 && opts->pipeline_depth <= CC_PLCG_MAX_DEPTH,
               "--pipeline-depth %d must be in 1..%d", opts->pipeline_depth, CC_PLCG_MAX_DEPTH);
  CHECK_OPTION("sstep", opts->sstep >= 1 && opts->sstep <= CC_SSTEP_MAX,
               "--sstep %d must be in 1..%d", opts->sstep, CC_SSTEP_MAX);
  double spectrum_min, spectrum_max;
  if (cc_options_spectrum_bounds(opts, &spectrum_min, &spectrum_max)) {
    /* its own message, then the source (the innermost message is the one printed) */
    char message[CC_PATH_MAX];
    take_message(message, sizeof message);
    CC_FAIL(CC_ERR_ARG, "%s%s", message, source_of(opts, "spectrum-bounds"));
  }
  CHECK_OPTION("colors", opts->colors >= 2, "--colors %d must be >= 2", opts->colors);
  CHECK_OPTION("sweep-chunk-rows", opts->sweep_chunk_rows >= 0,
               "--sweep-chunk-rows %d must be >= 0", opts->sweep_chunk_rows);
  CHECK_OPTION("asdd-iters", opts->asdd_iters >= 1, "--asdd-iters %d must be >= 1",
               opts->asdd_iters);
  CHECK_OPTION("precond-precision",
               opts->precond_precision == CC_PRECISION_DOUBLE ||
                   cc_precond_list[opts->precond].has_reduced,
               "--precond-precision %s: preconditioner '%s' has no %s-precision form (sgs, asdd "
               "have)",
               cc_precision_list[opts->precond_precision].name, cc_precond_list[opts->precond].name,
               cc_precision_list[opts->precond_precision].name);
  CHECK_OPTION(
      "inject-reduction-latency", opts->inject_latency_us >= 0 && opts->inject_latency_us <= 1e7,
      "--inject-reduction-latency %g must be in [0, 1e7] microseconds", opts->inject_latency_us);
  const cc_krylov *variant = cc_options_variant(opts);
  CHECK_OPTION("reduction",
               !variant || opts->reduction != CC_REDUCTION_IAR || variant->supports_iar,
               "--solver %s has no non-blocking variant: use --reduction ar (or all)",
               variant ? variant->name : "");
  char solvers[CC_CHOICES_TEXT_MAX];
  cc_option_choice_names(CHOICES_SOLVER, solvers, sizeof solvers);
  *strrchr(solvers, '|') = '\0'; /* without "all" */
  CHECK_OPTION("solver", !opts->restart[0] || variant,
               "--restart %s needs the checkpoint's solver (--solver %s), not all", opts->restart,
               solvers);
  CHECK_OPTION("checkpoint-every", opts->checkpoint_every >= 1,
               "--checkpoint-every %d must be >= 1", opts->checkpoint_every);
  CHECK_OPTION("checkpoint-keep", opts->checkpoint_keep >= 1, "--checkpoint-keep %d must be >= 1",
               opts->checkpoint_keep);
  CHECK_OPTION("io-writeback",
               opts->io_writeback == 0 ||
                   (opts->io_writeback >= 4096 && opts->io_writeback <= (1LL << 40)),
               "--io-writeback %lld must be 0 (off) or between 4 KiB and 1 TiB",
               (long long)opts->io_writeback);
  CHECK_OPTION("io-buffer", opts->io_buffer >= 512 && opts->io_buffer <= (1LL << 30),
               "--io-buffer %lld must be between 512 bytes and 1 GiB", (long long)opts->io_buffer);
  CHECK_OPTION("monitor", opts->monitor >= -1, "--monitor %d must be >= -1", opts->monitor);
  CHECK_OPTION("trace-iterations", opts->trace_iterations >= 0,
               "--trace-iterations %d must be >= 0", opts->trace_iterations);
  /* the roofline fraction divides by the measured time per iteration */
  CHECK_OPTION("roofline", !opts->roofline || opts->timing == CC_TIMING_ON,
               "--roofline needs --timing on (the fraction divides by the time per iteration)");
  CHECK_OPTION("analytic-tol", opts->analytic_tol > 0, "--analytic-tol %g must be > 0",
               opts->analytic_tol);
  /* below 0.001 the limit would be meaningless (and rounds to 0 bytes, which is not "no limit") */
  CHECK_OPTION("memory-fraction", opts->memory_fraction >= 1e-3 && opts->memory_fraction <= 1,
               "--memory-fraction %g must be in [0.001, 1]", opts->memory_fraction);
  return CC_OK;
}

cc_err cc_options_validate(const cc_options *opts, MPI_Comm comm)
{
  int ranks;
  CC_MPI(MPI_Comm_size(comm, &ranks));
  CC_CALL(check_ranges(opts));
  CC_CALL(check_omp_num_threads());
  int signal_every = 0; /* src/monitor.c reads it; refused here, with the other options */
  CC_CALL(env_int("CUBECG_SIGNAL_CHECK_EVERY", 1, 1 << 30, "iterations between signal checks",
                  &signal_every));
  int every;
  double triad_node_bytes;
  if (opts->roofline) CC_CALL(cc_roofline_every_env(&every));
  if (opts->roofline) CC_CALL(cc_roofline_triad_env(&triad_node_bytes));
  CC_CALL(check_without_effect(opts)); /* after each value's own range */
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
    take_message(message, sizeof message);
    CC_FAIL(CC_ERR_ARG, "%s (--memory-fraction %g of %.1f GiB RAM, %d ranks on this node)", message,
            opts->memory_fraction, (double)ram / (1 << 30), ranks_on_node);
  }
  CC_CALL(err);
  if (cc_options_checkpoint(opts) && !strcmp(cc_options_checkpoint(opts), "gas"))
    CC_CALL(cc_options_gas_validate(opts, comm));
  return CC_OK;
}
