/* test_traffic.c: the traffic model (solvers/traffic.c) against hand counts:
 * a 3-row matrix written out by hand, every precision, every preconditioner, one Alg.1 iteration;
 * the assembled cube has the (3 nx - 2)(3 ny - 2)(3 nz - 2) blocks cubecg-bench sizes its default
 * mesh with; a small triad reports a positive bandwidth on every rank. */
#include "cc_mesh.h"
#include "cc_solvers.h"
#include "cc_test.h"

#include <math.h>

#define EXPECT_BYTES(got, want, what)                                                              \
  TEST_EXPECT(fabs((got) - (want)) < 1e-9, "%s: %.1f bytes, hand count %.1f", what, (double)(got), \
              (double)(want))

/* 3 internal rows, one halo column (3), no split storage:
 *   row 0: columns 0 1 3    row 1: columns 0 1 2    row 2: columns 1 2
 * 8 blocks; internal off-diagonal blocks (L + U): (0,1) (1,0) (1,2) (2,1) = 4. */
static void hand_model(void)
{
  int64_t row_ptr[]   = {0, 3, 6, 8};
  int32_t col_idx[]   = {0, 1, 3, 0, 1, 2, 1, 2};
  int64_t diag_pos[]  = {0, 4, 7};
  double val[9 * 8]   = {0};
  cc_bcrs a           = {.n_rows   = 3,
                         .n_cols   = 4,
                         .n_blocks = 8,
                         .row_ptr  = row_ptr,
                         .col_idx  = col_idx,
                         .val      = val,
                         .diag_pos = diag_pos};
  int color_ptr[]     = {0, 2, 3};
  cc_ordering colored = {.n_colors = 2, .n_nodes = 3, .color_ptr = color_ptr};
  cc_traffic t;

  /* SpMV: 76 B x 8 blocks + 8 B row_ptr x 3 + 24 B x over 4 local nodes + 24 B y x 3 = 800 */
  cc_precond_params pp = {
      .name = "asdd", .asdd_iters = 2, .ordering = &colored, .asdd_full_residual = 1};
  TEST_CALL(cc_traffic_model(&a, &pp, &t));
  TEST_EXPECT(t.blocks == 8 && t.blocks_lu == 4 && t.rows == 3, "blocks %lld, L+U %lld, rows %lld",
              (long long)t.blocks, (long long)t.blocks_lu, (long long)t.rows);
  EXPECT_BYTES(t.spmv, 608 + 24 + 96 + 72, "spmv");
  /* multicolor SGS in place: 76 x 4 + (ptrs 32 + D^-1 2 x 72 + r y z 96 = 272) x 3 = 1120 */
  EXPECT_BYTES(t.sgs, 304 + 816, "sgs colored double");
  /* ASDD(2): 2 SGS + SpMV + (r read of t = r - A z, z += w) 96 x 3 = 2240 + 800 + 288 */
  EXPECT_BYTES(t.asdd, 3328, "asdd(2) double");
  EXPECT_BYTES(t.precond, 3328, "precond = asdd");
  EXPECT_BYTES(t.dot, 144, "dot");
  EXPECT_BYTES(t.axpy, 216, "axpy");
  EXPECT_BYTES(t.stream, 72, "vector pass");
  /* Alg.1: 1 SpMV + 1 ASDD(2) + 12 vector passes (fused: 9 reads + 3 writes) x 72 = 800 + 3328
   * + 864; unfused (one pass per operation): 14 passes, 1008 */
  const cc_krylov *pcg = cc_krylov_find("pcg");
  TEST_EXPECT(pcg != NULL, "pcg registered");
  if (pcg) EXPECT_BYTES(cc_traffic_iteration(&t, pcg, 0, 0, 1, 1), 4992, "pcg iteration");
  /* residual replacement every 50: 1.02 SpMV per iteration */
  if (pcg)
    EXPECT_BYTES(cc_traffic_iteration(&t, pcg, 0, 0, 1.02, 1), 4992 + 0.02 * 800, "pcg 1.02");
  if (pcg) EXPECT_BYTES(cc_traffic_iteration(&t, pcg, 1, 0, 1, 1), 5136, "pcg unfused iteration");

  /* single-precision preconditioner: blocks 9 x 4 + 4 = 40 B, D^-1 36 B; vectors stay double
   * SGS: 40 x 4 + (32 + 72 + 96) x 3 = 760; ASDD(2): 1520 + (40 x 8 + 24 + 96 + 72) + 288 */
  pp.precision = CC_PRECISION_SINGLE;
  TEST_CALL(cc_traffic_model(&a, &pp, &t));
  EXPECT_BYTES(t.spmv, 800, "spmv stays double");
  EXPECT_BYTES(t.sgs, 760, "sgs colored single");
  EXPECT_BYTES(t.asdd, 1520 + 512 + 288, "asdd(2) single");

  /* binary16 preconditioner: blocks 9 x 2 + 4 = 22 B, D^-1 18 B, two 8 B row scales per sweep
   * SGS: 22 x 4 + (32 + 36 + 96 + 32) x 3 = 676; ASDD(2): 1352 + (22 x 8 + 24 + 96 + 72) +
   * (96 + 8 row scale) x 3 */
  pp.precision = CC_PRECISION_HALF;
  TEST_CALL(cc_traffic_model(&a, &pp, &t));
  EXPECT_BYTES(t.spmv, 800, "spmv stays double (half)");
  EXPECT_BYTES(t.sgs, 676, "sgs colored half");
  EXPECT_BYTES(t.asdd, 1352 + 368 + 312, "asdd(2) half");

  /* ASDD(2) with the fused residual (the default): no residual pass; 2 SGS + u written by the
   * first backward sweep 24 x 3 + the fused forward's u read and write instead of r (24) and
   * last-column index (4) and z += w (72) per row, 100 x 3, + the one external block (row 0,
   * column 3) + 24 B of the correction's halo node: double 2240 + 72 + 300 + 76 + 24 */
  const double fused_rows = 72 + 300 + 24;
  pp.asdd_full_residual   = 0;
  const struct {
    cc_precision p;
    double sgs2, block;
  } fused[] = {{CC_PRECISION_DOUBLE, 2240, 76},
               {CC_PRECISION_SINGLE, 1520, 40},
               {CC_PRECISION_HALF, 1352, 22}};
  for (int f = 0; f < 3; f++) {
    pp.precision = fused[f].p;
    TEST_CALL(cc_traffic_model(&a, &pp, &t));
    EXPECT_BYTES(t.asdd, fused[f].sgs2 + fused_rows + fused[f].block,
                 cc_precision_list[fused[f].p].name);
  }
  pp.precision = CC_PRECISION_DOUBLE;
  TEST_CALL(cc_traffic_model(&a, &pp, &t));
  if (pcg) EXPECT_BYTES(cc_traffic_iteration(&t, pcg, 0, 0, 1, 1), 800 + 2712 + 864, "pcg fused");
  pp.asdd_iters = 3; /* two fused steps: u written by the first two backward sweeps */
  TEST_CALL(cc_traffic_model(&a, &pp, &t));
  EXPECT_BYTES(t.asdd, 3 * 1120 + 2 * 72 + 2 * (300 + 76 + 24), "asdd(3) double fused");

  /* sequential sweep (no colors): pointers 16 B/row: 76 x 4 + 256 x 3 = 1072 */
  pp = (cc_precond_params){.name = "sgs", .asdd_iters = 1, .ordering = NULL};
  TEST_CALL(cc_traffic_model(&a, &pp, &t));
  EXPECT_BYTES(t.precond, 1072, "sgs sequential");
  pp.name = "jacobi"; /* D^-1 72 + r, z 48 per row */
  TEST_CALL(cc_traffic_model(&a, &pp, &t));
  EXPECT_BYTES(t.precond, 360, "jacobi");
  pp.name = "none"; /* z = r */
  TEST_CALL(cc_traffic_model(&a, &pp, &t));
  EXPECT_BYTES(t.precond, 144, "none");

  /* split storage: the lower blocks apart add l_ptr (8 B/row) to SpMV */
  int64_t l_ptr[]    = {0, 0, 1, 2};
  int32_t l_col[]    = {0, 1};
  double l_val[18]   = {0};
  int64_t row_ptr2[] = {0, 3, 5, 6};
  int32_t col_idx2[] = {0, 1, 3, 1, 2, 2};
  int64_t diag2[]    = {0, 3, 5};
  cc_bcrs s          = {.n_rows   = 3,
                        .n_cols   = 4,
                        .n_blocks = 6,
                        .row_ptr  = row_ptr2,
                        .col_idx  = col_idx2,
                        .val      = val,
                        .diag_pos = diag2,
                        .l_ptr    = l_ptr,
                        .l_col    = l_col,
                        .l_val    = l_val};
  pp                 = (cc_precond_params){.name = "sgs", .asdd_iters = 1, .ordering = &colored};
  TEST_CALL(cc_traffic_model(&s, &pp, &t));
  TEST_EXPECT(t.blocks == 8 && t.blocks_lu == 4, "split: blocks %lld, L+U %lld",
              (long long)t.blocks, (long long)t.blocks_lu);
  EXPECT_BYTES(t.spmv, 800 + 24, "spmv split");
  EXPECT_BYTES(t.sgs, 1120, "sgs split");

  /* a preconditioner without a model is an error, not 0 bytes */
  pp.name = "frobnicate";
  TEST_EXPECT(cc_traffic_model(&s, &pp, &t) == CC_ERR_ARG, "unknown preconditioner accepted");
  cc_error_clear();
}

