/* cc_test.h: what every C test program shares: a failure counter, TEST_EXPECT (count a failed
 * assertion and go on) and TEST_CALL (a library call that must succeed: print the error chain and
 * abort every rank). Each test reduces test_failures over ranks for its verdict. */
#ifndef CC_TEST_H
#define CC_TEST_H

#include "cc_common.h"

__attribute__((unused)) static int test_failures = 0;
__attribute__((unused)) static int test_rank     = 0; /* set by the test's main after MPI_Init */

#define TEST_EXPECT(cond, ...)                                                                     \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "[rank %d] FAIL %s:%d: ", test_rank, __FILE__, __LINE__);                    \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      test_failures++;                                                                             \
    }                                                                                              \
  } while (0)

#define TEST_CALL(expr)                                                                            \
  do {                                                                                             \
    cc_err test_err_ = (expr);                                                                     \
    if (test_err_) {                                                                               \
      fprintf(stderr, "[rank %d] FAIL %s:%d: %s\n", test_rank, __FILE__, __LINE__, #expr);         \
      cc_error_print(stderr, test_rank);                                                           \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

/* Deterministic pseudo-random value in [-1, 1) of (global node, component, seed) (splitmix64):
 * the same vector whatever the partition. */
static inline double test_value(int64_t g, int c, int seed)
{
  return cc_splitmix64_unit((uint64_t)g * 3 + (uint64_t)c +
                            CC_SPLITMIX64_GAMMA * (uint64_t)(seed + 1));
}

/* global (x, y) over the first n doubles of each rank */
static inline double test_dot(int64_t n, const double *x, const double *y)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

/* 0 if no rank failed; prints PASSED/FAILED on rank 0; finalizes MPI */
static inline int test_finish(const char *name)
{
  int total = test_failures;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (test_rank == 0) printf("%s: %s (%d failures)\n", name, total ? "FAILED" : "PASSED", total);
  MPI_Finalize();
  return total ? 1 : 0;
}

#endif
