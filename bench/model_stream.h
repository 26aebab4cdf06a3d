/* model_stream.h (cubecg-bench --model-stream): the traffic model of solvers/traffic.c checked
 * against the bytes the kernels move, on a machine without hardware counters. For each kernel a
 * "model stream" reads every array the model counts, front to back, once per modelled pass, and
 * writes the modelled outputs, over the kernel's own allocations (the matrix, the
 * preconditioner's blocks, D^-1 and row scales, its vectors): exactly the modelled bytes and
 * nothing else, with no gather, no dependent load and no arithmetic beyond a sum. The bench times
 * the real kernel and its stream in turn, each after a triad:
 *   real / stream > 1   the kernel spends time the modelled bytes do not force (gathers, dependent
 *                       loads, conversions and FMAs, a latency chain, bytes the model misses);
 *   stream / triad < 1  the modelled pattern itself streams slower than a triad (short
 *                       segments per row, many arrays at once).
 * The stream counts the bytes it touches; they equal the model's figure exactly (the bench
 * refuses to report otherwise). Halo messages are not modelled and not streamed.
 */
#ifndef MODEL_STREAM_H
#define MODEL_STREAM_H

#include "cc_precond_impl.h"

/* what one stream reads and writes */
typedef struct {
  const cc_bcrs *a;
  const cc_sgs *s; /* the sweep (sgs and asdd), NULL for spmv, dot, axpy */
  int asdd_iters;  /* 0: one sweep pair (sgs), else ASDD's N */
  /* vectors: x [3 n_cols] (SpMV's input, the residual's z), y [3 n_cols] (output), r [3 n] (the
   * sweeps' input), t, w [3 n_cols] (ASDD's residual and correction; NULL outside ASDD) */
  double *x, *y, *r, *t, *w;
  int full_residual; /* ASDD's residual: 0 fused into the forward sweep (t holds u), 1 full pass */
} model_stream;

/* one of the streams: MS_SPMV (SpMV), MS_SWEEP (the preconditioner s: a sweep pair, or ASDD(N)
 * when asdd_iters > 0), MS_DOT (x . r), MS_AXPY (y += c x). Returns the bytes touched by this
 * rank. */
enum { MS_SPMV, MS_SWEEP, MS_DOT, MS_AXPY };
int64_t model_stream_run(int kind, const model_stream *m);

#endif
