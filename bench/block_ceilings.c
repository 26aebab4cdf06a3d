/* block_ceilings.c: cubecg-bench --block-ceilings (block_ceilings.h). */
#include "block_ceilings.h"

#include "cc_precond_impl.h"

#include <math.h>
#include <omp.h>

#define BC_ROWS BLOCK_CEILINGS_ROWS
#define BC_PER_ROW BLOCK_CEILINGS_PER_ROW
#define BC_NODES BLOCK_CEILINGS_NODES
#define BC_BLOCKS (BC_ROWS * BC_PER_ROW)
/* passes over a core's blocks per timing: 208 x 40000 = 8e6 blocks, 5-25 ms at 0.5-2.5 ns each */
#define BC_PASSES 40000
/* one core's arrays (double, float and binary16 blocks, columns, x, sums, exact sums), in pages */
#define BC_CORE_BYTES                                                                              \
  ((9 * BC_BLOCKS * 8 + 3 * BC_NODES * 8 + 2 * 3 * BC_ROWS * 8 +                                   \
    (9 * BC_BLOCKS + CC_SGS_FLOAT_PAD) * 4 + BC_BLOCKS * 4 +                                       \
    (9 * BC_BLOCKS + CC_SGS_FLOAT_PAD) * 2 + 4095) / 4096 * 4096)

typedef struct {
  double *dval, *x, *out, *ref;
  float *fval;
  int32_t *col;
  uint16_t *hval;
} bc_core;

static volatile double bc_sink; /* keeps the row sums */

/* a core's arrays at base (multiples of 8 bytes up to the columns, then halves) */
static bc_core bc_carve(char *base)
{
  bc_core c;
  c.dval = (double *)base, base += 9 * BC_BLOCKS * 8;
  c.x    = (double *)base, base += 3 * BC_NODES * 8;
  c.out  = (double *)base, base += 3 * BC_ROWS * 8;
  c.ref  = (double *)base, base += 3 * BC_ROWS * 8;
  c.fval = (float *)base, base += (9 * BC_BLOCKS + CC_SGS_FLOAT_PAD) * 4;
  c.col  = (int32_t *)base, base += BC_BLOCKS * 4;
  c.hval = (uint16_t *)base;
  return c;
}

/* Entries and x are small dyadic numbers: exact in binary16, and every product and sum of a row
 * exact in double, so each precision's row sums must be the exact ones, bit for bit. Row i's
 * blocks sit at sorted columns 2 j + (i & 1), j < BC_PER_ROW. */
static void bc_init(bc_core c, int core)
{
  for (int e = 0; e < 3 * BC_NODES; e++) c.x[e] = (double)((5 * e + core) % 11 - 5) * 0.25;
  for (int k = 0; k < BC_BLOCKS; k++) {
    c.col[k] = 2 * (k % BC_PER_ROW) + (k / BC_PER_ROW) % 2;
    for (int r = 0; r < 3; r++)
      for (int q = 0; q < 3; q++) {
        const double e            = (double)((7 * k + 3 * r + q) % 9 - 4) * 0.125;
        c.dval[9 * k + 3 * r + q] = e;        /* row-major */
        c.fval[9 * k + 3 * q + r] = (float)e; /* column-major */
        c.hval[9 * k + 3 * q + r] = cc_half_bits(e);
      }
  }
  for (int e = 0; e < CC_SGS_FLOAT_PAD; e++) c.fval[9 * BC_BLOCKS + e] = 0.0f;
  for (int e = 0; e < CC_SGS_FLOAT_PAD; e++) c.hval[9 * BC_BLOCKS + e] = 0;
  for (int i = 0; i < BC_ROWS; i++)
    for (int r = 0; r < 3; r++) {
      double s = 0.0;
      for (int k = i * BC_PER_ROW; k < (i + 1) * BC_PER_ROW; k++)
        for (int q = 0; q < 3; q++) s += c.dval[9 * k + 3 * r + q] * c.x[3 * c.col[k] + q];
      c.ref[3 * i + r] = s;
    }
}

