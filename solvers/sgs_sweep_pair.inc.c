/* sgs_sweep_pair.inc.c: one sweep pair (forward, then backward), the one schedule of every SGS
 * sweep, as a function; included by sgs_sweeps.inc.c once per pair of row kernels (a template, not
 * compiled on its own). The including file defines
 *   CC_SGS_PAIR_NAME        the function: static void NAME(s, ex, in, z, u)
 *   CC_SGS_PAIR_SEQ_FWD(i)  the forward row statement without colors, CC_SGS_PAIR_SEQ_BWD(i) the
 *                           backward one; CC_SGS_PAIR_FWD(i), CC_SGS_PAIR_BWD(i) with colors (each
 *                           naming s, in, z, u and the row i)
 *   CC_SGS_WAYS             the interleaved parts per thread and step (CC_SGS_STEP_ROWS)
 * Without colors (s->n_colors 0): sequential in the current numbering, forward ascending, backward
 * descending, the poll hook every CC_SGS_POLL_ROWS rows. With colors: forward then backward over
 * s's steps (backward in reverse); rows of one step are independent: CC_SGS_STEP_ROWS, whose
 * barrier orders the steps; the master thread (MPI's main thread under FUNNELED) polls a pending
 * reduction between steps. The row kernels are named here, not passed as arguments: OpenMP
 * outlines the parallel region into a function of its own, which would receive pointers and call
 * them indirectly once per row; named, they are called directly and inlined. */
static void CC_SGS_PAIR_NAME(const cc_sgs *s, const cc_exec *ex, const double *in, double *z,
                             double *u)
{
  (void)in, (void)u; /* the plain sweep has no u; every pair reads in */
  if (s->n_colors) {
    const int ns_ = s->n_steps, *st_ = s->steps;
#pragma omp parallel
    {
      for (int k_ = 0; k_ < ns_; k_++) {
        CC_SGS_STEP_ROWS(st_[2 * k_], st_[2 * k_ + 1], CC_SGS_WAYS, CC_SGS_PAIR_FWD(i));
#pragma omp master
        cc_exec_poll(ex);
      }
      for (int k_ = ns_ - 1; k_ >= 0; k_--) {
        CC_SGS_STEP_ROWS(st_[2 * k_], st_[2 * k_ + 1], CC_SGS_WAYS, CC_SGS_PAIR_BWD(i));
#pragma omp master
        cc_exec_poll(ex);
      }
    }
  } else {
    const int n_ = s->n;
    for (int lo_ = 0; lo_ < n_; lo_ += CC_SGS_POLL_ROWS) {
      const int hi_ = lo_ + CC_SGS_POLL_ROWS < n_ ? lo_ + CC_SGS_POLL_ROWS : n_;
      for (int64_t i = lo_; i < hi_; i++) {
        CC_SGS_PAIR_SEQ_FWD(i);
      }
      cc_exec_poll(ex);
    }
    for (int hi_ = n_; hi_ > 0; hi_ -= CC_SGS_POLL_ROWS) {
      const int lo_ = hi_ - CC_SGS_POLL_ROWS > 0 ? hi_ - CC_SGS_POLL_ROWS : 0;
      for (int64_t i = hi_ - 1; i >= lo_; i--) {
        CC_SGS_PAIR_SEQ_BWD(i);
      }
      cc_exec_poll(ex);
    }
  }
}

#undef CC_SGS_PAIR_NAME
#undef CC_SGS_PAIR_SEQ_FWD
#undef CC_SGS_PAIR_SEQ_BWD
#undef CC_SGS_PAIR_FWD
#undef CC_SGS_PAIR_BWD
