/* mesh_create.c: generate and partition the GeoFEM/Cube node cube and build each rank's local
 * numbering and communication table (Nakajima's GeoFEM local data structure).
 */
#include "mesh_internal.h"

/* The box grid's cut and imbalance beside the partition used (-1, 0 when no box grid fits P). */
static void box_quality(const cc_mesh_params *params, int size, cc_mesh *mesh)
{
  cc_mesh_params box = *params;
  int dims[3], n[3] = {params->nx, params->ny, params->nz};
  if (params->partition != CC_PARTITION_BOX) box.px = box.py = box.pz = 0;
  if (cc_mesh_box_dims(&box, size, dims) != CC_OK) {
    cc_error_clear();
    mesh->box_edge_cut = -1, mesh->box_load_imbalance = 0;
    return;
  }
  cc_mesh_box_quality(n, dims, &mesh->box_edge_cut, &mesh->box_load_imbalance);
  if (params->partition == CC_PARTITION_BOX) mesh->load_imbalance = mesh->box_load_imbalance;
}

cc_err cc_mesh_create(const cc_mesh_params *params, MPI_Comm comm, cc_mesh *mesh)
{
  int rank, size;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  memset(mesh, 0, sizeof *mesh);
  CC_CALL(cc_mesh_params_validate(params, size, 0));
  mesh->nx             = params->nx;
  mesh->ny             = params->ny;
  mesh->nz             = params->nz;
  mesh->n_global_nodes = (int64_t)params->nx * params->ny * params->nz;
  mesh->partition      = params->partition;

  cc_mesh_owner owner     = {0};
  double t0               = MPI_Wtime();
  cc_err err              = params->partition == CC_PARTITION_BOX
                                ? cc_mesh_partition_box(params, size, &owner, &mesh->edge_cut)
                                : cc_mesh_partition_metis(params, comm, &owner, mesh);
  mesh->partition_seconds = MPI_Wtime() - t0;
  if (!err) box_quality(params, size, mesh); /* it clears its own error: not after ours */
  mesh->px = owner.px, mesh->py = owner.py, mesh->pz = owner.pz;

  /* "mesh": numbering and communication tables (the partition is timed apart) */
  t0 = MPI_Wtime();
  if (!err) err = cc_mesh_number(&owner, rank, mesh);
  if (!err) err = cc_mesh_comm_table_build(&owner, comm, mesh);
  cc_mesh_owner_free(&owner); /* on an error too: an agreed failure ends with MPI_Finalize */
  CC_CALL(err);
  mesh->numbering_seconds = MPI_Wtime() - t0;
  return CC_OK;
}

void cc_mesh_free(cc_mesh *mesh)
{
  cc_free(&mesh->global_id);
  cc_comm_table_free(&mesh->comm);
  mesh->n_internal = mesh->n_total = 0;
}
