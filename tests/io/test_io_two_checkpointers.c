/* test_io_two_checkpointers.c BACKEND_A BACKEND_B DIR: two checkpointers with different backends in
 * one process, interleaved: each owns its offload helper, staging buffer and uring ring,
 * so neither commits the other's snapshot and destroying one never stops the other. Writes A, B, A,
 * B (B left pending when it is asynchronous), finishes and destroys A, keeps using B; then every
 * checkpoint restarts bitwise exactly: A's newest, B's newest and B's previous one. */
#include "test_io_util.h"

static cc_io_layout layout;

static cc_io_checkpointer *make(const char *backend, const char *dir)
{
  cc_io_checkpoint_params params;
  cc_io_checkpoint_params_default(&params);
  snprintf(params.backend, sizeof params.backend, "%s", backend);
  snprintf(params.dir, sizeof params.dir, "%s", dir);
  params.keep            = 3;
  params.io_buffer_bytes = 8192;
  params.n_vectors_hint  = 2;
  cc_io_metadata meta    = {.nx = 0, .solver = "pcg"};
  cc_io_checkpointer *ck;
  TIO_OK(cc_io_checkpointer_create(&params, &layout, &meta, &ck));
  return ck;
}

/* Checkpoint `iteration` of a checkpointer holds the values of salt `salt`: distinct per write. */
static void write(cc_io_checkpointer *ck, int n_vectors, uint64_t salt, int iteration)
{
  cc_io_state state;
  tio_state(&layout, n_vectors, salt, iteration, &state);
  TIO_OK(cc_io_checkpointer_write(ck, &state));
  /* the caller's buffers change at once, as the solver's vectors do after a checkpoint */
  for (int v = 0; v < n_vectors; v++)
    for (int64_t i = 0; i < layout.n_local_nodes * layout.values_per_node; i++)
      state.vector[v][i] = -1.0;
  tio_state_free_malloc(&state);
}

static void expect(const char *dir, int n_vectors, uint64_t salt, int iteration)
{
  cc_io_state got;
  TIO_OK(cc_io_checkpoint_read(dir, NULL, &layout, NULL, &got, NULL));
  tio_compare(&layout, &got, n_vectors, salt, iteration);
  cc_io_state_free(&got);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  TIO_CHECK(argc == 4, "usage: %s BACKEND_A BACKEND_B DIR", argv[0]);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[1024], dir_a[1100], dir_b[1100], b20[1200];
  snprintf(dir, sizeof dir, "%s_np%d", argv[3], size);
  snprintf(dir_a, sizeof dir_a, "%s/a", dir);
  snprintf(dir_b, sizeof dir_b, "%s/b", dir);
  snprintf(b20, sizeof b20, "%s/ckpt.20", dir_b);
  tio_clean_dir(MPI_COMM_WORLD, dir);
  int64_t *ids;
  tio_layout(MPI_COMM_WORLD, 1237, 42, &layout, &ids);

  cc_io_checkpointer *a = make(argv[1], dir_a), *b = make(argv[2], dir_b);
  write(a, 2, 101, 10);
  write(b, 3, 201, 10);
  write(a, 2, 102, 20);
  write(b, 3, 202, 20); /* asynchronous B: still pending while A finishes and goes */
  TIO_OK(cc_io_checkpointer_finish(a));
  cc_io_checkpoint_stats stats;
  cc_io_checkpointer_stats(a, &stats);
  TIO_CHECK(stats.count == 2 && stats.last_iteration == 20, "A committed %d, last %d", stats.count,
            stats.last_iteration);
  cc_io_checkpointer_destroy(&a);
  write(b, 3, 203, 30); /* commits B's 20 (offload) and writes 30 after A is gone */
  TIO_OK(cc_io_checkpointer_finish(b));
  cc_io_checkpointer_stats(b, &stats);
  TIO_CHECK(stats.count == 3 && stats.last_iteration == 30, "B committed %d, last %d", stats.count,
            stats.last_iteration);
  cc_io_checkpointer_destroy(&b);

  expect(dir_a, 2, 102, 20);
  expect(dir_b, 3, 203, 30);
  expect(b20, 3, 202, 20);
  free(ids);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("PASS %s + %s\n", argv[1], argv[2]);
  MPI_Finalize();
  return 0;
}
