/* ordering.c: ordering registry (natural, rcm, mc, cm-rcm), the node graph, and the permutation of
 * the local system: matrix rows/columns, communication table export items and vectors
 * (GeoFEM MAT_CON1's "matrix transfer"; K. Nakajima, SC2003, multicolor reordering).
 */
#include "cc_ordering_impl.h"

#include <limits.h>

/* ---------------------------------------------------------------------------------------------- */
/* Graph */
/* ---------------------------------------------------------------------------------------------- */

cc_err cc_graph_from_bcrs(const cc_bcrs *a, cc_graph *g)
{
  const int n = a->n_rows;
  g->n        = n;
  g->adj      = NULL;
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int64_t), &g->ptr));
  g->ptr[0] = 0;
  for (int i = 0; i < n; i++) {
    int64_t deg = 0;
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      deg += a->col_idx[k] != i && a->col_idx[k] < n;
    g->ptr[i + 1] = g->ptr[i] + deg;
  }
  CC_CALL(cc_malloc((size_t)g->ptr[n], sizeof(int32_t), &g->adj));
  for (int i = 0; i < n; i++) {
    int64_t p = g->ptr[i];
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      if (a->col_idx[k] != i && a->col_idx[k] < n) g->adj[p++] = a->col_idx[k];
  }
  return CC_OK;
}

void cc_graph_free(cc_graph *g)
{
  cc_free(&g->ptr);
  cc_free(&g->adj);
  g->n = 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Registry */
/* ---------------------------------------------------------------------------------------------- */

/* natural: identity numbering, sequential sweep */
static cc_err ordering_create_natural(const cc_graph *g, int colors, cc_ordering *ord)
{
  (void)colors;
  for (int i = 0; i < g->n; i++) ord->new_of_old[i] = ord->old_of_new[i] = i;
  ord->n_colors = 0;
  ord->n_levels = 0;
  CC_CALL(cc_calloc(1, sizeof(int), &ord->color_ptr));
  return CC_OK;
}

const cc_ordering_kind cc_ordering_list[] = {
    {"natural", "as generated (sequential SGS sweep)", 0, ordering_create_natural},
    {"rcm", "reverse Cuthill-McKee (sequential SGS sweep)", 0, cc_ordering_create_rcm},
    {"mc", "greedy multicoloring MC(K)", 1, cc_ordering_create_mc},
    {"cm-rcm", "cyclic multicoloring of RCM levels CM-RCM(K)", 1, cc_ordering_create_cmrcm},
    {NULL, NULL, 0, NULL},
};

/* Each node once in old_of_new, new_of_old its inverse, colors cover [0, n) in order. */
static cc_err ordering_validate(const cc_ordering *ord)
{
  const int n = ord->n_nodes;
  for (int i = 0; i < n; i++) {
    int j = ord->old_of_new[i];
    CC_CHECK(j >= 0 && j < n && ord->new_of_old[j] == i, CC_ERR_CHECK,
             "ordering '%s' is not a permutation at new id %d (old id %d)", ord->kind, i, j);
  }
  if (ord->n_colors > 0) {
    CC_CHECK(ord->color_ptr[0] == 0 && ord->color_ptr[ord->n_colors] == n, CC_ERR_CHECK,
             "ordering '%s': colors cover [%d, %d) instead of [0, %d)", ord->kind,
             ord->color_ptr[0], ord->color_ptr[ord->n_colors], n);
    for (int c = 0; c < ord->n_colors; c++)
      CC_CHECK(ord->color_ptr[c] <= ord->color_ptr[c + 1], CC_ERR_CHECK,
               "ordering '%s': color %d has a negative size", ord->kind, c);
  }
  return CC_OK;
}

static cc_err ordering_create(const char *kind, int colors, const cc_bcrs *a, cc_ordering *ord)
{
  memset(ord, 0, sizeof *ord);
  CC_CHECK(kind != NULL, CC_ERR_ARG, "ordering kind missing");
  int idx         = -1;
  char known[128] = "";
  for (int i = 0; cc_ordering_list[i].name; i++) {
    if (strcmp(kind, cc_ordering_list[i].name) == 0) idx = i;
    size_t used = strlen(known);
    snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", cc_ordering_list[i].name);
  }
  CC_CHECK(idx >= 0, CC_ERR_ARG, "unknown ordering '%s' (known: %s)", kind, known);
  if (cc_ordering_list[idx].needs_colors)
    CC_CHECK(colors >= 2, CC_ERR_ARG, "ordering '%s' needs colors >= 2, got colors = %d", kind,
             colors);
  snprintf(ord->kind, sizeof ord->kind, "%s", kind);
  ord->colors_requested = colors;
  ord->n_nodes          = a->n_rows;
  CC_CALL(cc_malloc((size_t)a->n_rows, sizeof(int), &ord->new_of_old));
  CC_CALL(cc_malloc((size_t)a->n_rows, sizeof(int), &ord->old_of_new));
  cc_graph g = {0};
  cc_err err = cc_graph_from_bcrs(a, &g);
  if (!err) err = cc_ordering_list[idx].create(&g, colors, ord);
  cc_graph_free(&g);
  CC_CHECK(err == CC_OK, err, "ordering '%s' with %d colors", kind, colors);
  CC_CALL(ordering_validate(ord));
  return CC_OK;
}

cc_err cc_ordering_create(const char *kind, int colors, const cc_bcrs *a, cc_ordering *ord)
{
  cc_err err = ordering_create(kind, colors, a, ord); /* the caller times it (CC_T_ORDERING) */
  if (err) cc_ordering_free(ord);
  CC_CHECK(err == CC_OK, err, "creating ordering '%s'", kind ? kind : "(null)");
  return CC_OK;
}

void cc_ordering_free(cc_ordering *ord)
{
  cc_free_all((void *[]){&ord->level_first, &ord->level_order, &ord->level_shift, &ord->color_ptr,
                         &ord->new_of_old, &ord->old_of_new, NULL});
  ord->n_colors = ord->n_nodes = 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Permuting the system */
/* ---------------------------------------------------------------------------------------------- */

/* Sort the (column, block) pairs of one row by column: rows are short (<= 27 blocks), so an
 * insertion sort on an index array. */
static void row_sort(int len, int32_t *col, int *idx)
{
  for (int p = 1; p < len; p++) {
    int32_t c = col[p];
    int x = idx[p], q = p - 1;
    while (q >= 0 && col[q] > c) {
      col[q + 1] = col[q];
      idx[q + 1] = idx[q];
      q--;
    }
    col[q + 1] = c;
    idx[q + 1] = x;
  }
}

/* Copy old row `io` into new row `in` with renumbered, sorted columns; returns -1 on success or
 * the new row id when the row is too long / has no diagonal. */
static int row_permute(const cc_ordering *ord, const cc_bcrs *a, int in, cc_bcrs *b)
{
  enum { MAXROW = 128 };
  int32_t col[MAXROW];
  int idx[MAXROW];
  const int n = a->n_rows;
  int io      = ord->old_of_new[in];
  int64_t k0  = a->row_ptr[io];
  int len     = (int)(a->row_ptr[io + 1] - k0);
  if (len > MAXROW) return in;
  for (int p = 0; p < len; p++) {
    int32_t j = a->col_idx[k0 + p];
    col[p]    = j < n ? ord->new_of_old[j] : j; /* halo columns keep their ids */
    idx[p]    = p;
  }
  row_sort(len, col, idx);
  int64_t q0      = b->row_ptr[in];
  b->diag_pos[in] = -1;
  for (int p = 0; p < len; p++) {
    b->col_idx[q0 + p] = col[p];
    memcpy(b->val + 9 * (q0 + p), a->val + 9 * (k0 + idx[p]), 9 * sizeof(double));
    if (col[p] == in) b->diag_pos[in] = q0 + p;
  }
  return b->diag_pos[in] < 0 ? in : -1;
}

static cc_err ordering_apply(const cc_ordering *ord, cc_bcrs *a, cc_comm_table *comm)
{
  const int n = a->n_rows;
  CC_CHECK(ord->n_nodes == n, CC_ERR_ARG,
           "ordering '%s' has %d nodes but the matrix has %d internal rows", ord->kind,
           ord->n_nodes, n);
  CC_CHECK(a->l_ptr == NULL, CC_ERR_ARG,
           "ordering '%s': the matrix is already split (assembled in its final order)", ord->kind);
  cc_bcrs b = {.n_rows = n, .n_cols = a->n_cols, .n_blocks = a->n_blocks};
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int64_t), &b.row_ptr));
  CC_CALL(cc_malloc((size_t)a->n_blocks, sizeof(int32_t), &b.col_idx));
  CC_CALL(cc_malloc(9 * (size_t)a->n_blocks, sizeof(double), &b.val));
  CC_CALL(cc_malloc((size_t)n, sizeof(int64_t), &b.diag_pos));
  b.row_ptr[0] = 0;
  for (int i = 0; i < n; i++) {
    int io           = ord->old_of_new[i];
    b.row_ptr[i + 1] = b.row_ptr[i] + (a->row_ptr[io + 1] - a->row_ptr[io]);
  }
  /* First touch of the new rows by the threads that stream them: the matrix itself is read by
   * the SpMV (static schedule over all rows); the SGS sweeps read their own L/U copies, which
   * cc_sgs_setup first-touches with the per-color static schedule. */
  int bad = INT_MAX;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int i = 0; i < n; i++) {
    int r = row_permute(ord, a, i, &b);
    if (r >= 0 && r < bad) bad = r;
  }
  if (bad != INT_MAX) {
    cc_bcrs_free(&b);
    CC_FAIL(CC_ERR_ARG, "row %d (old row %d) has no diagonal block or more than 128 blocks", bad,
            ord->old_of_new[bad]);
  }
  cc_bcrs_free(a);
  *a = b;
  if (comm) cc_ordering_apply_comm(ord, comm);
  return CC_OK;
}

