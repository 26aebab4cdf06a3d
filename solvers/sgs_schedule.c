/* sgs_schedule.c: the order of the multicolor SGS sweeps. Nakajima's sweep runs color
 * by color; every order in which each row comes after its lower neighbours gives the same bits,
 * since a row's arithmetic reads only finished values. For CM-RCM the steps are chunks of levels:
 * levels r = tK + c form block t (one level of each color), chunk j takes color c's levels of
 * blocks [jS - shift[c], (j+1)S - shift[c]), and the chunks run in order, colors in order inside
 * each. A chunk's vector entries then stay in cache while all its colors read them, instead of
 * coming back from memory once per neighbouring color. The backward sweep runs the steps in
 * reverse (the reverse of a topological order of L's couplings is one of U's).
 */
#include "cc_precond_impl.h"

/* First row of color c's level block t (the color's end past its last level). */
static int block_first(const cc_ordering *ord, int c, int t)
{
  const int r = t * ord->n_colors + c;
  return r < ord->n_levels ? ord->level_first[r] : ord->color_ptr[c + 1];
}

/* Every row in exactly one step, each lower neighbour in an earlier step: else a broken
 * ordering, named (the sweep would read unfinished values). */
static cc_err schedule_check(const cc_sgs *s)
{
  int *step = NULL;
  CC_CALL(cc_malloc((size_t)s->n + 1, sizeof(int), &step));
  for (int i = 0; i < s->n; i++) step[i] = -1;
  int64_t bad_row = -1, bad_col = -1;
  for (int k = 0; k < s->n_steps; k++)
    for (int i = s->steps[2 * k]; i < s->steps[2 * k + 1]; i++) {
      if (step[i] >= 0) bad_row = i;
      step[i] = k;
    }
  for (int64_t i = 0; i < s->n && bad_row < 0 && bad_col < 0; i++) {
    int64_t k0, k1;
    const int32_t *col;
    const double *val;
    cc_bcrs_lower(s->a, i, &k0, &k1, &col, &val);
    if (step[i] < 0) bad_row = i;
    for (int64_t k = k0; k < k1 && bad_col < 0; k++)
      if (step[col[k]] >= step[i]) bad_row = i, bad_col = col[k];
  }
  cc_free(&step);
  CC_CHECK(bad_col < 0, CC_ERR_CHECK,
           "SGS schedule: row %lld runs before its lower neighbour %lld (a broken CM-RCM level "
           "structure)",
           (long long)bad_row, (long long)bad_col);
  CC_CHECK(bad_row < 0, CC_ERR_CHECK, "SGS schedule: row %lld is in no step or in two",
           (long long)bad_row);
  return CC_OK;
}

cc_err cc_sgs_schedule(cc_sgs *s, const cc_ordering *ord, int chunk_rows)
{
  cc_free(&s->steps);
  s->n_steps  = 0;
  const int K = s->n_colors;
  if (K == 0) return CC_OK; /* sequential sweep */
  const int L = ord->level_first && chunk_rows >= 0 ? ord->n_levels : 0;
  /* chunks of S blocks of K levels; without levels (or too few) one step per color. The default
   * chunk's vectors (z, r: 48 B per row) stay well inside a core's share of the last-level cache,
   * and the barriers per sweep stay in the hundreds. */
  const int64_t rows       = chunk_rows > 0 ? chunk_rows : CC_SGS_CHUNK_ROWS;
  const int64_t block_rows = L > K ? (int64_t)s->n * K / L : 0;
  const int S              = block_rows > 0 && block_rows < rows ? (int)(rows / block_rows) : 1;
  const int T              = L > K ? (L + K - 1) / K : 0; /* blocks */
  int max_shift            = 0;
  for (int c = 0; T > 0 && c < K; c++)
    if (ord->level_shift[c] > max_shift) max_shift = ord->level_shift[c];
  const int n_chunks = T > 0 ? (T + max_shift + S - 1) / S : 1;
  CC_CALL(cc_malloc(2 * (size_t)n_chunks * K, sizeof(int), &s->steps));
  for (int j = 0; j < n_chunks; j++)
    for (int c = 0; c < K; c++) {
      int lo = s->color_ptr[c], hi = s->color_ptr[c + 1];
      if (T > 0) { /* color c's blocks [t0, t1) in chunk j */
        int t0 = j * S - ord->level_shift[c], t1 = t0 + S;
        t0 = t0 < 0 ? 0 : t0;
        lo = t0 < t1 ? block_first(ord, c, t0) : 0;
        hi = t0 < t1 ? block_first(ord, c, t1 < T ? t1 : T) : 0;
      }
      if (lo < hi) {
        s->steps[2 * s->n_steps]       = lo;
        s->steps[2 * s->n_steps++ + 1] = hi;
      }
    }
  if (T > 0) CC_CALL(schedule_check(s));
  return CC_OK;
}
