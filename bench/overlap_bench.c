/* overlap_bench.c (cubecg-bench --overlap): IMB-NBC's overlap of the solvers' own non-blocking
 * reductions (cc_reduce_begin / cc_reduce_end: MPI_Iallreduce + MPI_Wait) with one SpMV + M^-1
 * (ASDD) of this mesh, for each reduction size the solvers post (their registry's
 * reduction_sizes at the default depth and S) and each progress setting this launch has; the
 * settings it has not are recorded with why (src/overlap_probe.h; docs/benchmarks.md "Overlap"). */
#include "kernelbench.h"
#include "mpi_library.h"

typedef struct {
  const cc_bcrs *a;
  const cc_comm_table *comm;
  cc_precond *pc;
  double *x, *y, *z;
} overlap_work;

/* y = A x, z = M^-1 y: the work pipelined CG hides its reduction behind (Alg.4) */
static cc_err overlap_spmv_precond(void *ctx, const cc_exec *ex)
{
  overlap_work *w = ctx;
  CC_CALL(cc_spmv(ex, w->a, w->comm, w->x, w->y));
  CC_CALL(cc_precond_apply(w->pc, ex, w->y, w->z));
  return CC_OK;
}

/* Every variant that posts non-blocking reductions, at its default depth and S (zeroed options;
 * pcg posts only blocking ones, of gropp's sizes). */
static cc_err overlap_sizes(cc_overlap_sizes *sizes)
{
  const cc_krylov_opts defaults = {0};
  memset(sizes, 0, sizeof *sizes);
  for (int i = 0; cc_krylov_list[i]; i++)
    if (cc_krylov_list[i]->supports_iar)
      CC_CALL(cc_overlap_sizes_add(sizes, cc_krylov_list[i], &defaults));
  return CC_OK;
}

/* The four settings: those of this launch measured, the others with why they cannot run here
 * (the library's thread starts only from the environment at launch). */
static void overlap_settings(const cc_mpi_info *mpi, bench_overlap *out)
{
  const cc_mpi_impl *lib = cc_mpi_library_of(mpi->library);
  for (int t = 0; t < 2; t++)
    for (int p = 0; p < CC_PROGRESS_COUNT; p++) {
      bench_overlap_setting *st = &out->settings[t * CC_PROGRESS_COUNT + p];
      snprintf(st->setting, sizeof st->setting, "%s", cc_overlap_setting((cc_progress_mode)p, t));
      st->measured = t == out->thread;
      if (st->measured)
        st->why[0] = '\0';
      else if (!t)
        snprintf(st->why, sizeof st->why,
                 "not run: the library's progress thread runs in this launch (%.120s); run again "
                 "without it",
                 mpi->knob[0] ? mpi->knob : mpi->async_decided_by);
      else if (lib->has_progress_thread && lib->knobs[0])
        snprintf(st->why, sizeof st->why,
                 "not run: no progress thread in this launch; start %s's with %s=1 and run again",
                 lib->name, lib->knobs[0]);
      else
        snprintf(st->why, sizeof st->why,
                 "not run: %s (%s) has no progress thread cubecg can start "
                 "(docs/mpi-libraries.md)",
                 mpi->implementation, mpi->version);
    }
}

/* One sweep of every size per setting this launch has (setting-major rows). */
static cc_err overlap_rows(const bench_opts *o, overlap_work *w, bench_overlap *out)
{
  out->n_rows = 0;
  for (int i = 0; i < BENCH_OVERLAP_SETTINGS; i++) {
    if (!out->settings[i].measured) continue;
    cc_overlap_result *rows = &out->rows[out->n_rows];
    CC_CALL(cc_overlap_measure_sizes(MPI_COMM_WORLD, overlap_spmv_precond, w, out->sizes.n,
                                     out->sizes.values, (cc_progress_mode)(i % CC_PROGRESS_COUNT),
                                     out->thread, 0.0, o->repeat, rows));
    for (int s = 0; s < out->sizes.n; s++)
      snprintf(rows[s].posted_by, sizeof rows[s].posted_by, "%s", out->sizes.posted_by[s]);
    out->n_rows += out->sizes.n;
  }
  return CC_OK;
}

