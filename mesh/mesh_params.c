/* mesh_params.c: defaults, validation and memory estimate of the GeoFEM/Cube problem (cube of
 * NX x NY x NZ nodes, 3 DOF per node). Validation runs before any large allocation (conventions 9).
 */
#include "mesh_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
/* 3*n_local must fit an int (vector indices 3*i, col_idx int32). */
#define CC_MESH_MAX_LOCAL_NODES (INT32_MAX / 3)

void cc_mesh_params_default(cc_mesh_params *params)
{
  params->nx        = 16;
  params->ny        = 16;
  params->nz        = 16;
  params->E         = 1.0;
  params->nu        = 0.3;
  params->traction  = 1.0;
  params->partition = CC_PARTITION_BOX;
  params->px        = 0;
  params->py        = 0;
  params->pz        = 0;
}

/* Largest rank's local nodes, estimated from the box grid (also used for METIS, whose parts are
 * about as large): a box of ceil(n/p) nodes per direction plus one halo layer. */
static double largest_rank_nodes(const cc_mesh_params *params, int n_ranks, double *owned)
{
  int n[3] = {params->nx, params->ny, params->nz}, dims[3] = {0, 0, 0};
  double local = 1.0, own = 1.0;
  cc_mesh_params box = *params;
  box.px = box.py = box.pz = 0;
  if (params->partition == CC_PARTITION_BOX && params->px > 0) {
    dims[0] = params->px, dims[1] = params->py, dims[2] = params->pz;
  } else if (cc_mesh_box_dims(&box, n_ranks, dims) != CC_OK) {
    cc_error_clear(); /* no valid grid: validate reports that; estimate with a cube of N/P nodes */
    double side = cbrt((double)params->nx * params->ny * params->nz / (n_ranks > 0 ? n_ranks : 1));
    *owned      = side * side * side;
    return (side + 2) * (side + 2) * (side + 2);
  }
  for (int d = 0; d < 3; d++) {
    double b = ceil((double)n[d] / (dims[d] > 0 ? dims[d] : 1));
    own *= b;
    local *= fmin(b + 2, n[d]);
  }
  *owned = own;
  return local;
}

/* Bytes of a rank's share: per internal node 27 blocks of 9 doubles + int32 column, row_ptr,
 * diag_pos; per local node global_id, lookup, b, ~12 solver vectors and a 3x3 preconditioner
 * block. */
static double share_bytes(double owned, double local)
{
  return owned * (27.0 * (9 * 8 + 4) + 16) + local * (8 + 4 + 24 + 12 * 24 + 72);
}

/* METIS parts are balanced to METIS's default 1.03 of the mean (vertex weights: one block may
 * tip it over), and their surfaces are rougher than a brick's: the halo layer is charged 1.5x the
 * box's. */
#define METIS_IMBALANCE 1.03
#define METIS_HALO_FACTOR 1.5

int64_t cc_mesh_estimate_rank_bytes(const cc_mesh_params *params, int n_ranks, int rank0)
{
  double owned = 0, local = largest_rank_nodes(params, n_ranks, &owned);
  int n[3]     = {params->nx, params->ny, params->nz}, m[3];
  double bytes = share_bytes(owned, local);
  if (params->partition == CC_PARTITION_METIS && n_ranks > 1) {
    cc_mesh_metis_blocks(n, n_ranks, m);
    double blocks = (double)m[0] * m[1] * m[2];
    double block  = (double)n[0] * n[1] * n[2] / blocks;
    double mean   = (double)n[0] * n[1] * n[2] / n_ranks;
    double own    = fmin(METIS_IMBALANCE * mean + block, (double)n[0] * n[1] * n[2]);
    bytes         = share_bytes(own, own + METIS_HALO_FACTOR * (local - owned) * own / owned);
    /* slabs; the owners of the received blocks (own and neighbours, ~27 per own block) */
    bytes += 4.0 * (n[0] + n[1] + n[2]) + 27.0 * 4 * (own / block + 1);
    /* rank 0: the block graph (xadj, vwgt, part, 26 neighbours with weights) with METIS's
     * workspace (about three times the graph), and the Scatterv buffer (a block goes to ~4 ranks)
     */
    if (rank0) bytes += blocks * (12.0 + 3 * 26 * 8 + 4 * 8);
  }
  return bytes >= 9.0e18 ? INT64_MAX : (int64_t)bytes;
}

