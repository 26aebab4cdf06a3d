/* block_ceilings.h (cubecg-bench --block-ceilings): how fast each precision's sweep kernel turns
 * blocks over when memory costs nothing. Every core runs the block-row kernel of the SGS sweeps
 * (solvers/cc_precond_impl.h cc_sgs_rows_probe_*) on its own few blocks, held in L1, every rank at
 * once, a triad before each round. Expressed as the bytes per second of the blocks the kernel would
 * have streamed (values and column index), over the triad: below 1, that kernel cannot keep pace
 * with the memory on these cores whatever the memory does; it is bound by its instructions. It is
 * the ceiling that --roofline's fractions cannot pass (X1: the binary16 kernel's conversions).
 */
#ifndef BLOCK_CEILINGS_H
#define BLOCK_CEILINGS_H

#include "cc_solvers.h"

/* Per core: BLOCK_CEILINGS_ROWS rows of BLOCK_CEILINGS_PER_ROW blocks (a 27-point row's lower or
 * upper part) into BLOCK_CEILINGS_NODES nodes of x: 15 KiB of double blocks, in L1 */
#define BLOCK_CEILINGS_ROWS 16
#define BLOCK_CEILINGS_PER_ROW 13
#define BLOCK_CEILINGS_NODES 32

typedef struct {
  int rounds, workers; /* workers: ranks x threads, each running the kernel at once */
  int exact;            /* every kernel's row sums equal the exact ones, on every thread */
  double triad_median;  /* bytes/s, the triad of every round */
  /* per precision (cc_precision order: double, single, half) */
  double bytes_per_block[3]; /* values + the 4-byte column index */
  double blocks_per_s[3];    /* median over rounds, all cores */
  double fraction[3]; /* median over rounds of (blocks/s x bytes_per_block) / the round's triad */
} block_ceilings;

/* rounds >= 1; node_bytes and node_ranks as cc_triad_create's. Collective over comm; every rank
 * gets the same result. */
CC_WUR cc_err block_ceilings_run(MPI_Comm comm, double node_bytes, int node_ranks, int rounds,
                                 block_ceilings *out);

#endif
