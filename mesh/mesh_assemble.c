/* mesh_assemble.c: 3x3 block CRS assembly of the GeoFEM/Cube stiffness matrix, row by row (each
 * internal node sums the element blocks around it), so OpenMP threads first-touch the rows they
 * later stream. Boundary conditions: symmetric elimination of u_x (x=0), u_y (y=0), u_z (z=0);
 * uniform traction p on z = zmax as consistent nodal forces of the bilinear face. An eliminated row
 * keeps its own diagonal entry (scale-invariant: see assemble_row).
 */
#include "mesh_internal.h"

/* Rows ahead whose neighbour ids the loops start loading: enough to cover a miss, few enough that
 * the lines are still in cache when the row is filled. */
#ifndef CC_ASSEMBLE_PREFETCH_ROWS
#define CC_ASSEMBLE_PREFETCH_ROWS 4
#endif

/* Blocks of a row = 27-point neighbours inside the mesh. */
static int row_blocks(const cc_mesh *m, int i, int j, int k)
{
  return (1 + (i > 0) + (i < m->nx - 1)) * (1 + (j > 0) + (j < m->ny - 1)) *
         (1 + (k > 0) + (k < m->nz - 1));
}

/* A renumbering of the internal nodes (NULL arrays = identity); external ids are unchanged. */
typedef struct {
  const int *new_of_old, *old_of_new;
} node_order;

/* What the rows read, laid out for the fill order: the lookup box holding each node's new local
 * id, and each row's cell in that box. A row then reads its own cell in sequence and its 27
 * neighbours from 9 runs of 3 ids in the box; the global id, its coordinates and the renumbering
 * are paid once per node here instead of 27 times per row at random places of n-sized arrays,
 * which made the time per DOF grow with the local mesh once they left the caches. */
typedef struct {
  cc_mesh_lookup l; /* l.id: new local ids */
  int64_t cells;    /* of the box */
  int64_t *row_cell;
} row_lookup;

static cc_err row_lookup_create(const cc_mesh *m, const node_order *o, row_lookup *rl)
{
  CC_CALL(cc_mesh_lookup_create(m, &rl->l));
  cc_err err = cc_malloc((size_t)m->n_internal, sizeof(int64_t), &rl->row_cell);
  if (err != CC_OK) {
    cc_mesh_lookup_free(&rl->l);
    return err;
  }
  const cc_mesh_lookup *l = &rl->l;
  const int64_t cells = rl->cells = l->wx * l->wy * (l->hi[2] - l->lo[2] + 1);
  if (o->new_of_old) {
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < cells; c++) {
      int32_t id = l->id[c];
      if (id >= 0 && id < m->n_internal) l->id[c] = o->new_of_old[id];
    }
  }
#pragma omp parallel for schedule(static)
  for (int v = 0; v < m->n_internal; v++) {
    int i, j, k;
    cc_mesh_coords(m, m->global_id[v], &i, &j, &k);
    rl->row_cell[o->new_of_old ? o->new_of_old[v] : v] =
        (i - l->lo[0]) + l->wx * ((j - l->lo[1]) + l->wy * (k - l->lo[2]));
  }
  return CC_OK;
}

static void row_lookup_free(row_lookup *rl)
{
  cc_mesh_lookup_free(&rl->l);
  cc_free(&rl->row_cell);
}

/* Row v's node coordinates from its cell. */
static inline int64_t row_coords(const row_lookup *rl, int v, int *i, int *j, int *k)
{
  const int64_t c = rl->row_cell[v], cxy = c / rl->l.wx;
  *i = rl->l.lo[0] + (int)(c - cxy * rl->l.wx);
  *j = rl->l.lo[1] + (int)(cxy % rl->l.wy);
  *k = rl->l.lo[2] + (int)(cxy / rl->l.wy);
  return c;
}

/* Start loading the 9 runs of ids that row v will read (those inside the box: a row on the box's
 * edge has fewer). */
