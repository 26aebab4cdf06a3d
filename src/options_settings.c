/* options_settings.c: the run's settings, the entries of the option table marked as settings (what
 * defines the computation: mesh, partition, material, variant, reduction, depth, S, basis, bounds,
 * replacement, preconditioner, ordering, --checkpoint-exact): their text for a checkpoint's
 * manifest, one solve's options, and --restart DIR taking them from the manifest. */
#include "cc_io.h"
#include "options_impl.h"

#include <stdlib.h>
#include <sys/stat.h>

void cc_options_for_solve(const cc_options *opts, const cc_krylov *variant, int reduction,
                          cc_options *solve)
{
  *solve = *opts;
  for (int i = 0; cc_krylov_list[i]; i++)
    if (cc_krylov_list[i] == variant) solve->solver = i;
  solve->reduction = reduction;
}

cc_err cc_options_settings_text(const cc_options *opts, char *out, size_t size)
{
  size_t used = 0;
  out[0]      = '\0';
  for (int i = 0; i < cc_option_count; i++) {
    const opt_spec *spec = &cc_option_table[i];
    char why[CC_PATH_MAX], value[CC_PATH_MAX];
    if (spec->setting == SETTING_NO || !cc_option_applies(spec, opts, why, sizeof why)) continue;
    cc_option_value_text(spec, opts, value, sizeof value);
    int n = snprintf(out + used, size - used, "%s=%s\n", spec->name, value);
    CC_CHECK(n > 0 && (size_t)n < size - used, CC_ERR_ARG,
             "the run's settings need more than %zu bytes (--%s %.40s)", size, spec->name, value);
    used += (size_t)n;
  }
  return CC_OK;
}

/* The value of option name in settings text ("option=value" lines) into out; 0 if absent. */
static int settings_value(const char *text, const char *name, char *out, size_t size)
{
  const size_t n = strlen(name);
  for (const char *line = text; *line;) {
    const char *end = strchr(line, '\n');
    size_t length   = end ? (size_t)(end - line) : strlen(line);
    if (length > n && !strncmp(line, name, n) && line[n] == '=') {
      snprintf(out, size, "%.*s", (int)(length - n - 1), line + n + 1);
      return 1;
    }
    line += length + (end ? 1 : 0);
  }
  return 0;
}

/* A manifest written before the settings were recorded: the settings its other keys hold. */
static void legacy_settings(const cc_io_metadata *meta, char *text, size_t size)
{
  char precond[sizeof meta->precond];
  snprintf(precond, sizeof precond, "%s", meta->precond);
  char *suffix = strchr(precond, '+'); /* "asdd+single", "asdd+half"; double has none */
  if (suffix) *suffix++ = '\0';
  size_t used = (size_t)snprintf(text, size, "nx=%d\nny=%d\nnz=%d\n", meta->nx, meta->ny, meta->nz);
#define LEGACY(...)                                                                                \
  used += (size_t)snprintf(text + used, used < size ? size - used : 0, __VA_ARGS__)
  if (meta->solver[0]) LEGACY("solver=%s\n", meta->solver);
  if (meta->ordering[0]) LEGACY("ordering=%s\n", meta->ordering);
  if (meta->has_problem) {
    LEGACY("E=%.17g\nnu=%.17g\ntraction=%.17g\n", meta->E, meta->nu, meta->traction);
    LEGACY("precond=%s\nprecond-precision=%s\n", precond, suffix ? suffix : "double");
    LEGACY("colors=%d\nasdd-iters=%d\n", meta->colors, meta->asdd_iters);
    if (meta->asdd_residual[0]) LEGACY("asdd-residual=%s\n", meta->asdd_residual);
  }
#undef LEGACY
}

/* spec's value for comparison: as the parser reads it back, --spectrum-bounds as two doubles */
static void canonical(const opt_spec *spec, const cc_options *opts, char *out, size_t size)
{
  double lo, hi;
  if (spec->offset == offsetof(cc_options, spectrum_bounds) && opts->spectrum_bounds[0]) {
    if (cc_options_spectrum_bounds(opts, &lo, &hi) == CC_OK) {
      snprintf(out, size, "%.17g,%.17g", lo, hi);
      return;
    }
    cc_error_clear(); /* refused with its own message by cc_options_validate */
  }
  cc_option_value_text(spec, opts, out, size);
}

/* One setting against the manifest's value theirs: taken when left at its default, refused when
 * given with another value. scratch: room to read theirs back. */
static cc_err take_setting(const opt_spec *spec, const char *theirs, int same_ranks,
                           const char *dir, cc_options *opts, cc_options *scratch)
{
  char why[CC_PATH_MAX], where[CC_PATH_MAX + 40];
  if (spec->setting == SETTING_DECOMPOSITION && !same_ranks) return CC_OK; /* another box */
  if (!cc_option_applies(spec, opts, why, sizeof why)) return CC_OK;
  snprintf(where, sizeof where, "--restart %s: its manifest's ", dir);
  if (!cc_option_from_user(opts, spec)) {
    CC_CALL(cc_option_set(spec, theirs, where, opts));
    opts->origin[spec - cc_option_table] = ORIGIN_CHECKPOINT;
    return CC_OK;
  }
  /* given: another decomposition is read (the solver rebuilds from x: restart_rebuilt) */
  if (spec->setting == SETTING_DECOMPOSITION) return CC_OK;
  *scratch = *opts;
  CC_CALL(cc_option_set(spec, theirs, where, scratch));
  char mine[CC_PATH_MAX], recorded[CC_PATH_MAX];
  canonical(spec, opts, mine, sizeof mine);
  canonical(spec, scratch, recorded, sizeof recorded);
  CC_CHECK(strcmp(mine, recorded) == 0, CC_ERR_ARG,
           "--%s %s differs from the checkpoint's %s = %s (%s): refusing to restart (given%s)",
           spec->name, mine, spec->name, recorded, dir, cc_option_source(opts, spec));
  return CC_OK;
}

