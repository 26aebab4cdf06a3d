/* pipeline.c: the GeoFEM/Cube run, each stage timed: mesh + partition, assembly, ordering,
 * preconditioner set-up, built-in checks, the requested CG variants, exports. */
#include "checks.h"
#include "driver_ckpt.h"
#include "overlap_startup.h"
#include "pipeline.h"
#include "report.h"
#include "roofline.h"

#include <stdlib.h>

const char *const cc_breakdown_name[CC_BRK_COUNT] = {
    "spmv",       "precond",   "precond_halo",      "halo", "axpy", "dot", "reduction",
    "checkpoint", "halo_wait", "precond_halo_wait", "other"};

/* The combinations asked for: --solver all --reduction all runs every variant with every reduction
 * it supports; pcg (Alg.1) is blocking only and always comes first as the baseline. */
cc_err cc_plan_solves(const cc_options *opts, cc_solve_plan plan[CC_MAX_SOLVES], int *n)
{
  *n = 0;
  for (int i = 0; cc_krylov_list[i]; i++) {
    const cc_krylov *k = cc_krylov_list[i];
    if (opts->solver != CC_CHOICE_ALL && opts->solver != i) continue;
    for (int r = 0; r < CC_REDUCTION_COUNT; r++) {
      int wanted = opts->reduction == CC_CHOICE_ALL || opts->reduction == r ||
                   (r == CC_REDUCTION_AR && !k->supports_iar); /* iar asked of an ar-only one */
      if (!wanted || (r == CC_REDUCTION_IAR && !k->supports_iar)) continue;
      CC_CHECK(*n < CC_MAX_SOLVES, CC_ERR_ARG,
               "--solver %s --reduction %s: more than CC_MAX_SOLVES = %d solves",
               opts->solver == CC_CHOICE_ALL ? "all" : k->name,
               opts->reduction == CC_CHOICE_ALL ? "all" : cc_reduction_list[r].name, CC_MAX_SOLVES);
      plan[(*n)++] = (cc_solve_plan){k, (cc_reduction_mode)r};
    }
  }
  return CC_OK;
}

/* Split this rank's timers into disjoint parts, then reduce max, mean and min over ranks: a part
 * whose max and min differ by much more than their iterations' jitter is a systematic imbalance
 * (one rank waits in `reduction` for the other's work every iteration). */
static cc_err record_breakdown(MPI_Comm comm, const cc_solve_result *res, cc_solve_record *rec)
{
  const double *t = res->seconds;
  double part[CC_BRK_COUNT];
  part[CC_BRK_SPMV]              = t[CC_T_SPMV] - t[CC_T_HALO];
  part[CC_BRK_PRECOND]           = t[CC_T_PRECOND] - t[CC_T_PRECOND_HALO];
  part[CC_BRK_PRECOND_HALO]      = t[CC_T_PRECOND_HALO] - t[CC_T_PRECOND_HALO_WAIT];
  part[CC_BRK_HALO]              = t[CC_T_HALO] - t[CC_T_HALO_WAIT];
  part[CC_BRK_HALO_WAIT]         = t[CC_T_HALO_WAIT];
  part[CC_BRK_PRECOND_HALO_WAIT] = t[CC_T_PRECOND_HALO_WAIT];
  part[CC_BRK_AXPY]              = t[CC_T_AXPY];
  part[CC_BRK_DOT]               = t[CC_T_DOT];
  part[CC_BRK_REDUCTION]         = t[CC_T_REDUCTION];
  part[CC_BRK_CHECKPOINT]        = t[CC_T_CHECKPOINT];
  double accounted               = 0;
  for (int i = 0; i < CC_BRK_OTHER; i++) accounted += part[i];
  part[CC_BRK_OTHER] = t[CC_T_SOLVE] - accounted;
  for (int i = 0; i < CC_BRK_COUNT; i++) {
    cc_stat stat;
    CC_CALL(cc_stat_reduce(comm, part[i], &stat));
    rec->breakdown_max[i]  = stat.max;
    rec->breakdown_mean[i] = stat.mean;
    rec->breakdown_min[i]  = stat.min;
  }
  /* measured by the solver between the first and last completed iterations: Table 1, exactly */
  for (int i = 0; i < CC_T_COUNT; i++) rec->ops_per_iteration[i] = res->ops_per_iteration[i];
  return CC_OK;
}

/* Collective: did any rank catch SIGTERM/SIGINT/SIGUSR1? Then the run stops here. */
static cc_err stop_requested(cc_run *run, MPI_Comm comm)
{
  int sig;
  CC_CALL(cc_signals_agree(comm, &sig));
  if (sig && !run->interrupted) {
    run->interrupted = 1;
    run->signal      = sig;
    cc_stage(run, "%s received: stopping", cc_signal_name(sig));
  }
  return CC_OK;
}

