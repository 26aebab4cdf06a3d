/* test_gas_geometry.c: the global store's geometry as a pure function of the node leaders (no
 * MPI). Modes:
 *   compare   node index, partner and home index of gas_layout_from_leaders + gas_home_index equal
 *             a plain O(P^2) reference (the definition: count the leaders below, the ranks of
 *             the node below, take the want-th rank of the next node) for one node, one rank per
 *             node, blocks of k ranks (ragged last node), round robin and random node sizes at
 *             P = 1 .. 4096; a lead[] that is not a leader map is refused
 *   growth    loop steps at P = 1k, 8k, 64k, 256k: at most 8 per rank at every P (linear), the
 *             reference's at 1k and 4k grow as P^2 (the check that the count can see growth) */
#include "gas_internal.h"

#include <stdlib.h>

static int failures = 0;

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* The definition, one rank at a time: O(P) per rank, O(P^2) in all; steps counts inner steps. */
static int reference(int size, const int *lead, int *node, int *partner, int *home, int64_t *steps)
{
  int n = 0;
  for (int r = 0; r < size; r++) {
    if (lead[r] == r) n++;
    node[r] = 0; /* node index = number of leaders below this rank's leader */
    for (int q = 0; q < lead[r]; q++, ++*steps)
      if (lead[q] == q) node[r]++;
  }
  for (int r = 0; r < size; r++) {
    if (n == 1) {
      partner[r] = (r + 1) % size;
      continue;
    }
    int local = 0, target = (node[r] + 1) % n, count = 0;
    for (int q = 0; q < r; q++, ++*steps)
      if (node[q] == node[r]) local++;
    for (int q = 0; q < size; q++, ++*steps)
      if (node[q] == target) count++;
    int want = local % count;
    for (int q = 0; q < size; q++, ++*steps)
      if (node[q] == target && want-- == 0) partner[r] = q;
  }
  for (int r = 0; r < size; r++) {
    home[r] = 0;
    for (int q = 0; q < r; q++, ++*steps)
      if (partner[q] == partner[r]) home[r]++;
  }
  return n;
}

typedef enum { ONE_NODE, OWN_NODE, BLOCKS, ROUND_ROBIN, RANDOM, N_LAYOUTS } layout;
static const char *layout_name[N_LAYOUTS] = {"one node", "own node", "blocks", "round robin",
                                             "random"};

/* lead[r] of a layout: k is the ranks per node (blocks) or the number of nodes (round robin,
 * random: each rank on one of k nodes drawn by splitmix64; a node's leader is its first rank). */
static void make_leaders(layout l, int size, int k, uint64_t seed, int *lead, int *first)
{
  for (int j = 0; j < k; j++) first[j] = -1;
  for (int r = 0; r < size; r++) {
    switch (l) {
    case ONE_NODE:
      lead[r] = 0;
      break;
    case OWN_NODE:
      lead[r] = r;
      break;
    case BLOCKS:
      lead[r] = r - r % k;
      break;
    case ROUND_ROBIN:
      lead[r] = r % k;
      break;
    default: {
      int j =
          (int)(cc_splitmix64_unit(seed + (uint64_t)r * CC_SPLITMIX64_GAMMA) * 0.5 * k + 0.5 * k) %
          k;
      if (first[j] < 0) first[j] = r;
      lead[r] = first[j];
    }
    }
  }
}

typedef struct {
  int *lead, *first, *node, *partner, *home, *rnode, *rpartner, *rhome;
} arrays;

static void compare_one(arrays *a, layout l, int size, int k)
{
  make_leaders(l, size, k, (uint64_t)size * 131 + (uint64_t)k, a->lead, a->first);
  int n         = 0, rn;
  int64_t steps = 0, rsteps = 0;
  cc_err err = gas_layout_from_leaders(size, a->lead, a->node, a->partner, &n, &steps);
  if (!err) err = gas_home_index(size, a->partner, a->home, &steps);
  EXPECT(!err, "%s P=%d k=%d: refused", layout_name[l], size, k);
  if (err) {
    cc_error_print(stderr, 0);
    cc_error_clear();
    return;
  }
  rn      = reference(size, a->lead, a->rnode, a->rpartner, a->rhome, &rsteps);
  int bad = -1;
  for (int r = 0; r < size && bad < 0; r++)
    if (a->node[r] != a->rnode[r] || a->partner[r] != a->rpartner[r] || a->home[r] != a->rhome[r])
      bad = r;
  EXPECT(n == rn, "%s P=%d k=%d: %d nodes, reference %d", layout_name[l], size, k, n, rn);
  EXPECT(bad < 0, "%s P=%d k=%d rank %d: node %d partner %d home %d, reference %d %d %d",
         layout_name[l], size, k, bad, bad < 0 ? 0 : a->node[bad], bad < 0 ? 0 : a->partner[bad],
         bad < 0 ? 0 : a->home[bad], bad < 0 ? 0 : a->rnode[bad], bad < 0 ? 0 : a->rpartner[bad],
         bad < 0 ? 0 : a->rhome[bad]);
}

