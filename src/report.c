/* report.c: the run's JSON report (docs/report-schema.md, written by rank 0); the human summary is
 * in summary.c. */
#include "overlap_startup.h"
#include "report.h"
#include "roofline.h"
#include "cc_io.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void write_breakdown(cc_json *js, const char *key, const double *values)
{
  cc_json_begin_object(js, key);
  for (int i = 0; i < CC_BRK_COUNT; i++) cc_json_double(js, cc_breakdown_name[i], values[i]);
  cc_json_end_object(js);
}

/* An entry of a registry's list: {"name": ..., "description": ..., (the caller's fields)} */
static void begin_named(cc_json *js, const char *name, const char *description)
{
  cc_json_begin_object(js, NULL);
  cc_json_string(js, "name", name);
  cc_json_string(js, "description", description);
}

/* The registries of this build (names, descriptions, Table 1), so that post-processing
 * (jobs/cubecg_analysis/variants.py) learns the variants from the program, not from a list of its
 * own. */
static void write_available(cc_json *js)
{
  cc_json_begin_object(js, "available");
  cc_json_begin_array(js, "variants");
  for (int i = 0; cc_krylov_list[i]; i++) {
    const cc_krylov *k = cc_krylov_list[i];
    begin_named(js, k->name, k->description);
    cc_json_begin_array(js, "reductions");
    for (int r = 0; r < CC_REDUCTION_COUNT; r++)
      if (r == CC_REDUCTION_AR || k->supports_iar)
        cc_json_string(js, NULL, cc_reduction_list[r].name);
    cc_json_end_array(js);
    cc_json_begin_object(js, "table1"); /* operations per iteration (Table 1 of the study) */
    cc_json_int(js, "spmv", k->table1.spmv);
    cc_json_int(js, "precond", k->table1.precond);
    cc_json_int(js, "dot", k->table1.dot);
    cc_json_int(js, "axpy", k->table1.axpy);
    cc_json_int(js, "reductions", k->table1.reductions);
    cc_json_end_object(js);
    /* vector traffic per iteration of the AXPY-type updates and dots (cc_krylov_traffic) */
    cc_json_begin_object(js, "vector_traffic");
    for (int unfused = 0; unfused < 2; unfused++) {
      cc_krylov_traffic tr = cc_krylov_vector_traffic(k, unfused);
      cc_json_begin_object(js, unfused ? "unfused" : "fused");
      cc_json_int(js, "passes", tr.passes);
      cc_json_int(js, "reads", tr.reads);
      cc_json_int(js, "writes", tr.writes);
      cc_json_end_object(js);
    }
    cc_json_end_object(js);
    cc_json_end_object(js);
  }
  cc_json_end_array(js);
  const struct {
    const char *key;
    const cc_mode_kind *list;
    int n;
  } modes[] = {{"reductions", cc_reduction_list, CC_REDUCTION_COUNT},
               {"progress", cc_progress_list, CC_PROGRESS_COUNT}};
  for (int m = 0; m < 2; m++) {
    cc_json_begin_array(js, modes[m].key);
    for (int i = 0; i < modes[m].n; i++) {
      begin_named(js, modes[m].list[i].name, modes[m].list[i].description);
      cc_json_end_object(js);
    }
    cc_json_end_array(js);
  }
  cc_json_begin_array(js, "preconditioners");
  for (int i = 0; cc_precond_list[i].name; i++) {
    begin_named(js, cc_precond_list[i].name, cc_precond_list[i].description);
    cc_json_end_object(js);
  }
  cc_json_end_array(js);
  cc_json_begin_array(js, "orderings");
  for (int i = 0; cc_ordering_list[i].name; i++) {
    begin_named(js, cc_ordering_list[i].name, cc_ordering_list[i].description);
    cc_json_bool(js, "needs_colors", cc_ordering_list[i].needs_colors);
    cc_json_end_object(js);
  }
  cc_json_end_array(js);
  cc_json_begin_array(js, "checkpoint_backends"); /* only the backends built in */
  for (int i = 0; cc_io_backend_name(i); i++) cc_json_string(js, NULL, cc_io_backend_name(i));
  cc_json_end_array(js);
  /* the hdf5 backend is built only with a parallel HDF5 of the chosen MPI: which, or why not */
  cc_json_begin_object(js, "hdf5_backend");
  cc_json_bool(js, "built", cc_build_have_hdf5);
  cc_json_string(js, "hdf5", cc_build_have_hdf5 ? cc_build_hdf5 : NULL);
  cc_json_string(js, "why_absent", cc_build_have_hdf5 ? NULL : cc_build_hdf5);
  cc_json_end_object(js);
  cc_json_end_object(js);
}