static void bc_rows(bc_core c, int p)
{
  if (p == CC_PRECISION_DOUBLE)
    cc_sgs_rows_probe_double(BC_ROWS, BC_PER_ROW, c.col, c.dval, c.x, c.out);
  else if (p == CC_PRECISION_SINGLE)
    cc_sgs_rows_probe_single(BC_ROWS, BC_PER_ROW, c.col, c.fval, c.x, c.out);
  else
    cc_sgs_rows_probe_half(BC_ROWS, BC_PER_ROW, c.col, c.hval, c.x, c.out);
}

/* one timing of precision p on every core after a barrier: the slowest rank's seconds; *exact
 * cleared when a core's last row sums differ from the exact ones */
static cc_err bc_time(MPI_Comm comm, char *base, int p, double *seconds, int *exact)
{
  int ok     = 1;
  double sum = 0.0;
  CC_MPI(MPI_Barrier(comm));
  const double t0 = MPI_Wtime();
#pragma omp parallel reduction(&& : ok) reduction(+ : sum)
  {
    const bc_core c = bc_carve(base + (size_t)BC_CORE_BYTES * (size_t)omp_get_thread_num());
    for (int e = 0; e < 3 * BC_ROWS; e++) c.out[e] = NAN;
    for (int pass = 0; pass < BC_PASSES; pass++) {
      bc_rows(c, p);
      sum += c.out[3 * (pass % BC_ROWS)];
    }
    for (int e = 0; e < 3 * BC_ROWS; e++) ok = ok && c.out[e] == c.ref[e];
  }
  double t = MPI_Wtime() - t0;
  bc_sink += sum;
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm));
  *seconds = t;
  *exact   = *exact && ok;
  return CC_OK;
}

cc_err block_ceilings_run(MPI_Comm comm, double node_bytes, int node_ranks, int rounds,
                          block_ceilings *out)
{
  memset(out, 0, sizeof *out);
  CC_CHECK(rounds >= 1, CC_ERR_ARG, "--block-ceilings: %d rounds (>= 1)", rounds);
  const int nt = omp_get_max_threads();
  int cores    = nt;
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &cores, 1, MPI_INT, MPI_SUM, comm));
  cc_triad tr   = {0};
  char *base    = NULL;
  double *t     = NULL; /* [4][rounds]: the triad, then double, single, half */
  double *ratio = NULL; /* [rounds] */
  cc_err err    = cc_triad_create(comm, node_bytes, node_ranks, &tr);
  if (!err) err = cc_malloc((size_t)nt, BC_CORE_BYTES, &base);
  if (!err) err = cc_malloc(4 * (size_t)rounds, sizeof(double), &t);
  if (!err) err = cc_malloc((size_t)rounds, sizeof(double), &ratio);
  if (!err) {
#pragma omp parallel /* each core's arrays first touched by it */
    bc_init(bc_carve(base + (size_t)BC_CORE_BYTES * (size_t)omp_get_thread_num()),
            omp_get_thread_num());
  }
  const double blocks = (double)BC_BLOCKS * BC_PASSES * cores; /* one timing, all cores */
  const double bpb[3] = {9 * 8 + 4, 9 * 4 + 4, 9 * 2 + 4};
  int exact           = 1;
  for (int r = 0; r < rounds && !err; r++) {
    err = cc_triad_run(&tr, &t[r]);
    for (int j = 0; j < 3 && !err; j++) {
      const int p = (j + r) % 3; /* rotating, so no kernel always follows the triad */
      err         = bc_time(comm, base, p, &t[(1 + p) * rounds + r], &exact);
    }
  }
  if (!err) CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &exact, 1, MPI_INT, MPI_LAND, comm));
  if (!err) {
    out->rounds = rounds, out->workers = cores, out->exact = exact;
    for (int p = 0; p < 3; p++) {
      out->bytes_per_block[p] = bpb[p];
      out->fraction[p]        = cc_median_fraction_of_triad(blocks * bpb[p], t + (1 + p) * rounds,
                                                            tr.bytes, t, rounds, ratio);
      const double med        = cc_median(t + (1 + p) * rounds, rounds); /* sorts that row */
      out->blocks_per_s[p]    = med > 0 ? blocks / med : 0.0;
    }
    const double med  = cc_median(t, rounds);
    out->triad_median = med > 0 ? tr.bytes / med : 0.0;
  }
  cc_free(&ratio);
  cc_free(&t);
  cc_free(&base);
  cc_triad_free(&tr);
  return err;
}