/* Rank 0 rewrites the report after each solve so that a killed job keeps what it finished. */
static cc_err report_rewrite(cc_run *run, MPI_Comm comm)
{
  /* only a regular file is rewritten: stdout (-) or a fifo gets the one final report */
  if (!run->opts.report[0] || !cc_report_target_is_file(run->opts.report)) return CC_OK;
  cc_err local = run->rank == 0 ? cc_report_write(run, run->opts.report) : CC_OK, global;
  CC_CALL(cc_error_agree(comm, local, &global));
  CC_CHECK(global == CC_OK, global, "rewriting the report '%s' after a solve", run->opts.report);
  return CC_OK;
}

/* The solve's modelled bytes per iteration (solvers/traffic.c), with the SpMV and preconditioner
 * counts as the solver measured them (residual replacement amortised; Table 1 when fewer than two
 * iterations ran), summed over ranks; min and max of one rank beside. */
static cc_err record_traffic(MPI_Comm comm, const cc_traffic *tm, const cc_krylov *variant,
                             int depth, cc_solve_record *rec)
{
  double spmv = rec->ops_per_iteration[CC_T_SPMV], prec = rec->ops_per_iteration[CC_T_PRECOND];
  if (spmv <= 0 && prec <= 0) spmv = variant->table1.spmv, prec = variant->table1.precond;
  double passes   = cc_traffic_vector_passes(variant, !rec->fused, depth);
  double local[4] = {cc_traffic_iteration(tm, variant, !rec->fused, depth, spmv, prec),
                     spmv * tm->spmv, prec * tm->precond, passes * tm->stream};
  double sum[4], lo, hi;
  CC_MPI(MPI_Allreduce(local, sum, 4, MPI_DOUBLE, MPI_SUM, comm));
  CC_MPI(MPI_Allreduce(&local[0], &lo, 1, MPI_DOUBLE, MPI_MIN, comm));
  CC_MPI(MPI_Allreduce(&local[0], &hi, 1, MPI_DOUBLE, MPI_MAX, comm));
  rec->model_total = sum[0], rec->model_spmv = sum[1], rec->model_precond = sum[2];
  rec->model_vectors = sum[3], rec->model_rank_min = lo, rec->model_rank_max = hi;
  rec->model_vector_passes = passes;
  return CC_OK;
}

/* The solver's per-iteration hook: the monitor, and before it a poll that moves an offloaded
 * checkpoint's commit on (non-blocking; io/cc_io.h "Offload commit"). */
typedef struct {
  cc_monitor_fn next; /* the monitor (or the roofline's hook around it) */
  void *next_ctx;
  cc_driver_ckpt *ckpt;
} solve_hook;

static cc_err hook_iteration(void *ctx, int iteration, double rel_residual, int *stop)
{
  solve_hook *hook = ctx;
  CC_CALL(cc_driver_ckpt_poll(hook->ckpt));
  CC_CALL(hook->next(hook->next_ctx, iteration, rel_residual, stop));
  return CC_OK;
}

/* The Krylov options of one solve from the solve's options (cc_options_for_solve): one place for
 * the solve and its --precision-reference twin, so that both run the same variant settings
 * (reduction, depth, S, basis, bounds, replacement). No checkpoint, restart, monitor, history. */
static cc_err krylov_opts(const cc_run *run, const cc_options *solve, cc_krylov_opts *k)
{
  memset(k, 0, sizeof *k);
  k->tol           = solve->tol;
  k->maxit         = solve->maxit;
  k->reduction     = (cc_reduction_mode)solve->reduction;
  k->replace_every = solve->replace_every;
  /* the reduction settings and the timers belong to the solve (no process-wide state) */
  k->progress          = (cc_progress_mode)solve->progress; /* the registry index is the enum */
  k->inject_latency_us = solve->inject_latency_us;
  k->count_only        = run->timers.count_only;
  k->pipeline_depth    = solve->pipeline_depth; /* p(l)-CG; the others ignore it */
  k->sstep             = solve->sstep;          /* s-step CG */
  k->sstep_basis       = (cc_sstep_basis)solve->sstep_basis;
  k->unfused           = !solve->fused;
  k->inject            = &run->opts.seams.krylov; /* test seam, off unless set (test_seams.c) */
  CC_CALL(cc_options_spectrum_bounds(solve, &k->spectrum_min, &k->spectrum_max));
  return CC_OK;
}

/* --precision-reference: the solve again from x = 0 with the double preconditioner pc_double
 * (no checkpoint, roofline or monitor); its iterations and time beside rec's */
static cc_err reference_solve(const cc_run *run, const cc_mesh *mesh, const cc_bcrs *a,
                              cc_precond *pc_double, const cc_krylov *variant,
                              const cc_options *solve, double *b, double *x, cc_solve_record *rec)
{
  cc_krylov_opts kopts;
  CC_CALL(krylov_opts(run, solve, &kopts));
  cc_solve_result result;
  memset(x, 0, 3 * (size_t)a->n_cols * sizeof(double));
  CC_CALL(cc_krylov_solve(variant, a, &mesh->comm, pc_double, b, x, &kopts, &result));
  rec->iterations_double = result.iterations;
  rec->time_double_s     = result.time_s;
  rec->iterations_within_bound =
      rec->result.iterations <= CC_PRECISION_ITER_BOUND * result.iterations;
  return CC_OK;
}

