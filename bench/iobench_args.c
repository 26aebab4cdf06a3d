/* iobench_args.c: cubecg-iobench's command line: the options, their checks (one clear line naming
 * a bad value) and the backends it times. */
#include "iobench.h"

/* The per-file backends this benchmark times: every built one but "gas" (the global memory store
 * is a checkpoint tier over MPI RMA with a benchmark of its own, cubecg-gasbench). */
static const char *iobench_backends(void)
{
  static char names[256];
  names[0] = '\0';
  for (int i = 0; cc_io_backend_name(i); i++) {
    if (!strcmp(cc_io_backend_name(i), "gas")) continue;
    size_t used = strlen(names);
    snprintf(names + used, sizeof names - used, "%s%s", used ? "," : "", cc_io_backend_name(i));
  }
  return names;
}

void usage(void)
{
  printf(
      "cubecg-iobench: checkpoint I/O benchmark\n"
      "  --dir DIR             directory for the files (default ./cubecg-iobench.tmp)\n"
      "  --dirs D1,D2,...      spread the ranks over several directories/devices (hdf5: one)\n"
      "  --mapping block|cyclic  rank r -> D[r*n/ranks] (block) or D[r%%n] (default block)\n"
      "  --fio                 run each backend's fio twin (posix: psync+end_fsync; uring:\n"
      "                        io_uring+direct+fixedbufs) on the same directory, sizes, buffers\n"
      "  --sizes LIST          per-rank file sizes (default 1M,8M,32M,128M,256M,1G)\n"
      "  --backends LIST       of %s (default posix,uring,offload,hdf5)\n"
      "  --buffers LIST        I/O buffer sizes: posix setvbuf, uring request size\n"
      "                        (default 8k,512k; hdf5/fortran ignore it)\n"
      "  --repeat R            repetitions (default 10, as the seeds)\n"
      "  --queue-depth Q       uring requests in flight (default 4)\n"
      "  --durable | --no-durable  fsync inside the IOR-style timing (default durable)\n"
      "  --writeback SIZE      posix, durable: start the writeback every SIZE bytes written\n"
      "                        (sync_file_range; as cubecg --io-writeback; default 16M, 0 off)\n"
      "  --checksum            CRC32C while writing/reading, as checkpoints do (default off)\n"
      "  --fallback            allow the uring fallback chain\n"
      "  --report FILE         JSON report (kind \"iobench\", docs/report-schema.md)\n",
      iobench_backends());
}

/* A strict decimal integer option (no "12abc", no "1e3", no overflow). */
static cc_err parse_int(const char *key, const char *text, int *out)
{
  CC_CHECK(bench_strict_int(text, out), CC_ERR_ARG, "%s: '%s' is not an integer", key, text);
  return CC_OK;
}

/* --mapping: block = ranks r*n/size go to directory r*n/size; cyclic = r % n. */
static int dir_of_rank(const bench_params *p, int r)
{
  if (!strcmp(p->mapping, "cyclic")) return r % p->n_dirs;
  return (int)((int64_t)r * p->n_dirs / size);
}

/* One option of the command line (arg as given, for the message of an unknown one); --backends
 * and --dirs are kept as text for parse_backends and parse_dirs. */
static cc_err parse_option(const char *arg, const char *key, char *value, bench_params *p,
                           bool *help, const char **backends, const char **dirs)
{
  if (!strcmp(key, "--help"))
    *help = true;
  else if (!strcmp(key, "--durable"))
    p->durable = true;
  else if (!strcmp(key, "--no-durable"))
    p->durable = false;
  else if (!strcmp(key, "--checksum"))
    p->checksum = true;
  else if (!strcmp(key, "--fallback"))
    p->fallback = true;
  else if (!strcmp(key, "--fio"))
    p->fio = true;
  else if (!strcmp(key, "--list-backends")) {
    if (rank == 0) printf("%s\n", iobench_backends());
    *help        = true; /* nothing else to do */
    p->list_only = true;
  } else if (!strcmp(key, "--dirs"))
    *dirs = value;
  else if (!strcmp(key, "--mapping")) {
    CC_CHECK(!strcmp(value, "block") || !strcmp(value, "cyclic"), CC_ERR_ARG,
             "--mapping '%s' (block or cyclic)", value);
    snprintf(p->mapping, sizeof p->mapping, "%s", value);
  } else if (!strcmp(key, "--dir")) {
    CC_CHECK(strlen(value) < sizeof p->dir, CC_ERR_ARG, "--dir longer than %zu characters",
             sizeof p->dir - 1);
    snprintf(p->dir, sizeof p->dir, "%s", value);
  } else if (!strcmp(key, "--sizes"))
    CC_CALL(bench_parse_sizes(value, p->sizes, &p->n_sizes, MAX_LIST));
  else if (!strcmp(key, "--buffers"))
    CC_CALL(bench_parse_sizes(value, p->buffers, &p->n_buffers, MAX_LIST));
  else if (!strcmp(key, "--backends"))
    *backends = value;
  else if (!strcmp(key, "--repeat"))
    CC_CALL(parse_int(key, value, &p->repeat));
  else if (!strcmp(key, "--writeback")) {
    CC_CALL(cc_io_parse_bytes(value, &p->writeback));
    CC_CHECK(p->writeback == 0 || p->writeback >= 4096, CC_ERR_ARG,
             "--writeback %s: 0 (off) or at least 4 KiB", value);
  } else if (!strcmp(key, "--queue-depth"))
    CC_CALL(parse_int(key, value, &p->queue_depth));
  else if (!strcmp(key, "--report"))
    snprintf(p->report, sizeof p->report, "%s", value);
  else
    CC_FAIL(CC_ERR_ARG, "unknown option %s (see --help)", arg);
  return CC_OK;
}