static inline void row_prefetch(const row_lookup *rl, int v)
{
  const int64_t c = rl->row_cell[v], wx = rl->l.wx, wxy = wx * rl->l.wy;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++) {
      const int64_t first = c + dy * wx + dz * wxy - 1;
      if (first >= 0 && first < rl->cells) __builtin_prefetch(rl->l.id + first);
    }
}

/* Row v's columns (new local ids, ascending) with their stencil positions; returns the count. */
static int row_columns(const cc_mesh *m, const row_lookup *rl, int v, int32_t loc[27], int sten[27],
                       int *i, int *j, int *k)
{
  const int64_t c = row_coords(rl, v, i, j, k), wx = rl->l.wx, wxy = wx * rl->l.wy;
  /* stencil s = (dx+1) + 3(dy+1) + 9(dz+1) */
  int n = 0;
  for (int s = 0; s < 27; s++) {
    int dx = s % 3 - 1, dy = (s / 3) % 3 - 1, dz = s / 9 - 1;
    int x = *i + dx, y = *j + dy, z = *k + dz;
    if (x < 0 || y < 0 || z < 0 || x >= m->nx || y >= m->ny || z >= m->nz) continue;
    int32_t id = rl->l.id[c + dx + dy * wx + dz * wxy];
    int t      = n++;
    /* insertion sort by local id */
    for (; t > 0 && loc[t - 1] > id; t--) loc[t] = loc[t - 1], sten[t] = sten[t - 1];
    loc[t] = id, sten[t] = s;
  }
  return n;
}

/* Fill row v (new numbering): columns (local ids ascending), values, diag_pos, and b's 3 entries.
 * With a == pattern only (val NULL): columns and diag_pos. With a split matrix (l_ptr set) the
 * blocks left of the diagonal go to the lower part. */