/* What the solves of a run share: the problem, the plan, the work vectors, and the handles
 * (checkpoint, restart, roofline, trace) that an error frees. */
typedef struct {
  cc_run *run;
  const cc_mesh *mesh;
  const cc_bcrs *a;
  const cc_ordering *ord;
  cc_precond *pc, *pc_double; /* pc_double: --precision-reference */
  double *b;
  cc_solve_plan plan[CC_MAX_SOLVES];
  int n_plan;
  double *x, *u;
  cc_driver_ckpt *restart, *ckpt;
  cc_triad triad; /* --roofline: allocated once, first-touched by the solver's threads */
  cc_roofline *roofline;
  cc_options *solve; /* one solve's options (cc_options_for_solve) */
  cc_trace *trace;   /* --trace: the solves' OTF2 archive */
  cc_traffic tm;
} solves;

/* --roofline: STREAM's rule: arrays of 4x the last-level cache per node, split over the node's
 * ranks (CUBECG_ROOFLINE_TRIAD_MB sets another size) */
static cc_err solves_roofline_open(solves *sv)
{
  cc_run *run = sv->run;
  CC_CALL(cc_roofline_triad_env(&run->triad_node_bytes));
  run->triad_node_bytes_env = run->triad_node_bytes > 0;
  if (run->triad_node_bytes_env)
    cc_stage(run, "roofline: STREAM triad arrays %.0f MiB per node (CUBECG_ROOFLINE_TRIAD_MB)",
             run->triad_node_bytes / 1048576.0);
  else {
    run->triad_node_bytes = 4.0 * run->topo.llc_bytes;
    cc_stage(run, "roofline: STREAM triad arrays %.0f MiB per node (4 x LLC %.0f MiB)",
             run->triad_node_bytes / 1048576.0, run->topo.llc_bytes / 1048576.0);
  }
  CC_CALL(
      cc_triad_create(sv->mesh->comm.comm, run->triad_node_bytes, run->topo.node_size, &sv->triad));
  run->triad_rank_elements = sv->triad.n;
  CC_CALL(cc_calloc(1, sizeof *sv->roofline, &sv->roofline));
  return CC_OK;
}

/* Before the first solve: the trace archive, the work vectors, the traffic model, the triads. */
static cc_err solves_open(solves *sv, const cc_precond_params *pparams)
{
  const cc_options *opts = &sv->run->opts;
  if (opts->trace[0]) {
    if (opts->trace_iterations)
      cc_stage(sv->run, "trace: %s/traces.otf2, %d iterations per solve", opts->trace,
               opts->trace_iterations);
    else
      cc_stage(sv->run, "trace: %s/traces.otf2, every iteration", opts->trace);
    CC_CALL(cc_trace_open(sv->mesh->comm.comm, opts->trace, opts->trace_iterations, &sv->trace));
  }
  CC_CALL(cc_calloc(3 * (size_t)sv->a->n_cols, sizeof(double), &sv->x));
  CC_CALL(cc_calloc(3 * (size_t)sv->a->n_cols, sizeof(double), &sv->u));
  CC_CALL(cc_calloc(1, sizeof *sv->solve, &sv->solve));
  CC_CALL(cc_traffic_model(sv->a, pparams, &sv->tm));
  if (opts->roofline) CC_CALL(solves_roofline_open(sv));
  return CC_OK;
}

/* Frees what the solves hold. The checkpoint handles only when every rank agreed on the error
 * (their destruction may be collective; otherwise the driver aborts the job). */
static void solves_free(solves *sv, cc_err err)
{
  if (err && cc_error_agreed())
    cc_driver_ckpt_destroy(&sv->ckpt), cc_driver_ckpt_destroy(&sv->restart);
  cc_trace_discard(&sv->trace);
  cc_free(&sv->x);
  cc_free(&sv->u);
  cc_triad_free(&sv->triad);
  cc_free(&sv->roofline);
  cc_free(&sv->solve);
}

