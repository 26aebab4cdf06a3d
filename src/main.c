/* main.c: the cubecg driver: parse and validate options before any large allocation, run the
 * pipeline, write the report; print the error chain once and exit non-zero on failure. */
#include "cc_driver.h"

#include <omp.h>
#include <stdlib.h>

/* Exit codes: 0 success, 1 run error, 2 bad input, 3 built-in verification failed, 4 stopped by
 * SIGTERM / SIGINT / SIGUSR1 (CC_EXIT_INTERRUPTED; the report holds what was done). */
static int exit_code_of(cc_err err)
{
  return err == CC_ERR_ARG ? 2 : 1;
}

int main(int argc, char **argv)
{
  static cc_run run; /* large: keep it off the stack */
  cc_err err = cc_mpi_start(&argc, &argv, &run.mpi);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!err) err = cc_options_parse(argc, argv, &run.opts);
  if (!err && run.opts.help) {
    if (rank == 0) cc_options_help(stdout);
    MPI_Finalize();
    return 0;
  }
  /* Every rank parses and validates the same input, so all agree on failure without MPI_Abort. */
  if (!err) err = cc_options_validate(&run.opts, MPI_COMM_WORLD);
  if (!err) err = cc_run_topology(&run, MPI_COMM_WORLD);
  if (err) {
    if (rank == 0) cc_error_print(stderr, rank);
    MPI_Finalize();
    return exit_code_of(err);
  }
  run.ranks   = size;
  run.threads = omp_get_max_threads();
  run.rank    = rank;
  err         = cc_signals_install();
  if (err) {
    cc_error_print(stderr, rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  err = cc_run_pipeline(&run);
  if (err) {
    /* Ranks may disagree here (one rank's I/O failed): print, then abort the job. */
    cc_error_print(stderr, rank);
    MPI_Abort(MPI_COMM_WORLD, exit_code_of(err));
    return exit_code_of(err);
  }
  int passed = cc_run_checks_passed(&run);
  if (rank == 0) {
    if (!run.opts.quiet) cc_summary_print(&run, stdout);
    if (run.opts.report[0]) err = cc_report_write(&run, run.opts.report);
    if (err)
      cc_error_print(stderr, rank);
    else if (run.opts.report[0] && !run.opts.quiet)
      printf("  report: %s\n", run.opts.report);
  }
  int code = err ? 1 : run.interrupted ? CC_EXIT_INTERRUPTED : passed ? 0 : 3;
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}
