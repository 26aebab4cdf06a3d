/* test_precond_half.c: --precond-precision half. The binary16 decoder against the hardware's
 * conversion on all 63488 finite halves and the rounding; for every ordering, on the plain and the
 * split matrix: the stored A_h is bitwise symmetric; half SGS and ASDD(1..3) equal a plain
 * sequential reference built from the same stored halves (decoded by the portable decoder) to
 * double rounding, and double SGS / ASDD to binary16 rounding; M^-1 is symmetric to 1e-12 relative
 * and positive; the sweeps are bitwise independent of the thread count; a matrix scaled by 2^300
 * gives M^-1 scaled by 2^-300 bitwise; a matrix whose entries would lose all digits is refused
 * naming the row, on every rank.
 * Usage: test_precond_half [--nx N --ny N --nz N --partition box|metis]
 */
#include "cc_mesh.h"
#include "cc_test.h"
#include "test_precond_util.h"

#include "cc_precond_impl.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#if defined(__F16C__)
#include <immintrin.h>
#endif

/* binary16 rounding u = 2^-11 per entry of L, U, D^-1; the result moves by about cond u. Measured
 * on 9x5x7, 1-4 ranks, every ordering, ASDD(2): 2.8e-4 (0.6 u); the bound is 10 u. */
#define HALF_VS_DOUBLE_TOL (10 * 0x1p-11)
/* The kernels against the reference from the same halves: summation order only. */
#define HALF_VS_REFERENCE_TOL 1e-13
/* Symmetry of M^-1 in double arithmetic: the double bound of the built-in check (src/checks.c). */
#define SYMMETRY_TOL 1e-12

/* Every finite half: the portable decoder equals the hardware conversion (where compiled in), and
 * cc_half_round leaves it unchanged; midpoints round to even. */
static void check_conversions(void)
{
  long bad_decode = 0, bad_round = 0;
  for (int h = 0; h < 65536; h++) {
    if (((h >> 10) & 0x1f) == 0x1f) continue; /* Inf, NaN */
    const double v = cc_half_to_double((uint16_t)h);
#if defined(__F16C__)
    const double hw = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
    bad_decode += hw != v;
#endif
    bad_round += cc_half_round(v) != v;
  }
  TEST_EXPECT(bad_decode == 0 && bad_round == 0, "%ld decodes differ from F16C, %ld not fixed",
              bad_decode, bad_round);
  /* 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties to even -> 1; 1 + 3 2^-11 -> 1 + 2^-9 */
  TEST_EXPECT(
      cc_half_round(1.0 + 0x1p-11) == 1.0 && cc_half_round(1.0 + 3 * 0x1p-11) == 1.0 + 0x1p-9,
      "ties to even: %.17g %.17g", cc_half_round(1.0 + 0x1p-11), cc_half_round(1.0 + 3 * 0x1p-11));
  TEST_EXPECT(cc_half_round(0x1p-25) == 0.0 && cc_half_round(0x1.8p-25) == 0x1p-24 &&
                  cc_half_to_double(0x7bff) == 65504.0,
              "subnormal rounding / largest half");
}

/* Row i's stored block k (column-major halves) decoded and unscaled, row-major */
static void decode_block(const uint16_t *h, double unscale, double out[9])
{
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) out[3 * r + c] = unscale * cc_half_to_double(h[3 * c + r]);
}

/* A_h as a double matrix with a's pattern (split or not), from s's halves; dh = D_h^-1 */
static void decode_matrix(const cc_sgs *s, const cc_bcrs *a, cc_bcrs *ah, double *dh)
{
  *ah         = *a;
  const int n = a->n_rows;
  TEST_CALL(cc_malloc(9 * (size_t)a->n_blocks, sizeof(double), &ah->val));
  for (int i = 0; i < n; i++) {
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      decode_block(s->val_h + 9 * k, s->row_unscale[2 * i], ah->val + 9 * k);
    decode_block(s->dinv_h + 9 * (int64_t)i, s->row_unscale[2 * i + 1], dh + 9 * (int64_t)i);
  }
  ah->l_val = NULL;
  if (a->l_ptr) {
    TEST_CALL(cc_malloc(9 * (size_t)a->l_ptr[n], sizeof(double), &ah->l_val));
    for (int i = 0; i < n; i++)
      for (int64_t k = a->l_ptr[i]; k < a->l_ptr[i + 1]; k++)
        decode_block(s->l_val_h + 9 * k, s->row_unscale[2 * i], ah->l_val + 9 * k);
  }
}