/* Where the MPI library's progress threads ran (rank 0 holds the per-rank records). */
static void write_progress_threads(cc_json *js, const cc_progress_info *p)
{
  cc_json_begin_object(js, "progress_threads");
  cc_json_int(js, "total", p->total);
  cc_json_int(js, "sharing_compute_cores", p->sharing);
  cc_json_int(js, "free_cpus_per_node_min", p->free_cpus_min);
  cc_json_string(js, "pin_knob", p->pin_knob[0] ? p->pin_knob : NULL);
  cc_json_string(js, "pin_setting", p->pin_setting[0] ? p->pin_setting : NULL);
  cc_json_int(js, "pin_checked", p->pin_checked);
  cc_json_int(js, "pin_mismatches", p->pin_mismatches);
  cc_json_begin_array(js, "per_rank");
  for (int r = 0; p->ranks && r < p->n_ranks; r++) {
    const cc_progress_rank *pr = &p->ranks[r];
    if (pr->n == 0) continue;
    cc_json_begin_object(js, NULL);
    cc_json_int(js, "rank", r);
    cc_json_int(js, "node_rank", pr->node_rank);
    cc_json_begin_array(js, "threads");
    for (int k = 0; k < pr->n && k < CC_MAX_PROGRESS_THREADS; k++) {
      cc_json_begin_object(js, NULL);
      cc_json_int(js, "cpu", pr->cpu[k]);
      cc_json_string(js, "cpus", pr->cpus[k]);
      if (pr->expected[k] >= 0)
        cc_json_int(js, "pin_cpu", pr->expected[k]);
      else
        cc_json_string(js, "pin_cpu", NULL);
      cc_json_bool(js, "shares_compute_cores", pr->shares[k]);
      cc_json_end_object(js);
    }
    cc_json_end_array(js);
    cc_json_end_object(js);
  }
  cc_json_end_array(js);
  cc_json_end_object(js);
}

/* --trace: where the archive is and what it holds, summed over ranks once it is closed (null
 * counts before: a report rewritten between solves) */
static void write_trace(cc_json *js, const cc_run *run)
{
  if (!run->opts.trace[0]) {
    cc_json_string(js, "trace", NULL);
    return;
  }
  const cc_trace_counts *c = &run->trace_counts;
  const int closed         = run->trace_closed;
  char archive[CC_PATH_MAX + 16];
  snprintf(archive, sizeof archive, "%s/traces.otf2", run->opts.trace);
  cc_json_begin_object(js, "trace");
  cc_json_string(js, "dir", run->opts.trace);
  cc_json_string(js, "archive", archive);
  cc_json_string(js, "library", cc_trace_library);
  cc_json_int(js, "iterations_per_solve", run->opts.trace_iterations);
  cc_json_bool(js, "closed", closed);
  const struct {
    const char *key;
    int64_t value;
  } sums[] = {{"events", c->events},
              {"iterations", c->iterations},
              {"reductions_posted", c->posted},
              {"reduction_tests", c->tests},
              {"reductions_waited", c->waited},
              {"waits_found_completed", c->waited_completed}};
  for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++)
    if (closed)
      cc_json_int(js, sums[i].key, sums[i].value);
    else
      cc_json_string(js, sums[i].key, NULL);
  cc_json_end_object(js);
}

