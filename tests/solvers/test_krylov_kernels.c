/* test_krylov_kernels.c: the distributed kernels against plain references: halo exchange fills
 * every halo slot with the owner's value; cc_spmv_local == cc_spmv_ref == dense mat-vec of the
 * block CRS expanded to dense; the distributed SpMV equals the 1-rank one by global id; x'Ay =
 * y'Ax; dot / AXPY helpers and their operation counts; reductions (AR, IAR, poll, injected
 * latency). Usage: test_krylov_kernels --nx N --ny N --nz N
 */
#include "test_krylov_util.h"

#include <omp.h>

static double max_abs(int64_t n, const double *x)
{
  double m = 0.0;
  for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

static double max_diff(int64_t n, const double *x, const double *y)
{
  double m = 0.0;
  for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(x[i] - y[i]));
  return m;
}

/* Halo slots hold NaN before the exchange and the owner's value after it. */
static void test_halo(const tk_problem *p)
{
  double *x = tk_vector(p, 1);
  TEST_CALL(cc_halo_exchange(&p->mesh.comm, x));
  TEST_CALL(cc_halo_exchange(&p->mesh.comm, x)); /* second call uses the cached buffers */
  int bad = 0;
  for (int i = p->mesh.n_internal; i < p->mesh.n_total; i++)
    for (int c = 0; c < 3; c++)
      if (x[3 * i + c] != test_value(p->mesh.global_id[i], c, 1)) bad++;
  TEST_EXPECT(bad == 0, "halo exchange: %d of %d halo values wrong", bad,
              3 * (p->mesh.n_total - p->mesh.n_internal));
  cc_free(&x);
}

/* Rank 0: the 1-rank matrix of the same cube, its SpMV against the dense expansion, and the
 * gathered distributed result against it. */