/* A_h(i, j) == A_h(j, i)^T bitwise for every pair of internal rows */
static long asymmetric_blocks(const cc_bcrs *ah)
{
  long bad = 0;
  for (int i = 0; i < ah->n_rows; i++) {
    int64_t k0, k1;
    const int32_t *col;
    const double *val;
    cc_bcrs_lower(ah, i, &k0, &k1, &col, &val);
    for (int64_t k = k0; k < k1; k++) { /* L_ij against U_ji in row j */
      const int j = col[k];
      int64_t m   = ah->row_ptr[j];
      while (m < ah->row_ptr[j + 1] && ah->col_idx[m] != i) m++;
      if (m == ah->row_ptr[j + 1]) {
        bad++;
        continue;
      }
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) bad += val[9 * k + 3 * r + c] != ah->val[9 * m + 3 * c + r];
    }
  }
  return bad;
}

/* Plain reference: sequential SGS in the current numbering with A_h's internal blocks and D_h^-1 */
static void sgs_reference(const cc_bcrs *ah, const double *dh, const double *r, double *z)
{
  const int n = ah->n_rows;
  for (int i = 0; i < n; i++) { /* y_i = D_i^-1 (r_i - sum_{j<i} L_ij y_j) */
    double s[3] = {r[3 * i], r[3 * i + 1], r[3 * i + 2]};
    int64_t k0, k1;
    const int32_t *col;
    const double *val;
    cc_bcrs_lower(ah, i, &k0, &k1, &col, &val);
    for (int64_t k = k0; k < k1; k++)
      for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) s[p] -= val[9 * k + 3 * p + q] * z[3 * col[k] + q];
    for (int p = 0; p < 3; p++)
      z[3 * i + p] =
          dh[9 * i + 3 * p] * s[0] + dh[9 * i + 3 * p + 1] * s[1] + dh[9 * i + 3 * p + 2] * s[2];
  }
  for (int i = n - 1; i >= 0; i--) { /* z_i = y_i - D_i^-1 sum_{j>i} U_ij z_j */
    double s[3] = {0.0, 0.0, 0.0};
    for (int64_t k = ah->diag_pos[i] + 1; k < ah->row_ptr[i + 1] && ah->col_idx[k] < n; k++)
      for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) s[p] += ah->val[9 * k + 3 * p + q] * z[3 * ah->col_idx[k] + q];
    for (int p = 0; p < 3; p++)
      z[3 * i + p] -=
          dh[9 * i + 3 * p] * s[0] + dh[9 * i + 3 * p + 1] * s[1] + dh[9 * i + 3 * p + 2] * s[2];
  }
}

/* A' = A_h with each diagonal block replaced by E_i = (D_h,i^-1)^-1: the matrix whose residual
 * ASDD's fused steps compute (precond_asdd.c) */
static void fused_matrix(const cc_bcrs *ah, const double *dh, cc_bcrs *ae)
{
  *ae = *ah;
  TEST_CALL(cc_malloc(9 * (size_t)ah->n_blocks, sizeof(double), &ae->val));
  memcpy(ae->val, ah->val, 9 * (size_t)ah->n_blocks * sizeof(double));
  for (int i = 0; i < ah->n_rows; i++)
    TEST_EXPECT(cc_block3_inverse(dh + 9 * (int64_t)i, ae->val + 9 * ah->diag_pos[i]) == 0,
                "row %d: D_h^-1 not invertible", i);
}

/* ASDD(iters) of the reference: z = B r; then z += B (r - A_h z), z's halo exchanged */
static void asdd_reference(const cc_bcrs *ah, const double *dh, const cc_comm_table *comm,
                           int iters, const double *r, double *z, double *t, double *w)
{
  const int64_t nd = 3 * (int64_t)ah->n_rows;
  sgs_reference(ah, dh, r, z);
  for (int it = 1; it < iters; it++) {
    TEST_CALL(cc_halo_exchange(comm, z));
    cc_spmv_local(NULL, ah, z, t);
    for (int64_t i = 0; i < nd; i++) t[i] = r[i] - t[i];
    sgs_reference(ah, dh, t, w);
    for (int64_t i = 0; i < nd; i++) z[i] += w[i];
  }
}