/* A solve's variant: its name, label, reduction and the settings that shape its recurrence. */
static void write_solve_variant(cc_json *js, const cc_solve_result *r)
{
  cc_json_string(js, "solver", r->solver);
  cc_json_string(js, "label", r->label); /* the series key: solver, plcg-l<L>, sstep-s<S> */
  cc_json_string(js, "reduction", r->reduction);
  if (r->pipeline_depth > 0) cc_json_int(js, "pipeline_depth", r->pipeline_depth);
  if (r->sstep > 0) {
    cc_json_int(js, "sstep", r->sstep);
    cc_json_string(js, "sstep_basis", r->sstep_basis);
    cc_json_double(js, "basis_condition", r->basis_condition);
  }
  if (r->spectrum_source[0]) { /* the bounds of M^-1 A's spectrum the shifts / basis used */
    cc_json_begin_object(js, "spectrum");
    cc_json_double(js, "lambda_min", r->spectrum_min);
    cc_json_double(js, "lambda_max", r->spectrum_max);
    cc_json_string(js, "source", r->spectrum_source);
    cc_json_double(js, "ritz_min", r->ritz_min);
    cc_json_double(js, "ritz_max", r->ritz_max);
    cc_json_int(js, "lanczos_steps", r->spectrum_steps);
    cc_json_double(js, "seconds", r->spectrum_seconds);    /* inside time_s, before iteration 0 */
    cc_json_int(js, "reductions", r->spectrum_reductions); /* blocking, inside reductions */
    cc_json_end_object(js);
  }
  if (r->pipeline_depth > 0) {
    cc_json_int(js, "sqrt_breakdown_restarts", r->sqrt_breakdowns);
    cc_json_int(js, "natural_norm_iteration", r->natural_iteration);
  }
}

/* A solve's global reductions and its residual replacements. */
static void write_solve_reductions(cc_json *js, const cc_solve_result *r)
{
  /* global reductions of the solve: blocking (each pays the whole latency), posted non-blocking,
   * and posted ones waited for before the injected latency elapsed; per iteration in the loop */
  cc_json_begin_object(js, "reductions");
  cc_json_int(js, "blocking", r->reductions_blocking);
  cc_json_int(js, "posted", r->reductions_posted);
  cc_json_int(js, "waited_early", r->reductions_waited_early);
  cc_json_int(js, "waited", r->reductions_waited);
  cc_json_int(js, "tests", r->polls);
  cc_json_begin_object(js, "per_iteration");
  cc_json_double(js, "blocking", r->reductions_per_iteration[0]);
  cc_json_double(js, "posted", r->reductions_per_iteration[1]);
  cc_json_double(js, "waited_early", r->reductions_per_iteration[2]);
  cc_json_end_object(js);
  cc_json_end_object(js);
  cc_json_begin_object(js, "residual_replacement");
  cc_json_int(js, "count", r->replacements);
  cc_json_begin_array(js, "iterations"); /* the first CC_MAX_REPLACEMENTS */
  for (int i = 0; i < r->replacements && i < CC_MAX_REPLACEMENTS; i++)
    cc_json_int(js, NULL, r->replacement_iteration[i]);
  cc_json_end_array(js);
  cc_json_double(js, "gap_estimate_max", r->gap_estimate_max);
  cc_json_double(js, "final_rel_residual", r->rel_residual);
  cc_json_double(js, "final_true_rel_residual", r->true_rel_residual);
  cc_json_end_object(js);
}

/* A solve's outcome: iterations, convergence, residuals, time; --precision-reference beside it. */
static void write_solve_outcome(cc_json *js, const cc_run *run, const cc_solve_record *rec)
{
  const cc_solve_result *r = &rec->result;
  int iterations           = r->iterations - r->start_iteration;
  double per_iter          = iterations > 0 ? r->time_s / iterations : 0;
  double baseline          = cc_run_baseline_time_per_iter(run);
  cc_json_int(js, "iterations", r->iterations);
  cc_json_int(js, "start_iteration", r->start_iteration);
  cc_json_bool(js, "interrupted", r->interrupted);
  cc_json_bool(js, "restart_rebuilt", r->restart_rebuilt);
  cc_json_bool(js, "converged", r->converged);
  cc_json_string(js, "failure", r->failure);
  cc_json_double(js, "rel_residual", r->rel_residual);
  cc_json_double(js, "true_rel_residual", r->true_rel_residual);
  cc_json_double(js, "analytic_max_rel_error", rec->analytic_error);
  cc_json_double(js, "time_s", r->time_s);
  cc_json_double(js, "time_per_iter_s", per_iter);
  cc_json_double(js, "relative_to_pcg_ar", baseline > 0 && per_iter > 0 ? per_iter / baseline : -1);
  if (rec->iterations_double > 0) { /* --precision-reference: the same solve in double */
    cc_json_begin_object(js, "precision_reference");
    cc_json_int(js, "iterations_double", rec->iterations_double);
    cc_json_double(js, "time_double_s", rec->time_double_s);
    cc_json_double(js, "iterations_over_double",
                   (double)r->iterations / (double)rec->iterations_double);
    cc_json_double(js, "bound", CC_PRECISION_ITER_BOUND);
    cc_json_bool(js, "within_bound", rec->iterations_within_bound);
    cc_json_end_object(js);
  }
}

