/* ordering_rcm.c: reverse Cuthill-McKee from a George-Liu pseudo-peripheral node (A. George,
 * J. W. Liu, "Computer Solution of Large Sparse Positive Definite Systems", 1981, sec. 4.3-4.4).
 * The sweep over an RCM numbering is sequential (n_colors = 0); n_levels counts the BFS levels.
 */
#include "cc_ordering_impl.h"

/* Breadth-first level structure rooted at root over the nodes with mask == 0. queue receives the
 * nodes level by level, level[] their levels; returns the number of levels and sets *count, *last
 * (start of the last level in queue). level[] is left set: the caller resets it. */
static int bfs_levels(const cc_graph *g, const int *mask, int root, int *level, int *queue,
                      int *count, int *last)
{
  int head = 0, tail = 0, nlev = 1;
  queue[tail++] = root;
  level[root]   = 0;
  *last         = 0;
  while (head < tail) {
    int v = queue[head++];
    for (int64_t k = g->ptr[v]; k < g->ptr[v + 1]; k++) {
      int w = g->adj[k];
      if (mask[w] || level[w] >= 0) continue;
      level[w] = level[v] + 1;
      if (level[w] + 1 > nlev) {
        nlev  = level[w] + 1;
        *last = tail;
      }
      queue[tail++] = w;
    }
  }
  *count = tail;
  return nlev;
}

static int degree_in(const cc_graph *g, const int *mask, int v)
{
  int d = 0;
  for (int64_t k = g->ptr[v]; k < g->ptr[v + 1]; k++) d += !mask[g->adj[k]];
  return d;
}

int cc_graph_pseudo_peripheral(const cc_graph *g, const int *mask, int start, int *level,
                               int *queue)
{
  int root = start, count, last;
  int nlev = bfs_levels(g, mask, root, level, queue, &count, &last);
  for (;;) {
    /* the node of minimum degree in the last level; deeper structure => new root */
    int best = queue[last], best_deg = degree_in(g, mask, best);
    for (int p = last + 1; p < count; p++) {
      int d = degree_in(g, mask, queue[p]);
      if (d < best_deg || (d == best_deg && queue[p] < best)) best = queue[p], best_deg = d;
    }
    for (int p = 0; p < count; p++) level[queue[p]] = -1;
    if (best == root) break;
    int nlev2 = bfs_levels(g, mask, best, level, queue, &count, &last);
    if (nlev2 <= nlev) {
      for (int p = 0; p < count; p++) level[queue[p]] = -1;
      break;
    }
    root = best;
    nlev = nlev2;
  }
  return root;
}

cc_err cc_ordering_create_rcm(const cc_graph *g, int colors, cc_ordering *ord)
{
  (void)colors;
  const int n = g->n;
  int *mask = NULL, *level = NULL, *queue = NULL, *order = NULL, *depth = NULL;
  CC_CALL(cc_calloc((size_t)n + 1, sizeof(int), &mask));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &level));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &queue));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &order));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &depth));
  for (int i = 0; i < n; i++) level[i] = -1;
  int num = 0, n_levels = 0;
  for (int s = 0; s < n; s++) {
    if (mask[s]) continue;
    /* Cuthill-McKee on the component of s: BFS, children by increasing degree */
    int root = cc_graph_pseudo_peripheral(g, mask, s, level, queue);
    int head = num, max_depth = 0;
    mask[root]   = 1;
    depth[root]  = 0;
    order[num++] = root;
    while (head < num) {
      int v = order[head++], first = num;
      for (int64_t k = g->ptr[v]; k < g->ptr[v + 1]; k++) {
        int w = g->adj[k];
        if (mask[w]) continue;
        mask[w]      = 1;
        depth[w]     = depth[v] + 1;
        order[num++] = w;
      }
      /* insertion sort of the new children by (degree, id) */
      for (int p = first + 1; p < num; p++) {
        int w = order[p], dw = (int)(g->ptr[w + 1] - g->ptr[w]), q = p - 1;
        while (q >= first) {
          int u = order[q], du = (int)(g->ptr[u + 1] - g->ptr[u]);
          if (du < dw || (du == dw && u < w)) break;
          order[q + 1] = u;
          q--;
        }
        order[q + 1] = w;
      }
      if (num > first && depth[order[num - 1]] > max_depth) max_depth = depth[order[num - 1]];
    }
    n_levels += max_depth + 1;
  }
  /* reverse: new id k holds the (n-1-k)-th Cuthill-McKee node */
  for (int k = 0; k < n; k++) {
    ord->old_of_new[k]                = order[n - 1 - k];
    ord->new_of_old[order[n - 1 - k]] = k;
  }
  ord->n_colors = 0;
  ord->n_levels = n_levels;
  cc_free(&mask);
  cc_free(&level);
  cc_free(&queue);
  cc_free(&order);
  cc_free(&depth);
  CC_CALL(cc_calloc(1, sizeof(int), &ord->color_ptr));
  return CC_OK;
}