int64_t cc_mesh_estimate_bytes(const cc_mesh_params *params, int n_ranks)
{
  int64_t root = cc_mesh_estimate_rank_bytes(params, n_ranks, 1);
  int64_t rest = cc_mesh_estimate_rank_bytes(params, n_ranks, 0);
  return root > rest ? root : rest;
}

static cc_err check_partition(const cc_mesh_params *params, int n_ranks)
{
  int any = params->px != 0 || params->py != 0 || params->pz != 0;
  if (params->partition == CC_PARTITION_METIS) {
    CC_CHECK(!any, CC_ERR_ARG,
             "px x py x pz = %d x %d x %d given, but only the box partition uses it", params->px,
             params->py, params->pz);
    return CC_OK;
  }
  CC_CHECK(params->partition == CC_PARTITION_BOX, CC_ERR_ARG, "unknown partition kind %d",
           (int)params->partition);
  int dims[3];
  CC_CALL(cc_mesh_box_dims(params, n_ranks, dims));
  return CC_OK;
}

/* METIS numbers with 32-bit idx_t: its vertex weights sum to the node count, the block graph's
 * adjacency (<= 26 per block) and the Scatterv of (block, owner) pairs (each block to <= 27 ranks,
 * int displacements) must fit, and the largest part (balanced to 1.03 of the mean, plus a block)
 * with its halo must fit cubecg's local index limit. */
static cc_err check_metis(const cc_mesh_params *params, int n_ranks)
{
  int n[3]     = {params->nx, params->ny, params->nz}, m[3];
  double nodes = (double)n[0] * n[1] * n[2];
  CC_CHECK(nodes < (double)INT32_MAX, CC_ERR_ARG,
           "mesh %dx%dx%d: %.0f nodes exceed METIS's 32-bit idx_t (its vertex weights sum to the "
           "node count, limit %d): use --partition box",
           n[0], n[1], n[2], nodes, INT32_MAX);
  cc_mesh_metis_blocks(n, n_ranks, m);
  double blocks = (double)m[0] * m[1] * m[2];
  CC_CHECK(54.0 * blocks < (double)INT32_MAX, CC_ERR_ARG,
           "mesh %dx%dx%d on %d ranks: METIS's block graph of %.0f blocks exceeds the 32-bit "
           "index limit of %d blocks (idx_t adjacency and the owners' Scatterv): use --partition "
           "box",
           n[0], n[1], n[2], n_ranks, blocks, INT32_MAX / 54);
  double owned = 0, local = largest_rank_nodes(params, n_ranks, &owned);
  double scale = (1.03 * nodes / n_ranks + nodes / blocks) / owned;
  CC_CHECK(local * scale * 1.5 <= CC_MESH_MAX_LOCAL_NODES, CC_ERR_ARG,
           "mesh %dx%dx%d on %d ranks: a METIS part with its halo (about %.3g nodes) exceeds the "
           "32-bit local index limit %d: use more ranks or --partition box",
           n[0], n[1], n[2], n_ranks, local * scale * 1.5, CC_MESH_MAX_LOCAL_NODES);
  return CC_OK;
}

double cc_mesh_rhs_norm(const cc_mesh_params *params)
{
  double sx = 2.0 + 4.0 * (params->nx - 2), sy = 2.0 + 4.0 * (params->ny - 2);
  return 0.25 * fabs(params->traction) * sqrt(sx * sy);
}

/* The load must give a right-hand side whose squared norms CG can compute. The solvers form
 * |r|^2 = (r, r) and the energy products (r, M^-1 r), (p, A p), which scale as |b|^2 / E, and
 * follow them from |b| down to the attainable eps |b|. Criterion: every such square, from
 * max(1, 1/E) |b|^2 down to min(1, 1/E) (eps |b|)^2, is a normal double (no overflow to Inf, no
 * underflow to a subnormal or 0, where the recurrences lose their digits or divide by 0). With
 * E = 1 this accepts about 6.7e-139 <= |b| <= 1.3e154. p = 0 (b = 0, solution 0) is refused too. */
