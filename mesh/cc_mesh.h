/* cc_mesh.h: the GeoFEM/Cube problem: an NX x NY x NZ node cube of unit tri-linear hexahedra,
 * 3 DOF per node, partitioned over MPI ranks, assembled into a 3x3 block CRS matrix.
 *
 * Contract:
 * - Global node id g = i + NX*(j + NY*k), coordinates (i, j, k) (unit element edge); global DOF
 *   3*g + c, c = 0,1,2 for x,y,z.
 * - Boundary conditions: u_x = 0 on x = 0, u_y = 0 on y = 0, u_z = 0 on z = 0 (symmetric
 *   elimination: row and column zeroed, diagonal 1, right-hand side adjusted); uniform traction p
 * in +z on z = NZ-1 as consistent nodal forces. Exact solution: u_z = p z/E, u_x = -nu p x/E, u_y =
 * -nu p y/E.
 * - Local numbering on each rank: internal (owned) nodes first [0, n_internal), then external
 * (halo) nodes [n_internal, n_total); global_id[] maps local -> global. Within each group the order
 * is ascending global id. The communication table (cc_common.h) lists the halo pattern.
 * - mesh/ knows nothing of solvers/ or io/.
 */
#ifndef CC_MESH_H
#define CC_MESH_H

#include "cc_common.h"

typedef enum { CC_PARTITION_BOX, CC_PARTITION_METIS } cc_partition_kind;

typedef struct {
  int nx, ny, nz;         /* nodes per direction (>= 2) */
  double E, nu, traction; /* Young's modulus, Poisson ratio, traction in +z on z = zmax */
  cc_partition_kind partition;
  int px, py, pz; /* box partition ranks per direction; 0 = choose from P */
} cc_mesh_params;

/* Defaults: 16^3 nodes, E = 1, nu = 0.3, p = 1, box partition chosen from P. */
void cc_mesh_params_default(cc_mesh_params *params);

/* Validate sizes, material and the partition against n_ranks before any large allocation. Refuses
 * more ranks than nodes, a METIS graph or weight total beyond METIS's 32-bit idx_t (naming the
 * limit and --partition box), a box partition whose product is not n_ranks or that leaves a rank
 * empty, and a mesh whose estimated memory per rank (see cc_mesh_estimate_bytes) exceeds
 * memory_limit bytes (0 = no limit); the message names the bad value and the estimate. */
CC_WUR cc_err cc_mesh_params_validate(const cc_mesh_params *params, int n_ranks,
                                      int64_t memory_limit);
/* |b| of the assembled right-hand side, computed from the parameters without forming b (and
 * without squaring p, so it neither overflows nor underflows): |p|/4 sqrt(Sx Sy), Sx = 2 + 4 (nx-2)
 * the consistent nodal forces of the top face. cc_mesh_params_validate refuses a load whose
 * squared norms cannot be computed (see there). */
double cc_mesh_rhs_norm(const cc_mesh_params *params);

/* Estimated peak bytes of one rank for mesh + matrix + solver vectors: rank0 = 1 for rank 0
 * (which also holds METIS's block graph), 0 for any other rank (its own share, its halo and the
 * owners of its neighbouring blocks). cc_mesh_estimate_bytes: the larger of the two (validate). */
int64_t cc_mesh_estimate_rank_bytes(const cc_mesh_params *params, int n_ranks, int rank0);
int64_t cc_mesh_estimate_bytes(const cc_mesh_params *params, int n_ranks);