/* --backends: each built, and not gas. */
static cc_err parse_backends(bench_params *p, const char *backends)
{
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", backends);
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    CC_CHECK(p->n_backends < MAX_LIST, CC_ERR_ARG, "too many backends");
    CC_CHECK(strcmp(tok, "gas") != 0, CC_ERR_ARG,
             "--backends gas: the global memory store has its own benchmark, cubecg-gasbench");
    CC_CHECK(cc_io_backend_find(tok, NULL) != NULL, CC_ERR_ARG, "unknown backend '%s' (built: %s)",
             tok, iobench_backends());
    snprintf(p->backends[p->n_backends++], sizeof p->backends[0], "%s", tok);
  }
  CC_CHECK(p->n_backends > 0, CC_ERR_ARG, "--backends '%s' names no backend (built: %s)", backends,
           iobench_backends());
  return CC_OK;
}

/* --dirs: rank -> directory: block keeps neighbours together, cyclic deals them out (no --dirs:
 * --dir for every rank). */
static cc_err parse_dirs(bench_params *p, const char *dirs)
{
  if (dirs) {
    char list[4096];
    CC_CHECK(strlen(dirs) < sizeof list, CC_ERR_ARG, "--dirs longer than %zu characters",
             sizeof list - 1);
    snprintf(list, sizeof list, "%s", dirs);
    for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      CC_CHECK(p->n_dirs < MAX_LIST, CC_ERR_ARG, "--dirs: more than %d directories", MAX_LIST);
      CC_CHECK(strlen(tok) < sizeof p->dirs[0], CC_ERR_ARG,
               "--dirs: '%s' longer than %zu characters", tok, sizeof p->dirs[0] - 1);
      snprintf(p->dirs[p->n_dirs++], sizeof p->dirs[0], "%s", tok);
    }
    CC_CHECK(p->n_dirs > 0, CC_ERR_ARG, "--dirs '%s' names no directory", dirs);
  } else {
    p->n_dirs = 1;
    snprintf(p->dirs[0], sizeof p->dirs[0], "%s", p->dir);
  }
  p->dir_index = dir_of_rank(p, rank);
  memcpy(p->dir, p->dirs[p->dir_index], sizeof p->dir); /* same size */
  return CC_OK;
}

cc_err parse_args(int argc, char **argv, bench_params *p, bool *help)
{
  memset(p, 0, sizeof *p);
  snprintf(p->dir, sizeof p->dir, "cubecg-iobench.tmp");
  CC_CALL(bench_parse_sizes("1M,8M,32M,128M,256M,1G", p->sizes, &p->n_sizes, MAX_LIST));
  CC_CALL(bench_parse_sizes("8k,512k", p->buffers, &p->n_buffers, MAX_LIST));
  const char *backends = "posix,uring,offload,hdf5";
  const char *dirs     = NULL;
  snprintf(p->mapping, sizeof p->mapping, "block");
  p->repeat      = 10;
  p->queue_depth = CC_IO_QUEUE_DEPTH;
  p->durable     = true;
  p->writeback   = CC_IO_WRITEBACK_DEFAULT;
  *help          = false;
  for (int i = 1; i < argc; i++) {
    static const char *const flags[] = {"--help",     "--durable", "--no-durable",    "--checksum",
                                        "--fallback", "--fio",     "--list-backends", NULL};
    char key[64], *value;
    CC_CALL(bench_option(argc, argv, &i, flags, key, &value));
    CC_CALL(parse_option(argv[i], key, value, p, help, &backends, &dirs));
  }
  CC_CHECK(p->repeat >= 1 && p->repeat <= 1000, CC_ERR_ARG, "--repeat %d (1..1000)", p->repeat);
  for (int k = 0; k < p->n_buffers; k++) /* as the driver's --io-buffer */
    CC_CHECK(p->buffers[k] >= 512 && p->buffers[k] <= ((size_t)1 << 30), CC_ERR_ARG,
             "--buffers: %zu bytes, each buffer must be between 512 bytes and 1 GiB",
             p->buffers[k]);
  CC_CHECK(p->queue_depth >= 1 && p->queue_depth <= 64, CC_ERR_ARG, "--queue-depth %d (1..64)",
           p->queue_depth);
  CC_CALL(parse_backends(p, backends));
  CC_CALL(parse_dirs(p, dirs));
  for (int b = 0; b < p->n_backends; b++)
    CC_CHECK(p->n_dirs == 1 || strcmp(p->backends[b], "hdf5"), CC_ERR_ARG,
             "--backends hdf5 writes one shared file: it cannot be spread over --dirs %s", dirs);
  for (int s = 0; s < p->n_sizes; s++)
    CC_CHECK(p->sizes[s] >= 8 && p->sizes[s] % 8 == 0, CC_ERR_ARG,
             "size %zu: a multiple of 8 bytes (whole doubles) is needed", p->sizes[s]);
  return CC_OK;
}
