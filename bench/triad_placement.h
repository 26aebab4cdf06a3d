/* triad_placement.h (cubecg-bench --triad-placement N): does the STREAM triad's bandwidth depend on
 * where its pages lie? N sets of triad arrays (each the size of the roofline's: 4x the LLC per
 * node, or --stream-mb) are allocated and first-touched one after another, then timed in rounds,
 * every set once per round, the order rotating between rounds. Each set's median over rounds,
 * and the spread = fastest median / slowest: on bare metal about 1; on some VMs the memory a
 * process touches first streams slower than what it touches later (README "Where the triad's
 * arrays lie"), so a roofline fraction there carries that spread as an uncertainty.
 */
#ifndef TRIAD_PLACEMENT_H
#define TRIAD_PLACEMENT_H

#include "cc_solvers.h"

#define TRIAD_PLACEMENT_MAX_SETS 16
/* a spread above this is reported as a warning */
#define TRIAD_PLACEMENT_WARN 1.10

typedef struct {
  int sets, rounds;
  double array_bytes_per_rank;             /* each of a set's three arrays */
  double bytes;                            /* one triad of a set, all ranks */
  double median[TRIAD_PLACEMENT_MAX_SETS]; /* bytes/s, set s = the s-th allocated */
  double min[TRIAD_PLACEMENT_MAX_SETS], max[TRIAD_PLACEMENT_MAX_SETS];
  double spread; /* max over sets of median / min over sets of median */
} triad_placement;

/* sets in [2, TRIAD_PLACEMENT_MAX_SETS], rounds >= 1; node_bytes and node_ranks as
 * cc_triad_create's. Collective over comm; every rank gets the same result. */
CC_WUR cc_err triad_placement_run(MPI_Comm comm, double node_bytes, int node_ranks, int sets,
                                  int rounds, triad_placement *out);

#endif