/* The modelled bytes of one iteration and, with --roofline, the solve's triads. */
static void write_solve_traffic_model(cc_json *js, const cc_run *run, const cc_solve_record *rec)
{
  /* the traffic model of one iteration (solvers/traffic.c), its parts written exactly so that
   * they sum to the total bit for bit; --roofline: the triad around it */
  const struct {
    const char *key;
    double value;
  } exact[] = {{"total", rec->model_total},           {"per_rank_min", rec->model_rank_min},
               {"per_rank_max", rec->model_rank_max}, {"spmv", rec->model_spmv},
               {"precond", rec->model_precond},       {"vectors", rec->model_vectors}};
  cc_json_begin_object(js, "modelled_bytes_per_iteration");
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
    cc_json_double_exact(js, exact[i].key, exact[i].value);
  cc_json_double(js, "vector_passes", rec->model_vector_passes);
  cc_json_end_object(js);
  if (run->opts.roofline) { /* src/roofline.c */
    cc_json_double(js, "triad_bytes_per_s", cc_roofline_triad(rec));
    cc_json_double(js, "roofline_fraction", cc_roofline_fraction(rec));
    cc_json_begin_object(js, "roofline");
    cc_json_int(js, "windows", rec->rl_windows);
    cc_json_int(js, "window_iterations", rec->rl_every);
    const cc_rl_kind head = cc_roofline_headline(rec), A = CC_RL_ARRAYS, M = CC_RL_MATRIX;
    cc_json_string(js, "triad_source", head == M ? "matrix_pages" : "triad_arrays");
    cc_json_double(js, "window_fraction_min", rec->rl_window_min[head]);
    cc_json_double(js, "window_fraction_max", rec->rl_window_max[head]);
    cc_json_double(js, "fraction_triad_arrays", cc_roofline_fraction_of(rec, A));
    cc_json_double(js, "triad_arrays_bytes_per_s", cc_roofline_triad_of(rec, A));
    cc_json_double(js, "fraction_matrix_pages", cc_roofline_fraction_of(rec, M));
    cc_json_double(js, "triad_matrix_pages_bytes_per_s", cc_roofline_triad_of(rec, M));
    cc_json_double(js, "triad_bytes_per_s_before", rec->triad_before[A]);
    cc_json_double(js, "triad_bytes_per_s_after", rec->triad_after[A]);
    cc_json_double(js, "fraction_bracket", cc_roofline_bracket_of(rec, A));
    cc_json_double(js, "triad_matrix_pages_bytes_per_s_before", rec->triad_before[M]);
    cc_json_double(js, "triad_matrix_pages_bytes_per_s_after", rec->triad_after[M]);
    cc_json_int(js, "triad_matrix_pages_elements_per_rank_min", rec->triad_matrix_elements);
    cc_json_double(js, "fraction_bracket_matrix_pages", cc_roofline_bracket_of(rec, M));
    cc_json_double(js, "triads_removed_s", rec->rl_overhead_s);
    cc_json_end_object(js);
  }
}

/* The measured time breakdowns, op counts, vector traffic and --residual-history. */
static void write_solve_measured(cc_json *js, const cc_solve_record *rec)
{
  const cc_solve_result *r = &rec->result;
  write_breakdown(js, "breakdown", rec->breakdown_max);
  write_breakdown(js, "breakdown_mean", rec->breakdown_mean);
  write_breakdown(js, "breakdown_min", rec->breakdown_min);
  cc_json_begin_object(js, "ops_per_iteration");
  cc_json_double(js, "spmv", rec->ops_per_iteration[CC_T_SPMV]);
  cc_json_double(js, "precond", rec->ops_per_iteration[CC_T_PRECOND]);
  cc_json_double(js, "dot", rec->ops_per_iteration[CC_T_DOT]);
  cc_json_double(js, "reductions", rec->ops_per_iteration[CC_T_REDUCTION]);
  cc_json_double(js, "axpy", rec->ops_per_iteration[CC_T_AXPY]);
  cc_json_end_object(js);
  /* measured beside the op counts, the same way: full-vector passes and doubles per DOF read /
   * written by the vector kernels per iteration (docs/report-schema.md) */
  cc_json_bool(js, "fused", rec->fused);
  cc_json_begin_object(js, "vector_traffic");
  cc_json_double(js, "passes", r->vector_passes_per_iteration);
  cc_json_double(js, "reads", r->vector_reads_per_iteration);
  cc_json_double(js, "writes", r->vector_writes_per_iteration);
  cc_json_double(js, "bytes_per_dof",
                 8.0 * (r->vector_reads_per_iteration + r->vector_writes_per_iteration));
  cc_json_end_object(js);
  if (rec->history) {
    cc_json_begin_array(js, "residual_history");
    for (int i = 0; i < r->history_len; i++) cc_json_double_exact(js, NULL, rec->history[i]);
    cc_json_end_array(js);
  }
}

