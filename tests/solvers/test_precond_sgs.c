/* test_precond_sgs.c: the preconditioners jacobi, sgs and asdd (1, 2, 3 iterations) under the
 * orderings natural / rcm / mc / cm-rcm: M^-1 symmetric (x' M^-1 y = y' M^-1 x to 1e-12 relative
 * to |x| |M^-1 y|, as HPCG scales its symmetry check) and positive (x' M^-1 x > 0); the multicolor
 * sweep bitwise independent of the thread count and equal to the sequential reference sweep over
 * the permuted matrix (bitwise with the portable scalar kernels; to 1e-12 of max |z| with the FMA
 * block kernels of cc_block3_simd.h, which sum a block row's products in another order); asdd with
 * 1 iteration equal to sgs; the reference sweep solving (D + L) D^-1 (D + U) z = r. Usage:
 * test_precond_sgs [--nx N ... --partition P --colors K]
 */
#include "test_precond_util.h"

#include "cc_block3_simd.h"
#include "cc_precond_impl.h"

#include <math.h>
#include <omp.h>

/* z equals the reference sweep zr: bitwise where both sum a block row left to right, else (FMA
 * lanes, cc_block3_simd.h) to rounding, 1e-12 of max |zr| (|M z - r| is checked at 1e-10) */
static void expect_reference(const double *z, const double *zr, int64_t n, const char *what)
{
#if defined(CC_BLOCK3_SIMD)
  double diff = 0.0, zmax = 0.0;
  for (int64_t i = 0; i < n; i++) {
    diff = fmax(diff, fabs(z[i] - zr[i]));
    zmax = fmax(zmax, fabs(zr[i]));
  }
  TEST_EXPECT(diff <= 1e-12 * zmax, "%s: max |z - z_ref| = %g, max |z_ref| = %g", what, diff, zmax);
#else
  TEST_EXPECT(memcmp(z, zr, (size_t)n * sizeof(double)) == 0, "%s: not bitwise equal", what);
#endif
}

static void copy_system(const tp_problem *p, cc_bcrs *b, cc_comm_table *comm)
{
  const cc_bcrs *a = &p->a;
  *b               = *a;
  TEST_CALL(cc_malloc((size_t)a->n_rows + 1, sizeof(int64_t), &b->row_ptr));
  TEST_CALL(cc_malloc((size_t)a->n_blocks, sizeof(int32_t), &b->col_idx));
  TEST_CALL(cc_malloc(9 * (size_t)a->n_blocks, sizeof(double), &b->val));
  TEST_CALL(cc_malloc((size_t)a->n_rows, sizeof(int64_t), &b->diag_pos));
  memcpy(b->row_ptr, a->row_ptr, ((size_t)a->n_rows + 1) * sizeof(int64_t));
  memcpy(b->col_idx, a->col_idx, (size_t)a->n_blocks * sizeof(int32_t));
  memcpy(b->val, a->val, 9 * (size_t)a->n_blocks * sizeof(double));
  memcpy(b->diag_pos, a->diag_pos, (size_t)a->n_rows * sizeof(int64_t));
  const cc_comm_table *c = &p->mesh.comm;
  *comm                  = *c;
  int nb = c->n_neighbors, ni = c->import_index[nb], ne = c->export_index[nb];
  TEST_CALL(cc_malloc((size_t)nb + 1, sizeof(int), &comm->neighbor_rank));
  TEST_CALL(cc_malloc((size_t)nb + 1, sizeof(int), &comm->import_index));
  TEST_CALL(cc_malloc((size_t)nb + 1, sizeof(int), &comm->export_index));
  TEST_CALL(cc_malloc((size_t)ni + 1, sizeof(int), &comm->import_item));
  TEST_CALL(cc_malloc((size_t)ne + 1, sizeof(int), &comm->export_item));
  memcpy(comm->neighbor_rank, c->neighbor_rank, (size_t)nb * sizeof(int));
  memcpy(comm->import_index, c->import_index, ((size_t)nb + 1) * sizeof(int));
  memcpy(comm->export_index, c->export_index, ((size_t)nb + 1) * sizeof(int));
  memcpy(comm->import_item, c->import_item, (size_t)ni * sizeof(int));
  memcpy(comm->export_item, c->export_item, (size_t)ne * sizeof(int));
  comm->halo = (cc_halo_buffers){0}; /* the copy gets buffers of its own */
  TEST_CALL(cc_comm_table_buffers(comm));
}

