/* test_mesh_element.c: the unit hexahedron's stiffness (mesh_element.c) is symmetric, has exactly
 * the 6 rigid-body modes as null space (K q = 0, and K + s Q Q^T is positive definite by Cholesky),
 * and under the uniaxial stress field u_z = p z/E, u_x = -nu p x/E, u_y = -nu p y/E gives the
 * consistent nodal forces +-p/4 in z on the top/bottom faces and nothing else.
 */
#include "cc_mesh.h"

#include <math.h>

static int failures = 0;
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

/* Orthonormal basis (Gram-Schmidt) of the rigid-body modes: 3 translations, 3 rotations w x X. */
static void rigid_modes(double q[6][24])
{
  for (int m = 0; m < 6; m++)
    for (int a = 0; a < 8; a++) {
      double x[3] = {a & 1, (a >> 1) & 1, (a >> 2) & 1}, w[3] = {0, 0, 0}, *u = q[m] + 3 * a;
      if (m < 3) {
        u[0] = u[1] = u[2] = 0;
        u[m]               = 1;
        continue;
      }
      w[m - 3] = 1; /* u = w x X */
      u[0]     = w[1] * x[2] - w[2] * x[1];
      u[1]     = w[2] * x[0] - w[0] * x[2];
      u[2]     = w[0] * x[1] - w[1] * x[0];
    }
  for (int m = 0; m < 6; m++) {
    for (int l = 0; l < m; l++) {
      double d = 0;
      for (int i = 0; i < 24; i++) d += q[m][i] * q[l][i];
      for (int i = 0; i < 24; i++) q[m][i] -= d * q[l][i];
    }
    double n = 0;
    for (int i = 0; i < 24; i++) n += q[m][i] * q[m][i];
    for (int i = 0; i < 24; i++) q[m][i] /= sqrt(n);
  }
}

/* In-place Cholesky; returns 0 if a pivot is not positive. */
static int cholesky(double *m, int n)
{
  for (int j = 0; j < n; j++) {
    double d = m[j * n + j];
    for (int k = 0; k < j; k++) d -= m[j * n + k] * m[j * n + k];
    if (!(d > 0)) return 0;
    m[j * n + j] = sqrt(d);
    for (int i = j + 1; i < n; i++) {
      double s = m[i * n + j];
      for (int k = 0; k < j; k++) s -= m[i * n + k] * m[j * n + k];
      m[i * n + j] = s / m[j * n + j];
    }
  }
  return 1;
}

static void check_material(double E, double nu)
{
  double ke[24 * 24], q[6][24], kmax = 0;
  cc_mesh_element_stiffness(E, nu, ke);
  for (int i = 0; i < 24 * 24; i++) kmax = fmax(kmax, fabs(ke[i]));
  EXPECT(kmax > 0, "E=%g nu=%g: zero stiffness", E, nu);
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++)
      EXPECT(fabs(ke[i * 24 + j] - ke[j * 24 + i]) <= 1e-14 * kmax,
             "E=%g nu=%g: K(%d,%d) != K(%d,%d)", E, nu, i, j, j, i);
  for (int i = 0; i < 24; i++) EXPECT(ke[i * 24 + i] > 0, "E=%g nu=%g: K(%d,%d) <= 0", E, nu, i, i);

  /* rigid-body modes in the null space: |K q|_inf <= 1e-12 |K|_max |q|_inf */
  rigid_modes(q);
  for (int m = 0; m < 6; m++) {
    double kq = 0, qmax = 0;
    for (int i = 0; i < 24; i++) {
      double s = 0;
      for (int j = 0; j < 24; j++) s += ke[i * 24 + j] * q[m][j];
      kq   = fmax(kq, fabs(s));
      qmax = fmax(qmax, fabs(q[m][i]));
    }
    EXPECT(kq <= 1e-12 * kmax * qmax, "E=%g nu=%g: |K mode %d| = %.3e", E, nu, m, kq);
  }
  /* the other 18 eigenvalues are positive: K + kmax Q Q^T is positive definite */
  double m[24 * 24];
  for (int i = 0; i < 24; i++)
    for (int j = 0; j < 24; j++) {
      double s = ke[i * 24 + j];
      for (int r = 0; r < 6; r++) s += kmax * q[r][i] * q[r][j];
      m[i * 24 + j] = s;
    }
  EXPECT(cholesky(m, 24), "E=%g nu=%g: K + Q Q^T not positive definite (rank of K < 18)", E, nu);

  /* uniaxial stress patch: f = K u_lin = +-p/4 e_z on top/bottom corners */
  double p = 1.7, u[24], fmaxabs = 0;
  for (int a = 0; a < 8; a++) {
    u[3 * a]     = -nu * p * (a & 1) / E;
    u[3 * a + 1] = -nu * p * ((a >> 1) & 1) / E;
    u[3 * a + 2] = p * ((a >> 2) & 1) / E;
  }
  for (int i = 0; i < 24; i++) {
    double f = 0;
    for (int j = 0; j < 24; j++) f += ke[i * 24 + j] * u[j];
    double expect = i % 3 == 2 ? (((i / 3) >> 2) & 1 ? 0.25 * p : -0.25 * p) : 0.0;
    fmaxabs       = fmax(fmaxabs, fabs(f - expect));
  }
  EXPECT(fmaxabs <= 1e-12 * p, "E=%g nu=%g: patch force error %.3e", E, nu, fmaxabs);
}

int main(void)
{
  check_material(1.0, 0.0);
  check_material(1.0, 0.3);
  check_material(210e3, 0.49);
  check_material(0.01, 0.25);
  printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