/* Solve s resumes from --restart and writes --checkpoint's checkpoints. */
static cc_err solve_checkpoints(solves *sv, int s, cc_krylov_opts *kopts, cc_solve_record *rec)
{
  const cc_options *opts   = &sv->run->opts;
  const cc_krylov *variant = sv->plan[s].variant;
  if (opts->restart[0]) {
    CC_CALL(cc_driver_restart_load(sv->solve, sv->mesh, sv->ord, variant->name, &sv->restart,
                                   &kopts->restart));
    snprintf(rec->restart_from, sizeof rec->restart_from, "%s",
             cc_driver_restart_path(sv->restart));
    cc_stage(sv->run, "resumed from %s at iteration %d", rec->restart_from,
             kopts->restart->iteration);
  }
  if (opts->checkpoint != CC_CHOICE_NONE) {
    /* several solves in one run checkpoint into one subdirectory each */
    char subdir[CC_SUBDIR_MAX];
    snprintf(subdir, sizeof subdir, "%s-%s", variant->name,
             cc_reduction_list[sv->plan[s].reduction].name);
    CC_CALL(cc_driver_ckpt_create(sv->solve, sv->mesh, sv->ord, variant->name,
                                  sv->n_plan > 1 ? subdir : NULL,
                                  kopts->restart ? kopts->restart->iteration : 0, &sv->ckpt));
    kopts->checkpoint       = cc_driver_ckpt_write;
    kopts->checkpoint_ctx   = sv->ckpt;
    kopts->checkpoint_every = opts->checkpoint_every;
    kopts->checkpoint_exact = opts->checkpoint_exact;
  }
  return CC_OK;
}

/* The per-iteration hooks of solve s, innermost first: the monitor (also where a signal is
 * noticed: always on), --roofline's windows around it, an offloaded checkpoint's poll around that.
 */
static cc_err solve_hooks(solves *sv, int s, cc_krylov_opts *kopts, cc_monitor *monitor,
                          solve_hook *hook)
{
  kopts->monitor     = cc_monitor_iteration;
  kopts->monitor_ctx = monitor;
  if (sv->run->opts.roofline) { /* triads before, inside (windows, from the monitor hook), after */
    CC_CALL(cc_roofline_begin(sv->roofline, &sv->triad, sv->a, &sv->tm, sv->plan[s].variant,
                              kopts->unfused, kopts->pipeline_depth, monitor, sv->mesh->comm.comm));
    kopts->monitor     = cc_roofline_iteration;
    kopts->monitor_ctx = sv->roofline;
    kopts->timers      = &sv->roofline->timers;
  }
  *hook = (solve_hook){kopts->monitor, kopts->monitor_ctx, sv->ckpt};
  if (sv->ckpt) { /* an offloaded checkpoint's commit moves on once per iteration */
    kopts->monitor     = hook_iteration;
    kopts->monitor_ctx = hook;
  }
  return CC_OK;
}

/* A NaN / overflow / underflow / non-positive scalar is a numerical error (exit 1, stderr), not a
 * failed verification; the scalars are global, so every rank agrees. One solve: the run fails with
 * it; several: this one's breakdown is recorded and the others still run. */
static cc_err solve_broke_down(solves *sv, cc_solve_record *rec)
{
  cc_run *run = sv->run;
  /* agreed (every rank holds the same global scalars), so rank 0 prints it once and the job ends
   * with MPI_Finalize instead of MPI_Abort */
  cc_err agreed = cc_error_push(CC_ERR_NUMERIC, __FILE__, __LINE__, __func__, "%s %s: %s",
                                rec->result.solver, rec->result.reduction, rec->result.failure);
  CC_CALL(cc_error_agree(sv->mesh->comm.comm, agreed, &agreed));
  if (sv->n_plan == 1) CC_CALL(agreed);
  /* several solves: its failure in the report, a failed check; the run's exit code says a solve
   * failed (1) */
  if (run->rank == 0)
    cc_error_print(stderr, run->rank);
  else
    cc_error_clear();
  run->solves_failed++;
  char name[CC_CHECK_NAME_MAX];
  snprintf(name, sizeof name, "%s_%s_converged", rec->result.solver, rec->result.reduction);
  cc_run_add_check(run, name, 1, 0);
  return report_rewrite(run, sv->mesh->comm.comm);
}

/* The checks of a finished solve: converged, its true residual, its error against the analytic
 * solution. */
static void solve_checks(cc_run *run, const cc_solve_record *rec)
{
  const cc_solve_result *r = &rec->result;
  char name[CC_CHECK_NAME_MAX];
  snprintf(name, sizeof name, "%s_%s_converged", r->solver, r->reduction);
  cc_run_add_check(run, name, r->converged ? 0 : 1, 0);
  snprintf(name, sizeof name, "%s_%s_true_residual", r->solver, r->reduction);
  cc_run_add_check(run, name, r->true_rel_residual, 10 * run->opts.tol);
  snprintf(name, sizeof name, "%s_%s_analytic_error", r->solver, r->reduction);
  cc_run_add_check(run, name, rec->analytic_error, run->opts.analytic_tol);
}

/* After solve s (not broken down): its error, breakdown and traffic; an interrupted one stops the
 * run (*stop), a finished one is checked and, with --precision-reference, run again in double. */