static void check_matrix(const char *tag, const cc_bcrs *a, const cc_comm_table *comm,
                         const cc_ordering *ord, double *x, double *y)
{
  const int64_t nd = 3 * (int64_t)a->n_rows, na = 3 * (int64_t)a->n_cols;
  double *zd, *zh, *yh, *z2, *zr, *t, *w, *dh;
  TEST_CALL(cc_calloc(na, sizeof(double), &zd));
  TEST_CALL(cc_calloc(na, sizeof(double), &zh));
  TEST_CALL(cc_calloc(na, sizeof(double), &yh));
  TEST_CALL(cc_calloc(na, sizeof(double), &z2));
  TEST_CALL(cc_calloc(na, sizeof(double), &zr));
  TEST_CALL(cc_calloc(na, sizeof(double), &t));
  TEST_CALL(cc_calloc(na, sizeof(double), &w));
  TEST_CALL(cc_calloc(9 * (size_t)a->n_rows, sizeof(double), &dh));
  cc_sgs s;
  TEST_CALL(cc_sgs_setup_half(a, ord, 0, comm, &s));
  cc_bcrs ah;
  decode_matrix(&s, a, &ah, dh);
  long asym = asymmetric_blocks(&ah);
  TEST_EXPECT(asym == 0, "%s: %ld entries of A_h not symmetric bitwise", tag, asym);

  cc_bcrs ae; /* the fused residual's matrix */
  fused_matrix(&ah, dh, &ae);

  const struct {
    const char *name;
    int iters, full; /* full: ASDD's residual in its own pass (else fused) */
  } cases[] = {{"sgs", 1, 0},  {"asdd", 1, 0}, {"asdd", 2, 0},
               {"asdd", 3, 0}, {"asdd", 2, 1}, {"asdd", 3, 1}};
  for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
    char what[128];
    snprintf(what, sizeof what, "%s %s(%d)%s", tag, cases[c].name, cases[c].iters,
             cases[c].full ? " full residual" : "");
    const char *name = cases[c].name;
    const int iters = cases[c].iters, full = cases[c].full;
    cc_precond *pd = tp_make_residual(name, iters, CC_PRECISION_DOUBLE, full, a, comm, ord);
    cc_precond *ph = tp_make_residual(name, iters, CC_PRECISION_HALF, full, a, comm, ord);
    tp_apply_with(pd, x, zd, omp_get_max_threads());
    tp_apply_with(ph, x, zh, omp_get_max_threads());
    tp_apply_with(ph, y, yh, omp_get_max_threads());
    asdd_reference(cases[c].full ? &ah : &ae, dh, comm, cases[c].iters, x, zr, t, w);
    if (cases[c].full) { /* double: the fused and the full residual agree to rounding */
      cc_precond *pf = tp_make(name, iters, CC_PRECISION_DOUBLE, a, comm, ord);
      tp_apply_with(pf, x, z2, omp_get_max_threads());
      const double dfused = tp_rel_diff(nd, z2, zd);
      TEST_EXPECT(dfused <= 1e-13, "%s: double fused vs full residual %.3g > 1e-13", what, dfused);
      cc_precond_destroy(&pf);
    }
    double dref = tp_rel_diff(nd, zh, zr), ddbl = tp_rel_diff(nd, zh, zd);
    TEST_EXPECT(dref <= HALF_VS_REFERENCE_TOL, "%s: |z_half - z_reference| / |z_ref| = %.3g > %.3g",
                what, dref, HALF_VS_REFERENCE_TOL);
    TEST_EXPECT(ddbl <= HALF_VS_DOUBLE_TOL, "%s: |z_half - z_double| / |z_double| = %.3g > %.3g",
                what, ddbl, HALF_VS_DOUBLE_TOL);
    if (test_rank == 0 && c == 2)
      printf("%s: half vs reference %.2e, vs double %.2e\n", what, dref, ddbl);
    /* symmetric and positive: x'My = y'Mx to 1e-12 relative, x'Mx > 0 */
    double d[6] = {0};
    for (int64_t i = 0; i < nd; i++) {
      d[0] += x[i] * yh[i], d[1] += y[i] * zh[i], d[2] += x[i] * zh[i];
      d[3] += x[i] * x[i], d[4] += yh[i] * yh[i], d[5] += zh[i] * zh[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, d, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double scale = sqrt(d[3]) * (sqrt(d[4]) + sqrt(d[5]));
    TEST_EXPECT(fabs(d[0] - d[1]) <= SYMMETRY_TOL * scale, "%s: x'My = %.17g, y'Mx = %.17g", what,
                d[0], d[1]);
    TEST_EXPECT(d[2] > 0, "%s: x'Mx = %g not positive", what, d[2]);
    /* bitwise independent of the thread count */
    for (int th = 1; th <= 2; th++) {
      tp_apply_with(ph, x, z2, th);
      TEST_EXPECT(memcmp(z2, zh, (size_t)nd * sizeof(double)) == 0, "%s: %d thread(s) != %d", what,
                  th, omp_get_max_threads());
    }
    if (c == 0) /* binary16 shadows: 18 B per block and per D^-1, 16 B of scales per row */
      TEST_EXPECT(ph->bytes >= 18 * (cc_bcrs_blocks(a) + a->n_rows) + 16 * (int64_t)a->n_rows &&
                      ph->bytes_double == pd->bytes,
                  "%s: bytes %lld (double %lld)", what, (long long)ph->bytes, (long long)pd->bytes);
    cc_precond_destroy(&pd);
    cc_precond_destroy(&ph);
  }
  cc_sgs_free(&s);
  cc_free(&ae.val);
  cc_free(&ah.val);
  cc_free(&ah.l_val);
  cc_free(&zd);
  cc_free(&zh);
  cc_free(&yh);
  cc_free(&z2);
  cc_free(&zr);
  cc_free(&t);
  cc_free(&w);
  cc_free(&dh);
}

/* every block of a times 2^e (fac), or only row/column `node` by 2^e on both sides (D A D) */
static void scale_matrix(cc_bcrs *a, int node, int e)
{
  for (int i = 0; i < a->n_rows; i++) {
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      int f = node < 0 ? e : e * ((i == node) + (a->col_idx[k] == node));
      for (int q = 0; q < 9; q++) a->val[9 * k + q] = ldexp(a->val[9 * k + q], f);
    }
    if (a->l_ptr)
      for (int64_t k = a->l_ptr[i]; k < a->l_ptr[i + 1]; k++) {
        int f = node < 0 ? e : e * ((i == node) + (a->l_col[k] == node));
        for (int q = 0; q < 9; q++) a->l_val[9 * k + q] = ldexp(a->l_val[9 * k + q], f);
      }
  }
}

