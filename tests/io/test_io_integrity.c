/* test_io_integrity.c: nothing lost, nothing corrupt accepted.
 * Usage: test_io_integrity MODE BACKEND DIR, MODE one of
 *   corrupt     flip a byte in a committed file: restart refused naming the file; older one loads
 *   truncate    cut a committed file short: refused naming the file ("truncated")
 *   enospc      RLIMIT_FSIZE makes the 2nd checkpoint fail: the 1st stays latest and loads
 *   enospc-inject  CUBECG_IO_INJECT=enospc-after=4096 on every rank, on rank 0 only, on the last
 *               rank only: each checkpoint fails on every rank without a hang (ctest TIMEOUT), the
 *               1st stays latest and loads, and a later checkpoint succeeds again
 *   odirect     CUBECG_IO_INJECT=odirect-einval: clear error; with fallback the path is reported
 *   seams       uring-eperm / register-enomem: clear errors; with fallback the chain's next step
 *   kill-write  write ckpt 10, then 20 (run with CUBECG_IO_INJECT=kill-during-write:2: dies)
 *   kill-check  after kill-write: ckpt 10 is latest and loads, the temporary is cleaned up
 *   enospc-commit  CUBECG_IO_INJECT=enospc-in-commit:2: the 2nd checkpoint's manifest cannot be
 *               written (offload: on rank 0's helper): it fails on every rank naming the
 *               cause, the 1st stays latest and loads exactly, the next checkpoint succeeds
 *   kill-commit-write  write ckpt 10, then 20 (run with CUBECG_IO_INJECT=kill-during-commit:2:
 *               rank 0 dies inside the commit, after the rename, before latest moves)
 *   kill-commit-check  after kill-commit-write: latest still names ckpt 10, which loads exactly;
 *               the directory takes new checkpoints
 *   ranks-write write a checkpoint (fixture for ranks-read; DIR used as is)
 *   ranks-read  read it at another rank count: per-rank backends refuse, hdf5 gives the values */
#include "test_io_util.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

static cc_io_layout layout;
static int rank, size;

static cc_io_checkpointer *make(const char *backend, const char *dir, bool fallback)
{
  cc_io_checkpoint_params params;
  cc_io_checkpoint_params_default(&params);
  snprintf(params.backend, sizeof params.backend, "%s", backend);
  snprintf(params.dir, sizeof params.dir, "%s", dir);
  params.keep            = 3;
  params.fallback        = fallback;
  params.io_buffer_bytes = 8192;
  cc_io_metadata meta    = {.nx = 0, .solver = "pcg"};
  cc_io_checkpointer *ck;
  TIO_OK(cc_io_checkpointer_create(&params, &layout, &meta, &ck));
  return ck;
}

static cc_err write_one(cc_io_checkpointer *ck, int iteration)
{
  cc_io_state state;
  tio_state(&layout, 2, (uint64_t)iteration, iteration, &state);
  cc_err err = cc_io_checkpointer_write(ck, &state);
  if (!err) err = cc_io_checkpointer_finish(ck);
  tio_state_free_malloc(&state);
  return err;
}

static void expect_loads(const char *dir, int iteration)
{
  cc_io_state got;
  TIO_OK(cc_io_checkpoint_read(dir, NULL, &layout, NULL, &got, NULL));
  tio_compare(&layout, &got, 2, (uint64_t)iteration, iteration);
  cc_io_state_free(&got);
}

/* The call failed on every rank and every rank's message contains what. */
static void expect_refused2(cc_err err, const char *what, const char *what2, const char *context)
{
  TIO_CHECK(err != CC_OK, "%s: accepted, should have been refused", context);
  const char *msg = cc_error_message();
  TIO_CHECK(strstr(msg, what) != NULL, "%s: message '%s' does not mention '%s'", context, msg,
            what);
  TIO_CHECK(!what2 || strstr(msg, what2) != NULL, "%s: message '%s' does not mention '%s'", context,
            msg, what2);
  if (rank == 0) printf("%s refused as expected: %s\n", context, msg);
  cc_error_clear();
}

static void expect_refused(cc_err err, const char *what, const char *context)
{
  expect_refused2(err, what, NULL, context);
}

/* The file to damage: the last rank's own file, or the shared one. */
static void damaged_file(const char *dir, const char *backend, int iteration, char *path, size_t n,
                         char *name, size_t n_name)
{
  if (!strcmp(backend, "hdf5"))
    snprintf(name, n_name, "state.h5");
  else
    snprintf(name, n_name, "rank.%d.%s", size - 1, !strcmp(backend, "fortran") ? "fbin" : "bin");
  char ck[32];
  snprintf(path, n, "%s/%s/%s", dir, cc_io_checkpoint_name(iteration, ck, sizeof ck), name);
}

