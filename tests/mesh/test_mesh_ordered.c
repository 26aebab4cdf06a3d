/* test_mesh_ordered.c: assembling in a renumbered order (cc_mesh_assemble_ordered) gives exactly
 * the natural assembly permuted: row new_of_old[i] holds row i's blocks, columns renumbered and
 * sorted, b permuted; and the pattern (cc_mesh_pattern) matches the natural columns. */
#include "cc_mesh.h"
#include "cc_test.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  cc_mesh_params params;
  cc_mesh_params_default(&params);
  params.nx = 7, params.ny = 5, params.nz = 6;
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cc_mesh mesh;
  TEST_CALL(cc_mesh_create(&params, MPI_COMM_WORLD, &mesh));
  cc_bcrs a, ao, pat;
  double *b, *bo;
  TEST_CALL(cc_mesh_assemble(&mesh, &params, &a, &b));
  TEST_CALL(cc_mesh_pattern(&mesh, &pat));
  int n = mesh.n_internal, *new_of_old, *old_of_new;
  TEST_CALL(cc_malloc(n, sizeof(int), &new_of_old));
  TEST_CALL(cc_malloc(n, sizeof(int), &old_of_new));
  /* a fixed pseudo-random permutation (Fisher-Yates with an LCG) */
  for (int i = 0; i < n; i++) old_of_new[i] = i;
  unsigned state = 12345u;
  for (int i = n - 1; i > 0; i--) {
    state = state * 1103515245u + 12345u;
    int j = (int)((state >> 8) % (unsigned)(i + 1)), t = old_of_new[i];
    old_of_new[i] = old_of_new[j], old_of_new[j] = t;
  }
  for (int i = 0; i < n; i++) new_of_old[old_of_new[i]] = i;
  int groups[3] = {0, n / 3, n};
  TEST_CALL(
      cc_mesh_assemble_ordered(&mesh, &params, new_of_old, old_of_new, 2, groups, 0, &ao, &bo));
  /* the split storage holds the same blocks: lower part apart, the rest from the diagonal on */
  cc_bcrs as;
  double *bs;
  TEST_CALL(
      cc_mesh_assemble_ordered(&mesh, &params, new_of_old, old_of_new, 2, groups, 1, &as, &bs));

  long failures = 0;
  failures += pat.val != NULL || pat.n_blocks != a.n_blocks;
  for (int64_t t = 0; t < a.n_blocks && !failures; t++) failures += pat.col_idx[t] != a.col_idx[t];
  for (int i = 0; i < n; i++) {
    int r = new_of_old[i];
    failures += ao.row_ptr[r + 1] - ao.row_ptr[r] != a.row_ptr[i + 1] - a.row_ptr[i];
    for (int c = 0; c < 3; c++) failures += bo[3 * r + c] != b[3 * i + c];
    /* every block of natural row i appears in ordered row r under the renumbered column */
    for (int64_t t = a.row_ptr[i]; t < a.row_ptr[i + 1]; t++) {
      int col = a.col_idx[t] < n ? new_of_old[a.col_idx[t]] : a.col_idx[t], found = 0;
      for (int64_t s = ao.row_ptr[r]; s < ao.row_ptr[r + 1]; s++)
        if (ao.col_idx[s] == col) {
          found = 1;
          for (int e = 0; e < 9; e++) failures += ao.val[9 * s + e] != a.val[9 * t + e];
          if (col == r) failures += ao.diag_pos[r] != s;
        }
      failures += !found;
    }
    for (int64_t s = ao.row_ptr[r] + 1; s < ao.row_ptr[r + 1]; s++)
      failures += ao.col_idx[s - 1] >= ao.col_idx[s];
  }
  for (int r = 0; r < n; r++) {
    int64_t lo = ao.row_ptr[r], nl = as.l_ptr[r + 1] - as.l_ptr[r];
    failures += nl != ao.diag_pos[r] - lo || as.diag_pos[r] != as.row_ptr[r];
    failures += as.row_ptr[r + 1] - as.row_ptr[r] + nl != ao.row_ptr[r + 1] - lo;
    for (int64_t t = 0; t < ao.row_ptr[r + 1] - lo; t++) {
      int split       = t < nl;
      int64_t q       = split ? as.l_ptr[r] + t : as.row_ptr[r] + t - nl;
      int32_t col     = split ? as.l_col[q] : as.col_idx[q];
      const double *v = split ? as.l_val + 9 * q : as.val + 9 * q;
      failures += col != ao.col_idx[lo + t] || (split && col >= r);
      for (int e = 0; e < 9; e++) failures += v[e] != ao.val[9 * (lo + t) + e];
    }
  }
  for (int d = 0; d < 3 * n; d++) failures += bs[d] != bo[d];
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("%s: %ld mismatches (ordered vs permuted natural assembly, %d ranks)\n",
           failures ? "FAIL" : "PASS", failures, size);
  /* free everything, so the sanitizer build (LeakSanitizer) checks the library, not this test */
  cc_bcrs_free(&a), cc_bcrs_free(&ao), cc_bcrs_free(&as), cc_bcrs_free(&pat);
  cc_free(&b), cc_free(&bo), cc_free(&bs), cc_free(&new_of_old), cc_free(&old_of_new);
  cc_mesh_free(&mesh);
  MPI_Finalize();
  return failures != 0;
}