cc_err bench_overlap_run(const bench_opts *o, const cc_mpi_info *mpi, bench_overlap *out)
{
  memset(out, 0, sizeof *out);
  out->thread = mpi->async_active;
  CC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &out->ranks));
  CC_CHECK(out->ranks >= 2, CC_ERR_ARG,
           "--overlap on 1 rank: a reduction without a partner has nothing to overlap; run 2 or "
           "more ranks");
  CC_CALL(overlap_sizes(&out->sizes));
  overlap_settings(mpi, out);
  cc_mesh mesh;
  cc_ordering ord;
  cc_bcrs a;
  CC_CALL(bench_system_create(o, &mesh, &ord, &a));
  cc_precond_params pp = {.name               = "asdd",
                          .asdd_iters         = o->asdd_iters,
                          .ordering           = &ord,
                          .sweep_chunk_rows   = o->level_order ? 0 : -1,
                          .asdd_full_residual = o->asdd_full_residual};
  overlap_work w       = {.a = &a, .comm = &mesh.comm};
  CC_CALL(cc_precond_create(&pp, &a, &mesh.comm, &w.pc));
  size_t len = 3 * (size_t)a.n_cols;
  CC_CALL(cc_calloc(len, sizeof(double), &w.x));
  CC_CALL(cc_calloc(len, sizeof(double), &w.y));
  CC_CALL(cc_calloc(len, sizeof(double), &w.z));
  for (int64_t i = 0; i < 3 * (int64_t)a.n_rows; i++) w.x[i] = 1.0 + 0.1 * (double)(i % 7);
  CC_CALL(overlap_spmv_precond(&w, NULL)); /* warm-up: first touch of y, z and the halo buffers */
  CC_CALL(overlap_rows(o, &w, out));
  cc_free(&w.x), cc_free(&w.y), cc_free(&w.z);
  cc_precond_destroy(&w.pc);
  cc_ordering_free(&ord);
  cc_bcrs_free(&a);
  cc_mesh_free(&mesh);
  return CC_OK;
}

void bench_overlap_print(const bench_opts *o, const bench_overlap *ov, const cc_mpi_info *mpi)
{
  printf("cubecg-bench --overlap: %dx%dx%d nodes, %d ranks, work = SpMV + ASDD(%d), %d repeats\n",
         o->mesh.nx, o->mesh.ny, o->mesh.nz, ov->ranks, o->asdd_iters, o->repeat);
  printf("  progress thread: %s (%s)\n", ov->thread ? "runs" : "none in this launch",
         mpi->async_decided_by);
  printf("  sizes (doubles):");
  for (int s = 0; s < ov->sizes.n; s++)
    printf(" %d (%s)", ov->sizes.values[s], ov->sizes.posted_by[s]);
  printf("\n");
  printf("  %-11s %6s | %-26s | %-26s | %-20s | %-20s\n", "setting", "values",
         "t_pure us min/med/max", "t_CPU us min/med/max", "overlap % min/med/max",
         "wait us min/med/max");
  for (int i = 0; i < ov->n_rows; i++) {
    const cc_overlap_result *r = &ov->rows[i];
    printf("  %-11s %6d | %8.1f %8.1f %8.1f | %8.1f %8.1f %8.1f | %6.1f %6.1f %6.1f | %6.1f %6.1f "
           "%6.1f\n",
           r->setting, r->n_values, 1e6 * r->t_pure.min, 1e6 * r->t_pure.median,
           1e6 * r->t_pure.max, 1e6 * r->t_cpu.min, 1e6 * r->t_cpu.median, 1e6 * r->t_cpu.max,
           r->overlap_pct.min, r->overlap_pct.median, r->overlap_pct.max, 1e6 * r->wait.min,
           1e6 * r->wait.median, 1e6 * r->wait.max);
  }
  for (int i = 0; i < BENCH_OVERLAP_SETTINGS; i++) /* the settings this launch cannot run */
    if (!ov->settings[i].measured)
      printf("  %-11s %s\n", ov->settings[i].setting, ov->settings[i].why);
}

void bench_overlap_settings_json(cc_json *js, const bench_overlap *ov)
{
  cc_json_begin_array(js, "sizes");
  for (int s = 0; s < ov->sizes.n; s++) {
    cc_json_begin_object(js, NULL);
    cc_json_int(js, "values", ov->sizes.values[s]);
    cc_json_string(js, "posted_by", ov->sizes.posted_by[s]);
    cc_json_end_object(js);
  }
  cc_json_end_array(js);
  cc_json_begin_array(js, "settings");
  for (int i = 0; i < BENCH_OVERLAP_SETTINGS; i++) {
    const bench_overlap_setting *st = &ov->settings[i];
    cc_json_begin_object(js, NULL);
    cc_json_string(js, "setting", st->setting);
    cc_json_string(js, "status", st->measured ? "measured" : "not_run");
    cc_json_string(js, "why", st->measured ? NULL : st->why);
    cc_json_end_object(js);
  }
  cc_json_end_array(js);
}
