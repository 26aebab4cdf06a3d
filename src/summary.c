/* summary.c: the run's human summary (parameters, platform, build, checks PASSED/FAILED, timings,
 * results), printed by rank 0 and saved beside the report. */
#include "monitor.h"
#include "overlap_startup.h"
#include "roofline.h"
#include "summary.h"

#include <errno.h>

/* The mesh, the partition and the preconditioner. */
static void print_problem(const cc_run *run, FILE *out)
{
  const cc_options *o = &run->opts;
  fprintf(out, "cubecg %s  GeoFEM/Cube %d x %d x %d nodes, %lld DOF\n", CC_VERSION, o->mesh.nx,
          o->mesh.ny, o->mesh.nz, (long long)run->dof);
  fprintf(out, "  ranks x threads  %d x %d   partition %s (%d x %d x %d)\n", run->ranks,
          run->threads, cc_options_choice(o, "partition"), run->px, run->py, run->pz);
  /* the partition's quality beside the box grid's for the same ranks (METIS: its block graph) */
  fprintf(out, "  partition        edge cut %lld (box %lld), load imbalance %.3f (box %.3f)",
          (long long)run->edge_cut, (long long)run->box_edge_cut, run->load_imbalance,
          run->box_load_imbalance);
  if (run->coarse_vertices > 0)
    fprintf(out, ", METIS on %lld blocks", (long long)run->coarse_vertices);
  fprintf(out, "\n");
  const char *residual = cc_options_asdd_residual(o); /* "" without an inner residual */
  fprintf(out,
          "  preconditioner   %s, ordering %s (colors requested %d, used %d), ASDD iterations "
          "%d%s%s%s\n",
          cc_precond_list[o->precond].name, run->ordering_used, o->colors, run->colors_used,
          o->asdd_iters, residual[0] ? " (residual " : "", residual, residual[0] ? ")" : "");
  if (o->precond_precision != CC_PRECISION_DOUBLE)
    fprintf(out, "  precond blocks   %s precision: %+.0f bytes per DOF over double (matrix kept)\n",
            cc_precision_list[o->precond_precision].name,
            run->dof > 0 ? (double)(run->precond_bytes - run->precond_bytes_double) / run->dof
                         : 0.0);
  if (o->precond_precision != CC_PRECISION_DOUBLE && !o->precision_reference)
    fprintf(out, "  precond blocks   iterations against double not measured "
                 "(--precision-reference runs each solve again with double blocks)\n");
}

/* Threads, topology, the MPI library, its progress threads and waits. */
static void print_platform(const cc_run *run, FILE *out)
{
  const cc_options *o = &run->opts;
  fprintf(out, "  threads          %s\n", run->topo.threads_chosen_by);
  fprintf(
      out,
      "  topology         %d node(s) on %d host(s), %d-%d ranks per node, %d CPUs per node%s%s\n",
      run->topo.nodes, run->topo.hosts, run->topo.ranks_per_node_min, run->topo.ranks_per_node_max,
      run->topo.cores_per_node, run->topo.placement[0] ? ", placement " : "", run->topo.placement);
  if (run->topo.oversubscribed)
    fprintf(out, "  WARNING          oversubscribed: %s; timings are not representative\n",
            run->topo.oversubscribed_why);
  fprintf(out, "  MPI              %s %s, launched by %s (%.60s)\n", run->mpi.implementation,
          run->mpi.version, run->mpi.launcher, run->mpi.library);
  fprintf(out, "  thread level     %s; async progress requested %s, active %s\n",
          cc_thread_level_name(run->mpi.thread_provided), run->mpi.async_requested ? "yes" : "no",
          run->mpi.async_active ? "yes" : "no");
  if (run->mpi.async_requested != run->mpi.async_active)
    fprintf(out, "  progress thread  %s\n", run->mpi.async_decided_by);
  if (run->mpi.ignored_knobs[0])
    fprintf(out, "  NO EFFECT        %s: not a knob of %s\n", run->mpi.ignored_knobs,
            run->mpi.implementation);
  if (run->progress.total > 0)
    fprintf(out,
            "  progress threads %d, %d of them share cores with compute threads%s (%d CPU(s) per "
            "node free of compute)\n",
            run->progress.total, run->progress.sharing,
            run->progress.sharing ? ": they compete with the solver for those cores" : "",
            run->progress.free_cpus_min);
  /* a library that busy-polls in its waits loses on cores it shares (oversubscribed, progress
   * threads beside compute threads): name the setting that makes it yield */
  if (run->mpi.wait_knob[0] && (run->topo.oversubscribed || run->progress.sharing))
    fprintf(out, "  waiting          %s busy-polls while it waits; %s%s (docs/mpi-libraries.md)\n",
            run->mpi.implementation, run->mpi.wait_knob,
            run->mpi.wait_knob_set ? " is set" : " is not set: set it on shared cores");
  if (run->progress.pin_checked)
    fprintf(out, "  progress pin     %s=%s: %d thread(s) checked, %d not on the CPU asked\n",
            run->progress.pin_knob, run->progress.pin_setting, run->progress.pin_checked,
            run->progress.pin_mismatches);
  if (o->inject_latency_us > 0)
    fprintf(out, "  SIMULATED        every reduction takes >= %g us (--inject-reduction-latency)\n",
            o->inject_latency_us);
}

