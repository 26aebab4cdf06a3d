/* overlap_startup.c: before the solves of a run that posts non-blocking reductions, how much of
 * each reduction size its iar solves post (their registry's reduction_sizes at the run's depth, S
 * and --replace-every; through the solvers' cc_reduce_*) one SpMV of this mesh hides under the
 * run's progress setting: IMB-NBC's overlap (overlap_probe.h) over CC_OVERLAP_STARTUP_REPEATS
 * rounds (CC_OVERLAP_STARTUP_REPEATS_SIZES with several sizes) of 1 + sizes SpMVs, a few SpMVs
 * where a solve runs hundreds of iterations. */
#include "monitor.h"
#include "overlap_startup.h"
#include "pipeline.h"

typedef struct {
  const cc_bcrs *a;
  const cc_comm_table *comm;
  double *x, *y;
} startup_work;

/* y = A x with its halo exchange: the kernel every variant overlaps with its reduction */
static cc_err startup_spmv(void *ctx, const cc_exec *ex)
{
  startup_work *w = ctx;
  return cc_spmv(ex, w->a, w->comm, w->x, w->y);
}

/* The sizes the run's iar solves post: each variant's loop at the run's depth, S, --replace-every
 * (the fields of cc_krylov_opts its reduction_sizes reads, as the pipeline sets them). */
static cc_err startup_sizes(const cc_run *run, cc_overlap_sizes *sizes)
{
  cc_solve_plan plan[CC_MAX_SOLVES];
  int n = 0;
  CC_CALL(cc_plan_solves(&run->opts, plan, &n));
  const cc_krylov_opts k = {.replace_every  = run->opts.replace_every,
                            .pipeline_depth = run->opts.pipeline_depth,
                            .sstep          = run->opts.sstep};
  memset(sizes, 0, sizeof *sizes);
  for (int s = 0; s < n; s++)
    if (plan[s].reduction == CC_REDUCTION_IAR)
      CC_CALL(cc_overlap_sizes_add(sizes, plan[s].variant, &k));
  return CC_OK;
}

/* Why the probe does not run, "" when it does (the same on every rank: options and size). */
static void startup_why_not(const cc_run *run, int iar, cc_overlap_probe *p)
{
  p->why[0] = '\0';
  if (run->opts.overlap_probe == CC_OVERLAP_PROBE_OFF) {
    p->status = CC_OVERLAP_OFF;
    snprintf(p->why, sizeof p->why, "skipped (--overlap-probe off)");
  } else if (!iar) {
    p->status = CC_OVERLAP_NOT_RUN;
    snprintf(p->why, sizeof p->why, "not run: no solve of this run posts non-blocking reductions");
  } else if (run->ranks < 2) {
    p->status = CC_OVERLAP_NOT_RUN;
    snprintf(p->why, sizeof p->why,
             "not run: 1 rank, a reduction without a partner has nothing to hide");
  }
}

/* The row `result` repeats: CC_OVERLAP_STARTUP_VALUES doubles when probed, else the largest. */
static int startup_primary(const cc_overlap_probe *p)
{
  for (int i = 0; i < p->n_results; i++)
    if (p->results[i].n_values == CC_OVERLAP_STARTUP_VALUES) return i;
  return p->n_results - 1;
}

