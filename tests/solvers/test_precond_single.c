/* test_precond_single.c: --precond-precision single. For every ordering, on the
 * plain and the split matrix: float SGS / ASDD equal the double ones to float rounding; M^-1 stays
 * symmetric to double rounding (the float-rounded matrix is symmetric) and positive; the sweep is
 * bitwise independent of the thread count and of the split storage; ASDD(1) is SGS; ASDD's float
 * residual equals the double r - A z to float rounding; a matrix scaled by 2^200 (beyond float's
 * range) gives M^-1 scaled by 2^-200 bitwise; preconditioners without a float form refuse it.
 * Usage: test_precond_single [--nx N --ny N --nz N --partition box|metis]
 */
#include "cc_mesh.h"
#include "cc_test.h"
#include "test_precond_util.h"

#include "cc_precond_impl.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

/* Float rounding: u = 2^-24 = FLT_EPSILON / 2 per entry of L, U, D^-1; the sweep's result moves
 * by about cond u relative. Measured on 9x5x7 and 12^3, 1-4 ranks, every ordering: at most
 * 9e-8 (0.75 FLT_EPSILON); the bound leaves a factor 10. */
#define SINGLE_VS_DOUBLE_TOL (8 * FLT_EPSILON)
/* Symmetry of M^-1 in double arithmetic: the double bound of the built-in check (src/checks.c). */
#define SYMMETRY_TOL 1e-12

