/* ordering_cmrcm.c: CM-RCM(K), cyclic multicoloring of RCM levels (T. Washio et al. 2000;
 * K. Nakajima, "Parallel iterative solvers of GeoFEM ...", SC2003, and his CMRCM routine).
 * Levels are built as in Nakajima's code: the candidates of level l are the unnumbered neighbours
 * of level l-1; a greedy pass keeps an independent subset and defers the others to level l+1, so
 * every level is an independent set. Levels are reversed (RCM) and level l goes to color l mod K;
 * K grows from the requested value until no two coupled nodes share a color (a deferred node can
 * couple levels l and l+2, ...), and K = number of levels when there are fewer levels than K.
 */
#include "cc_ordering_impl.h"

#include <stdlib.h>

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

typedef struct {
  int *level;     /* [n] level of each node, -1 = unnumbered */
  int *lev_nodes; /* [n] nodes level by level, in selection order */
  int *lev_ptr;   /* [n + 1] */
  int *cand;      /* [n] stamp: candidate of the level being built */
  int *excl;      /* [n] stamp: excluded from it */
  int *scratch;   /* [n] */
  int n_levels;
} cmrcm_work;

/* Independent-set levels of the component containing the unnumbered node root. */
static void cmrcm_component(const cc_graph *g, int root, cmrcm_work *w, int *n_done)
{
  int *lev_nodes = w->lev_nodes, *lev_ptr = w->lev_ptr;
  int l              = w->n_levels;
  lev_nodes[*n_done] = root;
  w->level[root]     = l;
  lev_ptr[l + 1]     = ++*n_done;
  w->n_levels        = ++l;
  for (;;) {
    /* candidates: unnumbered neighbours of level l-1 (in discovery order, into scratch) */
    int nc = 0;
    for (int p = lev_ptr[l - 1]; p < lev_ptr[l]; p++) {
      int v = lev_nodes[p];
      for (int64_t k = g->ptr[v]; k < g->ptr[v + 1]; k++) {
        int u = g->adj[k];
        if (w->level[u] < 0 && w->cand[u] != l) {
          w->cand[u]       = l;
          w->scratch[nc++] = u;
        }
      }
    }
    if (nc == 0) return;
    /* greedy independent subset: keep a candidate unless a kept neighbour excluded it */
    for (int p = 0; p < nc; p++) {
      int u = w->scratch[p];
      if (w->excl[u] == l) continue;
      w->level[u]            = l;
      lev_nodes[(*n_done)++] = u;
      for (int64_t k = g->ptr[u]; k < g->ptr[u + 1]; k++)
        if (w->cand[g->adj[k]] == l) w->excl[g->adj[k]] = l;
    }
    lev_ptr[l + 1] = *n_done;
    w->n_levels    = ++l;
  }
}

/* The nodes level by level: level r holds the new ids [level_first[r], next level of its color). */
static cc_err cmrcm_level_order(cc_ordering *ord)
{
  const int K = ord->n_colors, L = ord->n_levels;
  CC_CALL(cc_malloc((size_t)ord->n_nodes + 1, sizeof(int32_t), &ord->level_order));
  for (int r = 0, p = 0; r < L; r++) {
    const int end = r + K < L ? ord->level_first[r + K] : ord->color_ptr[r % K + 1];
    for (int i = ord->level_first[r]; i < end; i++) ord->level_order[p++] = i;
  }
  return CC_OK;
}

/* shift[c] >= shift[c'] + floor((c + d) / K) for every coupled level distance +-d that lands on a
 * lower color c' = (c + d) mod K: then a node's lower neighbours never sit in a later chunk of
 * the blocked sweep schedule (sgs_schedule.c). One pass in color order: c' < c is known. */
static cc_err cmrcm_level_shift(cc_ordering *ord, const int *has_diff)
{
  const int K = ord->n_colors, L = ord->n_levels;
  CC_CALL(cc_calloc((size_t)K, sizeof(int), &ord->level_shift));
  for (int c = 0; c < K; c++)
    for (int d = 1; d < L; d++) {
      if (!has_diff[d]) continue;
      for (int sign = -1; sign <= 1; sign += 2) {
        const int cd     = c + sign * d;
        const int blocks = cd >= 0 ? cd / K : -((-cd + K - 1) / K); /* floor(cd / K) */
        const int lower  = cd - blocks * K;
        if (lower < c && ord->level_shift[lower] + blocks > ord->level_shift[c])
          ord->level_shift[c] = ord->level_shift[lower] + blocks;
      }
    }
  return CC_OK;
}

