/* test_mesh_params.c: cc_mesh_params_validate refuses bad input before any allocation, and its
 * message names the bad value (zero/negative sizes, absurd sizes with the memory estimate, more
 * ranks than nodes, a box grid whose product is not P, nu = 0.5, E <= 0, memory limit).
 */
#include "cc_mesh.h"

#include <math.h>

static int failures = 0;

/* validate must fail and the message must contain `needle` */
static void expect_refused(const cc_mesh_params *p, int ranks, int64_t limit, const char *needle,
                           const char *what)
{
  cc_err err      = cc_mesh_params_validate(p, ranks, limit);
  const char *msg = cc_error_message();
  int ok          = err != CC_OK && strstr(msg, needle) != NULL;
  printf("%s %s: err %d, message \"%s\" (expects \"%s\")\n", ok ? "PASS" : "FAIL", what, err, msg,
         needle);
  failures += !ok;
  cc_error_clear();
}

static void expect_accepted(const cc_mesh_params *p, int ranks, int64_t limit, const char *what)
{
  cc_err err = cc_mesh_params_validate(p, ranks, limit);
  printf("%s %s: err %d %s\n", err == CC_OK ? "PASS" : "FAIL", what, err, cc_error_message());
  failures += err != CC_OK;
  cc_error_clear();
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  cc_mesh_params d, p;
  cc_mesh_params_default(&d);
  expect_accepted(&d, 1, 0, "defaults on 1 rank");
  expect_accepted(&d, 8, 0, "defaults on 8 ranks");

  p = d, p.nx = 0;
  expect_refused(&p, 1, 0, "0x16x16", "zero size");
  p = d, p.ny = -3;
  expect_refused(&p, 1, 0, "16x-3x16", "negative size");
  p = d, p.nz = 1;
  expect_refused(&p, 1, 0, "16x16x1", "one node in z");

  /* 100000^3: refused with the estimated bytes in the message, with and without a memory limit */
  p = d, p.nx = p.ny = p.nz = 100000;
  char estimate[64];
  int64_t bytes = cc_mesh_estimate_bytes(&p, 1);
  snprintf(estimate, sizeof estimate, "%.1f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
  if (!(bytes > ((int64_t)1 << 50))) {
    printf("FAIL estimate of 100000^3 is only %lld bytes\n", (long long)bytes);
    failures++;
  }
  expect_refused(&p, 1, 0, estimate, "absurd size, no limit");
  expect_refused(&p, 1, (int64_t)16 << 30, estimate, "absurd size, 16 GiB limit");
  p = d, p.nx = p.ny = 3000000, p.nz = 3000000;
  expect_refused(&p, 1, 0, "3000000x3000000x3000000", "int64 overflow size");

  /* memory limit: 64^3 on one rank needs ~0.6 GiB; a 0.1 GiB limit refuses it */
  p = d, p.nx = p.ny = p.nz = 64;
  expect_refused(&p, 1, (int64_t)100 << 20, "mesh 64x64x64 needs about", "memory limit");
  expect_refused(&p, 1, (int64_t)100 << 20, "limit 0.1 GiB", "memory limit value");
  expect_accepted(&p, 1, (int64_t)8 << 30, "64^3 under an 8 GiB limit");

  p = d, p.nx = 2, p.ny = 2, p.nz = 2;
  expect_refused(&p, 9, 0, "9 ranks", "more ranks than nodes");
  p = d, p.px = 2, p.py = 2, p.pz = 3;
  expect_refused(&p, 8, 0, "2*2*3 = 12 != 8", "px*py*pz != P");
  p = d, p.nx = 3, p.px = 4, p.py = 1, p.pz = 1;
  expect_refused(&p, 4, 0, "4 x 1 x 1", "px > nx");
  p = d, p.px = 2;
  expect_refused(&p, 2, 0, "2 x 0 x 0", "partial box grid");
  p = d, p.nx = p.ny = p.nz = 2;
  expect_refused(&p, 5, 0, "no box partition of 5 ranks", "no box grid fits");
  p = d, p.partition = CC_PARTITION_METIS;
  p.nx = p.ny = p.nz = 2;
  expect_accepted(&p, 5, 0, "metis 5 ranks on 2^3");
  p.px = 1, p.py = 1, p.pz = 5;
  expect_refused(&p, 5, 0, "1 x 1 x 5", "box grid with metis");

  /* METIS's 32-bit idx_t, checked from the sizes alone (nothing is allocated at these sizes): the
   * vertex weights sum to the node count; the block graph grows with the ranks; a METIS part
   * beyond the local index limit. Box takes the same meshes. The old fine node graph stopped at
   * about 82M nodes: 1000^3 on 2048 ranks passes now. */
  p = d, p.partition = CC_PARTITION_METIS, p.nx = p.ny = p.nz = 1300;
  expect_refused(&p, 8192, 0, "exceed METIS's 32-bit idx_t", "metis 1300^3: node count > idx_t");
  expect_refused(&p, 8192, 0, "use --partition box", "metis 1300^3: names the alternative");
  p.partition = CC_PARTITION_BOX;
  expect_accepted(&p, 8192, 0, "box 1300^3 on 8192 ranks");
  p = d, p.partition = CC_PARTITION_METIS, p.nx = p.ny = p.nz = 1000;
  expect_accepted(&p, 2048, 0, "metis 1000^3 on 2048 ranks (block graph)");
  expect_refused(&p, 400000, 0, "block graph of", "metis 1000^3 on 400000 ranks: block graph");
  p = d, p.partition = CC_PARTITION_METIS, p.nx = p.ny = p.nz = 1200;
  expect_refused(&p, 3, 0, "32-bit local index limit", "metis 1200^3 on 3 ranks: local index");
  /* the estimate charges rank 0 its block graph and nobody the global mesh: 128^3 on 32 ranks
   * (about 0.15 GiB of share per rank) fits 0.6 GiB per rank with METIS as with box */
  p = d, p.nx = p.ny = p.nz = 128;
  expect_accepted(&p, 32, (int64_t)6 << 27, "box 128^3 on 32 ranks, 0.75 GiB limit");
  p.partition = CC_PARTITION_METIS;
  expect_accepted(&p, 32, (int64_t)6 << 27, "metis 128^3 on 32 ranks, 0.75 GiB limit");
  int64_t root = cc_mesh_estimate_rank_bytes(&p, 32, 1),
          rest = cc_mesh_estimate_rank_bytes(&p, 32, 0);
  p.partition  = CC_PARTITION_BOX;
  int64_t box  = cc_mesh_estimate_rank_bytes(&p, 32, 0);
  int ok       = rest > box && rest < 1.25 * box && root > rest && root < rest + (64 << 20);
  printf("%s metis 128^3 on 32 ranks: rank 0 %lld, others %lld, box %lld bytes\n",
         ok ? "PASS" : "FAIL", (long long)root, (long long)rest, (long long)box);
  failures += !ok;

  p = d, p.nu = 0.5;
  expect_refused(&p, 1, 0, "nu = 0.5", "nu = 0.5");
  p = d, p.nu = -0.1;
  expect_refused(&p, 1, 0, "nu = -0.1", "negative nu");
  p = d, p.E = 0;
  expect_refused(&p, 1, 0, "E = 0", "E = 0");
  p = d, p.E = -2;
  expect_refused(&p, 1, 0, "E = -2", "negative E");
  p = d, p.traction = INFINITY;
  expect_refused(&p, 1, 0, "p = inf", "infinite traction");
  p = d, p.traction = NAN;
  expect_refused(&p, 1, 0, "p = nan", "NaN traction");
  /* a zero or underflowing load is bad input, named by its value; physical units pass */
  p = d, p.traction = 0;
  expect_refused(&p, 1, 0, "--traction 0", "zero traction");
  p = d, p.traction = 1e-160;
  expect_refused(&p, 1, 0, "--traction 1e-160: |b| = ", "traction 1e-160 (|b|^2 subnormal)");
  p = d, p.traction = 1e-300;
  expect_refused(&p, 1, 0, "underflows", "traction 1e-300");
  p = d, p.traction = 1e160;
  expect_refused(&p, 1, 0, "overflows", "traction 1e160 (|b|^2 overflows)");
  p = d, p.E = 2.1e11, p.traction = 1e6;
  expect_accepted(&p, 1, 0, "steel: E = 2.1e11, traction 1e6");
  p = d, p.E = 1e-3, p.traction = -1;
  expect_accepted(&p, 1, 0, "E = 1e-3, traction -1");
  p = d, p.E = 1e300, p.traction = 1;
  expect_refused(&p, 1, 0, "underflows", "E = 1e300: |b|^2/E underflows");

  printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  MPI_Finalize();
  return failures ? 1 : 0;
}
