/* test_precond_ordering.c: orderings natural / rcm / mc / cm-rcm on each rank's internal nodes:
 * permutations, colors (every node in exactly one color, no two coupled nodes in one color),
 * permute/unpermute round trip, and the permuted system (matrix + communication table) giving the
 * permuted SpMV. Usage: test_precond_ordering [--nx N --ny N --nz N --partition box|metis]
 */
#include "test_precond_util.h"

static void bcrs_copy(const cc_bcrs *a, cc_bcrs *b)
{
  *b = *a;
  TEST_CALL(cc_malloc((size_t)a->n_rows + 1, sizeof(int64_t), &b->row_ptr));
  TEST_CALL(cc_malloc((size_t)a->n_blocks, sizeof(int32_t), &b->col_idx));
  TEST_CALL(cc_malloc(9 * (size_t)a->n_blocks, sizeof(double), &b->val));
  TEST_CALL(cc_malloc((size_t)a->n_rows, sizeof(int64_t), &b->diag_pos));
  memcpy(b->row_ptr, a->row_ptr, ((size_t)a->n_rows + 1) * sizeof(int64_t));
  memcpy(b->col_idx, a->col_idx, (size_t)a->n_blocks * sizeof(int32_t));
  memcpy(b->val, a->val, 9 * (size_t)a->n_blocks * sizeof(double));
  memcpy(b->diag_pos, a->diag_pos, (size_t)a->n_rows * sizeof(int64_t));
}

static void comm_copy(const cc_comm_table *a, cc_comm_table *b)
{
  *b     = *a;
  int nb = a->n_neighbors, ni = a->import_index[nb], ne = a->export_index[nb];
  TEST_CALL(cc_malloc((size_t)nb + 1, sizeof(int), &b->neighbor_rank));
  TEST_CALL(cc_malloc((size_t)nb + 1, sizeof(int), &b->import_index));
  TEST_CALL(cc_malloc((size_t)nb + 1, sizeof(int), &b->export_index));
  TEST_CALL(cc_malloc((size_t)ni + 1, sizeof(int), &b->import_item));
  TEST_CALL(cc_malloc((size_t)ne + 1, sizeof(int), &b->export_item));
  memcpy(b->neighbor_rank, a->neighbor_rank, (size_t)nb * sizeof(int));
  memcpy(b->import_index, a->import_index, ((size_t)nb + 1) * sizeof(int));
  memcpy(b->export_index, a->export_index, ((size_t)nb + 1) * sizeof(int));
  memcpy(b->import_item, a->import_item, (size_t)ni * sizeof(int));
  memcpy(b->export_item, a->export_item, (size_t)ne * sizeof(int));
  b->halo = (cc_halo_buffers){0}; /* the copy gets buffers of its own */
  TEST_CALL(cc_comm_table_buffers(b));
}

/* permutation, colors cover [0, n) once, no coupled pair inside a color */
static void check_ordering(const cc_bcrs *a, const cc_ordering *ord, const char *kind, int K)
{
  const int n = a->n_rows;
  TEST_EXPECT(ord->n_nodes == n, "%s K=%d: n_nodes %d != %d", kind, K, ord->n_nodes, n);
  int *seen = calloc((size_t)n + 1, sizeof(int)), *color = malloc(((size_t)n + 1) * sizeof(int));
  for (int i = 0; i < n; i++) {
    int o = ord->old_of_new[i];
    TEST_EXPECT(o >= 0 && o < n && ord->new_of_old[o] == i, "%s K=%d: not a permutation at %d",
                kind, K, i);
    if (o >= 0 && o < n) seen[o]++;
  }
  for (int i = 0; i < n; i++)
    TEST_EXPECT(seen[i] == 1, "%s K=%d: old node %d numbered %d times", kind, K, i, seen[i]);
  if (!strcmp(kind, "natural") || !strcmp(kind, "rcm")) {
    TEST_EXPECT(ord->n_colors == 0, "%s: n_colors = %d, expected 0 (sequential)", kind,
                ord->n_colors);
  } else {
    TEST_EXPECT(ord->n_colors >= 1 || n == 0, "%s K=%d: no colors", kind, K);
    if (!strcmp(kind, "cm-rcm"))
      TEST_EXPECT(ord->n_colors >= (K < ord->n_levels ? K : ord->n_levels) &&
                      ord->n_colors <= ord->n_levels,
                  "cm-rcm K=%d: %d colors for %d levels", K, ord->n_colors, ord->n_levels);
    for (int i = 0; i < n; i++) color[i] = -1;
    TEST_EXPECT(ord->color_ptr[0] == 0 && ord->color_ptr[ord->n_colors] == n,
                "%s K=%d: colors cover [%d, %d) of %d", kind, K, ord->color_ptr[0],
                ord->color_ptr[ord->n_colors], n);
    for (int c = 0; c < ord->n_colors; c++)
      for (int i = ord->color_ptr[c]; i < ord->color_ptr[c + 1]; i++) {
        TEST_EXPECT(i >= 0 && i < n && color[i] < 0, "%s K=%d: node %d in two colors", kind, K, i);
        if (i >= 0 && i < n) color[i] = c;
      }
    for (int i = 0; i < n; i++)
      TEST_EXPECT(color[i] >= 0, "%s K=%d: node %d has no color", kind, K, i);
    /* independence, on the original matrix: coupled internal nodes have different colors */
    int64_t conflicts = 0;
    for (int io = 0; io < n; io++)
      for (int64_t k = a->row_ptr[io]; k < a->row_ptr[io + 1]; k++) {
        int jo = a->col_idx[k];
        if (jo < n && jo != io && color[ord->new_of_old[io]] == color[ord->new_of_old[jo]])
          conflicts++;
      }
    TEST_EXPECT(conflicts == 0, "%s K=%d: %lld coupled pairs share a color", kind, K,
                (long long)conflicts);
  }
  free(seen);
  free(color);
}

