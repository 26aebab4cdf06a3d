/* test_precond_block3.c: the 3x3 diagonal-block inverse is scale-invariant: a block
 * and s * block invert for s = 1e-3 ... 2.1e11, rows of very different scale are not called
 * singular, a genuinely singular block is refused at every scale, and a NaN / Inf entry is refused
 * as such (never "singular", never "det = -nan").
 */
#include "cc_precond_impl.h"
#include "cc_test.h"

#include <math.h>

/* max |a b - I| */
static double identity_error(const double *a, const double *b)
{
  double e = 0;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += a[3 * r + k] * b[3 * k + c];
      e = fmax(e, fabs(s - (r == c)));
    }
  return e;
}

static void expect_error_text(const double *a, const char *needle, const char *unwanted)
{
  cc_error_clear();
  cc_err e = cc_block3_error(a, 7, NULL, NULL);
  TEST_EXPECT(e == CC_ERR_NUMERIC, "error code %s", cc_error_name(e));
  const char *msg = cc_error_message();
  TEST_EXPECT(strstr(msg, needle) != NULL, "message '%s' lacks '%s'", msg, needle);
  TEST_EXPECT(!unwanted || strstr(msg, unwanted) == NULL, "message '%s' has '%s'", msg, unwanted);
  printf("ok: %s\n", msg);
  cc_error_clear();
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  const double spd[9]     = {4, 1, 0.5, 1, 3, 0.25, 0.5, 0.25, 2};
  const double scales[]   = {1e-3, 1.0, 2.1e11, 1e150, 1e-150};
  const double singular[] = {1, 2, 3, 2, 4, 6, 0.5, -1, 2}; /* row 1 = 2 row 0 */
  for (int i = 0; i < 5; i++) {
    double a[9], inv[9];
    for (int k = 0; k < 9; k++) a[k] = scales[i] * spd[k];
    TEST_EXPECT(cc_block3_inverse(a, inv) == CC_BLOCK3_OK, "SPD block x %g refused", scales[i]);
    TEST_EXPECT(identity_error(a, inv) < 1e-14, "SPD block x %g: |A A^-1 - I| = %g", scales[i],
                identity_error(a, inv));
    TEST_EXPECT(inv[1] == inv[3] && inv[2] == inv[6] && inv[5] == inv[7],
                "inverse of the symmetric block x %g not bitwise symmetric", scales[i]);
    for (int k = 0; k < 9; k++) a[k] = scales[i] * singular[k];
    TEST_EXPECT(cc_block3_inverse(a, inv) == CC_BLOCK3_SINGULAR, "singular block x %g accepted",
                scales[i]);
    expect_error_text(a, "singular", NULL);
  }
  /* the eliminated Dirichlet row of the issue: diagonal (4.9359e+10, 1, 1) is well conditioned
   * row by row */
  {
    double a[9] = {4.9359e10, 0, 0, 0, 1, 0, 0, 0, 1}, inv[9];
    TEST_EXPECT(cc_block3_inverse(a, inv) == CC_BLOCK3_OK, "diag(4.9e10, 1, 1) refused");
    TEST_EXPECT(identity_error(a, inv) < 1e-15, "diag(4.9e10, 1, 1): wrong inverse");
    /* rows of different scale with coupling: still invertible */
    double b[9] = {2e11, 1e11, 0, 1e11, 3e11, 1, 0, 1, 2}, binv[9];
    TEST_EXPECT(cc_block3_inverse(b, binv) == CC_BLOCK3_OK, "row-scaled block refused");
  }
  /* a zero block and a zero row are singular */
  {
    double z[9] = {0}, inv[9];
    TEST_EXPECT(cc_block3_inverse(z, inv) == CC_BLOCK3_SINGULAR, "zero block accepted");
    double r[9] = {1, 0, 0, 0, 0, 0, 0, 0, 1};
    TEST_EXPECT(cc_block3_inverse(r, inv) == CC_BLOCK3_SINGULAR, "zero row accepted");
  }
  /* non-finite entries: their own message, not "singular" and not "det = -nan" */
  {
    double a[9], inv[9];
    memcpy(a, spd, sizeof a);
    a[4] = NAN;
    TEST_EXPECT(cc_block3_inverse(a, inv) == CC_BLOCK3_NONFINITE, "NaN block not refused");
    expect_error_text(a, "NaN", "singular");
    a[4] = INFINITY;
    TEST_EXPECT(cc_block3_inverse(a, inv) == CC_BLOCK3_NONFINITE, "Inf block not refused");
    expect_error_text(a, "overflow", "singular");
  }
  return test_finish("test_precond_block3");
}