/* The solve's checkpoints (null without --checkpoint). */
static void write_solve_checkpoints(cc_json *js, const cc_solve_record *rec)
{
  if (rec->ckpt_enabled) {
    cc_json_begin_object(js, "checkpoint");
    cc_json_string(js, "backend", rec->ckpt_backend);
    cc_json_string(js, "path_used", rec->ckpt_path_used);
    cc_json_int(js, "count", rec->ckpt_count);
    cc_json_double(js, "stall_s", rec->ckpt_stall_s);
    cc_json_double(js, "write_s", rec->ckpt_write_s);
    cc_json_int(js, "bytes", rec->ckpt_bytes);
    cc_json_string(js, "last", rec->ckpt_last);
    cc_json_begin_array(js, "per_checkpoint"); /* stall against write, each one */
    for (int i = 0; i < rec->ckpt_n_records; i++) {
      cc_json_begin_object(js, NULL);
      cc_json_int(js, "iteration", rec->ckpt_records[i].iteration);
      cc_json_bool(js, "committed", rec->ckpt_records[i].committed);
      cc_json_double(js, "stall_s", rec->ckpt_records[i].stall_s);
      cc_json_double(js, "wait_s", rec->ckpt_records[i].wait_s);
      cc_json_double(js, "write_s", rec->ckpt_records[i].write_s);
      cc_json_double(js, "commit_s", rec->ckpt_records[i].commit_s);
      cc_json_end_object(js);
    }
    cc_json_end_array(js);
    cc_json_int(js, "per_checkpoint_dropped", rec->ckpt_records_dropped);
    cc_json_end_object(js);
  } else {
    cc_json_string(js, "checkpoint", NULL);
  }
}

/* One entry of "solves". */
static void write_solve(cc_json *js, const cc_run *run, const cc_solve_record *rec)
{
  cc_json_begin_object(js, NULL);
  write_solve_variant(js, &rec->result);
  write_solve_reductions(js, &rec->result);
  write_solve_outcome(js, run, rec);
  write_solve_traffic_model(js, run, rec);
  write_solve_measured(js, rec);
  write_solve_checkpoints(js, rec);
  cc_json_end_object(js);
}

/* A FIFO target, opened before the work (cc_report_target_open) and kept for the one final report:
 * opened then without blocking, so a FIFO nobody reads is refused up front instead of hanging the
 * job at its end (open(2) of a FIFO for writing blocks until a reader opens it). */
static FILE *report_fifo;
static char report_fifo_path[CC_PATH_MAX];

cc_err cc_report_target_open(const char *path)
{
  struct stat st;
  if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISFIFO(st.st_mode)) return CC_OK;
  int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  CC_CHECK(fd >= 0 || errno != ENXIO, CC_ERR_ARG,
           "--report %s: a FIFO that nobody reads: start its reader first (writing the report "
           "would block the job)",
           path);
  CC_CHECK(fd >= 0, CC_ERR_ARG, "--report %s: cannot open the FIFO: %s", path, strerror(errno));
  /* blocking writes from now on (the reader is there); a reader that leaves is EPIPE, not SIGPIPE
   */
  int flags = fcntl(fd, F_GETFL);
  FILE *f   = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, "w") : NULL;
  if (!f) close(fd);
  CC_CHECK(f != NULL, CC_ERR_SYS, "--report %s: cannot use the FIFO: %s", path, strerror(errno));
  signal(SIGPIPE, SIG_IGN);
  report_fifo = f;
  snprintf(report_fifo_path, sizeof report_fifo_path, "%s", path);
  return CC_OK;
}

int cc_report_target_is_file(const char *path)
{
  struct stat st;
  return strcmp(path, "-") != 0 && (stat(path, &st) != 0 || S_ISREG(st.st_mode));
}