static cc_err solve_record(solves *sv, int s, const char *label, const cc_monitor *monitor,
                           cc_solve_record *rec, int *stop)
{
  cc_run *run            = sv->run;
  const cc_options *opts = &run->opts;
  MPI_Comm comm          = sv->mesh->comm.comm;
  cc_ordering_unpermute(sv->ord, sv->x, sv->u);
  CC_CALL(cc_mesh_analytic_error(sv->mesh, &opts->mesh, sv->u, &rec->analytic_error));
  CC_CALL(record_breakdown(comm, &rec->result, rec));
  CC_CALL(record_traffic(comm, &sv->tm, sv->plan[s].variant, opts->pipeline_depth, rec));
  if (rec->result.interrupted) {
    /* the iterate of an unfinished solve is no answer: no checks, no export, report it */
    run->interrupted = 1;
    run->signal      = monitor->signal;
    cc_stage(run, "%s received: %s stopped after iteration %d%s%s", cc_signal_name(run->signal),
             label, rec->result.iterations, rec->ckpt_last[0] ? ", last checkpoint " : "",
             rec->ckpt_last);
    *stop = 1;
    return report_rewrite(run, comm);
  }
  if (rec->analytic_error > run->analytic_error) run->analytic_error = rec->analytic_error;
  if (sv->pc_double && !opts->restart[0]) {
    cc_stage(run, "reference: %s with the double preconditioner", label);
    CC_CALL(reference_solve(run, sv->mesh, sv->a, sv->pc_double, sv->plan[s].variant, sv->solve,
                            sv->b, sv->x, rec));
  }
  solve_checks(run, rec);
  return report_rewrite(run, comm);
}

/* Solve s of the plan, recorded in run->solves; *stop: the run stops after it (a signal). */
static cc_err run_solve(solves *sv, int s, int *stop)
{
  cc_run *run              = sv->run;
  const cc_options *opts   = &run->opts;
  const cc_krylov *variant = sv->plan[s].variant;
  char label[CC_LABEL_MAX];
  snprintf(label, sizeof label, "%s-%s", variant->name,
           cc_reduction_list[sv->plan[s].reduction].name);
  cc_stage(run, "solve %d/%d: %s (%s), tol %g, maxit %d", s + 1, sv->n_plan, label,
           variant->description, opts->tol, opts->maxit);
  /* the solve's own options: its variant and reduction, what its checkpoints record */
  cc_options_for_solve(opts, variant, sv->plan[s].reduction, sv->solve);
  cc_krylov_opts kopts;
  CC_CALL(krylov_opts(run, sv->solve, &kopts));
  kopts.trace          = sv->trace;
  cc_solve_record *rec = &run->solves[run->n_solves++];
  memset(rec, 0, sizeof *rec);
  rec->fused = opts->fused;
  if (opts->residual_history) {
    /* one value per iteration checked, iteration 0 included; kept until the process ends */
    kopts.history_cap = opts->maxit < CC_HISTORY_MAX ? opts->maxit + 1 : CC_HISTORY_MAX;
    CC_CALL(cc_malloc((size_t)kopts.history_cap, sizeof(double), &rec->history));
    kopts.history = rec->history;
  }
  memset(sv->x, 0, 3 * (size_t)sv->a->n_cols * sizeof(double));
  CC_CALL(solve_checkpoints(sv, s, &kopts, rec));
  cc_monitor monitor;
  cc_monitor_init(&monitor, run, sv->mesh->comm.comm, label);
  solve_hook hook;
  CC_CALL(solve_hooks(sv, s, &kopts, &monitor, &hook));
  CC_CALL(
      cc_krylov_solve(variant, sv->a, &sv->mesh->comm, sv->pc, sv->b, sv->x, &kopts, &rec->result));
  if (opts->roofline) CC_CALL(cc_roofline_end(sv->roofline, rec));
  if (sv->ckpt) CC_CALL(cc_driver_ckpt_finish(sv->ckpt, opts, rec));
  cc_driver_ckpt_destroy(&sv->ckpt);
  cc_driver_ckpt_destroy(&sv->restart);
  if (rec->result.breakdown) return solve_broke_down(sv, rec);
  return solve_record(sv, s, label, &monitor, rec, stop);
}

/* After the last solve: a signal, --export-solution (the last solve's displacements), the trace. */
static cc_err solves_close(solves *sv)
{
  cc_run *run = sv->run;
  if (!run->interrupted) CC_CALL(stop_requested(run, sv->mesh->comm.comm));
  if (run->opts.export_solution[0] && !run->interrupted) {
    cc_stage(run, "export: %s", run->opts.export_solution);
    cc_timer_token t_export = cc_timer_start(&run->timers, CC_T_EXPORT);
    CC_CALL(cc_driver_export_solution(&run->opts, sv->mesh, sv->u));
    cc_timer_stop(&run->timers, t_export);
  }
  if (sv->trace) {
    CC_CALL(cc_trace_close(&sv->trace, &run->trace_counts));
    run->trace_closed = 1;
  }
  return CC_OK;
}

