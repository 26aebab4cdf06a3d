/* cc_ordering_impl.h: private interface between the ordering registry (ordering.c) and the
 * orderings (ordering_*.c): the node graph of a rank's internal nodes and the create functions.
 */
#ifndef CC_ORDERING_IMPL_H
#define CC_ORDERING_IMPL_H

#include "cc_solvers.h"

/* Adjacency of the internal nodes: j in adj[ptr[i] .. ptr[i+1]) iff block (i, j) of A is stored,
 * j != i, j internal (the block sparsity restricted to internal columns; symmetric for FEM). */
typedef struct cc_graph {
  int n;
  int64_t *ptr; /* [n + 1] */
  int32_t *adj;
} cc_graph;

CC_WUR cc_err cc_graph_from_bcrs(const cc_bcrs *a, cc_graph *g);
void cc_graph_free(cc_graph *g);

/* An ordering fills ord->new_of_old, old_of_new (allocated by the caller, [n]), n_colors,
 * color_ptr (allocated by the ordering, [n_colors + 1]) and n_levels. colors >= 2 for mc, cm-rcm.
 */
typedef cc_err (*cc_ordering_create_fn)(const cc_graph *g, int colors, cc_ordering *ord);
CC_WUR cc_err cc_ordering_create_rcm(const cc_graph *g, int colors, cc_ordering *ord);
CC_WUR cc_err cc_ordering_create_mc(const cc_graph *g, int colors, cc_ordering *ord);
CC_WUR cc_err cc_ordering_create_cmrcm(const cc_graph *g, int colors, cc_ordering *ord);

/* George-Liu pseudo-peripheral node of the component of `start` within the nodes with
 * mask[i] == 0 (the others are ignored). level[], queue[] are scratch of size n (level all -1 on
 * entry and on return). */
int cc_graph_pseudo_peripheral(const cc_graph *g, const int *mask, int start, int *level,
                               int *queue);

#endif