static void mode_corrupt(const char *backend, const char *dir, bool truncate_it)
{
  cc_io_checkpointer *ck = make(backend, dir, false);
  TIO_OK(write_one(ck, 10));
  TIO_OK(write_one(ck, 20));
  cc_io_checkpointer_destroy(&ck);
  char path[2048], name[64];
  damaged_file(dir, backend, 20, path, sizeof path, name, sizeof name);
  if (rank == 0) {
    FILE *f = fopen(path, "r+b");
    TIO_CHECK(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    if (truncate_it)
      TIO_CHECK(ftruncate(fileno(f), bytes - 100) == 0, "ftruncate");
    else { /* a data byte (past the per-rank header) */
      long at = bytes - 1000;
      fseek(f, at, SEEK_SET);
      int c = fgetc(f);
      fseek(f, at, SEEK_SET);
      fputc(c ^ 0x10, f);
    }
    fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  cc_io_state got;
  cc_err err = cc_io_checkpoint_read(dir, NULL, &layout, NULL, &got, NULL);
  expect_refused2(err, name, truncate_it ? "truncated" : "corrupt",
                  truncate_it ? "truncated file" : "flipped byte");
  char older[2048];
  snprintf(older, sizeof older, "%s/ckpt.10", dir); /* the previous checkpoint is still good */
  expect_loads(older, 10);
}

static void mode_enospc(const char *backend, const char *dir)
{
  cc_io_checkpointer *ck = make(backend, dir, false);
  TIO_OK(write_one(ck, 10));
  signal(SIGXFSZ, SIG_IGN); /* the write then fails with EFBIG instead of killing us */
  struct rlimit old, small;
  getrlimit(RLIMIT_FSIZE, &old);
  small          = old;
  small.rlim_cur = 8192; /* below every data file of this test, above nothing else written */
  setrlimit(RLIMIT_FSIZE, &small);
  cc_err err = write_one(ck, 20);
  setrlimit(RLIMIT_FSIZE, &old);
  expect_refused(err, "ckpt.20.tmp", "checkpoint over RLIMIT_FSIZE"); /* names the file */
  cc_io_checkpoint_stats stats;
  cc_io_checkpointer_stats(ck, &stats);
  TIO_CHECK(stats.count == 1 && stats.last_iteration == 10, "stats after failure: %d, %d",
            stats.count, stats.last_iteration);
  cc_io_checkpointer_destroy(&ck);
  if (rank == 0)
    TIO_CHECK(!tio_exists(dir, "ckpt.20") && !tio_exists(dir, "ckpt.20.tmp"),
              "failed checkpoint left behind");
  expect_loads(dir, 10);
}

static void mode_enospc_inject(const char *backend, const char *dir)
{
  cc_io_checkpointer *ck = make(backend, dir, false);
  TIO_OK(write_one(ck, 10));
  const char *targets[] = {"all", "first", "last"};
  for (int t = 0; t < 3; t++) {
    char inject[96], context[96], name[32];
    if (t == 0)
      snprintf(inject, sizeof inject, "enospc-after=4096");
    else
      snprintf(inject, sizeof inject, "enospc-after=4096,enospc-rank=%d", t == 1 ? 0 : size - 1);
    cc_io_set_inject(inject);
    int iteration = 20 + 10 * t;
    snprintf(context, sizeof context, "%s: ENOSPC on %s rank(s)", backend, targets[t]);
    expect_refused(write_one(ck, iteration), "No space left on device", context);
    cc_io_set_inject(NULL);
    cc_io_checkpoint_stats stats;
    cc_io_checkpointer_stats(ck, &stats);
    TIO_CHECK(stats.count == 1 && stats.last_iteration == 10, "%s: stats %d, %d", context,
              stats.count, stats.last_iteration);
    cc_io_checkpoint_name(iteration, name, sizeof name);
    if (rank == 0) TIO_CHECK(!tio_exists(dir, name), "%s: failed checkpoint committed", context);
    expect_loads(dir, 10); /* the previous checkpoint stays latest and restartable */
  }
  TIO_OK(write_one(ck, 50)); /* nothing left half-done: the next checkpoint succeeds */
  cc_io_checkpointer_destroy(&ck);
  expect_loads(dir, 50);
}

static void mode_enospc_commit(const char *backend, const char *dir)
{
  cc_io_checkpointer *ck = make(backend, dir, false);
  TIO_OK(write_one(ck, 10));
  cc_io_set_inject("enospc-in-commit:2");
  expect_refused2(write_one(ck, 20), "No space left on device", "manifest.json",
                  "ENOSPC writing the manifest");
  cc_io_set_inject(NULL);
  cc_io_checkpoint_stats stats;
  cc_io_checkpointer_stats(ck, &stats);
  TIO_CHECK(stats.count == 1 && stats.last_iteration == 10, "stats after failure: %d, %d",
            stats.count, stats.last_iteration);
  const cc_io_checkpoint_record *rec;
  int n;
  cc_io_checkpointer_records(ck, &rec, &n);
  TIO_CHECK(n == 2 && rec[0].committed && !rec[1].committed && rec[1].iteration == 20,
            "records after failure: %d", n);
  if (rank == 0)
    TIO_CHECK(!tio_exists(dir, "ckpt.20") && !tio_exists(dir, "ckpt.20.tmp"),
              "failed checkpoint left behind");
  expect_loads(dir, 10);
  TIO_OK(write_one(ck, 30)); /* nothing left half-done */
  cc_io_checkpointer_destroy(&ck);
  expect_loads(dir, 30);
}

static void mode_kill_commit_write(const char *backend, const char *dir)
{
  cc_io_checkpointer *ck = make(backend, dir, false);
  TIO_OK(write_one(ck, 10));
  TIO_OK(write_one(ck, 20)); /* CUBECG_IO_INJECT=kill-during-commit:2 dies in here */
  cc_io_checkpointer_destroy(&ck);
}

static void mode_kill_commit_check(const char *backend, const char *dir)
{
  if (rank == 0) {
    char path[2048], name[64] = "";
    snprintf(path, sizeof path, "%s/latest", dir);
    FILE *f = fopen(path, "r");
    TIO_CHECK(f != NULL && fscanf(f, "%63s", name) == 1, "cannot read %s", path);
    fclose(f);
    TIO_CHECK(!strcmp(name, "ckpt.10"), "latest names %s after a kill inside the commit of 20",
              name);
  }
  expect_loads(dir, 10);
  cc_io_checkpointer *ck = make(backend, dir, false);
  TIO_OK(write_one(ck, 30));
  cc_io_checkpointer_destroy(&ck);
  expect_loads(dir, 30);
}

static void mode_odirect(const char *backend, const char *dir)
{
  cc_io_set_inject("odirect-einval");
  cc_io_checkpointer *ck = make(backend, dir, false);
  expect_refused(write_one(ck, 10), "O_DIRECT", "O_DIRECT refused, no fallback");
  cc_io_checkpointer_destroy(&ck);
  ck = make(backend, dir, true);
  TIO_OK(write_one(ck, 10));
  cc_io_checkpoint_stats stats;
  cc_io_checkpointer_stats(ck, &stats);
  TIO_CHECK(!strcmp(stats.path_used, "pwrite-buffered") && strstr(stats.detail, "O_DIRECT"),
            "fallback path '%s' (%s)", stats.path_used, stats.detail);
  if (rank == 0) printf("with fallback: path %s (%s)\n", stats.path_used, stats.detail);
  cc_io_checkpointer_destroy(&ck);
  cc_io_checkpoint_params params; /* reading needs the fallback too: it opens O_DIRECT */
  cc_io_checkpoint_params_default(&params);
  params.fallback = true;
  cc_io_state got;
  TIO_OK(cc_io_checkpoint_read(dir, &params, &layout, NULL, &got, NULL));
  tio_compare(&layout, &got, 2, 10, 10);
  cc_io_state_free(&got);
  cc_io_set_inject(NULL);
}

/* One seam through the handle API: refused without fallback, the expected path with it. */
static void seam(const char *inject, const char *what, const char *path_expected, const char *dir)
{
  cc_io_set_inject(inject);
  cc_io_options opt;
  cc_io_options_default(&opt);
  cc_io_handle *h;
  expect_refused(cc_io_open("uring", &opt, &layout, dir, CC_IO_WRITE, &h), what, inject);
  opt.fallback = true;
  cc_io_state state;
  tio_state(&layout, 2, 5, 5, &state);
  TIO_OK(cc_io_open("uring", &opt, &layout, dir, CC_IO_WRITE, &h));
  TIO_OK(cc_io_write_vectors(h, &state));
  TIO_OK(cc_io_commit(h));
  TIO_CHECK(!strcmp(cc_io_handle_info(h)->path_used, path_expected), "%s: path %s, expected %s",
            inject, cc_io_handle_info(h)->path_used, path_expected);
  TIO_OK(cc_io_close(&h));
  tio_state_free_malloc(&state);
  cc_io_state got;
  memset(&got, 0, sizeof got);
  TIO_OK(cc_io_open("uring", &opt, &layout, dir, CC_IO_READ, &h));
  TIO_OK(cc_io_read_vectors(h, &got));
  TIO_OK(cc_io_close(&h));
  tio_compare(&layout, &got, 2, 5, 5);
  cc_io_state_free(&got);
  cc_io_set_inject(NULL);
}

/* Short completions are resubmitted (data intact); a failing completion is an error naming it. */
static void uring_completions(const char *dir)
{
  cc_io_options opt;
  cc_io_options_default(&opt);
  opt.buffer_bytes = 16384;
  cc_io_state state;
  tio_state(&layout, 2, 6, 6, &state);
  cc_io_handle *h;
  cc_io_set_inject("uring-short");
  TIO_OK(cc_io_open("uring", &opt, &layout, dir, CC_IO_WRITE, &h));
  TIO_OK(cc_io_write_vectors(h, &state));
  TIO_OK(cc_io_commit(h));
  TIO_OK(cc_io_close(&h));
  cc_io_state got;
  memset(&got, 0, sizeof got);
  TIO_OK(cc_io_open("uring", &opt, &layout, dir, CC_IO_READ, &h));
  TIO_OK(cc_io_read_vectors(h, &got)); /* short reads too */
  TIO_OK(cc_io_close(&h));
  tio_compare(&layout, &got, 2, 6, 6);
  cc_io_state_free(&got);
  cc_io_set_inject("uring-eio");
  TIO_OK(cc_io_open("uring", &opt, &layout, dir, CC_IO_WRITE, &h));
  cc_err err = cc_io_write_vectors(h, &state);
  if (!err) err = cc_io_commit(h);
  expect_refused2(err, "Input/output error", "rank.", "uring completion with EIO");
  TIO_OK(cc_io_close(&h));
  cc_io_set_inject(NULL);
  tio_state_free_malloc(&state);
}

static void mode_seams(const char *dir)
{
  uring_completions(dir);
  seam("uring-eperm", "EPERM", "pwrite-direct", dir);
  seam("register-enomem", "RLIMIT_MEMLOCK", "uring-direct", dir);
  seam("odirect-einval", "O_DIRECT", "pwrite-buffered", dir);
}

static void mode_kill_write(const char *backend, const char *dir)
{
  cc_io_checkpointer *ck = make(backend, dir, false);
  TIO_OK(write_one(ck, 10));
  TIO_OK(write_one(ck, 20)); /* CUBECG_IO_INJECT=kill-during-write:2 dies in here */
  cc_io_checkpointer_destroy(&ck);
}

static void mode_kill_check(const char *backend, const char *dir)
{
  if (rank == 0) {
    TIO_CHECK(!tio_exists(dir, "ckpt.20"), "the killed checkpoint was committed");
    TIO_CHECK(tio_exists(dir, "ckpt.20.tmp"), "expected the killed checkpoint's temporary");
  }
  expect_loads(dir, 10);
  cc_io_checkpointer *ck = make(backend, dir, false); /* cleans up the interrupted temporary */
  cc_io_checkpointer_destroy(&ck);
  if (rank == 0) TIO_CHECK(!tio_exists(dir, "ckpt.20.tmp"), "stale temporary not removed");
}

/* Retention sees every directory entry: 4200 older committed checkpoints (more than the 4096 the
 * manager once looked at) all go when a new one is committed with keep 2. */
static void mode_retention_many(const char *backend, const char *dir)
{
  cc_io_checkpointer *ck = make(backend, dir, false);
  TIO_OK(write_one(ck, 5000));
  cc_io_checkpointer_destroy(&ck);
  enum { MANY = 4200 };
  if (rank == 0) { /* older checkpoints of the series: directories with ckpt.5000's manifest */
    char from[2048], *text = NULL;
    snprintf(from, sizeof from, "%s/ckpt.5000/manifest.json", dir);
    FILE *in = fopen(from, "r");
    TIO_CHECK(in != NULL, "open %s: %s", from, strerror(errno));
    size_t n = 0;
    TIO_CHECK(fseek(in, 0, SEEK_END) == 0 && (n = (size_t)ftell(in)) > 0 &&
                  fseek(in, 0, SEEK_SET) == 0,
              "size of %s", from);
    text = malloc(n);
    TIO_CHECK(text && fread(text, 1, n, in) == n, "read %s", from);
    fclose(in);
    for (int i = 0; i < MANY; i++) {
      char path[2048], ck[32];
      cc_io_checkpoint_name(i, ck, sizeof ck);
      snprintf(path, sizeof path, "%s/%s", dir, ck);
      TIO_CHECK(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
      snprintf(path, sizeof path, "%s/%s/manifest.json", dir, ck);
      FILE *out = fopen(path, "w");
      TIO_CHECK(out && fwrite(text, 1, n, out) == n && fclose(out) == 0, "write %s", path);
    }
    free(text);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  cc_io_checkpoint_params params;
  cc_io_checkpoint_params_default(&params);
  snprintf(params.backend, sizeof params.backend, "%s", backend);
  snprintf(params.dir, sizeof params.dir, "%s", dir);
  params.keep         = 2;
  cc_io_metadata meta = {.nx = 0, .solver = "pcg"};
  TIO_OK(cc_io_checkpointer_create(&params, &layout, &meta, &ck));
  TIO_OK(write_one(ck, 6000));
  cc_io_checkpointer_destroy(&ck);
  if (rank == 0) {
    int left = 0;
    DIR *d   = opendir(dir);
    TIO_CHECK(d != NULL, "opendir %s", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
      if (!strncmp(e->d_name, "ckpt.", 5)) left++;
    closedir(d);
    TIO_CHECK(left == 2 && tio_exists(dir, "ckpt.6000") && tio_exists(dir, "ckpt.5000"),
              "keep 2 left %d checkpoint directories (want ckpt.6000 and ckpt.5000)", left);
  }
  expect_loads(dir, 6000);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  /* the scripts' interface (tests/io_kill.sh, ...): the spec from the environment, once */
  cc_io_set_inject(getenv("CUBECG_IO_INJECT"));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  TIO_CHECK(argc == 4, "usage: %s MODE BACKEND DIR", argv[0]);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argv[1], *backend = argv[2];
  char dir[1024];
  bool fixture = !strncmp(mode, "ranks-", 6);
  if (fixture)
    snprintf(dir, sizeof dir, "%s", argv[3]);
  else
    snprintf(dir, sizeof dir, "%s_np%d", argv[3], size);
  if (strcmp(mode, "kill-check") && strcmp(mode, "kill-commit-check") && strcmp(mode, "ranks-read"))
    tio_clean_dir(MPI_COMM_WORLD, dir);
  int64_t *ids;
  tio_layout(MPI_COMM_WORLD, 1237, 42, &layout, &ids);

  if (!strcmp(mode, "corrupt"))
    mode_corrupt(backend, dir, false);
  else if (!strcmp(mode, "truncate"))
    mode_corrupt(backend, dir, true);
  else if (!strcmp(mode, "enospc"))
    mode_enospc(backend, dir);
  else if (!strcmp(mode, "enospc-inject"))
    mode_enospc_inject(backend, dir);
  else if (!strcmp(mode, "enospc-commit"))
    mode_enospc_commit(backend, dir);
  else if (!strcmp(mode, "kill-commit-write"))
    mode_kill_commit_write(backend, dir);
  else if (!strcmp(mode, "kill-commit-check"))
    mode_kill_commit_check(backend, dir);
  else if (!strcmp(mode, "odirect"))
    mode_odirect(backend, dir);
  else if (!strcmp(mode, "seams"))
    mode_seams(dir);
  else if (!strcmp(mode, "kill-write"))
    mode_kill_write(backend, dir);
  else if (!strcmp(mode, "kill-check"))
    mode_kill_check(backend, dir);
  else if (!strcmp(mode, "ranks-write")) {
    cc_io_checkpointer *ck = make(backend, dir, false);
    TIO_OK(write_one(ck, 40));
    cc_io_checkpointer_destroy(&ck);
  } else if (!strcmp(mode, "ranks-read")) {
    cc_io_state got;
    cc_err err = cc_io_checkpoint_read(dir, NULL, &layout, NULL, &got, NULL);
    if (!strcmp(backend, "hdf5") || size == 2) { /* global order: any rank count */
      TIO_OK(err);
      tio_compare(&layout, &got, 2, 40, 40);
      cc_io_state_free(&got);
    } else
      expect_refused(err, "ranks", "another rank count, per-rank files");
  } else if (!strcmp(mode, "retention-many"))
    mode_retention_many(backend, dir);
  else
    TIO_CHECK(0, "unknown mode %s", mode);

  free(ids);
  if (rank == 0) printf("io integrity %s %s at %d ranks: OK\n", mode, backend, size);
  MPI_Finalize();
  return 0;
}
