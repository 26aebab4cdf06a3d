/* overlap_bench.c (cubecg-bench --overlap): IMB-NBC's overlap of the solvers' own non-blocking
 * reductions (cc_reduce_begin / cc_reduce_end: MPI_Iallreduce + MPI_Wait) with one SpMV + M^-1
 * (ASDD) of this mesh, for each reduction size the solvers post and each progress setting this
 * launch has (src/overlap_probe.h; docs/benchmarks.md "Overlap"). */
#include "kernelbench.h"

/* the solvers' reductions: Alg.1-3's 1, 2 and 3 doubles, s-step CG's Gram block at S = 4 */
static const int overlap_sizes[BENCH_OVERLAP_SIZES] = {1, 2, 3, 2 * 4 * 4 + 2 * 4 + 1};

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

static cc_err overlap_rows(const bench_opts *o, overlap_work *w, int thread, bench_overlap *out)
{
  out->n_rows = 0;
  for (int p = 0; p < CC_PROGRESS_COUNT; p++)
    for (int s = 0; s < BENCH_OVERLAP_SIZES; s++) {
      cc_overlap_result *row = &out->rows[out->n_rows++];
      CC_CALL(cc_overlap_measure(MPI_COMM_WORLD, overlap_spmv_precond, w, overlap_sizes[s],
                                 (cc_progress_mode)p, thread, 0.0, o->repeat, row));
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
  CC_CALL(overlap_rows(o, &w, out->thread, out));
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
  if (!ov->thread)
    printf("  the thread setting is not in this launch: start it with the library's knob (%s) "
           "and run again\n",
           strcmp(mpi->implementation, "mpich") == 0 ? "MPIR_CVAR_ASYNC_PROGRESS=1"
                                                     : "docs/mpi-libraries.md");
}