void cc_ordering_apply_comm(const cc_ordering *ord, cc_comm_table *comm)
{
  /* export items are internal ids: renumber; import items are halo ids: unchanged */
  for (int k = 0; k < comm->export_index[comm->n_neighbors]; k++)
    comm->export_item[k] = ord->new_of_old[comm->export_item[k]];
}

cc_err cc_ordering_apply(const cc_ordering *ord, cc_bcrs *a, cc_comm_table *comm)
{
  cc_err err = ordering_apply(ord, a, comm); /* the caller times it (CC_T_ORDERING) */
  CC_CHECK(err == CC_OK, err, "applying ordering '%s'", ord->kind);
  return CC_OK;
}

/* out[i] = in[from[i]], 3 values per node */
static void gather3(int n, const int *from, const double *in, double *out)
{
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    const double *s         = in + 3 * (int64_t)from[i];
    out[3 * (int64_t)i]     = s[0];
    out[3 * (int64_t)i + 1] = s[1];
    out[3 * (int64_t)i + 2] = s[2];
  }
}

void cc_ordering_permute(const cc_ordering *ord, const double *in_old, double *out_new)
{
  gather3(ord->n_nodes, ord->old_of_new, in_old, out_new);
}

void cc_ordering_unpermute(const cc_ordering *ord, const double *in_new, double *out_old)
{
  gather3(ord->n_nodes, ord->new_of_old, in_new, out_old);
}