static void test_spmv_global(const tk_problem *p, const double *y)
{
  int n_loc = p->a.n_rows, *counts = NULL, *displs = NULL, total = 0;
  int64_t *gid = NULL;
  double *yall = NULL;
  if (test_rank == 0) {
    counts = calloc(tk_size, sizeof *counts);
    displs = calloc(tk_size, sizeof *displs);
  }
  MPI_Gather(&n_loc, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (test_rank == 0) {
    for (int r = 0; r < tk_size; r++) {
      displs[r] = total;
      total += counts[r];
    }
    gid  = malloc(sizeof *gid * (size_t)total);
    yall = malloc(sizeof *yall * 3 * (size_t)total);
  }
  MPI_Gatherv(p->mesh.global_id, n_loc, MPI_INT64_T, gid, counts, displs, MPI_INT64_T, 0,
              MPI_COMM_WORLD);
  if (test_rank == 0)
    for (int r = 0; r < tk_size; r++) {
      counts[r] *= 3;
      displs[r] *= 3;
    }
  MPI_Gatherv(y, 3 * n_loc, MPI_DOUBLE, yall, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (test_rank != 0) return;

  tk_problem one;
  tk_problem_create_on(p->params.nx, p->params.ny, p->params.nz, MPI_COMM_SELF, &one);
  int64_t N = one.a.n_rows;
  TEST_EXPECT(N == total && one.a.n_cols == N, "1-rank matrix: %lld rows, %d cols, gathered %d",
              (long long)N, one.a.n_cols, total);
  double *x = tk_vector(&one, 2), *y1 = NULL, *yr = NULL, *yd = NULL, *dense = NULL;
  TEST_CALL(cc_calloc(3 * (size_t)N, sizeof(double), &y1));
  TEST_CALL(cc_calloc(3 * (size_t)N, sizeof(double), &yr));
  TEST_CALL(cc_calloc(3 * (size_t)N, sizeof(double), &yd));
  TEST_CALL(cc_calloc(9 * (size_t)N * N, sizeof(double), &dense));
  TEST_CALL(cc_spmv(NULL, &one.a, &one.mesh.comm, x, y1));
  cc_spmv_ref(&one.a, x, yr);
  /* dense expansion of the block CRS, then yd = D x */
  for (int64_t i = 0; i < N; i++)
    for (int64_t k = one.a.row_ptr[i]; k < one.a.row_ptr[i + 1]; k++)
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
          dense[(3 * i + r) * 3 * N + 3 * one.a.col_idx[k] + c] += one.a.val[9 * k + 3 * r + c];
  double asym = 0.0, dmax = max_abs(9 * N * N, dense);
  for (int64_t i = 0; i < 3 * N; i++) {
    for (int64_t j = 0; j < 3 * N; j++) {
      yd[i] += dense[i * 3 * N + j] * x[j];
      asym = fmax(asym, fabs(dense[i * 3 * N + j] - dense[j * 3 * N + i]));
    }
  }
  double scale = max_abs(3 * N, yd);
  TEST_EXPECT(asym <= 1e-14 * dmax, "dense matrix not symmetric: max|D - D'| = %g", asym);
  TEST_EXPECT(max_diff(3 * N, y1, yd) <= 1e-13 * scale, "1-rank cc_spmv vs dense: %g (scale %g)",
              max_diff(3 * N, y1, yd), scale);
  TEST_EXPECT(max_diff(3 * N, yr, yd) <= 1e-13 * scale, "cc_spmv_ref vs dense: %g (scale %g)",
              max_diff(3 * N, yr, yd), scale);
  /* the distributed result, by global id (the 1-rank numbering is the global one) */
  double gap = 0.0;
  for (int64_t t = 0; t < total; t++)
    for (int c = 0; c < 3; c++) gap = fmax(gap, fabs(yall[3 * t + c] - y1[3 * gid[t] + c]));
  TEST_EXPECT(gap <= 1e-13 * scale, "distributed SpMV vs 1-rank by global id: %g (scale %g)", gap,
              scale);
  printf("spmv %dx%dx%d on %d ranks: |1rank - dense| = %.2e, |distributed - 1rank| = %.2e, "
         "scale %.2e\n",
         p->params.nx, p->params.ny, p->params.nz, tk_size, max_diff(3 * N, y1, yd), gap, scale);
  cc_free(&x);
  cc_free(&y1);
  cc_free(&yr);
  cc_free(&yd);
  cc_free(&dense);
  tk_problem_free(&one);
  free(counts);
  free(displs);
  free(gid);
  free(yall);
}

static void test_spmv_mesh(const tk_problem *p)
{
  int64_t n = 3 * (int64_t)p->a.n_rows;
  double *x = tk_vector(p, 2), *z = tk_vector(p, 3), *y = NULL, *yl = NULL, *yr = NULL;
  double *w = NULL;
  TEST_CALL(cc_calloc(3 * (size_t)p->mesh.n_total, sizeof(double), &y));
  TEST_CALL(cc_calloc(3 * (size_t)p->mesh.n_total, sizeof(double), &yl));
  TEST_CALL(cc_calloc(3 * (size_t)p->mesh.n_total, sizeof(double), &yr));
  TEST_CALL(cc_calloc(3 * (size_t)p->mesh.n_total, sizeof(double), &w));
  cc_timers tm;
  cc_timers_init(&tm, 0);
  const cc_exec ex = {.timers = &tm};
  TEST_CALL(cc_spmv(&ex, &p->a, &p->mesh.comm, x, y)); /* also exchanges x's halo */
  TEST_EXPECT(tm.count[CC_T_SPMV] == 1 && tm.count[CC_T_HALO] == 1,
              "cc_spmv counted %lld SpMV, %lld halo (expected 1, 1)",
              (long long)tm.count[CC_T_SPMV], (long long)tm.count[CC_T_HALO]);
  cc_spmv_local(NULL, &p->a, x, yl);
  cc_spmv_ref(&p->a, x, yr);
  double scale = max_abs(n, yr);
  MPI_Allreduce(MPI_IN_PLACE, &scale, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  TEST_EXPECT(max_diff(n, y, yr) <= 1e-14 * scale, "cc_spmv vs cc_spmv_ref: %g (scale %g)",
              max_diff(n, y, yr), scale);
  TEST_EXPECT(max_diff(n, yl, yr) <= 1e-14 * scale, "cc_spmv_local vs cc_spmv_ref: %g",
              max_diff(n, yl, yr));
  test_spmv_global(p, y);

  /* symmetry: (z, A x) == (x, A z) */
  TEST_CALL(cc_spmv(NULL, &p->a, &p->mesh.comm, z, w));
  double zax = tk_dot(p, z, y), xaz = tk_dot(p, x, w);
  double rel = fabs(zax - xaz) / fmax(fabs(zax), fabs(xaz));
  TEST_EXPECT(rel <= 1e-12, "SpMV symmetry: z'Ax = %.17g, x'Az = %.17g, relative %g", zax, xaz,
              rel);
  if (test_rank == 0) printf("spmv symmetry: relative %.2e\n", rel);
  cc_free(&x);
  cc_free(&z);
  cc_free(&y);
  cc_free(&yl);
  cc_free(&yr);
  cc_free(&w);
}

/* A local block-tridiagonal matrix of n rows (no halo): threaded rows, poll between row blocks. */
static void test_spmv_large_local(int n)
{
  cc_bcrs a;
  memset(&a, 0, sizeof a);
  a.n_rows = a.n_cols = n;
  TEST_CALL(cc_malloc((size_t)n + 1, sizeof(int64_t), &a.row_ptr));
  TEST_CALL(cc_malloc(3 * (size_t)n, sizeof(int32_t), &a.col_idx));
  TEST_CALL(cc_malloc(27 * (size_t)n, sizeof(double), &a.val));
  TEST_CALL(cc_malloc((size_t)n, sizeof(int64_t), &a.diag_pos));
  int64_t nb = 0;
  for (int i = 0; i < n; i++) {
    a.row_ptr[i] = nb;
    for (int j = i - 1; j <= i + 1; j++) {
      if (j < 0 || j >= n) continue;
      if (j == i) a.diag_pos[i] = nb;
      a.col_idx[nb] = j;
      for (int e = 0; e < 9; e++) a.val[9 * nb + e] = test_value(nb, e, 7);
      nb++;
    }
  }
  a.row_ptr[n] = a.n_blocks = nb;
  double *x = NULL, *yl = NULL, *yr = NULL;
  TEST_CALL(cc_malloc(3 * (size_t)n, sizeof(double), &x));
  TEST_CALL(cc_malloc(3 * (size_t)n, sizeof(double), &yl));
  TEST_CALL(cc_malloc(3 * (size_t)n, sizeof(double), &yr));
  for (int64_t i = 0; i < 3 * (int64_t)n; i++) x[i] = test_value(i, 0, 8);

  /* an IAR in flight while SpMV runs with progress = poll: the main thread tests it */
  cc_reducer rd;
  TEST_CALL(cc_reducer_init(&rd, MPI_COMM_WORLD, CC_PROGRESS_POLL, 0.0, NULL));
  cc_exec ex = {.poll = cc_reduce_poll, .poll_ctx = &rd};
  double v   = 1.0 + test_rank, sum;
  cc_reduction red;
  TEST_CALL(cc_reduce_begin(&rd, &v, 1, &red));
  cc_spmv_local(&ex, &a, x, yl);
  int64_t polls = rd.polls;
  TEST_CALL(cc_reduce_end(&rd, &red, &sum, 1));
  TEST_EXPECT(polls >= 1, "SpMV of %d rows with an active IAR and progress=poll made %lld polls", n,
              (long long)polls);
  TEST_EXPECT(sum == 0.5 * tk_size * (tk_size + 1), "IAR sum %g, expected %g", sum,
              0.5 * tk_size * (tk_size + 1));
  TEST_CALL(cc_reducer_init(&rd, MPI_COMM_WORLD, CC_PROGRESS_NONE, 0.0, NULL));
  TEST_CALL(cc_reduce_begin(&rd, &v, 1, &red));
  cc_spmv_local(&ex, &a, x, yl);
  TEST_EXPECT(rd.polls == 0, "progress=none made %lld polls", (long long)rd.polls);
  TEST_CALL(cc_reduce_end(&rd, &red, &sum, 1));

  cc_spmv_ref(&a, x, yr);
  double scale = max_abs(3 * (int64_t)n, yr);
  TEST_EXPECT(max_diff(3 * (int64_t)n, yl, yr) <= 1e-14 * scale,
              "large local SpMV (%d rows, %d threads): |local - ref| = %g", n,
              omp_get_max_threads(), max_diff(3 * (int64_t)n, yl, yr));
  cc_free(&x);
  cc_free(&yl);
  cc_free(&yr);
  cc_bcrs_free(&a);
}

/* Dot products and vector updates (threaded sizes) against plain loops, with their counts. */
static void test_vectors(void)
{
  const int64_t n = 100003;
  double *v[6];
  for (int j = 0; j < 6; j++) {
    TEST_CALL(cc_malloc((size_t)n, sizeof(double), &v[j]));
    for (int64_t i = 0; i < n; i++) v[j][i] = test_value(i, j, 11);
  }
  double *x = v[0], *y = v[1], *ref = v[2], *z = v[3];
  double plain[4] = {0, 0, 0, 0};
  for (int64_t i = 0; i < n; i++) {
    plain[0] += v[0][i] * v[1][i];
    plain[1] += v[2][i] * v[3][i];
    plain[2] += v[4][i] * v[5][i];
    plain[3] += v[0][i] * v[5][i];
  }
  cc_timers tm;
  cc_timers_init(&tm, 0);
  const cc_exec ex = {.timers = &tm};
  double d         = cc_dot_local(&ex, n, x, y);
  TEST_EXPECT(fabs(d - plain[0]) <= 1e-12 * n, "cc_dot_local %.17g vs %.17g", d, plain[0]);
  const double *const xs[4] = {v[0], v[2], v[4], v[0]}, *const ys[4] = {v[1], v[3], v[5], v[5]};
  for (int k = 1; k <= 4; k++) {
    double out[4];
    cc_dot_local_multi(&ex, n, k, xs, ys, out);
    for (int j = 0; j < k; j++)
      TEST_EXPECT(fabs(out[j] - plain[j]) <= 1e-12 * n,
                  "cc_dot_local_multi k=%d [%d]: %.17g vs %.17g", k, j, out[j], plain[j]);
  }
  TEST_EXPECT(tm.count[CC_T_DOT] == 1 + 1 + 2 + 3 + 4, "dot count %lld, expected 11",
              (long long)tm.count[CC_T_DOT]);

  for (int64_t i = 0; i < n; i++) ref[i] = y[i] + 0.5 * x[i];
  cc_vec_axpy(&ex, n, 0.5, x, y); /* y += 0.5 x */
  TEST_EXPECT(max_diff(n, y, ref) == 0.0, "cc_vec_axpy differs by %g", max_diff(n, y, ref));
  for (int64_t i = 0; i < n; i++) ref[i] = x[i] - 0.25 * y[i];
  cc_vec_xpby(&ex, n, x, -0.25, y); /* y = x - 0.25 y */
  TEST_EXPECT(max_diff(n, y, ref) == 0.0, "cc_vec_xpby differs by %g", max_diff(n, y, ref));
  cc_vec_copy(&ex, n, x, z);
  TEST_EXPECT(max_diff(n, z, x) == 0.0, "cc_vec_copy differs");
  for (int64_t i = 0; i < n; i++) ref[i] = x[i] - y[i];
  cc_vec_sub(&ex, n, x, y, z);
  TEST_EXPECT(max_diff(n, z, ref) == 0.0, "cc_vec_sub differs by %g", max_diff(n, z, ref));
  TEST_EXPECT(tm.count[CC_T_AXPY] == 4, "AXPY count %lld, expected 4",
              (long long)tm.count[CC_T_AXPY]);
  cc_vec_zero(n, z);
  TEST_EXPECT(max_abs(n, z) == 0.0, "cc_vec_zero left nonzeros");
  for (int j = 0; j < 6; j++) cc_free(&v[j]);
}

/* AR / IAR sums, counts and the injected latency. */
static void test_reductions(void)
{
  double latency_us = 3000.0;
  cc_timers tm;
  cc_timers_init(&tm, 0);
  cc_reducer rd;
  TEST_CALL(cc_reducer_init(&rd, MPI_COMM_WORLD, CC_PROGRESS_NONE, latency_us, &tm));
  double v[3] = {1.0, test_rank, -2.0 * test_rank};
  double t0   = MPI_Wtime();
  TEST_CALL(cc_reduce_blocking(&rd, v, 3));
  double dt = MPI_Wtime() - t0;
  double s  = 0.5 * tk_size * (tk_size - 1);
  TEST_EXPECT(v[0] == tk_size && v[1] == s && v[2] == -2.0 * s, "AR sums (%g, %g, %g)", v[0], v[1],
              v[2]);
  TEST_EXPECT(dt >= latency_us * 1e-6, "AR with %g us injected returned after %g us", latency_us,
              dt * 1e6);
  cc_reduction red;
  double w[2] = {2.0, test_rank}, out[2];
  t0          = MPI_Wtime();
  TEST_CALL(cc_reduce_begin(&rd, w, 2, &red));
  TEST_CALL(cc_reduce_end(&rd, &red, out, 2));
  dt = MPI_Wtime() - t0;
  TEST_EXPECT(out[0] == 2.0 * tk_size && out[1] == s, "IAR sums (%g, %g)", out[0], out[1]);
  TEST_EXPECT(dt >= latency_us * 1e-6, "IAR with %g us injected completed after %g us", latency_us,
              dt * 1e6);
  TEST_EXPECT(tm.count[CC_T_REDUCTION] == 2, "reduction count %lld, expected 2",
              (long long)tm.count[CC_T_REDUCTION]);
  /* bad sizes are refused with a message */
  char too_many[16];
  snprintf(too_many, sizeof too_many, "%d", CC_REDUCE_MAX + 1);
  cc_err err = cc_reduce_blocking(&rd, v, CC_REDUCE_MAX + 1);
  TEST_EXPECT(err == CC_ERR_ARG && strstr(cc_error_message(), too_many), "%s values: err %d '%s'",
              too_many, err, cc_error_message());
  cc_error_clear();
}

int main(int argc, char **argv)
{
  tk_init(&argc, &argv);
  tk_partition = strcmp(tk_arg(argc, argv, "--partition", "box"), "metis") ? CC_PARTITION_BOX
                                                                           : CC_PARTITION_METIS;
  int nx = atoi(tk_arg(argc, argv, "--nx", "3")), ny = atoi(tk_arg(argc, argv, "--ny", "3"));
  int nz = atoi(tk_arg(argc, argv, "--nz", "3"));
  tk_problem p;
  tk_problem_create_on(nx, ny, nz, MPI_COMM_WORLD, &p);
  test_halo(&p);
  test_spmv_mesh(&p);
  tk_problem_free(&p);
  test_spmv_large_local(9000);
  test_vectors();
  test_reductions();
  return test_finish("test_krylov_kernels");
}