/* 2^300 A: M_h^-1 x scaled by 2^-300 bitwise (every row's scale moves by the same power of 2) */
static void check_scaling(const char *tag, cc_bcrs *a, const cc_comm_table *comm,
                          const cc_ordering *ord, double *x)
{
  const int64_t nd = 3 * (int64_t)a->n_rows;
  double *z0, *z1;
  TEST_CALL(cc_calloc(3 * (size_t)a->n_cols, sizeof(double), &z0));
  TEST_CALL(cc_calloc(3 * (size_t)a->n_cols, sizeof(double), &z1));
  cc_precond *ph = tp_make("asdd", 2, CC_PRECISION_HALF, a, comm, ord);
  tp_apply_with(ph, x, z0, omp_get_max_threads());
  cc_precond_destroy(&ph);
  scale_matrix(a, -1, 300);
  ph = tp_make("asdd", 2, CC_PRECISION_HALF, a, comm, ord);
  tp_apply_with(ph, x, z1, omp_get_max_threads());
  cc_precond_destroy(&ph);
  scale_matrix(a, -1, -300);
  long bad = 0;
  for (int64_t i = 0; i < nd; i++) bad += ldexp(z1[i], 300) != z0[i];
  TEST_EXPECT(bad == 0, "%s: 2^300 A: %ld of %lld values not scaled exactly", tag, bad,
              (long long)nd);
  cc_free(&z0);
  cc_free(&z1);
}