/* Opens the report's object; its head: its version and kind, the run's state, and where its summary
 * is. */
static void write_header(cc_json *js, const cc_run *run, const char *path)
{
  cc_json_begin_object(js, NULL);
  cc_json_int(js, "cubecg_report_version", CC_REPORT_VERSION);
  cc_json_string(js, "kind", "run");
  cc_json_string(js, "cubecg_version", CC_VERSION);
  /* partial results: rewritten after each solve; a signal stops the run with exit code 4 */
  cc_json_bool(js, "in_progress", run->in_progress);
  cc_json_bool(js, "interrupted", run->interrupted);
  cc_json_string(js, "signal", run->interrupted ? cc_signal_name(run->signal) : NULL);
  /* the printed summary saved beside this report, once the run is over (null before, and when
   * the report goes to stdout or a fifo) */
  char summary[CC_PATH_MAX + 16];
  int has_summary = !run->in_progress && cc_summary_path(path, summary, sizeof summary);
  cc_json_string(js, "summary_file", has_summary ? summary : NULL);
}

/* The MPI library, how it was launched, its threads and progress settings. */
static void write_mpi(cc_json *js, const cc_run *run)
{
  cc_json_begin_object(js, "mpi");
  cc_json_string(js, "library", run->mpi.library);
  cc_json_string(js, "implementation", run->mpi.implementation);
  cc_json_string(js, "version", run->mpi.version);
  cc_json_string(js, "built_for", cc_build_mpi_impl);
  cc_json_string(js, "launched_by", run->mpi.launcher);
  cc_json_string(js, "launched_by_decided_by", run->mpi.launcher_why);
  cc_json_string(js, "libraries_mapped", run->mpi.mapped);
  cc_json_string(js, "async_progress_knob", run->mpi.knob[0] ? run->mpi.knob : NULL);
  cc_json_string(js, "knobs_without_effect",
                 run->mpi.ignored_knobs[0] ? run->mpi.ignored_knobs : NULL);
  cc_json_string(js, "wait_setting", run->mpi.wait_knob[0] ? run->mpi.wait_knob : NULL);
  cc_json_bool(js, "wait_setting_given", run->mpi.wait_knob_set);
  cc_json_int(js, "threads_before_init", run->mpi.tasks_before);
  cc_json_int(js, "threads_after_init", run->mpi.tasks_after);
  write_progress_threads(js, &run->progress);
  cc_json_string(js, "thread_level_requested", cc_thread_level_name(run->mpi.thread_requested));
  cc_json_string(js, "thread_level_provided", cc_thread_level_name(run->mpi.thread_provided));
  cc_json_bool(js, "async_progress_requested", run->mpi.async_requested);
  cc_json_bool(js, "async_progress_active", run->mpi.async_active);
  cc_json_string(js, "async_progress_decided_by", run->mpi.async_decided_by);
  cc_json_string(js, "progress", cc_progress_list[run->opts.progress].name);
  cc_json_double(js, "injected_reduction_latency_us", run->opts.inject_latency_us);
  cc_json_bool(js, "latency_simulated", run->opts.inject_latency_us > 0);
  cc_json_end_object(js);
}

/* The mesh, the ranks and threads, and the partition's quality. */
static void write_problem(cc_json *js, const cc_run *run)
{
  cc_json_begin_object(js, "problem");
  cc_json_int(js, "nx", run->opts.mesh.nx);
  cc_json_int(js, "ny", run->opts.mesh.ny);
  cc_json_int(js, "nz", run->opts.mesh.nz);
  cc_json_int(js, "dof", run->dof);
  cc_json_int(js, "ranks", run->ranks);
  cc_json_int(js, "threads", run->threads);
  cc_json_string(js, "partition", cc_options_choice(&run->opts, "partition"));
  cc_json_int(js, "px", run->px);
  cc_json_int(js, "py", run->py);
  cc_json_int(js, "pz", run->pz);
  cc_json_int(js, "edge_cut", run->edge_cut);
  cc_json_double(js, "load_imbalance", run->load_imbalance);
  cc_json_int(js, "box_edge_cut", run->box_edge_cut);
  cc_json_double(js, "box_load_imbalance", run->box_load_imbalance);
  cc_json_int(js, "coarse_vertices", run->coarse_vertices);
  cc_json_double(js, "boundary_rows_fraction", run->boundary_rows_fraction);
  cc_json_end_object(js);
}