typedef struct {
  int nx, ny, nz;
  int64_t n_global_nodes;
  int n_internal;     /* owned nodes */
  int n_total;        /* owned + halo nodes */
  int64_t *global_id; /* [n_total] */
  cc_comm_table comm;
  int px, py, pz; /* box partition actually used (0 for metis) */
  cc_partition_kind partition;
  int64_t edge_cut;      /* 27-point node graph edges between ranks (either partition) */
  double load_imbalance; /* largest rank's owned nodes / (N / P) */
  int64_t box_edge_cut;  /* the same two for the box grid of P ranks (-1, 0: none fits) */
  double box_load_imbalance;
  int64_t coarse_vertices;  /* METIS: blocks in the graph METIS partitioned (0 for box) */
  double partition_seconds; /* this rank's time in cc_mesh_create: partition */
  double numbering_seconds; /* ... numbering and communication tables ("mesh") */
} cc_mesh;

/* Generate and partition the cube, build local numbering and communication tables (collective).
 * The two parts' times are left in mesh->partition_seconds / numbering_seconds for the caller's
 * timers (CC_T_PARTITION, CC_T_MESH); the other mesh functions are timed by their callers. */
CC_WUR cc_err cc_mesh_create(const cc_mesh_params *params, MPI_Comm comm, cc_mesh *mesh);
void cc_mesh_free(cc_mesh *mesh);

/* Element stiffness of a unit hexahedron (2x2x2 Gauss), 24x24 row-major, DOF order
 * 3*local_node + c with local nodes numbered (x fastest):
 * (0,0,0),(1,0,0),(0,1,0),(1,1,0),(0,0,1),... */
void cc_mesh_element_stiffness(double E, double nu, double ke[24 * 24]);

/* Assemble the local rows (internal nodes) into a 3x3 block CRS matrix with boundary conditions and
 * the right-hand side b [3*n_total] (halo part zero). Rows are first touched by the OpenMP threads
 * that stream them later (static schedule). The caller times it (CC_T_ASSEMBLY). */
CC_WUR cc_err cc_mesh_assemble(const cc_mesh *mesh, const cc_mesh_params *params, cc_bcrs *a,
                               double **b);

/* The same with the internal nodes renumbered (new = new_of_old[old]; external ids unchanged;
 * both arrays NULL = identity): rows, columns and b in the new numbering. Rows are first touched
 * group by group, rows [group_ptr[g], group_ptr[g+1]) split statically over the OpenMP threads
 * (pass an ordering's colors so that the threads that sweep a color own its rows); group_ptr NULL =
 * one group. split_lower: store the strictly lower blocks apart (cc_bcrs l_ptr/l_col/l_val), as
 * the Gauss-Seidel sweeps want. Assembling in the final order avoids holding two copies. */
CC_WUR cc_err cc_mesh_assemble_ordered(const cc_mesh *mesh, const cc_mesh_params *params,
                                       const int *new_of_old, const int *old_of_new, int n_groups,
                                       const int *group_ptr, int split_lower, cc_bcrs *a,
                                       double **b);
/* The block sparsity pattern only (val NULL, natural numbering), to compute an ordering before the
 * assembly: about 4 bytes per block instead of 76. */
CC_WUR cc_err cc_mesh_pattern(const cc_mesh *mesh, cc_bcrs *pattern);

/* Analytic displacement of a global node. */
void cc_mesh_exact_solution(const cc_mesh_params *params, int64_t global_node, double u[3]);

/* Max over nodes of |u - u_exact| / max|u_exact| (collective); u holds internal nodes' DOFs. */
CC_WUR cc_err cc_mesh_analytic_error(const cc_mesh *mesh, const cc_mesh_params *params,
                                     const double *u, double *max_rel_error);

/* Write the global matrix (after boundary conditions) in Matrix Market coordinate real general,
 * 1-based, global DOF numbering, whatever the partition (collective; rank 0 writes). */
CC_WUR cc_err cc_mesh_export_matrix(const cc_mesh *mesh, const cc_bcrs *a, const char *path);

/* Write a vector over the DOFs (3 per internal node, x[3 i + c]) as a Matrix Market array real
 * general column, global DOF order, every entry (collective; rank 0 writes). */
CC_WUR cc_err cc_mesh_export_vector(const cc_mesh *mesh, const double *x, const char *path);

#endif
