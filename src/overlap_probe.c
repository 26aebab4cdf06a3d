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

/* One round: after a barrier each size's reduction alone (t[P_PURE]), the work alone once
 * (t[P_CPU], copied to every size), then after a barrier per size post + work + wait (t[P_OVRL])
 * and its wait (t[P_WAIT]); t: n_sizes x P_COUNT, this rank's times. */
static cc_err measure_round(MPI_Comm comm, cc_reducer *rd, const cc_exec *ex,
                            cc_overlap_work_fn work, void *ctx, int n_sizes, const int *sizes,
                            double *t)
{
  double values[CC_REDUCE_MAX] = {0};
  cc_reduction red             = {0};
  CC_MPI(MPI_Barrier(comm));
  /* no barrier between these: each reduction just completed has aligned the ranks as closely as
   * one would */
  for (int s = 0; s < n_sizes; s++) {
    values[0] = 1.0;
    double t0 = MPI_Wtime();
    CC_CALL(cc_reduce_begin(rd, values, sizes[s], &red));
    CC_CALL(cc_reduce_end(rd, &red, values, sizes[s]));
    t[s * P_COUNT + P_PURE] = MPI_Wtime() - t0;
  }
  double t0 = MPI_Wtime();
  CC_CALL(work(ctx, ex));
  const double cpu = MPI_Wtime() - t0;
  CC_MPI(MPI_Barrier(comm));
  for (int s = 0; s < n_sizes; s++) { /* after the barrier, or the previous size's wait */
    double *ts = &t[s * P_COUNT];
    ts[P_CPU]  = cpu;
    t0         = MPI_Wtime();
    CC_CALL(cc_reduce_begin(rd, values, sizes[s], &red));
    CC_CALL(work(ctx, ex));
    double waiting = MPI_Wtime();
    CC_CALL(cc_reduce_end(rd, &red, values, sizes[s]));
    double done = MPI_Wtime();
    ts[P_OVRL]  = done - t0;
    ts[P_WAIT]  = done - waiting;
  }
  return CC_OK;
}

/* The per-round values (max over ranks) into out's spreads; v: repeats x P_COUNT, scratch. */
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

/* v: repeats x n_sizes x P_COUNT; size s's rounds gathered into slice, then summarised. */
static void summarise_sizes(const double *v, int repeats, int n_sizes, double *slice,
                            double *scratch, cc_overlap_result out[])
{
  for (int s = 0; s < n_sizes; s++) {
    for (int r = 0; r < repeats; r++)
      memcpy(&slice[r * P_COUNT], &v[(r * n_sizes + s) * P_COUNT], P_COUNT * sizeof *v);
    summarise(slice, repeats, scratch, &out[s]);
  }
}

/* The arguments checked and each row's settings recorded (before anything is measured). */
static cc_err measure_setup(int n_sizes, const int sizes[], cc_progress_mode progress, int thread,
                            double inject_latency_us, int repeats, cc_overlap_result out[])
{
  CC_CHECK(repeats >= 1 && repeats <= CC_OVERLAP_REPEAT_MAX, CC_ERR_ARG,
           "overlap probe: %d repeats (1..%d)", repeats, CC_OVERLAP_REPEAT_MAX);
  CC_CHECK(n_sizes >= 1 && n_sizes <= CC_OVERLAP_SIZES_MAX, CC_ERR_ARG,
           "overlap probe: %d sizes (1..%d)", n_sizes, CC_OVERLAP_SIZES_MAX);
  for (int s = 0; s < n_sizes; s++) {
    CC_CHECK(sizes[s] >= 1 && sizes[s] <= CC_REDUCE_MAX, CC_ERR_ARG,
             "overlap probe: reductions of %d doubles (1..%d)", sizes[s], CC_REDUCE_MAX);
    cc_overlap_result *o = &out[s];
    memset(o, 0, sizeof *o);
    o->n_values          = sizes[s];
    o->progress          = progress;
    o->thread            = thread;
    o->repeats           = repeats;
    o->inject_latency_us = inject_latency_us;
    snprintf(o->setting, sizeof o->setting, "%s", cc_overlap_setting(progress, thread));
  }
  return CC_OK;
}