/* The preconditioner, its ordering and --precond-precision's storage. */
static void write_preconditioner(cc_json *js, const cc_run *run)
{
  cc_json_begin_object(js, "preconditioner");
  cc_json_string(js, "name", cc_precond_list[run->opts.precond].name);
  cc_json_string(js, "ordering", run->ordering_used);
  cc_json_int(js, "colors_requested", run->opts.colors);
  cc_json_int(js, "colors_used", run->colors_used);
  cc_json_int(js, "asdd_iters", run->opts.asdd_iters);
  cc_json_string(js, "asdd_residual", cc_options_choice(&run->opts, "asdd-residual"));
  /* --precond-precision: storage beyond the matrix per DOF, and what single adds over double
   * (float copies of the blocks, less the double D^-1 no longer held); the double matrix is kept
   * either way (SpMV, the true residual and the checks read it) */
  const double dof = run->dof > 0 ? (double)run->dof : 1.0;
  cc_json_string(js, "precision", cc_precision_list[run->opts.precond_precision].name);
  cc_json_double(js, "bytes_per_dof", (double)run->precond_bytes / dof);
  cc_json_double(js, "extra_bytes_per_dof",
                 (double)(run->precond_bytes - run->precond_bytes_double) / dof);
  cc_json_bool(js, "double_matrix_kept", 1);
  cc_json_bool(js, "precision_reference",
               run->opts.precision_reference && run->opts.precond_precision != CC_PRECISION_DOUBLE);
  if (run->opts.precond_precision == CC_PRECISION_HALF)
    cc_json_string(js, "half_conversion", cc_half_conversion_path);
  cc_json_end_object(js);
}

/* Stage timers (max, min and mean over ranks) and memory. */
static void write_timings_memory(cc_json *js, const cc_run *run)
{
  /* stage timers: max over ranks ("timings"), and min / mean beside them */
  const cc_timer_id stages[] = {CC_T_MESH,       CC_T_PARTITION, CC_T_ASSEMBLY,
                                CC_T_ORDERING,   CC_T_SETUP,     CC_T_SOLVE,
                                CC_T_CHECKPOINT, CC_T_EXPORT,    CC_T_TOTAL};
  const char *keys[]         = {"timings", "timings_min", "timings_mean"};
  const double *values[]     = {run->timings, run->timings_min, run->timings_mean};
  for (int v = 0; v < 3; v++) {
    cc_json_begin_object(js, keys[v]);
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++)
      cc_json_double(js, cc_timer_name(stages[i]), values[v][stages[i]]);
    cc_json_end_object(js);
  }

  cc_json_begin_object(js, "memory");
  cc_json_int(js, "peak_rss_bytes_max", run->peak_rss_max);
  cc_json_int(js, "peak_rss_bytes_min", run->peak_rss_min);
  cc_json_int(js, "peak_rss_bytes_median", run->peak_rss_median);
  cc_json_int(js, "peak_rss_bytes_rank0", run->peak_rss_rank0);
  cc_json_int(js, "estimate_bytes_rank0", run->memory_estimate_rank0);
  cc_json_int(js, "estimate_bytes_other", run->memory_estimate_other);
  cc_json_double(js, "peak_rss_bytes_per_dof",
                 run->dof > 0 ? (double)run->peak_rss_max * run->ranks / run->dof : 0);
  cc_json_end_object(js);
}

/* The verification: verdict, each check, and the analytic error. */
static void write_checks(cc_json *js, const cc_run *run)
{
  cc_json_begin_object(js, "checks");
  /* an interrupted run's iterate is no answer: its verification did not run */
  cc_json_bool(js, "passed", cc_run_checks_passed(run) && !run->interrupted);
  cc_json_string(js, "verification",
                 run->interrupted            ? "not run"
                 : cc_run_checks_passed(run) ? "PASSED"
                                             : "FAILED");
  cc_json_begin_array(js, "items");
  for (int i = 0; i < run->n_checks; i++) {
    cc_json_begin_object(js, NULL);
    cc_json_string(js, "name", run->checks[i].name);
    cc_json_double(js, "value", run->checks[i].value);
    cc_json_double(js, "bound", run->checks[i].bound);
    cc_json_bool(js, "passed", run->checks[i].passed);
    cc_json_end_object(js);
  }
  if (run->checks_dropped > 0) { /* the limit is named; the verdict above is false */
    cc_json_begin_object(js, NULL);
    cc_json_string(js, "name", "checks_past_CC_MAX_CHECKS_not_recorded");
    cc_json_double(js, "value", run->checks_dropped);
    cc_json_double(js, "bound", 0);
    cc_json_bool(js, "passed", 0);
    cc_json_end_object(js);
  }
  cc_json_end_array(js);
  cc_json_end_object(js);
  cc_json_double(js, "analytic_max_rel_error", run->analytic_error);
}

