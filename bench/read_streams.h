/* read_streams.h (cubecg-bench --read-streams N): how much a core reads when its loop walks k
 * streams at once. The triad's first array is read front to back as k = 1..N interleaved parts
 * (each thread's slice cut into k parts, 64 bytes of each part in turn), every rank at the same
 * time, a triad over the same arrays before each round. Where a core's bandwidth is bound by the
 * misses it keeps in flight (a VM's core, a core of a wide socket), one stream reads below the
 * triad and several above it: the reason the double SGS sweeps walk two parts of each step at once
 * (solvers/cc_precond_impl.h CC_SGS_STEP_ROWS).
 */
#ifndef READ_STREAMS_H
#define READ_STREAMS_H

#include "cc_solvers.h"

#define READ_STREAMS_MAX 8

typedef struct {
  int max_streams, rounds;
  int each_element_once; /* every read, every rank, read each element of its array once */
  double array_bytes_per_rank; /* the bytes read per rank (the triad's first array) */
  double read_bytes;           /* one read, all ranks */
  double triad_median;         /* bytes/s, the triad of every round */
  /* per k = 1..max_streams at [k - 1]: bytes/s median over rounds, and the median over rounds of
   * (read bytes/s) / (the same round's triad bytes/s) */
  double median[READ_STREAMS_MAX], fraction[READ_STREAMS_MAX];
} read_streams;

/* max_streams in [2, READ_STREAMS_MAX], rounds >= 1; node_bytes and node_ranks as
 * cc_triad_create's. Collective over comm; every rank gets the same result. */
CC_WUR cc_err read_streams_run(MPI_Comm comm, double node_bytes, int node_ranks, int max_streams,
                               int rounds, read_streams *out);

#endif