cc_err cc_ordering_create_cmrcm(const cc_graph *g, int colors, cc_ordering *ord)
{
  const int n    = g->n;
  cmrcm_work w   = {0};
  int *bfs_level = NULL, *bfs_queue = NULL, *has_diff = NULL, *mask = NULL;
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &w.level));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &w.lev_nodes));
  CC_CALL(cc_malloc((size_t)n + 2, sizeof(int), &w.lev_ptr));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &w.cand));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &w.excl));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &w.scratch));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &bfs_level));
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int), &bfs_queue));
  CC_CALL(cc_calloc((size_t)n + 1, sizeof(int), &mask));
  for (int i = 0; i < n; i++) w.level[i] = w.cand[i] = w.excl[i] = bfs_level[i] = -1;
  w.lev_ptr[0] = 0;

  /* one component at a time; numbered nodes are masked out of the pseudo-peripheral search */
  int done = 0;
  for (int s = 0; s < n; s++) {
    if (mask[s]) continue;
    int root = cc_graph_pseudo_peripheral(g, mask, s, bfs_level, bfs_queue), first = done;
    cmrcm_component(g, root, &w, &done);
    for (int p = first; p < done; p++) mask[w.lev_nodes[p]] = 1;
  }
  const int L = w.n_levels;
  /* within a level, nodes by original id (descending after the reversal below, as in Nakajima's
   * CMRCM): spatially coherent levels, so the sweeps gather neighbours nearly in memory order */
  for (int l = 0; l < L; l++)
    qsort(w.lev_nodes + w.lev_ptr[l], (size_t)(w.lev_ptr[l + 1] - w.lev_ptr[l]), sizeof(int),
          cmp_int);

  /* level distances of coupled nodes; levels are independent sets, so d >= 1 */
  CC_CALL(cc_calloc((size_t)L + 1, sizeof(int), &has_diff));
  for (int i = 0; i < n; i++)
    for (int64_t k = g->ptr[i]; k < g->ptr[i + 1]; k++) {
      int d                    = w.level[i] - w.level[g->adj[k]];
      has_diff[d < 0 ? -d : d] = 1;
    }
  CC_CHECK(!has_diff[0], CC_ERR_CHECK, "CM-RCM: a level is not an independent set");
  /* smallest K >= colors (K <= L) such that no coupled pair is K, 2K, ... levels apart */
  int K = colors < L ? colors : L;
  for (;; K++) {
    int ok = 1;
    for (int d = K; d < L && ok; d += K) ok = !has_diff[d];
    if (ok) break;
  }

  /* RCM: reversed level r = L-1-l, nodes of a level reversed; color c = levels r = c (mod K) */
  CC_CALL(cc_malloc((size_t)K + 1, sizeof(int), &ord->color_ptr));
  CC_CALL(cc_malloc((size_t)L, sizeof(int), &ord->level_first));
  int next = 0;
  for (int c = 0; c < K; c++) {
    ord->color_ptr[c] = next;
    for (int r = c; r < L; r += K) {
      int l               = L - 1 - r;
      ord->level_first[r] = next;
      for (int p = w.lev_ptr[l + 1] - 1; p >= w.lev_ptr[l]; p--) {
        int v                 = w.lev_nodes[p];
        ord->old_of_new[next] = v;
        ord->new_of_old[v]    = next++;
      }
    }
  }
  ord->color_ptr[K] = next;
  ord->n_colors     = K;
  ord->n_levels     = L;
  CC_CALL(cmrcm_level_order(ord));
  CC_CALL(cmrcm_level_shift(ord, has_diff));
  cc_free(&w.level);
  cc_free(&w.lev_nodes);
  cc_free(&w.lev_ptr);
  cc_free(&w.cand);
  cc_free(&w.excl);
  cc_free(&w.scratch);
  cc_free(&bfs_level);
  cc_free(&bfs_queue);
  cc_free(&has_diff);
  cc_free(&mask);
  return CC_OK;
}