/* One matrix (plain or split) under one ordering. zs_out: single SGS of x (for the split check). */
static void check_matrix(const char *tag, const cc_bcrs *a, const cc_comm_table *comm,
                         const cc_ordering *ord, double *x, double *y, double *zs_out)
{
  const int64_t nd = 3 * (int64_t)a->n_rows, na = 3 * (int64_t)a->n_cols;
  double *zd, *zs, *ys, *z2;
  TEST_CALL(cc_calloc(na, sizeof(double), &zd));
  TEST_CALL(cc_calloc(na, sizeof(double), &zs));
  TEST_CALL(cc_calloc(na, sizeof(double), &ys));
  TEST_CALL(cc_calloc(na, sizeof(double), &z2));
  const struct {
    const char *name;
    int iters;
  } cases[] = {{"sgs", 1}, {"asdd", 1}, {"asdd", 2}, {"asdd", 3}};
  for (int c = 0; c < 4; c++) {
    char what[128];
    snprintf(what, sizeof what, "%s %s(%d)", tag, cases[c].name, cases[c].iters);
    cc_precond *pd = tp_make(cases[c].name, cases[c].iters, CC_PRECISION_DOUBLE, a, comm, ord);
    cc_precond *ps = tp_make(cases[c].name, cases[c].iters, CC_PRECISION_SINGLE, a, comm, ord);
    tp_apply_with(pd, x, zd, omp_get_max_threads());
    tp_apply_with(ps, x, zs, omp_get_max_threads());
    tp_apply_with(ps, y, ys, omp_get_max_threads());
    double diff = tp_rel_diff(nd, zs, zd);
    TEST_EXPECT(diff <= SINGLE_VS_DOUBLE_TOL,
                "%s: |z_single - z_double| / |z_double| = %.3g > %.3g", what, diff,
                SINGLE_VS_DOUBLE_TOL);
    /* symmetric and positive: x'My = y'Mx to double rounding, x'Mx > 0 */
    double d[6] = {0};
    for (int64_t i = 0; i < nd; i++) {
      d[0] += x[i] * ys[i], d[1] += y[i] * zs[i], d[2] += x[i] * zs[i];
      d[3] += x[i] * x[i], d[4] += ys[i] * ys[i], d[5] += zs[i] * zs[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, d, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double scale = sqrt(d[3]) * (sqrt(d[4]) + sqrt(d[5]));
    TEST_EXPECT(fabs(d[0] - d[1]) <= SYMMETRY_TOL * scale, "%s: x'My = %.17g, y'Mx = %.17g", what,
                d[0], d[1]);
    TEST_EXPECT(d[2] > 0, "%s: x'Mx = %g not positive", what, d[2]);
    /* bitwise independent of the thread count */
    for (int t = 1; t <= 2; t++) {
      tp_apply_with(ps, x, z2, t);
      TEST_EXPECT(memcmp(z2, zs, (size_t)nd * sizeof(double)) == 0, "%s: %d thread(s) != %d", what,
                  t, omp_get_max_threads());
    }
    if (c == 0) memcpy(zs_out, zs, (size_t)nd * sizeof(double));
    if (c == 1)
      TEST_EXPECT(memcmp(zs_out, zs, (size_t)nd * sizeof(double)) == 0, "%s: asdd(1) != sgs", what);
    if (c == 0) {
      /* bytes: float shadows (36 B per block and per D^-1) and no double D^-1; more than double
       * with colors (D^-1 only), less in sequential sweeps (double copies of L and U) */
      int64_t blocks = cc_bcrs_blocks(a);
      TEST_EXPECT(ps->bytes >= 36 * (blocks + a->n_rows) && ps->bytes_double == pd->bytes &&
                      (ps->bytes > pd->bytes || ord->n_colors == 0),
                  "%s: bytes %lld (double %lld / %lld), %lld blocks", what, (long long)ps->bytes,
                  (long long)ps->bytes_double, (long long)pd->bytes, (long long)blocks);
    }
    cc_precond_destroy(&pd);
    cc_precond_destroy(&ps);
  }

  /* ASDD's float residual t = r - A_f z against the double one, z's halo exchanged */
  cc_sgs s;
  TEST_CALL(cc_sgs_setup_single(a, ord, 0, comm, &s));
  memcpy(zd, y, (size_t)na * sizeof(double));
  TEST_CALL(cc_halo_exchange(comm, zd));
  cc_spmv_local(NULL, a, zd, z2);
  double amax = 0.0, dmax = 0.0;
  for (int64_t i = 0; i < nd; i++) z2[i] = x[i] - z2[i], amax = fmax(amax, fabs(z2[i]));
  cc_sgs_residual_single(&s, NULL, x, zd, ys, 0, a->n_rows);
  for (int64_t i = 0; i < nd; i++) dmax = fmax(dmax, fabs(ys[i] - z2[i]));
  /* each product rounds its block to float: |A_f z - A z| <= u |A| |z|, |A| |z| ~ 30 max|t| */
  TEST_EXPECT(tp_global_max(dmax) <= 64 * FLT_EPSILON * tp_global_max(amax),
              "%s: float residual differs by %.3g (max |r - Az| %.3g)", tag, tp_global_max(dmax),
              tp_global_max(amax));
  /* rows in two parts (as an interior/boundary split would call it) give bitwise the same */
  cc_sgs_residual_single(&s, NULL, x, zd, z2, 0, a->n_rows / 2);
  cc_sgs_residual_single(&s, NULL, x, zd, z2, a->n_rows / 2, a->n_rows);
  TEST_EXPECT(memcmp(z2, ys, (size_t)nd * sizeof(double)) == 0, "%s: residual in two parts", tag);
  cc_sgs_free(&s);
  cc_free(&zd);
  cc_free(&zs);
  cc_free(&ys);
  cc_free(&z2);
}

/* a scaled by 2^200 (its float copy would overflow without the power-of-2 scale): M^-1 x scaled
 * by 2^-200, bitwise */
static void check_scaling(const char *tag, cc_bcrs *a, const cc_comm_table *comm,
                          const cc_ordering *ord, double *x, const double *zs)
{
  const int64_t nd = 3 * (int64_t)a->n_rows;
  for (int64_t k = 0; k < 9 * a->n_blocks; k++) a->val[k] = ldexp(a->val[k], 200);
  if (a->l_ptr)
    for (int64_t k = 0; k < 9 * a->l_ptr[a->n_rows]; k++) a->l_val[k] = ldexp(a->l_val[k], 200);
  double *z;
  TEST_CALL(cc_calloc(3 * (size_t)a->n_cols, sizeof(double), &z));
  cc_precond *ps = tp_make("sgs", 1, CC_PRECISION_SINGLE, a, comm, ord);
  tp_apply_with(ps, x, z, omp_get_max_threads());
  long bad = 0;
  for (int64_t i = 0; i < nd; i++) bad += ldexp(z[i], 200) != zs[i];
  TEST_EXPECT(bad == 0, "%s: 2^200 A: %ld of %lld values not scaled exactly", tag, bad,
              (long long)nd);
  cc_precond_destroy(&ps);
  cc_free(&z);
}

int main(int argc, char **argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &test_rank);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cc_mesh_params params;
  cc_mesh_params_default(&params);
  params.nx = 9, params.ny = 5, params.nz = 7;
  for (int i = 1; i + 1 < argc; i++) {
    if (!strcmp(argv[i], "--nx")) params.nx = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--ny")) params.ny = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--nz")) params.nz = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--partition"))
      params.partition = strcmp(argv[i + 1], "metis") ? CC_PARTITION_BOX : CC_PARTITION_METIS;
  }
  TEST_CALL(cc_mesh_params_validate(&params, size, 0));
  const char *orderings[] = {"cm-rcm", "mc", "rcm", "natural"};
  for (int o = 0; o < 4; o++) {
    cc_mesh mesh;
    cc_bcrs pattern, plain, split;
    double *b0, *b1;
    cc_ordering ord;
    TEST_CALL(cc_mesh_create(&params, MPI_COMM_WORLD, &mesh));
    TEST_CALL(cc_mesh_pattern(&mesh, &pattern));
    TEST_CALL(cc_ordering_create(orderings[o], 4, &pattern, &ord));
    cc_ordering_apply_comm(&ord, &mesh.comm);
    const int *groups = ord.n_colors > 0 ? ord.color_ptr : NULL;
    TEST_CALL(cc_mesh_assemble_ordered(&mesh, &params, ord.new_of_old, ord.old_of_new, ord.n_colors,
                                       groups, 0, &plain, &b0));
    TEST_CALL(cc_mesh_assemble_ordered(&mesh, &params, ord.new_of_old, ord.old_of_new, ord.n_colors,
                                       groups, 1, &split, &b1));
    const int64_t na = 3 * (int64_t)mesh.n_total, nd = 3 * (int64_t)mesh.n_internal;
    double *x, *y, *zp, *zq;
    TEST_CALL(cc_calloc(na, sizeof(double), &x));
    TEST_CALL(cc_calloc(na, sizeof(double), &y));
    TEST_CALL(cc_calloc(na, sizeof(double), &zp));
    TEST_CALL(cc_calloc(na, sizeof(double), &zq));
    for (int i = 0; i < mesh.n_internal; i++)
      for (int c = 0; c < 3; c++) {
        x[3 * i + c] = test_value(mesh.global_id[ord.old_of_new[i]], c, 21);
        y[3 * i + c] = test_value(mesh.global_id[ord.old_of_new[i]], c, 22);
      }
    char tag[64];
    snprintf(tag, sizeof tag, "%s plain", orderings[o]);
    check_matrix(tag, &plain, &mesh.comm, &ord, x, y, zp);
    snprintf(tag, sizeof tag, "%s split", orderings[o]);
    check_matrix(tag, &split, &mesh.comm, &ord, x, y, zq);
    TEST_EXPECT(memcmp(zp, zq, (size_t)nd * sizeof(double)) == 0, "%s: split sgs != plain sgs",
                orderings[o]);
    check_scaling(tag, &split, &mesh.comm, &ord, x, zq);

    /* no float form: refused by name */
    cc_precond_params pp = {.name = "jacobi", .ordering = &ord, .precision = CC_PRECISION_SINGLE};
    cc_precond *pc       = NULL;
    cc_err err           = cc_precond_create(&pp, &plain, &mesh.comm, &pc);
    TEST_EXPECT(err == CC_ERR_ARG && pc == NULL && strstr(cc_error_message(), "jacobi"),
                "jacobi single: err %d '%s'", (int)err, cc_error_message());
    cc_error_clear();
    if (test_rank == 0) printf("%-7s: %d colors on rank 0\n", orderings[o], ord.n_colors);
    cc_free(&x);
    cc_free(&y);
    cc_free(&zp);
    cc_free(&zq);
    cc_free(&b0);
    cc_free(&b1);
    cc_bcrs_free(&plain);
    cc_bcrs_free(&split);
    cc_bcrs_free(&pattern);
    cc_ordering_free(&ord);
    cc_mesh_free(&mesh);
  }
  return test_finish("test_precond_single");
}