/* z = M^-1 r with `threads` OpenMP threads */
static void apply_with(cc_precond *pc, double *r, double *z, int threads)
{
  int saved = omp_get_max_threads();
  omp_set_num_threads(threads);
  TEST_CALL(cc_precond_apply(pc, NULL, r, z));
  omp_set_num_threads(saved);
}

/* (D + L) D^-1 (D + U) z == r on the internal columns, D the diagonal blocks */
static void check_sgs_algebra(const cc_bcrs *a, const double *r, const double *z, const char *tag)
{
  const int n = a->n_rows;
  double *t   = calloc(3 * (size_t)n + 3, sizeof(double)),
         *s   = calloc(3 * (size_t)n + 3, sizeof(double));
  for (int i = 0; i < n; i++) /* t = (D + U) z */
    for (int64_t k = a->diag_pos[i]; k < a->row_ptr[i + 1]; k++) {
      int j = a->col_idx[k];
      if (j >= n) continue;
      for (int c = 0; c < 3; c++)
        for (int d = 0; d < 3; d++) t[3 * i + c] += a->val[9 * k + 3 * c + d] * z[3 * j + d];
    }
  for (int i = 0; i < n; i++) { /* s = D^-1 t */
    double inv[9];
    TEST_EXPECT(cc_block3_inverse(a->val + 9 * a->diag_pos[i], inv) == 0, "%s: singular block %d",
                tag, i);
    for (int c = 0; c < 3; c++)
      s[3 * i + c] =
          inv[3 * c] * t[3 * i] + inv[3 * c + 1] * t[3 * i + 1] + inv[3 * c + 2] * t[3 * i + 2];
  }
  double diff = 0.0, rmax = 0.0;
  for (int i = 0; i < n; i++) /* (D + L) s - r */
    for (int c = 0; c < 3; c++) {
      double u = 0.0;
      for (int64_t k = a->row_ptr[i]; k <= a->diag_pos[i]; k++)
        for (int d = 0; d < 3; d++) u += a->val[9 * k + 3 * c + d] * s[3 * a->col_idx[k] + d];
      diff = fmax(diff, fabs(u - r[3 * i + c]));
      rmax = fmax(rmax, fabs(r[3 * i + c]));
    }
  TEST_EXPECT(diff <= 1e-10 * rmax, "%s: |M z - r| = %g (max |r| %g)", tag, diff, rmax);
  free(t);
  free(s);
}

