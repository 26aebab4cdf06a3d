/* test_io_util.h: shared pieces of the io/ tests: a layout over a shuffled global numbering, random
 * named vectors, bitwise comparison and a test-result macro. */
#ifndef TEST_IO_UTIL_H
#define TEST_IO_UTIL_H

#include "cc_io.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#define TIO_CHECK(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__);                                       \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

#define TIO_OK(expr)                                                                               \
  do {                                                                                             \
    cc_err tio_err_ = (expr);                                                                      \
    if (tio_err_) {                                                                                \
      int tio_rank_;                                                                               \
      MPI_Comm_rank(MPI_COMM_WORLD, &tio_rank_);                                                   \
      fprintf(stderr, "FAILED %s:%d: %s\n", __FILE__, __LINE__, #expr);                            \
      cc_error_print(stderr, tio_rank_);                                                           \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

static inline uint64_t tio_rand(uint64_t *s) /* splitmix64 */
{
  return cc_splitmix64(*s += CC_SPLITMIX64_GAMMA);
}

/* Global ids 0..n_global-1 shuffled (same seed on all ranks), rank r owning an uneven slice. */
static inline void tio_layout(MPI_Comm comm, int64_t n_global, uint64_t seed, cc_io_layout *layout,
                              int64_t **ids_out)
{
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int64_t *perm = malloc((size_t)n_global * sizeof *perm);
  for (int64_t i = 0; i < n_global; i++) perm[i] = i;
  for (int64_t i = n_global - 1; i > 0; i--) {
    int64_t j = (int64_t)(tio_rand(&seed) % (uint64_t)(i + 1)), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  /* uneven split: rank r gets a share proportional to r + 1 */
  int64_t weight = (int64_t)size * (size + 1) / 2, start = 0;
  for (int r = 0; r < rank; r++) start += n_global * (r + 1) / weight;
  int64_t n    = rank == size - 1 ? n_global - start : n_global * (rank + 1) / weight;
  int64_t *ids = malloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
  memcpy(ids, perm + start, (size_t)n * sizeof *ids);
  free(perm);
  layout->comm            = comm;
  layout->n_local_nodes   = n;
  layout->global_node_id  = ids;
  layout->n_global_nodes  = n_global;
  layout->values_per_node = 3;
  *ids_out                = ids;
}

/* Vector v's value at global node g, component c: a function of (v, g, c, salt) only, so any
 * layout (any rank count) can check what it read. Random-looking bit patterns. */
static inline double tio_value(int v, int64_t g, int c, uint64_t salt)
{
  uint64_t s = salt * 1000003u + (uint64_t)v * 7919u + (uint64_t)g * 3u + (uint64_t)c;
  uint64_t r = tio_rand(&s);
  return (double)(int64_t)(r >> 11) * 0x1.0p-40 - 4096.0;
}

static inline void tio_state(const cc_io_layout *layout, int n_vectors, uint64_t salt,
                             int iteration, cc_io_state *state)
{
  memset(state, 0, sizeof *state);
  snprintf(state->solver, sizeof state->solver, "pcg");
  state->iteration = iteration;
  state->n_vectors = n_vectors;
  int vpn          = layout->values_per_node;
  for (int v = 0; v < n_vectors; v++) {
    snprintf(state->vector_name[v], CC_IO_NAME_LEN, "vec_%c", 'a' + v);
    state->vector[v] = malloc(((size_t)layout->n_local_nodes * vpn + 1) * sizeof(double));
    for (int64_t i = 0; i < layout->n_local_nodes; i++)
      for (int c = 0; c < vpn; c++)
        state->vector[v][i * vpn + c] = tio_value(v, layout->global_node_id[i], c, salt);
  }
  state->n_scalars = 2;
  snprintf(state->scalar_name[0], CC_IO_NAME_LEN, "rho");
  snprintf(state->scalar_name[1], CC_IO_NAME_LEN, "alpha");
  state->scalar[0] = tio_value(99, iteration, 0, salt);
  state->scalar[1] = tio_value(98, iteration, 1, salt);
}

static inline void tio_state_free_malloc(cc_io_state *state)
{
  for (int v = 0; v < state->n_vectors; v++) free(state->vector[v]);
  state->n_vectors = 0;
}

/* Bitwise comparison of what was read with the expected values for this layout. */
static inline void tio_compare(const cc_io_layout *layout, const cc_io_state *got, int n_vectors,
                               uint64_t salt, int iteration)
{
  int vpn = layout->values_per_node;
  TIO_CHECK(got->n_vectors == n_vectors, "read %d vectors, wrote %d", got->n_vectors, n_vectors);
  TIO_CHECK(got->iteration == iteration, "read iteration %d, wrote %d", got->iteration, iteration);
  TIO_CHECK(!strcmp(got->solver, "pcg"), "read solver '%s'", got->solver);
  TIO_CHECK(got->n_scalars == 2 && !strcmp(got->scalar_name[1], "alpha"), "scalars lost");
  double rho = tio_value(99, iteration, 0, salt), alpha = tio_value(98, iteration, 1, salt);
  TIO_CHECK(!memcmp(&got->scalar[0], &rho, 8) && !memcmp(&got->scalar[1], &alpha, 8),
            "scalar values differ");
  for (int v = 0; v < n_vectors; v++) {
    char name[CC_IO_NAME_LEN];
    snprintf(name, sizeof name, "vec_%c", 'a' + v);
    TIO_CHECK(!strcmp(got->vector_name[v], name), "vector %d named '%s'", v, got->vector_name[v]);
    for (int64_t i = 0; i < layout->n_local_nodes; i++)
      for (int c = 0; c < vpn; c++) {
        double want = tio_value(v, layout->global_node_id[i], c, salt);
        TIO_CHECK(!memcmp(&got->vector[v][i * vpn + c], &want, sizeof want),
                  "vector %s node %lld comp %d: %.17g != %.17g", name,
                  (long long)layout->global_node_id[i], c, got->vector[v][i * vpn + c], want);
      }
  }
}

/* Rank 0 empties dir (flat files and one level of subdirectories) and everyone waits. */
static inline void tio_clean_dir(MPI_Comm comm, const char *dir)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot reset %s\n", dir);
  }
  MPI_Barrier(comm);
}

static inline bool tio_exists(const char *dir, const char *name)
{
  char path[2048];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0;
}

#endif
