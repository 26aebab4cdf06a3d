/* read_streams.c: cubecg-bench --read-streams (read_streams.h). */
#include "read_streams.h"

#include <omp.h>

static volatile double rs_sink; /* keeps the sums of the reads */

/* v[0, n) read as k interleaved parts by this thread's slice: 8 doubles (64 B) of part 0, of part
 * 1, ... then the next 8 of each; the odd tail of each part after the loop. Returns the sum. */
static double read_parts(const double *v, int64_t n, int k)
{
  const int nt = omp_get_num_threads(), t = omp_get_thread_num();
  const int64_t lo = n * t / nt, hi = n * (t + 1) / nt, part = (hi - lo) / k, blocks = part / 8;
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int64_t b = 0; b < blocks; b++)
    for (int p = 0; p < k; p++) {
      const double *x = v + lo + p * part + 8 * b;
      for (int e = 0; e < 8; e++) s[e] += x[e];
    }
  for (int p = 0; p < k; p++)
    for (int64_t e = lo + p * part + 8 * blocks; e < lo + (p + 1) * part; e++) s[0] += v[e];
  for (int64_t e = lo + k * part; e < hi; e++) s[0] += v[e];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* one timed read of k parts after a barrier: the slowest rank's seconds; *sum_out the sum of the
 * values read (the triad's b holds 1.0 everywhere: the number of elements read) */
static cc_err read_time(MPI_Comm comm, const double *v, int64_t n, int k, double *seconds,
                        double *sum_out)
{
  double sum = 0.0;
  CC_MPI(MPI_Barrier(comm));
  const double t0 = MPI_Wtime();
#pragma omp parallel reduction(+ : sum)
  sum += read_parts(v, n, k);
  double t = MPI_Wtime() - t0;
  rs_sink += sum;
  *sum_out = sum;
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm));
  *seconds = t;
  return CC_OK;
}

static cc_err all_of(MPI_Comm comm, int *flag)
{
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, flag, 1, MPI_INT, MPI_LAND, comm));
  return CC_OK;
}

cc_err read_streams_run(MPI_Comm comm, double node_bytes, int node_ranks, int max_streams,
                        int rounds, read_streams *out)
{
  memset(out, 0, sizeof *out);
  CC_CHECK(max_streams >= 2 && max_streams <= READ_STREAMS_MAX && rounds >= 1, CC_ERR_ARG,
           "--read-streams: %d streams, %d rounds (streams in [2, %d], rounds >= 1)", max_streams,
           rounds, READ_STREAMS_MAX);
  cc_triad tr   = {0};
  double *t     = NULL; /* [max_streams + 1][rounds]: the triad, then k = 1..max_streams */
  double *ratio = NULL; /* [rounds] */
  cc_err err    = cc_triad_create(comm, node_bytes, node_ranks, &tr);
  if (!err) err = cc_malloc((size_t)(max_streams + 1) * (size_t)rounds, sizeof(double), &t);
  if (!err) err = cc_malloc((size_t)rounds, sizeof(double), &ratio);
  /* one array of the three the triad counts (24 B/element, summed over the ranks): exact, a
   * multiple of 3 far below 2^53 */
  const double local = 8.0 * (double)tr.n, bytes = tr.bytes / 3.0;
  int once = 1; /* every read summed exactly n ones: each element read once */
  for (int r = 0; r < rounds && !err; r++) {
    err = cc_triad_run(&tr, &t[r]);
    for (int j = 0; j < max_streams && !err; j++) {
      const int k = 1 + (j + r) % max_streams; /* rotating, so no k always follows the triad */
      double sum  = 0.0;
      err         = read_time(comm, tr.b, tr.n, k, &t[k * rounds + r], &sum);
      once &= sum == (double)tr.n;
    }
  }
  if (!err) err = all_of(comm, &once);
  if (!err) {
    out->each_element_once    = once;
    out->max_streams          = max_streams;
    out->rounds               = rounds;
    out->array_bytes_per_rank = local;
    out->read_bytes           = bytes;
    for (int k = 1; k <= max_streams; k++) {
      out->fraction[k - 1] =
          cc_median_fraction_of_triad(bytes, t + k * rounds, tr.bytes, t, rounds, ratio);
      const double med     = cc_median(t + k * rounds, rounds); /* sorts that row */
      out->median[k - 1]   = med > 0 ? bytes / med : 0.0;
    }
    const double med  = cc_median(t, rounds);
    out->triad_median = med > 0 ? tr.bytes / med : 0.0;
  }
  cc_free(&ratio);
  cc_free(&t);
  cc_triad_free(&tr);
  return err;
}