/* The plan's solves one after the other, until the last or a signal. */
static cc_err solves_run(solves *sv, const cc_precond_params *pparams)
{
  cc_run *run = sv->run;
  CC_CALL(cc_plan_solves(&run->opts, sv->plan, &sv->n_plan));
  CC_CHECK(sv->n_plan > 0, CC_ERR_ARG, "no solver matches --solver %s --reduction %s",
           cc_options_choice(&run->opts, "solver"), cc_options_choice(&run->opts, "reduction"));
  CC_CALL(solves_open(sv, pparams));
  run->analytic_error = 0;
  int stop            = 0;
  for (int s = 0; s < sv->n_plan && !stop; s++) {
    CC_CALL(stop_requested(run, sv->mesh->comm.comm));
    if (run->interrupted) break;
    CC_CALL(run_solve(sv, s, &stop));
  }
  return solves_close(sv);
}

static cc_err run_solves(cc_run *run, const cc_mesh *mesh, const cc_bcrs *a, const cc_ordering *ord,
                         cc_precond *pc, const cc_precond_params *pparams, double *b,
                         cc_precond *pc_double)
{
  solves sv = {
      .run = run, .mesh = mesh, .a = a, .ord = ord, .pc = pc, .pc_double = pc_double, .b = b};
  cc_err err = solves_run(&sv, pparams);
  solves_free(&sv, err);
  return err;
}

/* The preconditioner's storage (as run, and in double precision) summed over ranks. */
static cc_err precond_memory(cc_run *run, const cc_precond *pc, MPI_Comm comm)
{
  int64_t bytes[2] = {pc->bytes, pc->bytes_double};
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, bytes, 2, MPI_INT64_T, MPI_SUM, comm));
  run->precond_bytes        = bytes[0];
  run->precond_bytes_double = bytes[1];
  return CC_OK;
}

/* --export-matrix PATH: the matrix in PATH, the right-hand side b (Matrix Market array) in
 * PATH.rhs.mtx and the inverses of the 3x3 diagonal blocks, as point-block Jacobi applies them, in
 * PATH.pbjacobi.mtx (coordinate, block-diagonal), all in the natural global DOF numbering: an
 * external solver gets the same problem and the same preconditioner (collective). */
static cc_err export_problem(const cc_mesh *mesh, const cc_bcrs *a, const double *b,
                             const char *path)
{
  char rhs[CC_PATH_MAX], inv_path[CC_PATH_MAX];
  CC_CHECK(snprintf(rhs, sizeof rhs, "%s.rhs.mtx", path) < (int)sizeof rhs &&
               snprintf(inv_path, sizeof inv_path, "%s.pbjacobi.mtx", path) < (int)sizeof inv_path,
           CC_ERR_ARG, "--export-matrix %s: too long for its .pbjacobi.mtx sibling", path);
  CC_CALL(cc_mesh_export_matrix(mesh, a, path));
  CC_CALL(cc_mesh_export_vector(mesh, b, rhs));
  /* the block inverses as a block-diagonal matrix: row i's only block at column i */
  cc_bcrs d = {0};
  d.n_rows = d.n_cols = a->n_rows;
  d.n_blocks          = a->n_rows;
  cc_err err          = cc_malloc((size_t)a->n_rows + 1, sizeof *d.row_ptr, &d.row_ptr);
  if (!err) err = cc_malloc((size_t)a->n_rows + 1, sizeof *d.col_idx, &d.col_idx);
  if (!err) err = cc_malloc(9 * (size_t)a->n_rows + 1, sizeof *d.val, &d.val);
  if (!err) {
    for (int i = 0; i <= a->n_rows; i++) d.row_ptr[i] = i;
    for (int i = 0; i < a->n_rows; i++) d.col_idx[i] = i;
    err = cc_precond_jacobi_blocks(a, &mesh->comm, d.val);
  }
  cc_err global;
  CC_CALL(cc_error_agree(mesh->comm.comm, err, &global));
  if (!global) global = cc_mesh_export_matrix(mesh, &d, inv_path);
  cc_free(&d.row_ptr);
  cc_free(&d.col_idx);
  cc_free(&d.val);
  return global;
}

/* The median and rank 0's peak RSS: rank 0 gathers one value per rank (O(P) on rank 0 only). */
static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static cc_err rss_median(MPI_Comm comm, double rss, cc_run *run)
{
  double *all = NULL;
  int rank, size;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  if (rank == 0) CC_CALL(cc_malloc((size_t)size, sizeof(double), &all));
  CC_MPI(MPI_Gather(&rss, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, comm));
  if (rank == 0) {
    run->peak_rss_rank0 = (int64_t)all[0];
    qsort(all, (size_t)size, sizeof(double), cmp_double);
    run->peak_rss_median =
        (int64_t)(size % 2 ? all[size / 2] : 0.5 * (all[size / 2 - 1] + all[size / 2]));
  }
  cc_free(&all);
  return CC_OK;
}

/* What the pipeline holds from stage to stage (memory only: freeing it needs no communication, so
 * a job whose ranks agreed on a failure ends cleanly with MPI_Finalize). */
