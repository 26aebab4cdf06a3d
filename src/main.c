/* main.c: the cubecg driver: parse and validate options before any large allocation, run the
 * pipeline, write the report; print the error chain once and exit non-zero on failure. */
#include "monitor.h"
#include "pipeline.h"
#include "report.h"
#include "summary.h"
#include "cc_io.h"
#include "driver_ckpt.h"
#include "test_seams.h"
#include "cc_trace.h"

#include <omp.h>
#include <stdlib.h>

/* Exit codes (docs/checkpoint-safety.md "Exit codes"): 0 success, 1 runtime failure, 2 bad input
 * and nothing written, 3 a built-in check failed, 4 stopped by SIGTERM / SIGINT / SIGUSR1
 * (CC_EXIT_INTERRUPTED; the report holds what was done). */
static int exit_code_of(cc_err err)
{
  return err == CC_ERR_ARG ? 2 : err == CC_ERR_INTERRUPTED ? CC_EXIT_INTERRUPTED : 1;
}

/* End the job after an error. When every rank agreed on it (cc_error_agree), rank 0 prints the
 * agreed message and all ranks finalize; otherwise ranks may be blocked in a collective, so each
 * failing rank prints its own message, flushes, and aborts the job. lock may hold NULL. */
static int fail(cc_err err, int rank, cc_io_dir_lock **lock)
{
  int code = exit_code_of(err);
  fflush(stdout);
  if (cc_error_agreed()) {
    cc_io_dir_lock_release(lock);
    if (rank == 0)
      cc_error_print(stderr, rank);
    else
      cc_error_clear();
    fflush(stderr);
    MPI_Finalize();
    return code;
  }
  cc_error_print(stderr, rank);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  return code;
}

int main(int argc, char **argv)
{
  static cc_run run; /* large: keep it off the stack */
  /* the handler before anything is taken or written: a signal that comes in MPI_Init, the options'
   * probes or while the lock is taken is a stop request, noticed at the pipeline's first stage
   * boundary (report and INTERRUPTED line as in a solve), not a kill that leaves the lock behind */
  cc_err sig_err = cc_signals_install();
  cc_err err     = cc_mpi_start(&argc, &argv, &run.mpi); /* MPI_Init failing exits in there */
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* the handler again after MPI_Init, which may have put one of the library's own in its place.
   * Every rank fails alike here (the libraries mapped, a knob refused, sigaction), as it does on
   * the command line and the environment below: agreed */
  err = cc_agree(MPI_COMM_WORLD, err ? err : sig_err ? sig_err : cc_signals_install());
  if (!err) err = cc_agree(MPI_COMM_WORLD, cc_options_parse(argc, argv, &run.opts));
  if (!err && (run.opts.help || run.opts.version)) {
    if (rank == 0 && run.opts.help) cc_options_help(stdout);
    if (rank == 0 && !run.opts.help)
      printf("cubecg %s (%s build, flags %s; MPI %s %s, built for %s: %.60s; hdf5 backend %s: "
             "%s; --trace %s: %s)\n",
             CC_VERSION, cc_build_type, cc_build_flags, run.mpi.implementation, run.mpi.version,
             cc_build_mpi_impl, run.mpi.library, cc_build_have_hdf5 ? "built" : "absent",
             cc_build_hdf5, cc_trace_available ? "built" : "absent", cc_trace_library);
    fflush(stdout);
    MPI_Finalize();
    return 0;
  }
  /* Every rank parses and validates the same input, so all agree on failure without MPI_Abort. */
  /* the libraries' test seams, from the environment in one place: before the manifest is read,
   * the options' disk probes and any allocation */
  if (!err) err = cc_agree(MPI_COMM_WORLD, cc_driver_test_seams_from_env(&run.opts.seams));
  /* --restart DIR: the problem options left at their default come from DIR's manifest (rank 0's
   * view decides: every rank ends it alike) */
  if (!err && run.opts.restart[0])
    err = cc_agree(MPI_COMM_WORLD, cc_options_from_checkpoint(&run.opts, MPI_COMM_WORLD));
  /* its last check, the mesh against this node's RAM, may fail on some nodes only: agreed */
  if (!err) err = cc_agree(MPI_COMM_WORLD, cc_options_validate(&run.opts, MPI_COMM_WORLD));
  if (!err) err = cc_run_topology(&run, MPI_COMM_WORLD);
  /* a FIFO report target: opened now, without blocking (no reader: refused before the work) */
  if (!err)
    err = cc_agree(MPI_COMM_WORLD, rank == 0 ? cc_report_target_open(run.opts.report) : CC_OK);
  /* one job per checkpoint directory, for the whole run: taken before anything in it changes */
  cc_io_dir_lock *lock = NULL;
  if (!err && cc_options_checkpoint(&run.opts))
    err = cc_io_dir_lock_acquire(run.opts.checkpoint_dir, MPI_COMM_WORLD, &lock);
  /* what the directory holds, checked now: every refusal comes before the mesh and assembly */
  if (!err) err = cc_agree(MPI_COMM_WORLD, cc_driver_ckpt_precheck(&run.opts, MPI_COMM_WORLD));
  /* agreed failures (all of the above but a collective's own) end once, through MPI_Finalize */
  if (err) return fail(err, rank, &lock);
  run.ranks   = size;
  run.threads = omp_get_max_threads();
  run.rank    = rank;

  err = cc_run_pipeline(&run);
  if (err) return fail(err, rank, &lock);
  /* where the progress threads ran by the end of the solves (each one's last CPU, mask) */
  cc_progress_free(&run.progress);
  err = cc_progress_placement(MPI_COMM_WORLD, &run.mpi, &run.progress);
  if (err) return fail(err, rank, &lock);
  int passed = cc_run_checks_passed(&run);
  if (rank == 0) {
    /* with --report - the JSON owns stdout: the summary goes to stderr */
    int report_stdout = strcmp(run.opts.report, "-") == 0;
    if (!run.opts.quiet) cc_summary_print(&run, report_stdout ? stderr : stdout);
    /* the summary is saved beside the report (also with --quiet), before the report that
     * names it */
    char summary[CC_PATH_MAX + 16];
    int has_summary = cc_summary_path(run.opts.report, summary, sizeof summary);
    if (has_summary) err = cc_summary_write(&run, summary);
    if (!err && run.opts.report[0]) err = cc_report_write(&run, run.opts.report);
    if (err)
      cc_error_print(stderr, rank);
    else if (run.opts.report[0] && !run.opts.quiet && !report_stdout)
      printf("  report: %s\n", run.opts.report);
    if (!err && has_summary && !run.opts.quiet) printf("  summary: %s\n", summary);
  }
  /* the worst outcome: a runtime failure (the report, a solve that broke down) over an interrupt
   * over a failed check */
  int code = err || run.solves_failed ? 1 : run.interrupted ? CC_EXIT_INTERRUPTED : passed ? 0 : 3;
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  cc_io_dir_lock_release(&lock);
  fflush(stdout);
  cc_progress_free(&run.progress);
  MPI_Finalize();
  return code;
}
