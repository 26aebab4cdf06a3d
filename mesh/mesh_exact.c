/* mesh_exact.c: analytic solution of the GeoFEM/Cube problem (uniaxial stress sigma_zz = p with
 * symmetry planes x=0, y=0, z=0), reproduced exactly by tri-linear elements, and the error of a
 * computed displacement against it.
 */
#include "mesh_internal.h"

#include <math.h>

void cc_mesh_exact_solution(const cc_mesh_params *params, int64_t global_node, double u[3])
{
  int64_t nxy = (int64_t)params->nx * params->ny;
  double z    = (double)(global_node / nxy);
  double y    = (double)((global_node % nxy) / params->nx);
  double x    = (double)(global_node % params->nx);
  double s    = params->traction / params->E; /* strain e_zz = p / E */
  u[0]        = -params->nu * s * x;          /* u_x = -nu p x / E */
  u[1]        = -params->nu * s * y;          /* u_y = -nu p y / E */
  u[2]        = s * z;                        /* u_z = p z / E */
}

cc_err cc_mesh_analytic_error(const cc_mesh *mesh, const cc_mesh_params *params, const double *u,
                              double *max_rel_error)
{
  double err = 0;
  for (int v = 0; v < mesh->n_internal; v++) {
    double ue[3];
    cc_mesh_exact_solution(params, mesh->global_id[v], ue);
    for (int c = 0; c < 3; c++) {
      double d = fabs(u[3 * (int64_t)v + c] - ue[c]);
      if (isnan(d)) d = INFINITY; /* a NaN must not vanish in MPI_MAX */
      if (d > err) err = d;
    }
  }
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, mesh->comm.comm));
  /* max |u_exact| over the global mesh: at the far corner (nx-1, ny-1, nz-1) */
  double s    = fabs(params->traction / params->E);
  double umax = fmax(s * (mesh->nz - 1), params->nu * s * fmax(mesh->nx - 1, mesh->ny - 1));
  /* zero load: the exact solution is 0, report the absolute error */
  *max_rel_error = umax > 0 ? err / umax : err;
  return CC_OK;
}