static int alloc_arrays(arrays *a, int size)
{
  int **all[] = {&a->lead, &a->first, &a->node,     &a->partner,
                 &a->home, &a->rnode, &a->rpartner, &a->rhome};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (!(*all[i] = malloc((size_t)size * sizeof(int)))) return 1;
  return 0;
}

static void free_arrays(arrays *a)
{
  int **all[] = {&a->lead, &a->first, &a->node,     &a->partner,
                 &a->home, &a->rnode, &a->rpartner, &a->rhome};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) free(*all[i]);
}

static void check_compare(void)
{
  const int sizes[] = {1, 2, 3, 5, 16, 64, 100, 768, 1000, 4096};
  const int ks[]    = {1, 2, 3, 4, 7, 16, 64};
  arrays a;
  EXPECT(!alloc_arrays(&a, 4096), "out of memory");
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    for (layout l = 0; l < N_LAYOUTS; l++)
      for (size_t j = 0; j < sizeof ks / sizeof *ks; j++)
        /* above 1000 ranks three node sizes: the O(P^2) reference is the cost (ASan build) */
        if (ks[j] <= sizes[i] && (j == 0 || l >= BLOCKS) &&
            (sizes[i] < 1000 || ks[j] == 1 || ks[j] == 7 || ks[j] == 64))
          compare_one(&a, l, sizes[i], ks[j]);
  int bad[3] = {1, 0, 0}; /* rank 0 led by rank 1: not a leader map */
  int node[3], partner[3], n;
  EXPECT(gas_layout_from_leaders(3, bad, node, partner, &n, NULL) == CC_ERR_ARG,
         "a leader above its rank is accepted");
  cc_error_clear();
  int loop[3] = {0, 0, 1}; /* rank 2 led by rank 1, which rank 0 leads */
  EXPECT(gas_layout_from_leaders(3, loop, node, partner, &n, NULL) == CC_ERR_ARG,
         "a leader that is not a leader is accepted");
  cc_error_clear();
  free_arrays(&a);
  printf("compare: %d sizes x %d layouts against the reference\n",
         (int)(sizeof sizes / sizeof *sizes), N_LAYOUTS);
}

/* loop steps of the geometry at P ranks in blocks of 64 and at random over P / 64 nodes */
static int64_t geometry_steps(arrays *a, layout l, int size, bool ref)
{
  make_leaders(l, size, l == BLOCKS ? 64 : size / 64, 7, a->lead, a->first);
  int64_t steps = 0;
  int n;
  if (ref) {
    reference(size, a->lead, a->rnode, a->rpartner, a->rhome, &steps);
    return steps;
  }
  cc_err err = gas_layout_from_leaders(size, a->lead, a->node, a->partner, &n, &steps);
  if (!err) err = gas_home_index(size, a->partner, a->home, &steps);
  EXPECT(!err, "P=%d refused", size);
  cc_error_clear();
  return steps;
}

static void check_growth(void)
{
  const int sizes[] = {1024, 8192, 65536, 262144};
  arrays a;
  EXPECT(!alloc_arrays(&a, 262144), "out of memory");
  for (layout l = BLOCKS; l <= RANDOM; l += RANDOM - BLOCKS)
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
      int64_t s = geometry_steps(&a, l, sizes[i], false);
      printf("growth %-6s P=%7d: %9lld steps, %.2f per rank\n", layout_name[l], sizes[i],
             (long long)s, (double)s / sizes[i]);
      EXPECT(s <= 8 * (int64_t)sizes[i], "P=%d: %lld steps, above 8 per rank", sizes[i],
             (long long)s);
    }
  int64_t r1 = geometry_steps(&a, BLOCKS, 1024, true), r4 = geometry_steps(&a, BLOCKS, 4096, true);
  printf("reference blocks P=1024: %lld steps, P=4096: %lld (x%.1f for x4 ranks)\n", (long long)r1,
         (long long)r4, (double)r4 / (double)r1);
  EXPECT(r4 > 12 * r1, "the reference's steps do not grow as P^2: the count is blind");
  free_arrays(&a);
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "compare"))
    check_compare();
  else if (!strcmp(mode, "growth"))
    check_growth();
  else {
    fprintf(stderr, "usage: %s compare|growth\n", argv[0]);
    return 2;
  }
  printf("test_gas_geometry %s: %s (%d failures)\n", mode, failures ? "FAILED" : "PASSED",
         failures);
  return failures ? 1 : 0;
}