static cc_err check_load(const cc_mesh_params *params)
{
  CC_CHECK(params->traction != 0.0, CC_ERR_ARG,
           "--traction 0: a zero load gives b = 0 and the solution u = 0 (nothing to solve)");
  double bnorm = cc_mesh_rhs_norm(params), E = params->E;
  /* in logarithms: the squares themselves are what may not be representable */
  double hi = 2 * log2(bnorm) + fmax(0.0, -log2(E));
  double lo = 2 * log2(DBL_EPSILON * bnorm) + fmin(0.0, -log2(E));
  CC_CHECK(
      hi < log2(DBL_MAX), CC_ERR_ARG,
      "--traction %g: |b| = %.3g with E = %g overflows: |b|^2 (or |b|^2/E) exceeds the largest "
      "double %.3g",
      params->traction, bnorm, E, DBL_MAX);
  CC_CHECK(
      lo >= log2(DBL_MIN), CC_ERR_ARG,
      "--traction %g: |b| = %.3g with E = %g underflows: the squared residual norms CG computes "
      "(down to (eps |b|)^2 min(1, 1/E) = 2^%.0f) would be subnormal (< %.3g)",
      params->traction, bnorm, E, lo, DBL_MIN);
  return CC_OK;
}

cc_err cc_mesh_params_validate(const cc_mesh_params *params, int n_ranks, int64_t memory_limit)
{
  int nx = params->nx, ny = params->ny, nz = params->nz;
  const char *axis = nx < 2 ? "nx" : ny < 2 ? "ny" : "nz";
  int bad          = nx < 2 ? nx : ny < 2 ? ny : nz;
  CC_CHECK(nx >= 2 && ny >= 2 && nz >= 2, CC_ERR_ARG,
           "--%s %d: every direction needs at least 2 nodes (mesh %dx%dx%d)", axis, bad, nx, ny,
           nz);
  CC_CHECK(n_ranks >= 1, CC_ERR_ARG, "number of ranks %d < 1", n_ranks);
  double global = (double)nx * ny * nz;
  /* 3*N global DOFs as int64 with a wide margin (products like 3*N*8 bytes must not overflow) */
  CC_CHECK(3.0 * global < 0x1p58, CC_ERR_ARG,
           "mesh %dx%dx%d has %.3g nodes: 3 DOF per node does not fit int64 comfortably", nx, ny,
           nz, global);
  CC_CHECK(isfinite(params->E) && params->E > 0, CC_ERR_ARG, "Young's modulus E = %g must be > 0",
           params->E);
  CC_CHECK(isfinite(params->nu) && params->nu >= 0 && params->nu < 0.5, CC_ERR_ARG,
           "Poisson ratio nu = %g outside [0, 0.5)", params->nu);
  CC_CHECK(isfinite(params->traction), CC_ERR_ARG, "traction p = %g is not finite",
           params->traction);
  CC_CALL(check_load(params));
  CC_CHECK((double)n_ranks <= global, CC_ERR_ARG, "%d ranks for only %.0f nodes (mesh %dx%dx%d)",
           n_ranks, global, nx, ny, nz);
  double owned = 0, local = largest_rank_nodes(params, n_ranks, &owned);
  int64_t bytes = cc_mesh_estimate_bytes(params, n_ranks);
  CC_CHECK(local <= CC_MESH_MAX_LOCAL_NODES, CC_ERR_ARG,
           "mesh %dx%dx%d needs about %.1f GiB per rank on %d ranks: %.3g local nodes exceed the "
           "32-bit local index limit %d",
           nx, ny, nz, (double)bytes / GIB, n_ranks, local, CC_MESH_MAX_LOCAL_NODES);
  CC_CALL(check_partition(params, n_ranks));
  if (params->partition == CC_PARTITION_METIS && n_ranks > 1) CC_CALL(check_metis(params, n_ranks));
  if (memory_limit > 0) {
    int64_t root = cc_mesh_estimate_rank_bytes(params, n_ranks, 1);
    int64_t rest = cc_mesh_estimate_rank_bytes(params, n_ranks, 0);
    CC_CHECK(bytes <= memory_limit, CC_ERR_MEM,
             "mesh %dx%dx%d needs about %.1f GiB per rank (%.2f GiB on rank 0, %.2f GiB on the "
             "others), limit %.1f GiB",
             nx, ny, nz, (double)bytes / GIB, (double)root / GIB, (double)rest / GIB,
             (double)memory_limit / GIB);
  }
  return CC_OK;
}
