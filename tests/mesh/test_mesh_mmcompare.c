/* test_mesh_mmcompare.c: compare two Matrix Market coordinate files entry by entry (indices and
 * counts exact, values to relative 1e-14) and check that each holds a symmetric matrix with sorted
 * entries. Usage: test_mesh_mmcompare a.mtx b.mtx
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  long long row, col;
  double val;
} entry;

typedef struct {
  long long m, n, nnz;
  entry *e;
} mtx;

static int read_mtx(const char *path, mtx *a)
{
  FILE *f = fopen(path, "r");
  if (!f) return fprintf(stderr, "cannot open %s\n", path), 0;
  char line[256];
  if (!fgets(line, sizeof line, f) ||
      strncmp(line, "%%MatrixMarket matrix coordinate real general", 45) != 0)
    return fprintf(stderr, "%s: not a coordinate real general Matrix Market file\n", path), 0;
  if (fscanf(f, "%lld %lld %lld", &a->m, &a->n, &a->nnz) != 3 || a->nnz < 0)
    return fprintf(stderr, "%s: bad size line\n", path), 0;
  a->e = malloc(((size_t)a->nnz + 1) * sizeof(entry));
  if (!a->e) return fprintf(stderr, "%s: out of memory\n", path), 0;
  for (long long k = 0; k < a->nnz; k++) {
    entry *e = &a->e[k];
    if (fscanf(f, "%lld %lld %lf", &e->row, &e->col, &e->val) != 3)
      return fprintf(stderr, "%s: entry %lld missing (header says %lld)\n", path, k, a->nnz), 0;
    if (e->row < 1 || e->row > a->m || e->col < 1 || e->col > a->n)
      return fprintf(stderr, "%s: entry %lld (%lld,%lld) out of range\n", path, k, e->row, e->col),
             0;
    if (k > 0 && (e[-1].row > e->row || (e[-1].row == e->row && e[-1].col >= e->col)))
      return fprintf(stderr, "%s: entry %lld not sorted by (row, col)\n", path, k), 0;
  }
  double extra;
  if (fscanf(f, "%lf", &extra) == 1)
    return fprintf(stderr, "%s: more entries than the header's %lld\n", path, a->nnz), 0;
  fclose(f);
  return 1;
}

static int close_enough(double x, double y)
{
  return fabs(x - y) <= 1e-14 * fmax(fabs(x), fabs(y));
}

/* every (i, j, v) has a (j, i, v') with v' == v to 1e-14 (binary search in the sorted entries) */
static long long asymmetric(const char *path, const mtx *a)
{
  long long bad = 0;
  for (long long k = 0; k < a->nnz; k++) {
    long long lo = 0, hi = a->nnz - 1, r = a->e[k].col, c = a->e[k].row, found = -1;
    while (lo <= hi) {
      long long mid = (lo + hi) / 2;
      entry *e      = &a->e[mid];
      if (e->row == r && e->col == c) {
        found = mid;
        break;
      }
      if (e->row < r || (e->row == r && e->col < c))
        lo = mid + 1;
      else
        hi = mid - 1;
    }
    if (found < 0 || !close_enough(a->e[found].val, a->e[k].val)) {
      if (bad++ < 5)
        fprintf(stderr, "%s: A(%lld,%lld) = %.17g but A(%lld,%lld) %s\n", path, c, r, a->e[k].val,
                r, c, found < 0 ? "is absent" : "differs");
    }
  }
  return bad;
}

int main(int argc, char **argv)
{
  if (argc != 3) return fprintf(stderr, "usage: %s a.mtx b.mtx\n", argv[0]), 2;
  mtx a = {0}, b = {0};
  if (!read_mtx(argv[1], &a) || !read_mtx(argv[2], &b)) return 1;
  long long bad = 0;
  if (a.m != b.m || a.n != b.n || a.nnz != b.nnz) {
    fprintf(stderr, "sizes differ: %lld x %lld, %lld entries vs %lld x %lld, %lld entries\n", a.m,
            a.n, a.nnz, b.m, b.n, b.nnz);
    return 1;
  }
  for (long long k = 0; k < a.nnz; k++) {
    entry *x = &a.e[k], *y = &b.e[k];
    if (x->row != y->row || x->col != y->col || !close_enough(x->val, y->val)) {
      if (bad++ < 5)
        fprintf(stderr, "entry %lld: (%lld,%lld) %.17g vs (%lld,%lld) %.17g\n", k, x->row, x->col,
                x->val, y->row, y->col, y->val);
    }
  }
  long long asym = asymmetric(argv[1], &a) + asymmetric(argv[2], &b);
  printf("%s: %lld x %lld, %lld entries; %lld differing entries, %lld asymmetric entries\n",
         bad || asym ? "FAILED" : "PASSED", a.m, a.n, a.nnz, bad, asym);
  free(a.e);
  free(b.e);
  return bad || asym ? 1 : 0;
}
