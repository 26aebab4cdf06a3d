/* test_overlap_probe.c: IMB-NBC's overlap formula on hand-worked times, then cc_overlap_measure
 * against an injected reduction latency L (--inject-reduction-latency) where the answer is known:
 * work of W > L hides all of it, work of W < L hides W / L of it and leaves L - W to wait. */
#include "cc_test.h"
#include "overlap_probe.h"

#include <math.h>

/* spins for ctx's seconds: work of a known length that calls no MPI */
static cc_err spin_work(void *ctx, const cc_exec *ex)
{
  (void)ex;
  double until = MPI_Wtime() + *(const double *)ctx;
  while (MPI_Wtime() < until) {
  }
  return CC_OK;
}

static void test_formula(void)
{
  /* both 10, done in 10: all hidden; in 20: none; in 15: half */
  TEST_EXPECT(fabs(cc_overlap_pct(10, 10, 10) - 100) < 1e-12, "%g", cc_overlap_pct(10, 10, 10));
  TEST_EXPECT(fabs(cc_overlap_pct(10, 10, 20)) < 1e-12, "%g", cc_overlap_pct(10, 10, 20));
  TEST_EXPECT(fabs(cc_overlap_pct(10, 10, 15) - 50) < 1e-12, "%g", cc_overlap_pct(10, 10, 15));
  /* normalised by the shorter part: t_pure 2, t_cpu 8, t_ovrl 9 -> (2 + 8 - 9) / 2 = 50 % */
  TEST_EXPECT(fabs(cc_overlap_pct(2, 8, 9) - 50) < 1e-12, "%g", cc_overlap_pct(2, 8, 9));
  /* clamped: slower than both in a row -> 0; faster than the longer part -> 100 */
  TEST_EXPECT(cc_overlap_pct(2, 8, 12) == 0, "%g", cc_overlap_pct(2, 8, 12));
  TEST_EXPECT(cc_overlap_pct(2, 8, 7) == 100, "%g", cc_overlap_pct(2, 8, 7));
  TEST_EXPECT(cc_overlap_pct(0, 8, 8) == 0, "no reduction: %g", cc_overlap_pct(0, 8, 8));
  TEST_EXPECT(fabs(cc_overlap_hidden_pct(10, 2.5) - 75) < 1e-12, "%g",
              cc_overlap_hidden_pct(10, 2.5));
  TEST_EXPECT(cc_overlap_hidden_pct(10, 11) == 0, "%g", cc_overlap_hidden_pct(10, 11));
  TEST_EXPECT(!strcmp(cc_overlap_setting(CC_PROGRESS_POLL, 1), "thread+poll"), "setting");
  TEST_EXPECT(!strcmp(cc_overlap_setting(CC_PROGRESS_NONE, 0), "none"), "setting");
}

/* value inside [lo, hi] widened by slack */
static int within(double value, double lo, double hi, double slack)
{
  return value >= lo - slack && value <= hi + slack;
}

static void test_latency(cc_progress_mode progress)
{
  const double latency = 4e-3, slack = 0.02 * latency; /* 2 % of L: timer and loop granularity */
  cc_overlap_result r;
  /* W = 3 L: the whole latency hidden, no wait, IMB-NBC 100 % */
  double longer = 3 * latency;
  TEST_CALL(
      cc_overlap_measure(MPI_COMM_WORLD, spin_work, &longer, 3, progress, 0, 1e6 * latency, 5, &r));
  TEST_EXPECT(within(100, r.hidden_pct.min, r.hidden_pct.max, 100 * slack / latency),
              "W > L: hidden %g..%g %%", r.hidden_pct.min, r.hidden_pct.max);
  TEST_EXPECT(within(100, r.overlap_pct.min, r.overlap_pct.max, 100 * slack / latency),
              "W > L: overlap %g..%g %%", r.overlap_pct.min, r.overlap_pct.max);
  TEST_EXPECT(r.t_pure.max >= latency, "t_pure %g below the injected %g", r.t_pure.max, latency);
  /* W = L / 4: the work's share hidden (W / L), the rest waited (L - W); the t_CPU spread gives
   * the expected spread */
  double shorter = latency / 4;
  TEST_CALL(cc_overlap_measure(MPI_COMM_WORLD, spin_work, &shorter, 41, progress, 0, 1e6 * latency,
                               5, &r));
  double lo = 100 * r.t_cpu.min / r.t_pure.max, hi = 100 * r.t_cpu.max / r.t_pure.min;
  TEST_EXPECT(r.hidden_pct.max >= lo - 100 * slack / latency &&
                  r.hidden_pct.min <= hi + 100 * slack / latency,
              "W < L: hidden %g..%g %%, expected W / L %g..%g %%", r.hidden_pct.min,
              r.hidden_pct.max, lo, hi);
  TEST_EXPECT(r.wait.max >= latency - r.t_cpu.max - slack &&
                  r.wait.min <= r.t_pure.max - r.t_cpu.min + slack,
              "W < L: wait %g..%g s, expected L - W", r.wait.min, r.wait.max);
  TEST_EXPECT(within(100, r.overlap_pct.min, r.overlap_pct.max, 100 * slack / shorter),
              "W < L: overlap %g..%g %% (the work is the shorter part, all of it overlapped)",
              r.overlap_pct.min, r.overlap_pct.max);
  TEST_EXPECT(r.n_values == 41 && r.repeats == 5 && r.seconds > 0, "bookkeeping");
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &test_rank);
  test_formula();
  test_latency(CC_PROGRESS_NONE);
  test_latency(CC_PROGRESS_POLL);
  cc_overlap_result r;
  double w = 0;
  TEST_EXPECT(cc_overlap_measure(MPI_COMM_WORLD, spin_work, &w, 0, CC_PROGRESS_NONE, 0, 0, 5, &r) ==
                  CC_ERR_ARG,
              "0 values refused");
  cc_error_clear();
  int failures = test_failures;
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (test_rank == 0) printf("test_overlap_probe: %s\n", failures ? "FAILED" : "PASSED");
  MPI_Finalize();
  return failures ? 1 : 0;
}