/* Every setting of the table against text; names the ones a legacy manifest cannot verify. */
static cc_err take_settings(const char *text, int legacy, int same_ranks, int rank,
                            cc_options *opts)
{
  cc_options *scratch = malloc(sizeof *scratch);
  CC_CHECK(scratch != NULL, CC_ERR_MEM, "--restart %s: out of memory", opts->restart);
  char unverified[CC_PATH_MAX] = "", value[CC_IO_SETTINGS_MAX], why[CC_PATH_MAX];
  cc_err err                   = CC_OK;
  for (int i = 0; i < cc_option_count && !err; i++) {
    const opt_spec *spec = &cc_option_table[i];
    if (spec->setting == SETTING_NO) continue;
    if (settings_value(text, spec->name, value, sizeof value))
      err = take_setting(spec, value, same_ranks, opts->restart, opts, scratch);
    else if (legacy && cc_option_applies(spec, opts, why, sizeof why) &&
             strlen(unverified) + strlen(spec->name) + 5 < sizeof unverified)
      snprintf(unverified + strlen(unverified), sizeof unverified - strlen(unverified), "%s--%s",
               unverified[0] ? ", " : "", spec->name);
  }
  free(scratch);
  CC_CALL(err);
  if (unverified[0] && rank == 0)
    fprintf(stderr,
            "cubecg: warning: %s: the manifest records no settings (an older cubecg wrote it): %s "
            "cannot be verified; this run uses the values given or their defaults\n",
            opts->restart, unverified);
  return CC_OK;
}

/* A setting recorded in text that this table does not hold (a newer cubecg): refused, since it
 * could not be verified. */
static cc_err check_known(const char *text, const char *dir)
{
  for (const char *line = text; *line;) {
    const char *end      = strchr(line, '\n');
    size_t length        = end ? (size_t)(end - line) : strlen(line);
    const char *equals   = memchr(line, '=', length);
    const opt_spec *spec = equals ? cc_option_find(line, (size_t)(equals - line)) : NULL;
    CC_CHECK(spec && spec->setting != SETTING_NO, CC_ERR_ARG,
             "--restart %s: its manifest records the setting '%.*s', which this cubecg does not "
             "know: refusing to restart",
             dir, (int)(equals ? equals - line : (ptrdiff_t)length), line);
    line += length + (end ? 1 : 0);
  }
  return CC_OK;
}

cc_err cc_options_from_checkpoint(cc_options *opts, MPI_Comm comm)
{
  /* rank 0's view decides, so that every rank gives the same verdict */
  int rank = 0, ranks = 1, is_dir = 0;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &ranks));
  struct stat st;
  if (rank == 0) is_dir = stat(opts->restart, &st) == 0 && S_ISDIR(st.st_mode);
  CC_MPI(MPI_Bcast(&is_dir, 1, MPI_INT, 0, comm));
  CC_CHECK(is_dir, CC_ERR_ARG, "--restart %s: not a directory", opts->restart);
  cc_io_metadata *meta = malloc(sizeof *meta);
  CC_CHECK(meta != NULL, CC_ERR_MEM, "--restart %s: out of memory", opts->restart);
  cc_err err = cc_io_checkpoint_describe(opts->restart, comm, meta);
  if (err) { /* the same verdict on every rank: bad input, named */
    free(meta);
    char message[600];
    snprintf(message, sizeof message, "%s", cc_error_message());
    const char *inner = strstr(message, "(): ");
    cc_error_clear();
    /* no checkpoint there is bad input (2); an unreadable or corrupt one a runtime failure (1) */
    CC_FAIL(err == CC_ERR_ARG ? CC_ERR_ARG : CC_ERR_IO,
            "--restart %s: %s; name the problem with --nx --ny --nz --solver", opts->restart,
            inner ? inner + 4 : message);
  }
  const int legacy = meta->settings[0] == '\0';
  char *text       = malloc(CC_IO_SETTINGS_MAX);
  err              = text ? CC_OK : CC_ERR_MEM;
  if (!err && legacy) legacy_settings(meta, text, CC_IO_SETTINGS_MAX);
  if (!err && !legacy) snprintf(text, CC_IO_SETTINGS_MAX, "%s", meta->settings);
  if (!err && !legacy) err = check_known(text, opts->restart);
  if (!err) err = take_settings(text, legacy, meta->ranks == ranks, rank, opts);
  free(text);
  free(meta);
  CC_CHECK(err != CC_ERR_MEM, CC_ERR_MEM, "--restart %s: out of memory", opts->restart);
  CC_CALL(err);
  opts->mesh.partition = (cc_partition_kind)opts->partition;
  return CC_OK;
}