static void assemble_row(const cc_mesh *m, const row_lookup *rl, const double *ke, double p,
                         cc_bcrs *a, double *b, int v)
{
  int i, j, k, pos[27], sten[27];
  int32_t loc[27];
  int n = row_columns(m, rl, v, loc, sten, &i, &j, &k);
  for (int s = 0; s < 27; s++) pos[s] = -1;
  for (int t = 0; t < n; t++) pos[sten[t]] = t;
  int n_lower   = a->l_ptr ? pos[13] : 0; /* blocks stored apart, before the diagonal */
  int64_t start = a->row_ptr[v];
  for (int t = n_lower; t < n; t++) a->col_idx[start + t - n_lower] = loc[t];
  for (int t = 0; t < n_lower; t++) a->l_col[a->l_ptr[v] + t] = loc[t];
  a->diag_pos[v] = start + pos[13] - n_lower;
  if (!a->val) return; /* pattern only */
  double row[27 * 9];
  memset(row, 0, 9 * (size_t)n * sizeof(double));

  /* elements with min corner (i+ex, j+ey, k+ez), ascending element id (the same order from either
   * end of a node pair, so A stays bitwise symmetric) */
  for (int ez = -1; ez <= 0; ez++)
    for (int ey = -1; ey <= 0; ey++)
      for (int ex = -1; ex <= 0; ex++) {
        if (i + ex < 0 || j + ey < 0 || k + ez < 0 || i + ex > m->nx - 2 || j + ey > m->ny - 2 ||
            k + ez > m->nz - 2)
          continue;
        int ra = -ex - 2 * ey - 4 * ez; /* this node's corner in the element */
        for (int cb = 0; cb < 8; cb++) {
          int s = (ex + (cb & 1) + 1) + 3 * (ey + ((cb >> 1) & 1) + 1) + 9 * (ez + (cb >> 2) + 1);
          double *blk = row + 9 * pos[s];
          for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) blk[3 * r + c] += ke[(3 * ra + r) * 24 + 3 * cb + c];
        }
      }

  /* consistent nodal force of p on the top face: p/4 from each adjacent face quad, in z */
  double *bv = b + 3 * (int64_t)v;
  bv[0] = bv[1] = 0;
  bv[2] = k == m->nz - 1 ? 0.25 * p * ((i > 0) + (i < m->nx - 1)) * ((j > 0) + (j < m->ny - 1)) : 0;

  /* symmetric elimination of u_c = g (g = 0 here): b_r -= A(r, c) g for the column, then zero the
   * row and column, keep the row's own diagonal entry d, b_c = d g. The diagonal is the row's own
   * A(c, c) rather than 1 (PETSc's MatZeroRows puts the mean diagonal there): like 1, it leaves the
   * solution unchanged, but it scales with E, so the eliminated rows sit inside the spectrum
   * whatever the units (a 1 beside E = 2.1e11 made the diagonal blocks look singular and the
   * condition number depend on E). The own entry needs no global reduction, so A is bitwise the
   * same on every partition, and block Jacobi/SGS map the eliminated DOF to itself exactly. */
  const double g = 0.0;
  double d_own[3];
  for (int r = 0; r < 3; r++) d_own[r] = row[9 * pos[13] + 4 * r];
  for (int t = 0; t < n; t++) {
    int s = sten[t], x = i + s % 3 - 1, y = j + (s / 3) % 3 - 1, z = k + s / 9 - 1;
    int col_fixed[3] = {x == 0, y == 0, z == 0};
    double *blk      = row + 9 * t;
    for (int c = 0; c < 3; c++)
      if (col_fixed[c])
        for (int r = 0; r < 3; r++) {
          bv[r] -= blk[3 * r + c] * g;
          blk[3 * r + c] = 0;
        }
  }
  int row_fixed[3] = {i == 0, j == 0, k == 0};
  for (int r = 0; r < 3; r++) {
    if (!row_fixed[r]) continue;
    for (int t = 0; t < n; t++)
      for (int c = 0; c < 3; c++) row[9 * t + 3 * r + c] = 0;
    row[9 * pos[13] + 4 * r] = d_own[r]; /* diagonal entry (r, r) of the diagonal block */
    bv[r]                    = d_own[r] * g;
  }
  if (n_lower) memcpy(a->l_val + 9 * a->l_ptr[v], row, 9 * (size_t)n_lower * sizeof(double));
  memcpy(a->val + 9 * start, row + 9 * n_lower, 9 * (size_t)(n - n_lower) * sizeof(double));
}