static void check_ordering(const tp_problem *p, const char *kind, int colors)
{
  cc_bcrs b;
  cc_comm_table comm;
  cc_ordering ord;
  copy_system(p, &b, &comm);
  TEST_CALL(cc_ordering_create(kind, colors, &p->a, &ord));
  TEST_CALL(cc_ordering_apply(&ord, &b, &comm));
  const int nt     = b.n_cols;
  const int64_t nd = 3 * (int64_t)b.n_rows;
  double *x0 = tp_vector(p, 11), *y0 = tp_vector(p, 12), *x, *y, *mx, *my, *z1, *z2, *zs;
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &x));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &y));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &mx));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &my));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &z1));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &z2));
  TEST_CALL(cc_calloc(3 * (size_t)nt, sizeof(double), &zs));
  cc_ordering_permute(&ord, x0, x);
  cc_ordering_permute(&ord, y0, y);

  /* the sweep equals the sequential reference over the permuted matrix (colors independent) */
  TEST_CALL(cc_sgs_ref(&b, x, z1));
  check_sgs_algebra(&b, x, z1, kind);

  const struct {
    const char *name;
    int iters;
  } cases[] = {{"jacobi", 1}, {"sgs", 1}, {"asdd", 1}, {"asdd", 2}, {"asdd", 3}};
  for (int c = 0; c < 5; c++) {
    cc_precond_params pp = {.name = cases[c].name, .asdd_iters = cases[c].iters, .ordering = &ord};
    cc_precond *pc       = NULL;
    TEST_CALL(cc_precond_create(&pp, &b, &comm, &pc));
    char tag[96];
    snprintf(tag, sizeof tag, "%s(%d) %s K=%d (%d colors)", cases[c].name, cases[c].iters, kind,
             colors, ord.n_colors);
    apply_with(pc, x, mx, omp_get_max_threads());
    apply_with(pc, y, my, omp_get_max_threads());
    /* one reduction for all dot products: x'My, y'Mx, x'Mx, y'My, |x|^2, |y|^2, |Mx|^2, |My|^2 */
    double d[8] = {0};
    for (int64_t i = 0; i < nd; i++) {
      d[0] += x[i] * my[i], d[1] += y[i] * mx[i], d[2] += x[i] * mx[i], d[3] += y[i] * my[i];
      d[4] += x[i] * x[i], d[5] += y[i] * y[i], d[6] += mx[i] * mx[i], d[7] += my[i] * my[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, d, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double xmy = d[0], ymx = d[1], xmx = d[2], ymy = d[3];
    double scale = fmax(sqrt(d[4] * d[7]), sqrt(d[5] * d[6]));
    TEST_EXPECT(fabs(xmy - ymx) <= 1e-12 * scale, "%s: x'My = %.17g, y'Mx = %.17g, scale %g", tag,
                xmy, ymx, scale);
    TEST_EXPECT(xmx > 0.0 && ymy > 0.0, "%s: x'Mx = %g, y'My = %g not positive", tag, xmx, ymy);
    /* bitwise independent of the thread count */
    apply_with(pc, x, z2, 1);
    TEST_EXPECT(memcmp(z2, mx, (size_t)nd * sizeof(double)) == 0, "%s: 1 thread != %d threads", tag,
                omp_get_max_threads());
    apply_with(pc, x, z2, 2);
    TEST_EXPECT(memcmp(z2, mx, (size_t)nd * sizeof(double)) == 0, "%s: 2 threads != %d threads",
                tag, omp_get_max_threads());
    if (!strcmp(cases[c].name, "sgs")) {
      char what[128];
      snprintf(what, sizeof what, "%s: sweep vs cc_sgs_ref", tag);
      expect_reference(mx, z1, nd, what);
      memcpy(zs, mx, (size_t)nd * sizeof(double));
    }
    if (!strcmp(cases[c].name, "asdd") && cases[c].iters == 1)
      TEST_EXPECT(memcmp(zs, mx, (size_t)nd * sizeof(double)) == 0, "%s: asdd(1) != sgs", tag);
    cc_precond_destroy(&pc);
    TEST_EXPECT(pc == NULL, "%s: destroy left the pointer set", tag);
  }
  if (test_rank == 0)
    printf("%-7s K=%d: %d colors, %d levels on rank 0\n", kind, colors, ord.n_colors, ord.n_levels);
  cc_ordering_free(&ord);
  cc_bcrs_free(&b);
  cc_comm_table_free(&comm);
  cc_free(&x0);
  cc_free(&y0);
  cc_free(&x);
  cc_free(&y);
  cc_free(&mx);
  cc_free(&my);
  cc_free(&z1);
  cc_free(&z2);
  cc_free(&zs);
}

int main(int argc, char **argv)
{
  tp_init(&argc, &argv);
  tp_problem p;
  tp_problem_create(argc, argv, &p);
  int colors = 4;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--colors")) colors = atoi(argv[i + 1]);
  const char *kinds[] = {"natural", "rcm", "mc", "cm-rcm"};
  for (int k = 0; k < 4; k++) check_ordering(&p, kinds[k], colors);
  check_ordering(&p, "cm-rcm", 2);
  /* no ordering at all: natural sequential sweep on the mesh's own matrix */
  {
    double *x = tp_vector(&p, 5), *z = NULL, *zr = NULL;
    cc_precond_params pp = {.name = "sgs", .asdd_iters = 1, .ordering = NULL};
    cc_precond *pc       = NULL;
    TEST_CALL(cc_calloc(3 * (size_t)p.a.n_cols, sizeof(double), &z));
    TEST_CALL(cc_calloc(3 * (size_t)p.a.n_cols, sizeof(double), &zr));
    TEST_CALL(cc_precond_create(&pp, &p.a, &p.mesh.comm, &pc));
    TEST_CALL(cc_precond_apply(pc, NULL, x, z));
    TEST_CALL(cc_sgs_ref(&p.a, x, zr));
    expect_reference(z, zr, 3 * (int64_t)p.a.n_rows, "sgs without ordering vs cc_sgs_ref");
    cc_precond_destroy(&pc);
    cc_free(&x);
    cc_free(&z);
    cc_free(&zr);
  }
  tp_problem_free(&p);
  return test_finish("test_precond_sgs");
}