/* D A D with D = 2^40 at one node of rank 0 (its row with the most blocks, a node coupled to
 * others): its couplings 2^40 a_ij round to 0 on the grid of its row (scale ~2^80) although far
 * above that row's rounding noise. Refused, naming a row, on every rank (rank 0 names that node's
 * row; a neighbour rank may name its own row coupled to it through the halo: the same pair of
 * scales). */
static void check_refusal(const char *tag, cc_bcrs *a, const cc_comm_table *comm,
                          const cc_ordering *ord)
{
  int node = -2;
  if (test_rank == 0) {
    int64_t most = 0;
    for (int i = 0; i < a->n_rows; i++) {
      int64_t nb =
          a->row_ptr[i + 1] - a->row_ptr[i] + (a->l_ptr ? a->l_ptr[i + 1] - a->l_ptr[i] : 0);
      if (nb > most) most = nb, node = i;
    }
  }
  if (node >= 0) scale_matrix(a, node, 40);
  cc_precond_params pp = {
      .name = "asdd", .asdd_iters = 2, .ordering = ord, .precision = CC_PRECISION_HALF};
  cc_precond *pc = NULL;
  cc_err err     = cc_precond_create(&pp, a, comm, &pc);
  /* each failing rank names its own first offending row, the others the lowest failing rank's */
  const char *want = ", original local id ";
  TEST_EXPECT(err == CC_ERR_ARG && pc == NULL && strstr(cc_error_message(), "binary16") &&
                  strstr(cc_error_message(), "block row ") && strstr(cc_error_message(), want),
              "%s: unrepresentable matrix: err %d '%s'", tag, (int)err, cc_error_message());
  cc_error_clear();
  if (node >= 0) scale_matrix(a, node, -40);
  /* restored: accepted again */
  TEST_CALL(cc_precond_create(&pp, a, comm, &pc));
  cc_precond_destroy(&pc);
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
  if (test_rank == 0) printf("binary16 conversion path: %s\n", cc_half_conversion_path);
  check_conversions();
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
    const int64_t na = 3 * (int64_t)mesh.n_total;
    double *x, *y;
    TEST_CALL(cc_calloc(na, sizeof(double), &x));
    TEST_CALL(cc_calloc(na, sizeof(double), &y));
    for (int i = 0; i < mesh.n_internal; i++)
      for (int c = 0; c < 3; c++) {
        x[3 * i + c] = test_value(mesh.global_id[ord.old_of_new[i]], c, 21);
        y[3 * i + c] = test_value(mesh.global_id[ord.old_of_new[i]], c, 22);
      }
    char tag[64];
    snprintf(tag, sizeof tag, "%s plain", orderings[o]);
    check_matrix(tag, &plain, &mesh.comm, &ord, x, y);
    snprintf(tag, sizeof tag, "%s split", orderings[o]);
    check_matrix(tag, &split, &mesh.comm, &ord, x, y);
    check_scaling(tag, &split, &mesh.comm, &ord, x);
    check_refusal(tag, &split, &mesh.comm, &ord);

    /* no half form: refused by name */
    cc_precond_params pp = {.name = "jacobi", .ordering = &ord, .precision = CC_PRECISION_HALF};
    cc_precond *pc       = NULL;
    cc_err err           = cc_precond_create(&pp, &plain, &mesh.comm, &pc);
    TEST_EXPECT(err == CC_ERR_ARG && pc == NULL && strstr(cc_error_message(), "jacobi"),
                "jacobi half: err %d '%s'", (int)err, cc_error_message());
    cc_error_clear();
    if (test_rank == 0) printf("%-7s: %d colors on rank 0\n", orderings[o], ord.n_colors);
    cc_free(&x);
    cc_free(&y);
    cc_free(&b0);
    cc_free(&b1);
    cc_bcrs_free(&plain);
    cc_bcrs_free(&split);
    cc_bcrs_free(&pattern);
    cc_ordering_free(&ord);
    cc_mesh_free(&mesh);
  }
  return test_finish("test_precond_half");
}