/* Shared by the pattern and the full assembly. */
static cc_err assemble(const cc_mesh *mesh, const cc_mesh_params *params, const node_order *o,
                       int n_groups, const int *group_ptr, int with_values, int split_lower,
                       cc_bcrs *a, double **b)
{
  memset(a, 0, sizeof *a);
  CC_CHECK((o->new_of_old == NULL) == (o->old_of_new == NULL), CC_ERR_ARG,
           "node order needs both new_of_old and old_of_new");
  double ke[24 * 24];
  cc_mesh_element_stiffness(params->E, params->nu, ke);
  row_lookup rl;
  CC_CALL(row_lookup_create(mesh, o, &rl));

  int n_rows = mesh->n_internal;
  a->n_rows  = n_rows;
  a->n_cols  = mesh->n_total;
  CC_CALL(cc_malloc((size_t)n_rows + 1, sizeof(int64_t), &a->row_ptr));
  if (split_lower) CC_CALL(cc_malloc((size_t)n_rows + 1, sizeof(int64_t), &a->l_ptr));
  /* block counts per row (lower part: columns left of the diagonal), then prefix sums serially */
  a->row_ptr[0] = 0;
#pragma omp parallel for schedule(static)
  for (int v = 0; v < n_rows; v++) {
    int i, j, k, sten[27];
    int32_t loc[27];
    int64_t n_lower = 0;
    if (split_lower) {
      if (v + CC_ASSEMBLE_PREFETCH_ROWS < n_rows) row_prefetch(&rl, v + CC_ASSEMBLE_PREFETCH_ROWS);
      int n = row_columns(mesh, &rl, v, loc, sten, &i, &j, &k);
      for (int t = 0; t < n; t++) n_lower += loc[t] < v;
      a->l_ptr[v + 1] = n_lower;
    } else {
      row_coords(&rl, v, &i, &j, &k);
    }
    a->row_ptr[v + 1] = row_blocks(mesh, i, j, k) - n_lower;
  }
  if (split_lower) a->l_ptr[0] = 0;
  for (int v = 0; v < n_rows; v++) {
    a->row_ptr[v + 1] += a->row_ptr[v];
    if (split_lower) a->l_ptr[v + 1] += a->l_ptr[v];
  }
  a->n_blocks = a->row_ptr[n_rows];
  CC_CALL(cc_malloc((size_t)a->n_blocks, sizeof(int32_t), &a->col_idx));
  if (with_values) CC_CALL(cc_malloc((size_t)a->n_blocks * 9, sizeof(double), &a->val));
  if (split_lower) {
    CC_CALL(cc_malloc((size_t)a->l_ptr[n_rows], sizeof(int32_t), &a->l_col));
    if (with_values) CC_CALL(cc_malloc((size_t)a->l_ptr[n_rows] * 9, sizeof(double), &a->l_val));
  }
  CC_CALL(cc_malloc((size_t)n_rows, sizeof(int64_t), &a->diag_pos));
  double *rhs = NULL;
  if (b) {
    CC_CALL(cc_malloc((size_t)mesh->n_total * 3, sizeof(double), b));
    rhs = *b;
  }

  /* Fill rows in parallel, group by group, each group split statically over the threads: the
   * schedule of the kernels that stream these rows later (a multicolor sweep passes its colors),
   * so first touch puts each thread's rows in its own memory. */
  int one_group[2]  = {0, n_rows};
  const int *groups = group_ptr ? group_ptr : one_group;
  int n_grp         = group_ptr ? n_groups : 1;
  double p          = params->traction;
#pragma omp parallel
  for (int g = 0; g < n_grp; g++) {
#pragma omp for schedule(static) nowait
    for (int v = groups[g]; v < groups[g + 1]; v++) {
      if (v + CC_ASSEMBLE_PREFETCH_ROWS < groups[g + 1])
        row_prefetch(&rl, v + CC_ASSEMBLE_PREFETCH_ROWS);
      assemble_row(mesh, &rl, ke, p, a, rhs, v);
    }
  }
  if (rhs)
    for (int64_t d = 3 * (int64_t)n_rows; d < 3 * (int64_t)mesh->n_total; d++) rhs[d] = 0;
  row_lookup_free(&rl);
  return CC_OK;
}

cc_err cc_mesh_assemble(const cc_mesh *mesh, const cc_mesh_params *params, cc_bcrs *a, double **b)
{
  node_order o = {NULL, NULL};
  CC_CALL(assemble(mesh, params, &o, 0, NULL, 1, 0, a, b));
  return CC_OK;
}

cc_err cc_mesh_assemble_ordered(const cc_mesh *mesh, const cc_mesh_params *params,
                                const int *new_of_old, const int *old_of_new, int n_groups,
                                const int *group_ptr, int split_lower, cc_bcrs *a, double **b)
{
  CC_CHECK(!group_ptr ||
               (n_groups >= 1 && group_ptr[0] == 0 && group_ptr[n_groups] == mesh->n_internal),
           CC_ERR_ARG, "row groups must cover the %d internal nodes", mesh->n_internal);
  node_order o = {new_of_old, old_of_new};
  CC_CALL(assemble(mesh, params, &o, n_groups, group_ptr, 1, split_lower, a, b));
  return CC_OK;
}

cc_err cc_mesh_pattern(const cc_mesh *mesh, cc_bcrs *pattern)
{
  node_order o = {NULL, NULL};
  cc_mesh_params unit;
  cc_mesh_params_default(&unit);
  CC_CALL(assemble(mesh, &unit, &o, 0, NULL, 0, 0, pattern, NULL));
  return CC_OK;
}
