/* test_krylov_overlap.c: the halo exchange hidden behind the interior rows.
 * For the given partition and each ordering (natural, rcm, cm-rcm applied to matrix and table):
 * - row classes: interior rows read no halo column, boundary rows do, every row once, ascending;
 * - cc_spmv with the classes (begin, interior rows, wait, boundary rows) gives the same bits as
 *   without them and matches cc_spmv_ref to 1e-14 relative; the residual form b - A x likewise;
 *   halo, wait and poll counts;
 * - ASDD (2 iterations, the residual with its halo behind the interior rows) gives the same bits;
 * - a pipecg-iar solve (poll progress) with ASDD: same iterations and the same solution bits.
 * Usage: test_krylov_overlap [--nx N --ny N --nz N --partition box|metis]
 */
#include "test_krylov_util.h"

static double max_diff(int64_t n, const double *a, const double *b)
{
  double d = 0.0;
  for (int64_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

static double max_abs_all(int64_t n, const double *a)
{
  double m = 0.0;
  for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static int same_bits(int64_t n, const double *a, const double *b)
{
  return memcmp(a, b, (size_t)n * sizeof(double)) == 0;
}

static void count_poll(void *ctx)
{
  (*(int64_t *)ctx)++;
}

/* every row once, each class ascending, interior rows with internal columns only */
static void check_classes(const cc_bcrs *a, const char *kind)
{
  const int n = a->n_rows;
  TEST_EXPECT(a->row_class && a->n_interior >= 0 && a->n_interior <= n, "%s: no row classes", kind);
  if (!a->row_class) return;
  char *seen = calloc((size_t)n + 1, 1);
  int bad    = 0;
  for (int p = 0; p < n; p++) {
    int i = a->row_class[p];
    if (i < 0 || i >= n || seen[i]) {
      bad++;
      continue;
    }
    seen[i]      = 1;
    int halo_col = 0;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) halo_col |= a->col_idx[k] >= n;
    if (a->l_ptr)
      for (int64_t k = a->l_ptr[i]; k < a->l_ptr[i + 1]; k++) halo_col |= a->l_col[k] >= n;
    if (halo_col != (p >= a->n_interior)) bad++;
    if (p > 0 && p != a->n_interior && a->row_class[p - 1] >= i) bad++;
  }
  TEST_EXPECT(bad == 0, "%s: %d rows misclassified, repeated or out of order", kind, bad);
  free(seen);
  int counts[2] = {a->n_interior, n - a->n_interior};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (test_rank == 0)
    printf("%s: %d interior rows, %d boundary rows over %d ranks\n", kind, counts[0], counts[1],
           tk_size);
  TEST_EXPECT(tk_size > 1 || counts[1] == 0, "%s: boundary rows on one rank", kind);
  TEST_EXPECT(tk_size == 1 || counts[1] > 0, "%s: no boundary rows on %d ranks", kind, tk_size);
}

static void test_spmv(tk_problem *p, const char *kind)
{
  cc_bcrs *a                = &p->a;
  const cc_comm_table *comm = &p->mesh.comm;
  const int64_t n = 3 * (int64_t)a->n_rows, n_all = 3 * (int64_t)a->n_cols;
  double *x = tk_vector(p, 5), *b = tk_vector(p, 6), *y_split, *y_plain, *y_ref, *r_split, *r_plain;
  TEST_CALL(cc_calloc((size_t)n_all, sizeof(double), &y_split));
  TEST_CALL(cc_calloc((size_t)n_all, sizeof(double), &y_plain));
  TEST_CALL(cc_calloc((size_t)n_all, sizeof(double), &y_ref));
  TEST_CALL(cc_calloc((size_t)n_all, sizeof(double), &r_split));
  TEST_CALL(cc_calloc((size_t)n_all, sizeof(double), &r_plain));

  TEST_CALL(cc_bcrs_classify_rows(a, NULL));
  check_classes(a, kind);
  cc_timers tm;
  cc_timers_init(&tm, 0);
  int64_t polls    = 0;
  const cc_exec ex = {.timers = &tm, .poll = count_poll, .poll_ctx = &polls};
  TEST_CALL(cc_spmv(&ex, a, comm, x, y_split)); /* x's halo NaN until the exchange fills it */
  const int64_t waits = comm->n_neighbors > 0;
  TEST_EXPECT(tm.count[CC_T_SPMV] == 1 && tm.count[CC_T_HALO] == 1 &&
                  tm.count[CC_T_HALO_WAIT] == waits,
              "%s: split cc_spmv counted %lld SpMV, %lld halo, %lld wait (expected 1, 1, %lld)",
              kind, (long long)tm.count[CC_T_SPMV], (long long)tm.count[CC_T_HALO],
              (long long)tm.count[CC_T_HALO_WAIT], (long long)waits);
  TEST_EXPECT(tm.seconds[CC_T_HALO_WAIT] <= tm.seconds[CC_T_HALO] &&
                  tm.seconds[CC_T_HALO] <= tm.seconds[CC_T_SPMV],
              "%s: wait %g s, halo %g s, SpMV %g s: not nested", kind, tm.seconds[CC_T_HALO_WAIT],
              tm.seconds[CC_T_HALO], tm.seconds[CC_T_SPMV]);
  /* the main thread polls at least once in each nonempty class */
  const int64_t min_polls = (a->n_interior > 0) + (a->n_rows - a->n_interior > 0);
  TEST_EXPECT(polls >= min_polls, "%s: %lld polls, expected >= %lld", kind, (long long)polls,
              (long long)min_polls);
  TEST_CALL(cc_spmv_halo(NULL, a, comm, x, b, r_split, CC_T_HALO, CC_T_HALO_WAIT)); /* b - A x */

  cc_bcrs_unclassify_rows(a); /* --halo-overlap off */
  TEST_EXPECT(a->row_class == NULL && a->n_interior == 0, "%s: classes not dropped", kind);
  TEST_CALL(cc_spmv(NULL, a, comm, x, y_plain));
  TEST_CALL(cc_spmv_halo(NULL, a, comm, x, b, r_plain, CC_T_HALO, CC_T_HALO_WAIT));
  cc_spmv_ref(a, x, y_ref); /* x's halo is filled by now */

  double scale = max_abs_all(n, y_ref);
  TEST_EXPECT(same_bits(n, y_split, y_plain), "%s: split SpMV differs from plain by %g", kind,
              max_diff(n, y_split, y_plain));
  TEST_EXPECT(max_diff(n, y_split, y_ref) <= 1e-14 * scale, "%s: split SpMV vs ref %g (scale %g)",
              kind, max_diff(n, y_split, y_ref), scale);
  TEST_EXPECT(same_bits(n, r_split, r_plain), "%s: split residual differs from plain by %g", kind,
              max_diff(n, r_split, r_plain));
  for (int64_t i = 0; i < n; i++) y_ref[i] = b[i] - y_ref[i]; /* b - A x, reference */
  TEST_EXPECT(max_diff(n, r_split, y_ref) <= 1e-14 * fmax(scale, max_abs_all(n, b)),
              "%s: split residual vs ref %g", kind, max_diff(n, r_split, y_ref));
  cc_free(&x);
  cc_free(&b);
  cc_free(&y_split);
  cc_free(&y_plain);
  cc_free(&y_ref);
  cc_free(&r_split);
  cc_free(&r_plain);
}

/* ASDD(2) and a solve with and without the classes: the same bits */
static void test_precond_solve(tk_problem *p, const cc_ordering *ord, const char *kind)
{
  cc_bcrs *a      = &p->a;
  const int64_t n = 3 * (int64_t)a->n_rows, n_all = 3 * (int64_t)a->n_cols;
  cc_precond *pc       = NULL;
  cc_precond_params pp = {.name = "asdd", .asdd_iters = 2, .ordering = ord};
  TEST_CALL(cc_precond_create(&pp, a, &p->mesh.comm, &pc));
  double *r = tk_vector(p, 7), *z[2], *x[2];
  cc_solve_result res[2];
  cc_timers tm[2];
  for (int on = 0; on < 2; on++) {
    if (on)
      TEST_CALL(cc_bcrs_classify_rows(a, NULL));
    else
      cc_bcrs_unclassify_rows(a);
    TEST_CALL(cc_calloc((size_t)n_all, sizeof(double), &z[on]));
    TEST_CALL(cc_calloc((size_t)n_all, sizeof(double), &x[on]));
    cc_timers_init(&tm[on], 0);
    const cc_exec ex = {.timers = &tm[on]};
    TEST_CALL(cc_precond_apply(pc, &ex, r, z[on]));
    TEST_EXPECT(tm[on].count[CC_T_PRECOND_HALO] == 1 &&
                    tm[on].count[CC_T_PRECOND_HALO_WAIT] == (p->mesh.comm.n_neighbors > 0),
                "%s overlap %d: ASDD counted %lld halo, %lld wait", kind, on,
                (long long)tm[on].count[CC_T_PRECOND_HALO],
                (long long)tm[on].count[CC_T_PRECOND_HALO_WAIT]);
    cc_krylov_opts o = {.tol           = 1e-8,
                        .maxit         = 2000,
                        .reduction     = CC_REDUCTION_IAR,
                        .replace_every = 10,
                        .progress      = CC_PROGRESS_POLL};
    TEST_CALL(
        cc_krylov_solve(cc_krylov_find("pipecg"), a, &p->mesh.comm, pc, p->b, x[on], &o, &res[on]));
    TEST_EXPECT(res[on].converged, "%s overlap %d: pipecg did not converge: %s", kind, on,
                res[on].failure);
  }
  TEST_EXPECT(same_bits(n, z[0], z[1]), "%s: ASDD with / without classes differs by %g", kind,
              max_diff(n, z[0], z[1]));
  TEST_EXPECT(res[0].iterations == res[1].iterations, "%s: %d iterations without, %d with classes",
              kind, res[0].iterations, res[1].iterations);
  TEST_EXPECT(same_bits(n, x[0], x[1]) && res[0].rel_residual == res[1].rel_residual,
              "%s: solution with / without classes differs by %g", kind, max_diff(n, x[0], x[1]));
  TEST_EXPECT(res[1].count[CC_T_HALO_WAIT] ==
                  (p->mesh.comm.n_neighbors > 0 ? res[1].count[CC_T_HALO] : 0),
              "%s: %lld SpMV halo waits for %lld exchanges", kind,
              (long long)res[1].count[CC_T_HALO_WAIT], (long long)res[1].count[CC_T_HALO]);
  if (test_rank == 0)
    printf("%s: pipecg-iar %d iterations, |r|/|b| %.3e, with and without classes\n", kind,
           res[1].iterations, res[1].rel_residual);
  for (int on = 0; on < 2; on++) cc_free(&z[on]), cc_free(&x[on]);
  cc_free(&r);
  cc_precond_destroy(&pc);
}

int main(int argc, char **argv)
{
  tk_init(&argc, &argv);
  int nx = atoi(tk_arg(argc, argv, "--nx", "9")), ny = atoi(tk_arg(argc, argv, "--ny", "8"));
  int nz       = atoi(tk_arg(argc, argv, "--nz", "7"));
  tk_partition = strcmp(tk_arg(argc, argv, "--partition", "box"), "metis") == 0 ? CC_PARTITION_METIS
                                                                                : CC_PARTITION_BOX;
  const char *kinds[] = {"natural", "rcm", "cm-rcm"};
  for (int o = 0; o < 3; o++) {
    tk_problem p = {0};
    tk_problem_create_on(nx, ny, nz, MPI_COMM_WORLD, &p);
    cc_ordering ord = {0};
    TEST_CALL(cc_ordering_create(kinds[o], 4, &p.a, &ord));
    TEST_CALL(cc_ordering_apply(&ord, &p.a, &p.mesh.comm));
    double *bn = NULL; /* the right-hand side in the new order */
    TEST_CALL(cc_calloc(3 * (size_t)p.a.n_cols, sizeof(double), &bn));
    cc_ordering_permute(&ord, p.b, bn);
    cc_free(&p.b);
    p.b = bn;
    test_spmv(&p, kinds[o]);
    test_precond_solve(&p, &ord, kinds[o]);
    cc_ordering_free(&ord);
    tk_problem_free(&p);
  }
  return test_finish("test_krylov_overlap");
}