/* The start-up overlap probe, the stage timers and the memory high-water mark. */
static void print_stages(const cc_run *run, FILE *out)
{
  cc_overlap_summary(run, out); /* how much of a reduction the work hides here */
  fprintf(out,
          "  stages [s, max over ranks]  mesh %.3f  partition %.3f  assembly %.3f  ordering %.3f"
          "  setup %.3f  solve %.3f  total %.3f\n",
          run->timings[CC_T_MESH], run->timings[CC_T_PARTITION], run->timings[CC_T_ASSEMBLY],
          run->timings[CC_T_ORDERING], run->timings[CC_T_SETUP], run->timings[CC_T_SOLVE],
          run->timings[CC_T_TOTAL]);
  fprintf(out, "  peak RSS         %.1f MiB per rank (max), %.0f bytes per DOF\n",
          run->peak_rss_max / 1048576.0,
          run->dof > 0 ? (double)run->peak_rss_max * run->ranks / run->dof : 0.0);
}

/* --roofline: the solve's fraction of the triad bandwidth (continues the "modelled" line). */
static void print_roofline(const cc_solve_record *rec, FILE *out)
{
  const cc_rl_kind head  = cc_roofline_headline(rec),
                   other = head == CC_RL_MATRIX ? CC_RL_ARRAYS : CC_RL_MATRIX;
  const cc_rl_kind A = CC_RL_ARRAYS, M = CC_RL_MATRIX;
  fprintf(out,
          "\n          roofline fraction %.3f against triads %s (median of %d windows of %d "
          "iterations, %.3f to %.3f; triad %.2f GB/s)\n          against the %s: %.3f "
          "(triad %.2f GB/s); before / after the solve: triad arrays %.2f / %.2f GB/s, "
          "%.3f; matrix pages %.2f / %.2f GB/s, %.3f",
          cc_roofline_fraction(rec), head == M ? "over the matrix's pages" : "on their own arrays",
          rec->rl_windows, rec->rl_every, rec->rl_window_min[head], rec->rl_window_max[head],
          cc_roofline_triad(rec) / 1e9, head == M ? "triad's own arrays" : "matrix's pages",
          cc_roofline_fraction_of(rec, other), cc_roofline_triad_of(rec, other) / 1e9,
          rec->triad_before[A] / 1e9, rec->triad_after[A] / 1e9, cc_roofline_bracket_of(rec, A),
          rec->triad_before[M] / 1e9, rec->triad_after[M] / 1e9, cc_roofline_bracket_of(rec, M));
}

/* One solve's row of the table and the lines below it. */
static void print_solve(const cc_run *run, const cc_solve_record *rec, double baseline, FILE *out)
{
  const cc_options *o      = &run->opts;
  const cc_solve_result *r = &rec->result;
  int iterations           = r->iterations - r->start_iteration;
  double per_iter          = iterations > 0 ? r->time_s / iterations : 0;
  double total             = r->time_s > 0 ? r->time_s / 100 : 1;
  const double *b          = rec->breakdown_max;
  char versus[16]          = "-"; /* no Alg.1-AR in the run: nothing to compare against */
  if (baseline > 0) snprintf(versus, sizeof versus, "%6.3f", per_iter / baseline);
  fprintf(out,
          "  %-7s %-4s %6d %9.2e %9.2e %9.2e %9.4f %6s | %14.2f %4.2f %4.2f %4.2f %4.2f | "
          "%26.1f %5.1f %5.1f %5.1f %5.1f %5.1f %5.1f%s\n",
          r->solver, r->reduction, r->iterations, r->rel_residual, r->true_rel_residual,
          rec->analytic_error, per_iter * 1e3, versus, rec->ops_per_iteration[CC_T_SPMV],
          rec->ops_per_iteration[CC_T_PRECOND], rec->ops_per_iteration[CC_T_DOT],
          rec->ops_per_iteration[CC_T_REDUCTION], rec->ops_per_iteration[CC_T_AXPY],
          b[CC_BRK_SPMV] / total, b[CC_BRK_PRECOND] / total,
          (b[CC_BRK_HALO] + b[CC_BRK_PRECOND_HALO]) / total,
          (b[CC_BRK_HALO_WAIT] + b[CC_BRK_PRECOND_HALO_WAIT]) / total, b[CC_BRK_REDUCTION] / total,
          b[CC_BRK_AXPY] / total, b[CC_BRK_OTHER] / total, r->converged ? "" : "  NOT CONVERGED");
  if (!r->converged && r->failure[0]) fprintf(out, "          %s\n", r->failure);
  fprintf(out, "          modelled %.3g MB per iteration (SpMV %.3g, M^-1 %.3g, vectors %.3g)",
          rec->model_total / 1e6, rec->model_spmv / 1e6, rec->model_precond / 1e6,
          rec->model_vectors / 1e6);
  if (o->roofline) print_roofline(rec, out);
  fputc('\n', out);
  if (rec->iterations_double > 0)
    fprintf(
        out, "          %s precision: %d iterations in %.3f s, double %d (%+.1f %%) in %.3f s%s\n",
        cc_precision_list[o->precond_precision].name, r->iterations, r->time_s,
        rec->iterations_double, 100.0 * ((double)r->iterations / rec->iterations_double - 1.0),
        rec->time_double_s,
        rec->iterations_within_bound ? "" : "  MORE THAN +10 %: this precision is not enough here");
  if (rec->restart_from[0])
    fprintf(out, "          resumed from %s at iteration %d\n", rec->restart_from,
            r->start_iteration);
  if (rec->ckpt_enabled)
    fprintf(out, "          checkpoints: %lld (%s, %.1f MB, stall %.3f s), last %s\n",
            (long long)rec->ckpt_count, rec->ckpt_backend, rec->ckpt_bytes / 1e6, rec->ckpt_stall_s,
            rec->ckpt_last[0] ? rec->ckpt_last : "none");
}