/* round trip, then the permuted system's SpMV (with halo exchange) against the original's */
static void check_apply(const tp_problem *p, const cc_ordering *ord, const char *kind, int K)
{
  const int n = p->a.n_rows, nt = p->a.n_cols;
  double *x = tp_vector(p, 1), *xn, *xr, *y, *yn, *yp;
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &xn));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &xr));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &y));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &yn));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &yp));
  cc_ordering_permute(ord, x, xn);
  cc_ordering_unpermute(ord, xn, xr);
  TEST_EXPECT(memcmp(x, xr, 3 * (size_t)n * sizeof(double)) == 0,
              "%s K=%d: unpermute(permute(x)) != x", kind, K);

  cc_bcrs b;
  cc_comm_table comm;
  bcrs_copy(&p->a, &b);
  comm_copy(&p->mesh.comm, &comm);
  TEST_CALL(cc_ordering_apply(ord, &b, &comm));
  for (int i = 0; i < n; i++) {
    TEST_EXPECT(b.col_idx[b.diag_pos[i]] == i, "%s K=%d: diag_pos of row %d wrong", kind, K, i);
    for (int64_t k = b.row_ptr[i] + 1; k < b.row_ptr[i + 1]; k++)
      TEST_EXPECT(b.col_idx[k - 1] < b.col_idx[k], "%s K=%d: row %d columns not sorted", kind, K,
                  i);
  }
  TEST_CALL(cc_spmv(NULL, &p->a, &p->mesh.comm, x, y)); /* y = A x */
  TEST_CALL(cc_spmv(NULL, &b, &comm, xn, yn));          /* yn = (P A P^T) (P x) */
  cc_ordering_permute(ord, y, yp);
  double ymax = 0.0, diff = 0.0;
  for (int64_t i = 0; i < 3 * (int64_t)n; i++) {
    ymax = fmax(ymax, fabs(yp[i]));
    diff = fmax(diff, fabs(yp[i] - yn[i]));
  }
  /* the rows' sums are reordered, so equal to rounding */
  TEST_EXPECT(diff <= 1e-13 * ymax, "%s K=%d: permuted SpMV differs by %g (max |y| %g)", kind, K,
              diff, ymax);
  cc_bcrs_free(&b);
  cc_comm_table_free(&comm);
  cc_free(&x);
  cc_free(&xn);
  cc_free(&xr);
  cc_free(&y);
  cc_free(&yn);
  cc_free(&yp);
}

int main(int argc, char **argv)
{
  tp_init(&argc, &argv);
  tp_problem p;
  tp_problem_create(argc, argv, &p);
  const char *kinds[] = {"natural", "rcm", "mc", "cm-rcm"};
  const int colors[]  = {2, 3, 10, 50};
  for (int k = 0; k < 4; k++)
    for (int c = 0; c < 4; c++) {
      if (k < 2 && c > 0) continue; /* colors do not matter for natural, rcm */
      cc_ordering ord;
      TEST_CALL(cc_ordering_create(kinds[k], colors[c], &p.a, &ord));
      check_ordering(&p.a, &ord, kinds[k], colors[c]);
      check_apply(&p, &ord, kinds[k], colors[c]);
      printf("[rank %d] %-7s K=%2d: %d nodes, %d colors, %d levels\n", test_rank, kinds[k],
             colors[c], ord.n_nodes, ord.n_colors, ord.n_levels);
      cc_ordering_free(&ord);
    }
  tp_problem_free(&p);
  return test_finish("test_precond_ordering");
}
