/* sgs_sweeps.inc.c: the sweeps of one precision from its row kernels, included once by
 * precond_sgs.c (double) and once through sgs_rows_reduced.inc.c by each reduced precision (a
 * template, not compiled on its own). The including file defines CC_SGS_PREFIX (CC_SGS_NAME),
 * CC_SGS_WAYS, and the row kernels
 *   NAME(seq_forward_row)(s, i, r, z), NAME(seq_backward_row)(s, i, z)   the sequential sweep's
 *   NAME(forward_row)(s, i, r, z), NAME(backward_row)(s, i, z)           the multicolor sweep's
 *   NAME(backward_row_u)(s, i, z, u), NAME(fused_forward_row)(s, i, u, wh, w)   ASDD's fused ones
 * (cc_precond_impl.h: cc_sgs_apply_u, cc_sgs_asdd_step). Defines the ops table's entries
 * NAME(apply), NAME(apply_u) and NAME(asdd_step). */

/* z = M^-1 in (y in z) */
#define CC_SGS_PAIR_NAME CC_SGS_NAME(sweep)
#define CC_SGS_PAIR_SEQ_FWD(i) CC_SGS_NAME(seq_forward_row)(s, i, in, z)
#define CC_SGS_PAIR_SEQ_BWD(i) CC_SGS_NAME(seq_backward_row)(s, i, z)
#define CC_SGS_PAIR_FWD(i) CC_SGS_NAME(forward_row)(s, i, in, z)
#define CC_SGS_PAIR_BWD(i) CC_SGS_NAME(backward_row)(s, i, z)
#include "sgs_sweep_pair.inc.c"

/* z = M^-1 in, u = y - z (ASDD's fused residual: in either order, on the row kernels in place) */
#define CC_SGS_PAIR_NAME CC_SGS_NAME(apply_u)
#define CC_SGS_PAIR_SEQ_FWD(i) CC_SGS_NAME(forward_row)(s, i, in, z)
#define CC_SGS_PAIR_SEQ_BWD(i) CC_SGS_NAME(backward_row_u)(s, i, z, u)
#define CC_SGS_PAIR_FWD(i) CC_SGS_NAME(forward_row)(s, i, in, z)
#define CC_SGS_PAIR_BWD(i) CC_SGS_NAME(backward_row_u)(s, i, z, u)
#include "sgs_sweep_pair.inc.c"

/* the next correction z = w from u and in = wh's halo, u = y' - w again */
#define CC_SGS_PAIR_NAME CC_SGS_NAME(step_u)
#define CC_SGS_PAIR_SEQ_FWD(i) CC_SGS_NAME(fused_forward_row)(s, i, u, in, z)
#define CC_SGS_PAIR_SEQ_BWD(i) CC_SGS_NAME(backward_row_u)(s, i, z, u)
#define CC_SGS_PAIR_FWD(i) CC_SGS_NAME(fused_forward_row)(s, i, u, in, z)
#define CC_SGS_PAIR_BWD(i) CC_SGS_NAME(backward_row_u)(s, i, z, u)
#include "sgs_sweep_pair.inc.c"

/* the same, the last step: no u after it */
#define CC_SGS_PAIR_NAME CC_SGS_NAME(step_last)
#define CC_SGS_PAIR_SEQ_FWD(i) CC_SGS_NAME(fused_forward_row)(s, i, u, in, z)
#define CC_SGS_PAIR_SEQ_BWD(i) CC_SGS_NAME(backward_row)(s, i, z)
#define CC_SGS_PAIR_FWD(i) CC_SGS_NAME(fused_forward_row)(s, i, u, in, z)
#define CC_SGS_PAIR_BWD(i) CC_SGS_NAME(backward_row)(s, i, z)
#include "sgs_sweep_pair.inc.c"

static void CC_SGS_NAME(apply)(const cc_sgs *s, const cc_exec *ex, const double *r, double *z)
{
  CC_SGS_NAME(sweep)(s, ex, r, z, NULL);
}

static void CC_SGS_NAME(asdd_step)(const cc_sgs *s, const cc_exec *ex, double *u, const double *wh,
                                   double *w, int want_u)
{
  if (want_u)
    CC_SGS_NAME(step_u)(s, ex, wh, w, u);
  else
    CC_SGS_NAME(step_last)(s, ex, wh, w, u);
}