cc_err cc_overlap_startup(cc_run *run, const cc_bcrs *a, const cc_comm_table *comm)
{
  cc_overlap_probe *p = &run->overlap;
  memset(p, 0, sizeof *p);
  cc_overlap_sizes sizes;
  CC_CALL(startup_sizes(run, &sizes));
  startup_why_not(run, sizes.n, p);
  if (p->why[0]) {
    cc_stage(run, "overlap probe: %s", p->why);
    return CC_OK;
  }
  startup_work w = {.a = a, .comm = comm};
  size_t len     = 3 * (size_t)a->n_cols;
  cc_err err     = cc_calloc(len, sizeof(double), &w.x);
  if (!err) err = cc_calloc(len, sizeof(double), &w.y);
  for (size_t i = 0; !err && i < 3 * (size_t)a->n_rows; i++) w.x[i] = 1.0 + 0.1 * (double)(i % 7);
  cc_err global;
  CC_CALL(cc_error_agree(comm->comm, err, &global));
  if (!global) global = startup_spmv(&w, NULL); /* first touch of y and the halo buffers */
  if (!global)
    global = cc_overlap_measure_sizes(
        comm->comm, startup_spmv, &w, sizes.n, sizes.values, (cc_progress_mode)run->opts.progress,
        run->mpi.async_active, run->opts.inject_latency_us,
        sizes.n > 1 ? CC_OVERLAP_STARTUP_REPEATS_SIZES : CC_OVERLAP_STARTUP_REPEATS, p->results);
  cc_free(&w.x);
  cc_free(&w.y);
  CC_CALL(global);
  p->status    = CC_OVERLAP_MEASURED;
  p->n_results = sizes.n;
  for (int i = 0; i < sizes.n; i++)
    snprintf(p->results[i].posted_by, sizeof p->results[i].posted_by, "%s", sizes.posted_by[i]);
  p->result  = p->results[startup_primary(p)];
  p->seconds = p->result.seconds;
  cc_stage(run,
           "overlap probe (%s): one SpMV hides %.0f %% of a %d-double reduction (median), %d "
           "size(s)",
           p->result.setting, p->result.hidden_pct.median, p->result.n_values, sizes.n);
  return CC_OK;
}

void cc_overlap_summary(const cc_run *run, FILE *out)
{
  const cc_overlap_probe *p = &run->overlap;
  if (p->status != CC_OVERLAP_MEASURED) {
    fprintf(out, "  overlap probe    %s\n", p->why);
    return;
  }
  const cc_overlap_result *r = &p->result;
  double total               = run->timings[CC_T_TOTAL];
  /* the other sizes' medians hidden: "; 1 doubles 100 %, 31 doubles 97 % hidden" */
  char others[CC_OVERLAP_SIZES_MAX * 24] = "";
  size_t used                            = 0;
  for (int i = 0; i < p->n_results; i++)
    if (p->results[i].n_values != r->n_values && used < sizeof others)
      used += (size_t)snprintf(others + used, sizeof others - used, "%s%d doubles %.0f %%",
                               used ? ", " : "; ", p->results[i].n_values,
                               p->results[i].hidden_pct.median);
  fprintf(out,
          "  overlap probe    %s%s: one SpMV hides %.0f %% of a %d-double reduction of %.1f us "
          "(median; %.0f-%.0f %%), wait left %.1f us; IMB-NBC overlap %.0f %% (%.0f-%.0f)%s%s; "
          "%d rounds, %.1f ms = %.2f %% of the run\n",
          r->setting, r->thread ? "" : " (no progress thread in this launch)", r->hidden_pct.median,
          r->n_values, 1e6 * r->t_pure.median, r->hidden_pct.min, r->hidden_pct.max,
          1e6 * r->wait.median, r->overlap_pct.median, r->overlap_pct.min, r->overlap_pct.max,
          others, used ? " hidden" : "", r->repeats, 1e3 * p->seconds,
          total > 0 ? 100.0 * p->seconds / total : 0.0);
}

void cc_overlap_report(const cc_run *run, cc_json *js)
{
  const cc_overlap_probe *p = &run->overlap;
  cc_json_begin_object(js, "overlap_probe");
  cc_json_string(js, "status", cc_overlap_status_name[p->status]);
  cc_json_string(js, "why", p->why[0] ? p->why : NULL);
  cc_json_string(js, "work", "spmv");
  if (p->status == CC_OVERLAP_MEASURED) {
    double total = run->timings[CC_T_TOTAL];
    cc_json_double(js, "share_of_run", total > 0 ? p->seconds / total : 0.0);
    cc_overlap_json(js, "result", &p->result);
    cc_json_begin_array(js, "results"); /* one row per size the run's iar solves post */
    for (int i = 0; i < p->n_results; i++) cc_overlap_json(js, NULL, &p->results[i]);
    cc_json_end_array(js);
  }
  cc_json_end_object(js);
}
