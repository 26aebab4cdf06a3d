/* mesh_element.c: stiffness of a unit tri-linear hexahedron for isotropic linear elasticity,
 * K = int_[0,1]^3 B^T D B dV with 2x2x2 Gauss quadrature (Hughes, The Finite Element Method, 3.6).
 * DOF order 3*a + c; local node a = ax + 2*ay + 4*az at corner (ax, ay, az) (x fastest).
 */
#include "cc_mesh.h"

#include <math.h>

/* d N_a / d xi_d at xi: N_a = prod_d (a_d ? xi_d : 1 - xi_d) */
static void shape_gradient(int a, const double xi[3], double grad[3])
{
  int ad[3] = {a & 1, (a >> 1) & 1, (a >> 2) & 1};
  double f[3], df[3];
  for (int d = 0; d < 3; d++) {
    f[d]  = ad[d] ? xi[d] : 1.0 - xi[d];
    df[d] = ad[d] ? 1.0 : -1.0;
  }
  grad[0] = df[0] * f[1] * f[2];
  grad[1] = f[0] * df[1] * f[2];
  grad[2] = f[0] * f[1] * df[2];
}

void cc_mesh_element_stiffness(double E, double nu, double ke[24 * 24])
{
  /* Lame constants: lambda = E nu / ((1+nu)(1-2nu)), mu = E / (2(1+nu)) */
  double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  double D[6][6] = {{0}};
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) D[r][c] = lambda;
    D[r][r] += 2 * mu;
    D[r + 3][r + 3] = mu;
  }
  memset(ke, 0, 24 * 24 * sizeof(double));
  const double g[2] = {0.5 - 0.5 / sqrt(3.0), 0.5 + 0.5 / sqrt(3.0)}, w = 0.125;
  for (int q = 0; q < 8; q++) {
    double xi[3] = {g[q & 1], g[(q >> 1) & 1], g[(q >> 2) & 1]};
    /* B (6 x 24), Voigt strain (exx, eyy, ezz, gxy, gyz, gzx) */
    double B[6][24] = {{0}};
    for (int a = 0; a < 8; a++) {
      double dn[3];
      shape_gradient(a, xi, dn);
      B[0][3 * a]     = dn[0];
      B[1][3 * a + 1] = dn[1];
      B[2][3 * a + 2] = dn[2];
      B[3][3 * a] = dn[1], B[3][3 * a + 1] = dn[0];
      B[4][3 * a + 1] = dn[2], B[4][3 * a + 2] = dn[1];
      B[5][3 * a] = dn[2], B[5][3 * a + 2] = dn[0];
    }
    double DB[6][24];
    for (int k = 0; k < 6; k++)
      for (int j = 0; j < 24; j++) {
        double s = 0;
        for (int l = 0; l < 6; l++) s += D[k][l] * B[l][j];
        DB[k][j] = s;
      }
    /* ke += w B^T (D B) */
    for (int i = 0; i < 24; i++)
      for (int j = 0; j < 24; j++) {
        double s = 0;
        for (int k = 0; k < 6; k++) s += B[k][i] * DB[k][j];
        ke[i * 24 + j] += w * s;
      }
  }
  /* exact symmetry, so the assembled matrix is bitwise symmetric (blocks (R,C) and (C,R) sum the
   * same element terms in the same order) */
  for (int i = 0; i < 24; i++)
    for (int j = i + 1; j < 24; j++) {
      double s       = 0.5 * (ke[i * 24 + j] + ke[j * 24 + i]);
      ke[i * 24 + j] = ke[j * 24 + i] = s;
    }
}