typedef struct {
  cc_mesh mesh;
  cc_bcrs a, pattern;
  cc_ordering ord;
  cc_precond *pc, *pc_double; /* pc_double: --precision-reference */
  cc_precond_params pparams;
  double *b;
} pipeline;

static void pipeline_free(pipeline *p)
{
  cc_precond_destroy(&p->pc);
  cc_precond_destroy(&p->pc_double);
  cc_ordering_free(&p->ord);
  cc_free(&p->b);
  cc_bcrs_free(&p->a);
  cc_bcrs_free(&p->pattern);
  cc_mesh_free(&p->mesh);
}

/* The mesh and its partition; --export-matrix in the natural numbering. */
static cc_err pipeline_mesh(cc_run *run, MPI_Comm comm, pipeline *p)
{
  const cc_options *opts = &run->opts;
  cc_timers *timers      = &run->timers;
  cc_stage(run, "mesh + partition: %d x %d x %d nodes, %s partition, %d ranks x %d threads",
           opts->mesh.nx, opts->mesh.ny, opts->mesh.nz, cc_options_choice(opts, "partition"),
           run->ranks, run->threads);
  CC_CALL(cc_mesh_create(&opts->mesh, comm, &p->mesh));
  const cc_mesh *mesh = &p->mesh;
  cc_timers_record(timers, CC_T_PARTITION, mesh->partition_seconds);
  cc_timers_record(timers, CC_T_MESH, mesh->numbering_seconds);
  run->dof = 3 * mesh->n_global_nodes;
  run->px = mesh->px, run->py = mesh->py, run->pz = mesh->pz;
  /* the partition's quality beside the box grid's (METIS: of its block graph) */
  run->edge_cut = mesh->edge_cut, run->load_imbalance = mesh->load_imbalance;
  run->box_edge_cut = mesh->box_edge_cut, run->box_load_imbalance = mesh->box_load_imbalance;
  run->coarse_vertices       = mesh->coarse_vertices;
  run->memory_estimate_rank0 = cc_mesh_estimate_rank_bytes(&opts->mesh, run->ranks, 1);
  run->memory_estimate_other = cc_mesh_estimate_rank_bytes(&opts->mesh, run->ranks, 0);
  if (opts->export_matrix[0]) {
    /* the export speaks the natural numbering: a natural assembly of its own, freed at once */
    cc_stage(run, "export: matrix %s (with its right-hand side and point-block Jacobi inverse)",
             opts->export_matrix);
    cc_timer_token tok = cc_timer_start(timers, CC_T_ASSEMBLY);
    CC_CALL(cc_mesh_assemble(&p->mesh, &opts->mesh, &p->a, &p->b));
    cc_timer_stop(timers, tok);
    tok = cc_timer_start(timers, CC_T_EXPORT);
    CC_CALL(export_problem(&p->mesh, &p->a, p->b, opts->export_matrix)); /* timed as CC_T_EXPORT */
    cc_timer_stop(timers, tok);
    cc_bcrs_free(&p->a);
    cc_free(&p->b);
  }
  return CC_OK;
}

/* The ordering comes from the sparsity pattern alone; the matrix is then assembled once, in the
 * final order, rows first-touched color by color: one copy of the matrix is ever held. */
static cc_err pipeline_assemble(cc_run *run, MPI_Comm comm, pipeline *p)
{
  const cc_options *opts = &run->opts;
  cc_timers *timers      = &run->timers;
  const char *ordering   = cc_ordering_list[opts->ordering].name;
  cc_stage(run, "ordering: %s", ordering);
  cc_timer_token tok = cc_timer_start(timers, CC_T_ASSEMBLY);
  CC_CALL(cc_mesh_pattern(&p->mesh, &p->pattern));
  cc_timer_stop(timers, tok);
  tok = cc_timer_start(timers, CC_T_ORDERING);
  CC_CALL(cc_ordering_create(ordering, opts->colors, &p->pattern, &p->ord));
  cc_timer_stop(timers, tok);
  cc_bcrs_free(&p->pattern);
  cc_ordering_apply_comm(&p->ord, &p->mesh.comm);
  tok = cc_timer_start(timers, CC_T_ASSEMBLY);
  cc_stage(run, "assembly: %lld DOF", (long long)run->dof);
  const cc_ordering *ord = &p->ord;
  CC_CALL(cc_mesh_assemble_ordered(&p->mesh, &opts->mesh, ord->new_of_old, ord->old_of_new,
                                   ord->n_colors, ord->n_colors > 0 ? ord->color_ptr : NULL, 1,
                                   &p->a, &p->b));
  cc_timer_stop(timers, tok);
  snprintf(run->ordering_used, sizeof run->ordering_used, "%s", ord->kind);
  run->colors_used = ord->n_colors;
  /* rows reading no halo column run while the halo messages fly (--halo-overlap on) */
  CC_CALL(cc_bcrs_classify_rows(&p->a,
                                opts->level_order == CC_LEVEL_ORDER_ON ? ord->level_order : NULL));
  cc_stat boundary;
  CC_CALL(cc_stat_reduce(
      comm, p->a.n_rows > 0 ? (double)(p->a.n_rows - p->a.n_interior) / p->a.n_rows : 0.0,
      &boundary));
  run->boundary_rows_fraction = boundary.max;
  if (opts->halo_overlap == CC_HALO_OVERLAP_OFF) {
    if (opts->level_order == CC_LEVEL_ORDER_ON && ord->level_order)
      p->a.n_interior = 0; /* every row after the whole halo, still level by level */
    else
      cc_bcrs_unclassify_rows(&p->a);
  }
  return CC_OK;
}

