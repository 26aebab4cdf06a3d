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

static cc_err run_solves(cc_run *run, const cc_mesh *mesh, const cc_bcrs *a, const cc_ordering *ord,
                         cc_precond *pc, const cc_precond_params *pparams, double *b,
                         cc_precond *pc_double)
{
  const cc_options *opts = &run->opts;
  cc_solve_plan plan[CC_MAX_SOLVES];
  int n_plan;
  CC_CALL(cc_plan_solves(opts, plan, &n_plan));
  CC_CHECK(n_plan > 0, CC_ERR_ARG, "no solver matches --solver %s --reduction %s",
           cc_options_choice(opts, "solver"), cc_options_choice(opts, "reduction"));
  double *x = NULL, *u = NULL;
  cc_driver_ckpt *restart = NULL, *ckpt = NULL;
  cc_triad triad = {0}; /* --roofline: allocated once, first-touched by the solver's threads */
  cc_roofline *roofline = NULL;
  cc_options *solve     = NULL; /* one solve's options (cc_options_for_solve) */
  cc_trace *trace       = NULL; /* --trace: the solves' OTF2 archive */
  /* On an error: free what this function holds. The checkpoint handles only when every rank agreed
   * on the error (their destruction may be collective; otherwise the driver aborts the job). */
#define SOLVES_CALL(expr)                                                                          \
  do {                                                                                             \
    cc_err solves_err_ = (expr);                                                                   \
    if (solves_err_) {                                                                             \
      if (cc_error_agreed()) cc_driver_ckpt_destroy(&ckpt), cc_driver_ckpt_destroy(&restart);      \
      cc_trace_discard(&trace);                                                                    \
      cc_free(&x), cc_free(&u), cc_triad_free(&triad), cc_free(&roofline), cc_free(&solve);        \
      return cc_error_push(solves_err_, __FILE__, __LINE__, __func__, "%s", #expr);                \
    }                                                                                              \
  } while (0)
  if (opts->trace[0]) {
    if (opts->trace_iterations)
      cc_stage(run, "trace: %s/traces.otf2, %d iterations per solve", opts->trace,
               opts->trace_iterations);
    else
      cc_stage(run, "trace: %s/traces.otf2, every iteration", opts->trace);
    SOLVES_CALL(cc_trace_open(mesh->comm.comm, opts->trace, opts->trace_iterations, &trace));
  }
  SOLVES_CALL(cc_calloc(3 * (size_t)a->n_cols, sizeof(double), &x));
  SOLVES_CALL(cc_calloc(3 * (size_t)a->n_cols, sizeof(double), &u));
  SOLVES_CALL(cc_calloc(1, sizeof *solve, &solve));
  cc_traffic tm;
  SOLVES_CALL(cc_traffic_model(a, pparams, &tm));
  if (opts->roofline) {
    /* STREAM's rule: arrays of 4x the last-level cache per node, split over the node's ranks
     * (CUBECG_ROOFLINE_TRIAD_MB sets another size) */
    SOLVES_CALL(cc_roofline_triad_env(&run->triad_node_bytes));
    run->triad_node_bytes_env = run->triad_node_bytes > 0;
    if (run->triad_node_bytes_env)
      cc_stage(run, "roofline: STREAM triad arrays %.0f MiB per node (CUBECG_ROOFLINE_TRIAD_MB)",
               run->triad_node_bytes / 1048576.0);
    else {
      run->triad_node_bytes = 4.0 * run->topo.llc_bytes;
      cc_stage(run, "roofline: STREAM triad arrays %.0f MiB per node (4 x LLC %.0f MiB)",
               run->triad_node_bytes / 1048576.0, run->topo.llc_bytes / 1048576.0);
    }
    SOLVES_CALL(
        cc_triad_create(mesh->comm.comm, run->triad_node_bytes, run->topo.node_size, &triad));
    run->triad_rank_elements = triad.n;
    SOLVES_CALL(cc_calloc(1, sizeof *roofline, &roofline));
  }
  run->analytic_error = 0;
  for (int s = 0; s < n_plan; s++) {
    SOLVES_CALL(stop_requested(run, mesh->comm.comm));
    if (run->interrupted) break;
    char label[CC_LABEL_MAX];
    snprintf(label, sizeof label, "%s-%s", plan[s].variant->name,
             cc_reduction_list[plan[s].reduction].name);
    cc_stage(run, "solve %d/%d: %s (%s), tol %g, maxit %d", s + 1, n_plan, label,
             plan[s].variant->description, opts->tol, opts->maxit);
    /* the solve's own options: its variant and reduction, what its checkpoints record */
    cc_options_for_solve(opts, plan[s].variant, plan[s].reduction, solve);
    cc_krylov_opts kopts;
    SOLVES_CALL(krylov_opts(run, solve, &kopts));
    kopts.trace = trace;
    cc_solve_record *rec = &run->solves[run->n_solves++];
    memset(rec, 0, sizeof *rec);
    rec->fused = opts->fused;
    if (opts->residual_history) {
      /* one value per iteration checked, iteration 0 included; kept until the process ends */
      kopts.history_cap = opts->maxit < CC_HISTORY_MAX ? opts->maxit + 1 : CC_HISTORY_MAX;
      SOLVES_CALL(cc_malloc((size_t)kopts.history_cap, sizeof(double), &rec->history));
      kopts.history = rec->history;
    }
    memset(x, 0, 3 * (size_t)a->n_cols * sizeof(double));
    if (opts->restart[0]) {
      SOLVES_CALL(cc_driver_restart_load(solve, mesh, ord, plan[s].variant->name, &restart,
                                         &kopts.restart));
      snprintf(rec->restart_from, sizeof rec->restart_from, "%s", cc_driver_restart_path(restart));
      cc_stage(run, "resumed from %s at iteration %d", rec->restart_from, kopts.restart->iteration);
    }
    if (opts->checkpoint != CC_CHOICE_NONE) {
      /* several solves in one run checkpoint into one subdirectory each */
      char subdir[CC_SUBDIR_MAX];
      snprintf(subdir, sizeof subdir, "%s-%s", plan[s].variant->name,
               cc_reduction_list[plan[s].reduction].name);
      SOLVES_CALL(cc_driver_ckpt_create(solve, mesh, ord, plan[s].variant->name,
                                        n_plan > 1 ? subdir : NULL,
                                        kopts.restart ? kopts.restart->iteration : 0, &ckpt));
      kopts.checkpoint       = cc_driver_ckpt_write;
      kopts.checkpoint_ctx   = ckpt;
      kopts.checkpoint_every = opts->checkpoint_every;
      kopts.checkpoint_exact = opts->checkpoint_exact;
    }
    cc_monitor monitor;
    cc_monitor_init(&monitor, run, mesh->comm.comm, label);
    kopts.monitor     = cc_monitor_iteration; /* also where a signal is noticed: always on */
    kopts.monitor_ctx = &monitor;
    if (opts->roofline) { /* triads before, inside (windows, from the monitor hook) and after */
      SOLVES_CALL(cc_roofline_begin(roofline, &triad, a, &tm, plan[s].variant, kopts.unfused,
                                    kopts.pipeline_depth, &monitor, mesh->comm.comm));
      kopts.monitor     = cc_roofline_iteration;
      kopts.monitor_ctx = roofline;
      kopts.timers      = &roofline->timers;
    }
    solve_hook hook = {kopts.monitor, kopts.monitor_ctx, ckpt};
    if (ckpt) { /* an offloaded checkpoint's commit moves on once per iteration */
      kopts.monitor     = hook_iteration;
      kopts.monitor_ctx = &hook;
    }
    SOLVES_CALL(cc_krylov_solve(plan[s].variant, a, &mesh->comm, pc, b, x, &kopts, &rec->result));
    if (opts->roofline) SOLVES_CALL(cc_roofline_end(roofline, rec));
    if (ckpt) SOLVES_CALL(cc_driver_ckpt_finish(ckpt, opts, rec));
    cc_driver_ckpt_destroy(&ckpt);
    cc_driver_ckpt_destroy(&restart);
    /* a NaN / overflow / underflow / non-positive scalar is a numerical error (exit 1, stderr), not
     * a failed verification; the scalars are global, so every rank agrees */
    if (rec->result.breakdown) {
      /* agreed (every rank holds the same global scalars), so rank 0 prints it once and the job
       * ends with MPI_Finalize instead of MPI_Abort */
      cc_err agreed = cc_error_push(CC_ERR_NUMERIC, __FILE__, __LINE__, __func__, "%s %s: %s",
                                    rec->result.solver, rec->result.reduction, rec->result.failure);
      SOLVES_CALL(cc_error_agree(mesh->comm.comm, agreed, &agreed));
      if (n_plan == 1) SOLVES_CALL(agreed);
      /* several solves: this one's breakdown is recorded (its failure in the report, a failed
       * check) and the others still run; the run's exit code says a solve failed (1) */
      if (run->rank == 0)
        cc_error_print(stderr, run->rank);
      else
        cc_error_clear();
      run->solves_failed++;
      snprintf(label, sizeof label, "%s_%s_converged", rec->result.solver, rec->result.reduction);
      cc_run_add_check(run, label, 1, 0);
      SOLVES_CALL(report_rewrite(run, mesh->comm.comm));
      continue;
    }
    cc_ordering_unpermute(ord, x, u);
    SOLVES_CALL(cc_mesh_analytic_error(mesh, &opts->mesh, u, &rec->analytic_error));
    SOLVES_CALL(record_breakdown(mesh->comm.comm, &rec->result, rec));
    SOLVES_CALL(record_traffic(mesh->comm.comm, &tm, plan[s].variant, opts->pipeline_depth, rec));
    if (rec->result.interrupted) {
      /* the iterate of an unfinished solve is no answer: no checks, no export, report it */
      run->interrupted = 1;
      run->signal      = monitor.signal;
      cc_stage(run, "%s received: %s stopped after iteration %d%s%s", cc_signal_name(run->signal),
               label, rec->result.iterations, rec->ckpt_last[0] ? ", last checkpoint " : "",
               rec->ckpt_last);
      SOLVES_CALL(report_rewrite(run, mesh->comm.comm));
      break;
    }
    if (rec->analytic_error > run->analytic_error) run->analytic_error = rec->analytic_error;
    if (pc_double && !opts->restart[0]) {
      cc_stage(run, "reference: %s with the double preconditioner", label);
      SOLVES_CALL(reference_solve(run, mesh, a, pc_double, plan[s].variant, solve, b, x, rec));
    }

    char name[CC_CHECK_NAME_MAX];
    snprintf(name, sizeof name, "%s_%s_converged", rec->result.solver, rec->result.reduction);
    cc_run_add_check(run, name, rec->result.converged ? 0 : 1, 0);
    snprintf(name, sizeof name, "%s_%s_true_residual", rec->result.solver, rec->result.reduction);
    cc_run_add_check(run, name, rec->result.true_rel_residual, 10 * opts->tol);
    snprintf(name, sizeof name, "%s_%s_analytic_error", rec->result.solver, rec->result.reduction);
    cc_run_add_check(run, name, rec->analytic_error, opts->analytic_tol);
    SOLVES_CALL(report_rewrite(run, mesh->comm.comm));
  }
  if (!run->interrupted) SOLVES_CALL(stop_requested(run, mesh->comm.comm));
  if (opts->export_solution[0] && !run->interrupted) {
    cc_stage(run, "export: %s", opts->export_solution);
    cc_timer_token t_export = cc_timer_start(&run->timers, CC_T_EXPORT);
    SOLVES_CALL(cc_driver_export_solution(opts, mesh, u)); /* the last solve's displacements */
    cc_timer_stop(&run->timers, t_export);
  }
  if (trace) {
    SOLVES_CALL(cc_trace_close(&trace, &run->trace_counts));
    run->trace_closed = 1;
  }
#undef SOLVES_CALL
  cc_free(&x);
  cc_free(&u);
  cc_triad_free(&triad);
  cc_free(&roofline);
  cc_free(&solve);
  return CC_OK;
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

cc_err cc_run_pipeline(cc_run *run)
{
  const cc_options *opts = &run->opts;
  MPI_Comm comm          = MPI_COMM_WORLD;
  cc_mesh mesh           = {0};
  cc_bcrs a              = {0};
  cc_ordering ord        = {0};
  cc_precond *pc         = NULL;
  cc_precond *pc_double  = NULL; /* --precision-reference */
  double *b              = NULL;
  cc_bcrs pattern        = {0};
  /* On an error: free what the pipeline holds (memory only, no communication), so that a job whose
   * ranks agreed on the failure ends cleanly with MPI_Finalize. */
#define PIPELINE_CALL(expr)                                                                        \
  do {                                                                                             \
    cc_err pipeline_err_ = (expr);                                                                 \
    if (pipeline_err_) {                                                                           \
      cc_precond_destroy(&pc), cc_precond_destroy(&pc_double), cc_ordering_free(&ord);             \
      cc_free(&b);                                                                                 \
      cc_bcrs_free(&a), cc_bcrs_free(&pattern), cc_mesh_free(&mesh);                               \
      return cc_error_push(pipeline_err_, __FILE__, __LINE__, __func__, "%s", #expr);              \
    }                                                                                              \
  } while (0)

  cc_timers *timers = &run->timers; /* the stages' timers (each solve keeps its own) */
  cc_timers_init(timers, opts->timing != CC_TIMING_ON);
  cc_timer_token tok;
  double started = MPI_Wtime();
  if (run->started == 0) run->started = started;
  run->in_progress = 1;
  cc_stage(run, "mesh + partition: %d x %d x %d nodes, %s partition, %d ranks x %d threads",
           opts->mesh.nx, opts->mesh.ny, opts->mesh.nz, cc_options_choice(opts, "partition"),
           run->ranks, run->threads);
  PIPELINE_CALL(cc_mesh_create(&opts->mesh, comm, &mesh));
  cc_timers_record(timers, CC_T_PARTITION, mesh.partition_seconds);
  cc_timers_record(timers, CC_T_MESH, mesh.numbering_seconds);
  run->dof                   = 3 * mesh.n_global_nodes;
  run->px                    = mesh.px;
  run->py                    = mesh.py;
  run->pz                    = mesh.pz;
  run->edge_cut              = mesh.edge_cut;
  run->load_imbalance        = mesh.load_imbalance;
  run->box_edge_cut          = mesh.box_edge_cut;
  run->box_load_imbalance    = mesh.box_load_imbalance;
  run->coarse_vertices       = mesh.coarse_vertices;
  run->memory_estimate_rank0 = cc_mesh_estimate_rank_bytes(&opts->mesh, run->ranks, 1);
  run->memory_estimate_other = cc_mesh_estimate_rank_bytes(&opts->mesh, run->ranks, 0);
  if (opts->export_matrix[0]) {
    /* the export speaks the natural numbering: a natural assembly of its own, freed at once */
    cc_stage(run, "export: matrix %s (with its right-hand side and point-block Jacobi inverse)",
             opts->export_matrix);
    tok = cc_timer_start(timers, CC_T_ASSEMBLY);
    PIPELINE_CALL(cc_mesh_assemble(&mesh, &opts->mesh, &a, &b));
    cc_timer_stop(timers, tok);
    tok = cc_timer_start(timers, CC_T_EXPORT);
    PIPELINE_CALL(export_problem(&mesh, &a, b, opts->export_matrix)); /* timed as CC_T_EXPORT */
    cc_timer_stop(timers, tok);
    cc_bcrs_free(&a);
    cc_free(&b);
  }

  /* The ordering comes from the sparsity pattern alone; the matrix is then assembled once, in the
   * final order, rows first-touched color by color: one copy of the matrix is ever held. */
  PIPELINE_CALL(stop_requested(run, comm));
  if (run->interrupted) goto finish;
  const char *ordering = cc_ordering_list[opts->ordering].name;
  cc_stage(run, "ordering: %s", ordering);
  tok = cc_timer_start(timers, CC_T_ASSEMBLY);
  PIPELINE_CALL(cc_mesh_pattern(&mesh, &pattern));
  cc_timer_stop(timers, tok);
  tok = cc_timer_start(timers, CC_T_ORDERING);
  PIPELINE_CALL(cc_ordering_create(ordering, opts->colors, &pattern, &ord));
  cc_timer_stop(timers, tok);
  cc_bcrs_free(&pattern);
  cc_ordering_apply_comm(&ord, &mesh.comm);
  tok = cc_timer_start(timers, CC_T_ASSEMBLY);
  cc_stage(run, "assembly: %lld DOF", (long long)run->dof);
  PIPELINE_CALL(cc_mesh_assemble_ordered(&mesh, &opts->mesh, ord.new_of_old, ord.old_of_new,
                                         ord.n_colors, ord.n_colors > 0 ? ord.color_ptr : NULL, 1,
                                         &a, &b));
  cc_timer_stop(timers, tok);
  snprintf(run->ordering_used, sizeof run->ordering_used, "%s", ord.kind);
  run->colors_used = ord.n_colors;
  /* rows reading no halo column run while the halo messages fly (--halo-overlap on) */
  PIPELINE_CALL(
      cc_bcrs_classify_rows(&a, opts->level_order == CC_LEVEL_ORDER_ON ? ord.level_order : NULL));
  cc_stat boundary;
  PIPELINE_CALL(cc_stat_reduce(
      comm, a.n_rows > 0 ? (double)(a.n_rows - a.n_interior) / a.n_rows : 0.0, &boundary));
  run->boundary_rows_fraction = boundary.max;
  if (opts->halo_overlap == CC_HALO_OVERLAP_OFF) {
    if (opts->level_order == CC_LEVEL_ORDER_ON && ord.level_order)
      a.n_interior = 0; /* every row after the whole halo, still level by level */
    else
      cc_bcrs_unclassify_rows(&a);
  }

  PIPELINE_CALL(stop_requested(run, comm));
  if (run->interrupted) goto finish;
  cc_stage(run, "setup: preconditioner %s", cc_precond_list[opts->precond].name);
  cc_precond_params pparams = {
      .name               = cc_precond_list[opts->precond].name,
      .asdd_iters         = opts->asdd_iters,
      .asdd_full_residual = opts->asdd_residual == CC_ASDD_RESIDUAL_FULL,
      .ordering           = &ord,
      .precision          = (cc_precision)opts->precond_precision,
      .sweep_chunk_rows   = opts->level_order == CC_LEVEL_ORDER_ON ? opts->sweep_chunk_rows : -1};
  tok = cc_timer_start(timers, CC_T_SETUP);
  PIPELINE_CALL(cc_precond_create(&pparams, &a, &mesh.comm, &pc)); /* timed as CC_T_SETUP */
  cc_timer_stop(timers, tok);
  PIPELINE_CALL(precond_memory(run, pc, comm));

  PIPELINE_CALL(cc_checks_symmetry(run, &a, &mesh.comm, pc));
  if (opts->precision_reference && opts->precond_precision != CC_PRECISION_DOUBLE) {
    cc_precond_params dparams = pparams; /* the same preconditioner with double blocks */
    dparams.precision         = CC_PRECISION_DOUBLE;
    PIPELINE_CALL(cc_precond_create(&dparams, &a, &mesh.comm, &pc_double));
  }
  PIPELINE_CALL(cc_overlap_startup(run, &a, &mesh.comm)); /* runs with iar: measured overlap */
  PIPELINE_CALL(run_solves(run, &mesh, &a, &ord, pc, &pparams, b,
                           pc_double)); /* solves keep their own timers */
finish:
  for (int s = 0; s < run->n_solves; s++)
    timers->seconds[CC_T_SOLVE] += run->solves[s].result.seconds[CC_T_SOLVE];
  timers->seconds[CC_T_TOTAL] = MPI_Wtime() - started;

  for (int i = 0; i < CC_T_COUNT; i++) {
    cc_stat stat;
    PIPELINE_CALL(cc_stat_reduce(comm, timers->seconds[i], &stat));
    run->timings[i]      = stat.max;
    run->timings_min[i]  = stat.min;
    run->timings_mean[i] = stat.mean;
  }
  double rss = (double)cc_peak_rss_bytes();
  cc_stat rss_stat;
  PIPELINE_CALL(cc_stat_reduce(comm, rss, &rss_stat));
  run->peak_rss_max = (int64_t)rss_stat.max;
  run->peak_rss_min = (int64_t)rss_stat.min;
  PIPELINE_CALL(rss_median(comm, rss, run));
  run->in_progress = 0;

  cc_precond_destroy(&pc);
  cc_precond_destroy(&pc_double);
  cc_ordering_free(&ord);
  cc_free(&b);
  cc_bcrs_free(&a);
  cc_mesh_free(&mesh);
  return CC_OK;
#undef PIPELINE_CALL
}
