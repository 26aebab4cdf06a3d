/* test_io_roundtrip.c: every backend writes random named vectors + scalars over a shuffled global
 * numbering and reads them back bitwise equal, through the checkpointer (3 checkpoints, keep 2:
 * retention and the latest pointer checked) and through the plain handle API.
 * Usage: test_io_roundtrip BACKEND DIR */
#include "test_io_util.h"

static void check_checkpointer(const char *backend, const char *dir, const cc_io_layout *layout)
{
  int rank;
  MPI_Comm_rank(layout->comm, &rank);
  cc_io_checkpoint_params params;
  cc_io_checkpoint_params_default(&params);
  snprintf(params.backend, sizeof params.backend, "%s", backend);
  snprintf(params.dir, sizeof params.dir, "%s", dir);
  params.keep            = 2;
  params.io_buffer_bytes = 8192; /* several requests per file even at this size */
  params.n_vectors_hint  = 3;
  cc_io_metadata meta    = {.nx = 0, .partition = "test", .solver = "pcg", .ordering = "natural"};
  cc_io_checkpointer *ck;
  TIO_OK(cc_io_checkpointer_create(&params, layout, &meta, &ck));
  for (int it = 10; it <= 30; it += 10) {
    cc_io_state state;
    tio_state(layout, 3, (uint64_t)it, it, &state);
    TIO_OK(cc_io_checkpointer_write(ck, &state));
    tio_state_free_malloc(&state); /* offload copied it: the caller may reuse its vectors now */
  }
  TIO_OK(cc_io_checkpointer_finish(ck));
  cc_io_checkpoint_stats stats;
  cc_io_checkpointer_stats(ck, &stats);
  TIO_CHECK(stats.count == 3 && stats.last_iteration == 30, "stats: count %d, last %d", stats.count,
            stats.last_iteration);
  TIO_CHECK(stats.bytes > 0 || !strcmp(backend, "hdf5"), "no bytes counted");
  TIO_CHECK(stats.bytes_all_ranks >= layout->n_global_nodes * 3 * 8 * 3 * 3, "bytes_all_ranks %lld",
            (long long)stats.bytes_all_ranks);
  if (!strcmp(backend, "uring"))
    TIO_CHECK(!strcmp(stats.path_used, "uring-fixed-direct"), "uring path %s", stats.path_used);
  if (rank == 0)
    printf("%s: path %s (%s), stall %.3g s, write %.3g s\n", backend, stats.path_used, stats.detail,
           stats.stall_s, stats.write_s);
  cc_io_checkpointer_destroy(&ck);

  if (rank == 0) { /* keep 2: the newest two stay, latest names the newest */
    TIO_CHECK(!tio_exists(dir, "ckpt.10"), "ckpt.10 should have been deleted (keep 2)");
    TIO_CHECK(tio_exists(dir, "ckpt.20") && tio_exists(dir, "ckpt.30"), "ckpt.20/30 missing");
    TIO_CHECK(tio_exists(dir, "ckpt.30/manifest.json"), "manifest missing");
    TIO_CHECK(!tio_exists(dir, "ckpt.30.tmp") && !tio_exists(dir, "latest.tmp"),
              "temporaries left");
    char path[2048], line[64] = "";
    snprintf(path, sizeof path, "%s/latest", dir);
    FILE *f = fopen(path, "r");
    TIO_CHECK(f && fgets(line, sizeof line, f), "cannot read %s", path);
    fclose(f);
    TIO_CHECK(!strcmp(line, "ckpt.30\n"), "latest says '%s'", line);
  }
  cc_io_state got;
  cc_io_restart_info info;
  TIO_OK(cc_io_checkpoint_read(dir, NULL, layout, &meta, &got, &info));
  tio_compare(layout, &got, 3, 30, 30);
  TIO_CHECK(info.iteration == 30, "restart info iteration %d", info.iteration);
  cc_io_state_free(&got);
}

static void check_handle(const char *backend, const char *dir, const cc_io_layout *layout)
{
  cc_io_options opt;
  cc_io_options_default(&opt);
  opt.buffer_bytes = 4096;
  opt.queue_depth  = 3;
  cc_io_state state;
  tio_state(layout, 2, 7, 7, &state);
  cc_io_handle *h;
  TIO_OK(cc_io_open(backend, &opt, layout, dir, CC_IO_WRITE, &h));
  TIO_OK(cc_io_write_vectors(h, &state));
  TIO_OK(cc_io_commit(h));
  const cc_io_file_info *fi = cc_io_handle_info(h);
  TIO_CHECK(fi->path_used[0] != '\0', "no path_used reported");
  TIO_OK(cc_io_close(&h));
  tio_state_free_malloc(&state);
  cc_io_state got;
  memset(&got, 0, sizeof got);
  TIO_OK(cc_io_open(backend, &opt, layout, dir, CC_IO_READ, &h));
  TIO_OK(cc_io_read_vectors(h, &got));
  TIO_OK(cc_io_close(&h));
  tio_compare(layout, &got, 2, 7, 7);
  cc_io_state_free(&got);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  TIO_CHECK(argc == 3, "usage: %s BACKEND DIR", argv[0]);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char dir[1024], handle_dir[1100];
  snprintf(dir, sizeof dir, "%s_np%d", argv[2], size);
  snprintf(handle_dir, sizeof handle_dir, "%s/handle", dir);
  tio_clean_dir(MPI_COMM_WORLD, dir);
  cc_io_layout layout;
  int64_t *ids;
  tio_layout(MPI_COMM_WORLD, 1237, 42, &layout, &ids);

  check_checkpointer(argv[1], dir, &layout);
  tio_clean_dir(MPI_COMM_WORLD, handle_dir);
  check_handle(argv[1], handle_dir, &layout);

  free(ids);
  if (rank == 0) printf("io round trip %s at %d ranks: OK\n", argv[1], size);
  MPI_Finalize();
  return 0;
}
