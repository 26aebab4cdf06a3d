/* test_overlap_probe.c: IMB-NBC's overlap formula on hand-worked times, then cc_overlap_measure
 * against an injected reduction latency L (--inject-reduction-latency) where the answer is known:
 * work of W > L hides all of it, work of W < L hides W / L of it and leaves L - W to wait; the
 * same per size of a sweep of the solvers' sizes (cc_overlap_measure_sizes), and the sizes the
 * registry gives (cc_overlap_sizes_add). */
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

/* Every row of a sweep against L: W > L all hidden, W < L the work's share W / L, L - W waited;
 * the rows share the round's one t_CPU. */
static void expect_rows(const cc_overlap_result *r, int n, double latency, double work)
{
  const double slack = 0.02 * latency; /* 2 % of L: timer and loop granularity */
  for (int i = 0; i < n; i++, r++) {
    TEST_EXPECT(r->t_pure.min >= latency, "%d doubles: t_pure %g below L %g", r->n_values,
                r->t_pure.min, latency);
    TEST_EXPECT(i == 0 || (r->t_cpu.min == r[-1].t_cpu.min && r->t_cpu.max == r[-1].t_cpu.max),
                "%d doubles: t_CPU not the round's shared one", r->n_values);
    if (work > latency) {
      TEST_EXPECT(within(100, r->hidden_pct.min, r->hidden_pct.max, 100 * slack / latency),
                  "W > L, %d doubles: hidden %g..%g %%", r->n_values, r->hidden_pct.min,
                  r->hidden_pct.max);
      continue;
    }
    double lo = 100 * r->t_cpu.min / r->t_pure.max, hi = 100 * r->t_cpu.max / r->t_pure.min;
    TEST_EXPECT(r->hidden_pct.max >= lo - 100 * slack / latency &&
                    r->hidden_pct.min <= hi + 100 * slack / latency,
                "W < L, %d doubles: hidden %g..%g %%, expected W / L %g..%g %%", r->n_values,
                r->hidden_pct.min, r->hidden_pct.max, lo, hi);
    TEST_EXPECT(r->wait.max >= latency - r->t_cpu.max - slack &&
                    r->wait.min <= r->t_pure.max - r->t_cpu.min + slack,
                "W < L, %d doubles: wait %g..%g s, expected L - W", r->n_values, r->wait.min,
                r->wait.max);
  }
}

/* Two of the solvers' sizes in one sweep (pipelined CG's 3, s-step's Gram block at S = 4),
 * W = 1.5 L and W = L / 4; L = 200 ms, well above the tens of ms a reduction between two ranks
 * takes on a loaded machine (a descheduled partner), so that L decides the answer. */
static void test_sizes_latency(cc_progress_mode progress)
{
  const double latency = 200e-3;
  const int sizes[]    = {3, 31};
  cc_overlap_result r[2];
  double works[2] = {1.5 * latency, latency / 4};
  for (int w = 0; w < 2; w++) {
    TEST_CALL(cc_overlap_measure_sizes(MPI_COMM_WORLD, spin_work, &works[w], 2, sizes, progress, 0,
                                       1e6 * latency, 3, r));
    expect_rows(r, 2, latency, works[w]);
    for (int i = 0; i < 2; i++)
      TEST_EXPECT(r[i].n_values == sizes[i] && r[i].repeats == 3 && r[i].seconds > 0 &&
                      r[i].seconds == r[0].seconds,
                  "row %d bookkeeping", i);
  }
}

static int fake_offset;
static int fake_sizes(const cc_krylov_opts *o, int sizes[CC_KRYLOV_SIZES_MAX])
{
  (void)o;
  for (int i = 0; i < CC_KRYLOV_SIZES_MAX; i++) sizes[i] = fake_offset + i;
  return CC_KRYLOV_SIZES_MAX;
}

/* The union of the variants' sizes, ascending, each with the variants that post it. */
static void test_sizes_registry(void)
{
  cc_overlap_sizes s = {0};
  cc_krylov_opts o   = {0}; /* defaults: depth 2, S 4, no guard */
  const char *iar[]  = {"cgcg", "pipecg", "gropp", "plcg", "sstep"};
  for (int i = 0; i < 5; i++) TEST_CALL(cc_overlap_sizes_add(&s, cc_krylov_find(iar[i]), &o));
  TEST_CALL(cc_overlap_sizes_add(&s, cc_krylov_find("pipecg"), &o)); /* again: no change */
  const int want[] = {1, 2, 3, 31}; /* s-step at S = 4: 10 + 16 + 4 + 1 */
  TEST_EXPECT(s.n == 4, "%d sizes", s.n);
  for (int i = 0; i < 4 && i < s.n; i++)
    TEST_EXPECT(s.values[i] == want[i], "size %d: %d, expected %d", i, s.values[i], want[i]);
  TEST_EXPECT(!strcmp(s.posted_by[0], "gropp") && !strcmp(s.posted_by[2], "cgcg pipecg plcg") &&
                  !strcmp(s.posted_by[3], "sstep"),
              "posted by '%s' '%s' '%s'", s.posted_by[0], s.posted_by[2], s.posted_by[3]);
  /* --replace-every auto's (x,x), depth 8, S = 10 (55 + 100 + 10 + 1) */
  memset(&s, 0, sizeof s);
  o = (cc_krylov_opts){.replace_every = CC_REPLACE_AUTO, .pipeline_depth = 8, .sstep = 10};
  for (int i = 0; i < 5; i++) TEST_CALL(cc_overlap_sizes_add(&s, cc_krylov_find(iar[i]), &o));
  const int want_auto[] = {1, 3, 4, 9, 166};
  TEST_EXPECT(s.n == 5, "%d sizes", s.n);
  for (int i = 0; i < 5 && i < s.n; i++)
    TEST_EXPECT(s.values[i] == want_auto[i], "auto size %d: %d, expected %d", i, s.values[i],
                want_auto[i]);
  /* more distinct sizes than CC_OVERLAP_SIZES_MAX: refused */
  cc_krylov fake = {.name = "fake", .reduction_sizes = fake_sizes};
  memset(&s, 0, sizeof s);
  fake_offset = 10;
  TEST_CALL(cc_overlap_sizes_add(&s, &fake, &o));
  fake_offset = 20;
  TEST_CALL(cc_overlap_sizes_add(&s, &fake, &o));
  fake_offset = 30;
  TEST_EXPECT(cc_overlap_sizes_add(&s, &fake, &o) == CC_ERR_ARG, "9th size accepted");
  cc_error_clear();
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
  test_sizes_latency(CC_PROGRESS_NONE);
  test_sizes_latency(CC_PROGRESS_POLL);
  test_sizes_registry();
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