cc_err cc_overlap_measure_sizes(MPI_Comm comm, cc_overlap_work_fn work, void *work_ctx, int n_sizes,
                                const int sizes[], cc_progress_mode progress, int thread,
                                double inject_latency_us, int repeats, cc_overlap_result out[])
{
  CC_CALL(measure_setup(n_sizes, sizes, progress, thread, inject_latency_us, repeats, out));
  double started = MPI_Wtime();
  cc_reducer rd;
  CC_CALL(cc_reducer_init(&rd, comm, progress, inject_latency_us, NULL));
  /* the solvers' hook: under poll the kernels MPI_Test the posted reduction */
  cc_exec ex = {.timers = NULL, .poll = cc_reduce_poll, .poll_ctx = &rd};
  double *v = NULL, *slice = NULL, *scratch = NULL;
  const int nv = repeats * n_sizes * P_COUNT;
  cc_err err   = cc_malloc((size_t)nv, sizeof *v, &v);
  if (!err) err = cc_malloc((size_t)repeats * P_COUNT, sizeof *slice, &slice);
  if (!err) err = cc_malloc((size_t)repeats, sizeof *scratch, &scratch);
  for (int r = 0; !err && r < repeats; r++)
    err = measure_round(comm, &rd, &ex, work, work_ctx, n_sizes, sizes, &v[r * n_sizes * P_COUNT]);
  cc_err global;
  CC_CALL(cc_error_agree(comm, err, &global));
  if (!global && MPI_Allreduce(MPI_IN_PLACE, v, nv, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    global = cc_error_push(CC_ERR_MPI, __FILE__, __LINE__, __func__, "overlap probe: max of times");
  if (!global) summarise_sizes(v, repeats, n_sizes, slice, scratch, out);
  cc_free(&v);
  cc_free(&slice);
  cc_free(&scratch);
  const double seconds = MPI_Wtime() - started;
  for (int s = 0; s < n_sizes; s++) out[s].seconds = seconds;
  return global;
}

cc_err cc_overlap_measure(MPI_Comm comm, cc_overlap_work_fn work, void *work_ctx, int n_values,
                          cc_progress_mode progress, int thread, double inject_latency_us,
                          int repeats, cc_overlap_result *out)
{
  return cc_overlap_measure_sizes(comm, work, work_ctx, 1, &n_values, progress, thread,
                                  inject_latency_us, repeats, out);
}

/* word is one of the space-separated words of list */
static int has_word(const char *list, const char *word)
{
  const size_t n = strlen(word);
  for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  return 0;
}

cc_err cc_overlap_sizes_add(cc_overlap_sizes *s, const cc_krylov *variant,
                            const cc_krylov_opts *opts)
{
  int add[CC_KRYLOV_SIZES_MAX];
  const int n_add = variant->reduction_sizes(opts, add);
  for (int a = 0; a < n_add; a++) {
    int i = 0;
    while (i < s->n && s->values[i] < add[a]) i++;
    if (i == s->n || s->values[i] != add[a]) { /* a new size: insert at i, ascending */
      CC_CHECK(s->n < CC_OVERLAP_SIZES_MAX, CC_ERR_ARG,
               "overlap probe: more than %d reduction sizes (%s adds %d)", CC_OVERLAP_SIZES_MAX,
               variant->name, add[a]);
      memmove(&s->values[i + 1], &s->values[i], (size_t)(s->n - i) * sizeof s->values[0]);
      memmove(s->posted_by[i + 1], s->posted_by[i], (size_t)(s->n - i) * sizeof s->posted_by[0]);
      s->values[i]       = add[a];
      s->posted_by[i][0] = '\0';
      s->n++;
    }
    char *by   = s->posted_by[i];
    size_t len = strlen(by);
    if (!has_word(by, variant->name)) /* "gropp pcg": each variant once */
      snprintf(by + len, sizeof s->posted_by[i] - len, "%s%s", len ? " " : "", variant->name);
  }
  return CC_OK;
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
  cc_json_string(js, "posted_by", r->posted_by[0] ? r->posted_by : NULL);
  cc_json_end_object(js);
}
