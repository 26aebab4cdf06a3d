/* ordering_mc.c: greedy multicoloring with a target of K colors (K. Nakajima's MC routine, GeoFEM
 * / "ICCG with OpenMP" lectures): color c takes, in node order, uncolored nodes not coupled to a
 * node already in c, at most ceil(n/K) of them (balanced colors); nodes left after K colors get
 * extra colors. n_colors records the number actually used.
 */
#include "cc_ordering_impl.h"

cc_err cc_ordering_create_mc(const cc_graph *g, int colors, cc_ordering *ord)
{
  const int n   = g->n;
  const int cap = (int)(((int64_t)n + colors - 1) / colors);
  int *color = NULL, *blocked = NULL, *count = NULL;
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &color));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &blocked));
  CC_CALL(cc_calloc((size_t)n + 1, sizeof(int), &count)); /* at most n colors */
  for (int i = 0; i < n; i++) color[i] = blocked[i] = -1;
  int n_colored = 0, c = 0, first_free = 0;
  for (; n_colored < n; c++) {
    /* blocked[v] == c: v is coupled to a node of color c */
    for (int i = first_free; i < n && count[c] < cap; i++) {
      if (color[i] >= 0 || blocked[i] == c) continue;
      color[i] = c;
      count[c]++;
      n_colored++;
      for (int64_t k = g->ptr[i]; k < g->ptr[i + 1]; k++) blocked[g->adj[k]] = c;
    }
    while (first_free < n && color[first_free] >= 0) first_free++;
  }
  /* contiguous colors, ascending old id within a color */
  CC_CALL(cc_malloc((size_t)c + 1, sizeof(int), &ord->color_ptr));
  ord->color_ptr[0] = 0;
  for (int k = 0; k < c; k++) ord->color_ptr[k + 1] = ord->color_ptr[k] + count[k];
  for (int k = 0; k < c; k++) count[k] = ord->color_ptr[k];
  for (int i = 0; i < n; i++) {
    int p              = count[color[i]]++;
    ord->old_of_new[p] = i;
    ord->new_of_old[i] = p;
  }
  ord->n_colors = c;
  ord->n_levels = 0;
  cc_free(&color);
  cc_free(&blocked);
  cc_free(&count);
  return CC_OK;
}
