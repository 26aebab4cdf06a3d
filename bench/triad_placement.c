/* triad_placement.c: cubecg-bench --triad-placement (triad_placement.h). */
#include "triad_placement.h"

cc_err triad_placement_run(MPI_Comm comm, double node_bytes, int node_ranks, int sets, int rounds,
                           triad_placement *out)
{
  memset(out, 0, sizeof *out);
  CC_CHECK(sets >= 2 && sets <= TRIAD_PLACEMENT_MAX_SETS && rounds >= 1, CC_ERR_ARG,
           "--triad-placement: %d sets, %d rounds (sets in [2, %d], rounds >= 1)", sets, rounds,
           TRIAD_PLACEMENT_MAX_SETS);
  cc_triad set[TRIAD_PLACEMENT_MAX_SETS] = {0};
  double *seconds                        = NULL; /* [sets][rounds] */
  cc_err err                             = CC_OK;
  int made                               = 0;
  /* one after another, each first-touched (and run once) before the next is allocated */
  for (; made < sets && !err; made++)
    err = cc_triad_create(comm, node_bytes, node_ranks, &set[made]);
  if (!err) err = cc_malloc((size_t)sets * (size_t)rounds, sizeof(double), &seconds);
  for (int r = 0; r < rounds && !err; r++)
    for (int k = 0; k < sets && !err; k++) {
      int s = (k + r) % sets; /* rotating, so no set always follows the same one */
      err   = cc_triad_run(&set[s], &seconds[s * rounds + r]);
    }
  if (!err) {
    out->sets                 = sets;
    out->rounds               = rounds;
    out->array_bytes_per_rank = 8.0 * (double)set[0].n;
    out->bytes                = set[0].bytes;
    double lo = 0, hi = 0;
    for (int s = 0; s < sets; s++) {
      double *t = seconds + s * rounds, slowest = t[0], fastest = t[0];
      for (int r = 1; r < rounds; r++) {
        if (t[r] > slowest) slowest = t[r];
        if (t[r] < fastest) fastest = t[r];
      }
      double med     = cc_median(t, rounds); /* sorts t */
      out->median[s] = med > 0 ? out->bytes / med : 0;
      out->min[s]    = slowest > 0 ? out->bytes / slowest : 0;
      out->max[s]    = fastest > 0 ? out->bytes / fastest : 0;
      if (s == 0 || out->median[s] < lo) lo = out->median[s];
      if (s == 0 || out->median[s] > hi) hi = out->median[s];
    }
    out->spread = lo > 0 ? hi / lo : 0;
  }
  cc_free(&seconds);
  for (int s = 0; s < made; s++) cc_triad_free(&set[s]); /* a failed one: what it got */
  return err;
}