/* The preconditioner (and its double twin for --precision-reference), the symmetry checks and the
 * start-up overlap probe. */
static cc_err pipeline_setup(cc_run *run, MPI_Comm comm, pipeline *p)
{
  const cc_options *opts = &run->opts;
  cc_stage(run, "setup: preconditioner %s", cc_precond_list[opts->precond].name);
  p->pparams = (cc_precond_params){
      .name               = cc_precond_list[opts->precond].name,
      .asdd_iters         = opts->asdd_iters,
      .asdd_full_residual = opts->asdd_residual == CC_ASDD_RESIDUAL_FULL,
      .ordering           = &p->ord,
      .precision          = (cc_precision)opts->precond_precision,
      .sweep_chunk_rows   = opts->level_order == CC_LEVEL_ORDER_ON ? opts->sweep_chunk_rows : -1};
  cc_timer_token tok = cc_timer_start(&run->timers, CC_T_SETUP);
  CC_CALL(cc_precond_create(&p->pparams, &p->a, &p->mesh.comm, &p->pc)); /* timed as CC_T_SETUP */
  cc_timer_stop(&run->timers, tok);
  CC_CALL(precond_memory(run, p->pc, comm));

  CC_CALL(cc_checks_symmetry(run, &p->a, &p->mesh.comm, p->pc));
  if (opts->precision_reference && opts->precond_precision != CC_PRECISION_DOUBLE) {
    cc_precond_params dparams = p->pparams; /* the same preconditioner with double blocks */
    dparams.precision         = CC_PRECISION_DOUBLE;
    CC_CALL(cc_precond_create(&dparams, &p->a, &p->mesh.comm, &p->pc_double));
  }
  CC_CALL(cc_overlap_startup(run, &p->a, &p->mesh.comm)); /* runs with iar: measured overlap */
  return CC_OK;
}

/* The stages up to the last solve; a signal between stages skips the rest. */
static cc_err pipeline_stages(cc_run *run, MPI_Comm comm, pipeline *p)
{
  CC_CALL(pipeline_mesh(run, comm, p));
  CC_CALL(stop_requested(run, comm));
  if (run->interrupted) return CC_OK;
  CC_CALL(pipeline_assemble(run, comm, p));
  CC_CALL(stop_requested(run, comm));
  if (run->interrupted) return CC_OK;
  CC_CALL(pipeline_setup(run, comm, p));
  CC_CALL(run_solves(run, &p->mesh, &p->a, &p->ord, p->pc, &p->pparams, p->b,
                     p->pc_double)); /* solves keep their own timers */
  return CC_OK;
}

/* The stage timers and peak RSS reduced over ranks (also after a signal). */
static cc_err pipeline_totals(cc_run *run, MPI_Comm comm, double started)
{
  cc_timers *timers = &run->timers;
  for (int s = 0; s < run->n_solves; s++)
    timers->seconds[CC_T_SOLVE] += run->solves[s].result.seconds[CC_T_SOLVE];
  timers->seconds[CC_T_TOTAL] = MPI_Wtime() - started;

  for (int i = 0; i < CC_T_COUNT; i++) {
    cc_stat stat;
    CC_CALL(cc_stat_reduce(comm, timers->seconds[i], &stat));
    run->timings[i]      = stat.max;
    run->timings_min[i]  = stat.min;
    run->timings_mean[i] = stat.mean;
  }
  double rss = (double)cc_peak_rss_bytes();
  cc_stat rss_stat;
  CC_CALL(cc_stat_reduce(comm, rss, &rss_stat));
  run->peak_rss_max = (int64_t)rss_stat.max;
  run->peak_rss_min = (int64_t)rss_stat.min;
  CC_CALL(rss_median(comm, rss, run));
  run->in_progress = 0;
  return CC_OK;
}

cc_err cc_run_pipeline(cc_run *run)
{
  MPI_Comm comm = MPI_COMM_WORLD;
  pipeline p    = {0};
  cc_timers_init(&run->timers, run->opts.timing != CC_TIMING_ON); /* the stages' timers */
  double started = MPI_Wtime();
  if (run->started == 0) run->started = started;
  run->in_progress = 1;
  cc_err err       = pipeline_stages(run, comm, &p);
  if (!err) err = pipeline_totals(run, comm, started);
  pipeline_free(&p);
  return err;
}