/* The table of solves (one row each, baseline: Alg.1-AR's time per iteration) and its legend. */
static void print_solves(const cc_run *run, FILE *out)
{
  const cc_options *o = &run->opts;
  fprintf(out,
          "\n  %-7s %-4s %6s %9s %9s %9s %9s %6s | per iteration: %4s %4s %4s %4s %4s | "
          "breakdown %% of solve: %5s %5s %5s %5s %5s %5s %5s\n",
          "solver", "red", "iters", "|r|/|b|", "true", "u err", "ms/iter", "vs A1", "SpMV", "M^-1",
          "dot", "red", "AXPY", "spmv", "prec", "halo", "wait", "red", "axpy", "other");
  double baseline = cc_run_baseline_time_per_iter(run);
  for (int s = 0; s < run->n_solves; s++) print_solve(run, &run->solves[s], baseline, out);
  fprintf(out,
          "  (breakdown: max over ranks of each part; halo = SpMV + ASDD halo exchange work, wait ="
          " blocked for\n   their messages (--halo-overlap %s, boundary rows %.1f %%); 'vs A1' ="
          " time per iteration / Alg.1-AR%s)\n",
          o->halo_overlap == CC_HALO_OVERLAP_ON ? "on" : "off", 100 * run->boundary_rows_fraction,
          baseline > 0 ? "" : ", '-': Alg.1-AR is not in this run");
}

/* The failed checks, an interruption, and the verdict line. */
static void print_verdict(const cc_run *run, FILE *out)
{
  int failed = 0;
  for (int i = 0; i < run->n_checks; i++)
    if (!run->checks[i].passed) {
      fprintf(out, "  check FAILED: %s = %.3e (bound %.3e)\n", run->checks[i].name,
              run->checks[i].value, run->checks[i].bound);
      failed++;
    }
  if (run->checks_dropped > 0) {
    fprintf(out, "  check FAILED: %d checks past the limit CC_MAX_CHECKS = %d were not recorded\n",
            run->checks_dropped, CC_MAX_CHECKS);
    failed++;
  }
  if (run->interrupted)
    fprintf(out, "\n  INTERRUPTED by %s: the run stopped early (exit code %d)\n",
            cc_signal_name(run->signal), CC_EXIT_INTERRUPTED);
  if (run->interrupted) /* the unfinished solve's iterate is no answer: nothing to verify */
    fprintf(out, "\n  verification: not run (interrupted; %d checks of the set-up recorded)\n",
            run->n_checks);
  else
    fprintf(out, "\n  verification: %s (%d checks, analytic max rel error %.3e)\n",
            failed ? "FAILED" : "PASSED", run->n_checks, run->analytic_error);
}

void cc_summary_print(const cc_run *run, FILE *out)
{
  print_problem(run, out);
  print_platform(run, out);
  print_stages(run, out);
  print_solves(run, out);
  print_verdict(run, out);
}

cc_err cc_summary_write(const cc_run *run, const char *path)
{
  char tmp[CC_PATH_MAX + 32];
  int n = snprintf(tmp, sizeof tmp, "%s.tmp", path);
  CC_CHECK(n > 0 && (size_t)n < sizeof tmp, CC_ERR_SYS, "summary path '%s' too long", path);
  FILE *out = fopen(tmp, "w");
  CC_CHECK(out != NULL, CC_ERR_SYS, "cannot create summary '%s': %s", tmp, strerror(errno));
  cc_summary_print(run, out);
  fprintf(out, "  report: %s\n  summary: %s\n", run->opts.report, path);
  int write_failed = ferror(out);
  int close_failed = fclose(out);
  CC_CHECK(!write_failed && !close_failed, CC_ERR_SYS, "writing summary '%s' failed", tmp);
  CC_CHECK(rename(tmp, path) == 0, CC_ERR_SYS, "cannot rename '%s' to '%s': %s", tmp, path,
           strerror(errno));
  return CC_OK;
}