/* --roofline: how the triads were sized and when they ran (null without it). */
static void write_roofline_setup(cc_json *js, const cc_run *run)
{
  if (run->opts.roofline) {
    cc_json_begin_object(js, "roofline");
    cc_json_int(js, "llc_bytes", (int64_t)run->topo.llc_bytes);
    cc_json_double(js, "triad_node_bytes", run->triad_node_bytes);
    cc_json_string(js, "triad_node_bytes_from",
                   run->triad_node_bytes_env ? "CUBECG_ROOFLINE_TRIAD_MB" : "4 x llc_bytes");
    cc_json_int(js, "triad_rank_elements", run->triad_rank_elements);
    cc_json_int(js, "triads_per_measurement", CC_ROOFLINE_TRIADS);
    cc_json_string(js, "when",
                   "5 triads just before and 5 just after each solve; one before every window of "
                   "window_iterations iterations inside it (their time taken out of the solve); "
                   "each time on the triad's own arrays and over the matrix's pages");
    cc_json_end_object(js);
  } else {
    cc_json_string(js, "roofline", NULL);
  }
}

/* The report's sections in their documented order (docs/report-schema.md). */
static void write_report(cc_json *js, const cc_run *run, const char *path)
{
  write_header(js, run, path); /* opens the report's object */
  cc_options_json(&run->opts, js);
  write_available(js);
  cc_provenance_json(js); /* date, build, platform */
  cc_topology_json(&run->topo, js);
  write_mpi(js, run);
  cc_overlap_report(run, js); /* the start-up probe of the reductions' overlap */
  write_problem(js, run);
  write_preconditioner(js, run);
  write_timings_memory(js, run);
  write_checks(js, run);
  write_roofline_setup(js, run);
  write_trace(js, run);
  cc_json_begin_array(js, "solves");
  for (int s = 0; s < run->n_solves; s++) write_solve(js, run, &run->solves[s]);
  cc_json_end_array(js);
  cc_json_end_object(js);
}

cc_err cc_report_write(const cc_run *run, const char *path)
{
  /* A regular file (or a new one) is written to a temporary name and renamed, so a failed run never
   * leaves half a report. "-" is stdout; an existing non-regular target (fifo, device,
   * /dev/stdout) is written directly: renaming over it would replace it with a regular file. */
  char tmp[PATH_MAX + 8], resolved[PATH_MAX];
  struct stat st;
  int to_stdout = strcmp(path, "-") == 0;
  int to_fifo   = report_fifo && strcmp(path, report_fifo_path) == 0;
  int direct    = to_stdout || to_fifo || (stat(path, &st) == 0 && !S_ISREG(st.st_mode));
  /* a symlink is written through: the temporary beside its target, renamed over the target */
  if (!direct && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    CC_CHECK(realpath(path, resolved) != NULL, CC_ERR_SYS, "report '%s': cannot resolve: %s", path,
             strerror(errno));
    path = resolved;
  }
  snprintf(tmp, sizeof tmp, "%s%s", to_stdout ? "stdout" : path, direct ? "" : ".tmp");
  FILE *out = to_stdout ? stdout : to_fifo ? report_fifo : fopen(direct ? path : tmp, "w");
  if (to_fifo) report_fifo = NULL; /* the one final report: closed below */
  CC_CHECK(out != NULL, CC_ERR_SYS, "cannot create report '%s': %s", tmp, strerror(errno));
  cc_json js = {.out = out};
  write_report(&js, run, path);
  if (to_stdout) fputc('\n', out);
  int write_failed = ferror(out);
  int close_failed = to_stdout ? fflush(out) : fclose(out);
  CC_CHECK(!write_failed && !close_failed, CC_ERR_SYS, "writing report '%s' failed", tmp);
  if (direct) return CC_OK;
  CC_CHECK(rename(tmp, path) == 0, CC_ERR_SYS, "cannot rename '%s' to '%s': %s", tmp, path,
           strerror(errno));
  return CC_OK;
}