/* the assembled 5x4x3 cube: (3 nx - 2)(3 ny - 2)(3 nz - 2) = 13 x 10 x 7 blocks over all ranks */
static void cube_blocks(void)
{
  cc_mesh_params params;
  cc_mesh_params_default(&params);
  params.nx = 5, params.ny = 4, params.nz = 3;
  cc_mesh mesh;
  cc_bcrs a;
  double *b;
  TEST_CALL(cc_mesh_create(&params, MPI_COMM_WORLD, &mesh));
  TEST_CALL(cc_mesh_assemble(&mesh, &params, &a, &b));
  double blocks = (double)cc_bcrs_blocks(&a);
  MPI_Allreduce(MPI_IN_PLACE, &blocks, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  TEST_EXPECT(blocks == 13 * 10 * 7, "cube 5x4x3: %g blocks, expected %d", blocks, 13 * 10 * 7);
  cc_free(&b);
  cc_bcrs_free(&a);
  cc_mesh_free(&mesh);
}

static void triad(void)
{
  cc_triad tr;
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  TEST_CALL(cc_triad_create(MPI_COMM_WORLD, 3.0 * 1024 * 1024, 1, &tr));
  TEST_EXPECT(tr.n == 3 * 1024 * 1024 / 24, "triad: %lld elements per array", (long long)tr.n);
  TEST_EXPECT(tr.bytes == 24.0 * tr.n * size, "triad: %g bytes over %d ranks", tr.bytes, size);
  double bw = 0;
  TEST_CALL(cc_triad_bandwidth(&tr, 3, &bw));
  TEST_EXPECT(bw > 0 && isfinite(bw), "triad bandwidth %g", bw);
  for (int64_t i = 0; i < tr.n; i++)
    if (tr.a[i] != 7.0) { /* a = b + 3 c = 1 + 3 x 2 */
      TEST_EXPECT(0, "triad a[%lld] = %g", (long long)i, tr.a[i]);
      break;
    }
  /* over other allocations' pages: b = src[0, n), c = src[n, 2n), a = tr.a[0, n); the rest of a
   * untouched; more elements than the triad's arrays refused */
  const int64_t n = tr.n / 2;
  double *src;
  TEST_CALL(cc_malloc(2 * (size_t)n, sizeof(double), &src));
  for (int64_t i = 0; i < 2 * n; i++) src[i] = (double)(i % 13);
  TEST_CALL(cc_triad_bandwidth_over(&tr, src, src + n, n, 2, &bw));
  TEST_EXPECT(bw > 0 && isfinite(bw), "triad over other pages: bandwidth %g", bw);
  for (int64_t i = 0; i < tr.n; i++) {
    double want = i < n ? src[i] + 3.0 * src[n + i] : 7.0;
    if (tr.a[i] != want) {
      TEST_EXPECT(0, "triad over other pages: a[%lld] = %g, expected %g", (long long)i, tr.a[i],
                  want);
      break;
    }
  }
  TEST_EXPECT(cc_triad_bandwidth_over(&tr, src, src, tr.n + 1, 2, &bw) == CC_ERR_ARG,
              "triad over other pages: %lld elements > the triad's %lld accepted",
              (long long)(tr.n + 1), (long long)tr.n);
  cc_error_clear();
  cc_free(&src);
  cc_triad_free(&tr);
  double v[] = {5, 1, 4, 2, 3};
  TEST_EXPECT(cc_median(v, 5) == 3 && cc_median(v, 4) == 2.5, "median");
}

int main(int argc, char **argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &test_rank);
  hand_model();
  cube_blocks();
  triad();
  return test_finish("test_traffic");
}
