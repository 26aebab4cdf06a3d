/* overlap_probe.c: the overlap of a non-blocking reduction with a piece of the solve's work, as
 * IMB-NBC defines it (Intel MPI Benchmarks, IMB-NBC: t_pure, t_CPU, t_ovrl; overlap_probe.h),
 * through the solvers' own cc_reduce_begin / cc_reduce_end and their poll hook. */
#include "overlap_probe.h"

const char *const cc_overlap_status_name[3] = {"not_run", "off", "measured"};

static double clamp01(double v)
{
  return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

double cc_overlap_pct(double t_pure, double t_cpu, double t_ovrl)
{
  double shorter = t_pure < t_cpu ? t_pure : t_cpu;
  if (!(shorter > 0.0)) return 0.0;
  /* the time saved against doing both in a row, as a share of the part that could be hidden */
  return 100.0 * clamp01((t_pure + t_cpu - t_ovrl) / shorter);
}

double cc_overlap_hidden_pct(double t_pure, double wait)
{
  if (!(t_pure > 0.0)) return 0.0;
  return 100.0 * clamp01((t_pure - wait) / t_pure);
}

const char *cc_overlap_setting(cc_progress_mode progress, int thread)
{
  if (thread) return progress == CC_PROGRESS_POLL ? "thread+poll" : "thread";
  return progress == CC_PROGRESS_POLL ? "poll" : "none";
}

static cc_spread spread_of(double *v, int n)
{
  cc_spread s = {v[0], 0.0, v[0]};
  for (int i = 1; i < n; i++) {
    if (v[i] < s.min) s.min = v[i];
    if (v[i] > s.max) s.max = v[i];
  }
  s.median = cc_median(v, n); /* sorts v: min and max first */
  return s;
}

enum { P_PURE, P_CPU, P_OVRL, P_WAIT, P_COUNT };

/* One round (two barriers, two reductions, the work twice): t[P_PURE] the reduction alone, t[P_CPU] the work alone, t[P_OVRL] post + work +
 * wait and t[P_WAIT] its wait, this rank's times. */
static cc_err measure_round(MPI_Comm comm, cc_reducer *rd, const cc_exec *ex,
                            cc_overlap_work_fn work, void *ctx, int n, double t[P_COUNT])
{
  double values[CC_REDUCE_MAX] = {0};
  values[0]                    = 1.0;
  cc_reduction red             = {0};
  CC_MPI(MPI_Barrier(comm));
  double t0 = MPI_Wtime();
  CC_CALL(cc_reduce_begin(rd, values, n, &red));
  CC_CALL(cc_reduce_end(rd, &red, values, n));
  t[P_PURE] = MPI_Wtime() - t0;
  /* no barrier here: the reduction just completed has aligned the ranks as closely as one would */
  t0 = MPI_Wtime();
  CC_CALL(work(ctx, ex));
  t[P_CPU] = MPI_Wtime() - t0;
  CC_MPI(MPI_Barrier(comm));
  t0 = MPI_Wtime();
  CC_CALL(cc_reduce_begin(rd, values, n, &red));
  CC_CALL(work(ctx, ex));
  double waiting = MPI_Wtime();
  CC_CALL(cc_reduce_end(rd, &red, values, n));
  double done = MPI_Wtime();
  t[P_OVRL]   = done - t0;
  t[P_WAIT]   = done - waiting;
  return CC_OK;
}

/* The per-round values (max over ranks) into out's spreads; v: P_COUNT x repeats, scratch. */
static void summarise(const double *v, int repeats, double *scratch, cc_overlap_result *out)
{
  cc_spread *part[P_COUNT] = {&out->t_pure, &out->t_cpu, &out->t_ovrl, &out->wait};
  for (int p = 0; p < P_COUNT; p++) {
    for (int r = 0; r < repeats; r++) scratch[r] = v[r * P_COUNT + p];
    *part[p] = spread_of(scratch, repeats);
  }
  /* each round's overlap from its own three times: a slow spell stays inside its round */
  for (int r = 0; r < repeats; r++) {
    const double *t = &v[r * P_COUNT];
    scratch[r]      = cc_overlap_pct(t[P_PURE], t[P_CPU], t[P_OVRL]);
  }
  out->overlap_pct = spread_of(scratch, repeats);
  for (int r = 0; r < repeats; r++) {
    const double *t = &v[r * P_COUNT];
    scratch[r]      = cc_overlap_hidden_pct(t[P_PURE], t[P_WAIT]);
  }
  out->hidden_pct = spread_of(scratch, repeats);
}

cc_err cc_overlap_measure(MPI_Comm comm, cc_overlap_work_fn work, void *work_ctx, int n_values,
                          cc_progress_mode progress, int thread, double inject_latency_us,
                          int repeats, cc_overlap_result *out)
{
  CC_CHECK(repeats >= 1 && repeats <= CC_OVERLAP_REPEAT_MAX, CC_ERR_ARG,
           "overlap probe: %d repeats (1..%d)", repeats, CC_OVERLAP_REPEAT_MAX);
  CC_CHECK(n_values >= 1 && n_values <= CC_REDUCE_MAX, CC_ERR_ARG,
           "overlap probe: reductions of %d doubles (1..%d)", n_values, CC_REDUCE_MAX);
  memset(out, 0, sizeof *out);
  out->n_values          = n_values;
  out->progress          = progress;
  out->thread            = thread;
  out->repeats           = repeats;
  out->inject_latency_us = inject_latency_us;
  snprintf(out->setting, sizeof out->setting, "%s", cc_overlap_setting(progress, thread));
  double started = MPI_Wtime();
  cc_reducer rd;
  CC_CALL(cc_reducer_init(&rd, comm, progress, inject_latency_us, NULL));
  /* the solvers' hook: under poll the kernels MPI_Test the posted reduction */
  cc_exec ex = {.timers = NULL, .poll = cc_reduce_poll, .poll_ctx = &rd};
  double *v = NULL, *scratch = NULL;
  cc_err err = cc_malloc((size_t)repeats * P_COUNT, sizeof *v, &v);
  if (!err) err = cc_malloc((size_t)repeats, sizeof *scratch, &scratch);
  for (int r = 0; !err && r < repeats; r++)
    err = measure_round(comm, &rd, &ex, work, work_ctx, n_values, &v[r * P_COUNT]);
  cc_err global;
  CC_CALL(cc_error_agree(comm, err, &global));
  if (!global &&
      MPI_Allreduce(MPI_IN_PLACE, v, repeats * P_COUNT, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    global = cc_error_push(CC_ERR_MPI, __FILE__, __LINE__, __func__, "overlap probe: max of times");
  if (!global) summarise(v, repeats, scratch, out);
  cc_free(&v);
  cc_free(&scratch);
  out->seconds = MPI_Wtime() - started;
  return global;
}

void cc_overlap_spread_json(cc_json *js, const char *key, cc_spread s)
{
  cc_json_begin_object(js, key);
  cc_json_double(js, "min", s.min);
  cc_json_double(js, "median", s.median);
  cc_json_double(js, "max", s.max);
  cc_json_end_object(js);
}

void cc_overlap_json(cc_json *js, const char *key, const cc_overlap_result *r)
{
  cc_json_begin_object(js, key);
  cc_json_string(js, "setting", r->setting);
  cc_json_string(js, "progress", cc_progress_list[r->progress].name);
  cc_json_bool(js, "progress_thread", r->thread);
  cc_json_int(js, "values", r->n_values);
  cc_json_int(js, "repeats", r->repeats);
  cc_json_double(js, "injected_latency_us", r->inject_latency_us);
  cc_overlap_spread_json(js, "t_pure_s", r->t_pure);
  cc_overlap_spread_json(js, "t_cpu_s", r->t_cpu);
  cc_overlap_spread_json(js, "t_ovrl_s", r->t_ovrl);
  cc_overlap_spread_json(js, "wait_s", r->wait);
  cc_overlap_spread_json(js, "overlap_pct", r->overlap_pct);
  cc_overlap_spread_json(js, "hidden_pct", r->hidden_pct);
  cc_json_double(js, "seconds", r->seconds);
  cc_json_end_object(js);
}
