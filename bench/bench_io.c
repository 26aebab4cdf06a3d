/* bench_io.c: cubecg-iobench, the seeds' checkpoint I/O experiment (normal / accelerated / offload
 * I/O, file sizes 1 MB - 1 GB, I/O buffers 8 KB and 512 KB) on the io/ backends: every rank writes
 * then reads its file, timed as the seeds did (MPI_Barrier + MPI_Wtime around write + flush) and as
 * IOR does (earliest open to latest close, fsync included when durable, slowest rank). */
#include "cc_io.h"
#include "cc_topology.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAX_LIST 16

typedef struct {
  char dir[200];
  size_t sizes[MAX_LIST];
  int n_sizes;
  char backends[MAX_LIST][24];
  int n_backends;
  size_t buffers[MAX_LIST];
  int n_buffers;
  int repeat, queue_depth;
  bool durable, checksum, fallback;
  char report[1024];
} bench_params;

typedef struct { /* one measured quantity over repetitions (and ranks) */
  double median, min, max;
} bench_stat;

typedef struct {
  char backend[24], op[8], timing[8], path[48], detail[160];
  size_t size, buffer;
  bool durable;
  bench_stat aggregate, per_rank;
  double stall_median, write_median; /* offload: caller stall vs helper write */
} bench_row;

static int rank, size;

static void usage(void)
{
  printf("cubecg-iobench: checkpoint I/O benchmark (issue 5)\n"
         "  --dir DIR             directory for the files (default ./cubecg-iobench.tmp)\n"
         "  --sizes LIST          per-rank file sizes (default 1M,8M,32M,128M,256M,1G)\n"
         "  --backends LIST       of %s (default posix,uring,offload,hdf5)\n"
         "  --buffers LIST        I/O buffer sizes: posix setvbuf, uring request size\n"
         "                        (default 8k,512k; hdf5/fortran ignore it)\n"
         "  --repeat R            repetitions (default 5)\n"
         "  --queue-depth Q       uring requests in flight (default 4)\n"
         "  --durable | --no-durable  fsync inside the IOR-style timing (default durable)\n"
         "  --checksum            CRC32C while writing/reading, as checkpoints do (default off)\n"
         "  --fallback            allow the uring fallback chain\n"
         "  --report FILE         JSON report (kind \"iobench\", docs/report-schema.md)\n",
         cc_io_backend_names());
}

static cc_err parse_list_bytes(const char *text, size_t *out, int *n)
{
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", text);
  *n = 0;
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    CC_CHECK(*n < MAX_LIST, CC_ERR_ARG, "more than %d entries in '%s'", MAX_LIST, text);
    CC_CALL(cc_io_parse_bytes(tok, &out[(*n)++]));
  }
  CC_CHECK(*n > 0, CC_ERR_ARG, "empty list '%s'", text);
  return CC_OK;
}

/* A strict decimal integer option (no "12abc", no "1e3", no overflow). */
static cc_err parse_int(const char *key, const char *text, int *out)
{
  char *end;
  errno      = 0;
  long value = strtol(text, &end, 10);
  CC_CHECK(end != text && *end == '\0' && errno == 0 && value >= INT_MIN && value <= INT_MAX,
           CC_ERR_ARG, "%s: '%s' is not an integer", key, text);
  *out = (int)value;
  return CC_OK;
}

static cc_err parse_args(int argc, char **argv, bench_params *p, bool *help)
{
  memset(p, 0, sizeof *p);
  snprintf(p->dir, sizeof p->dir, "cubecg-iobench.tmp");
  CC_CALL(parse_list_bytes("1M,8M,32M,128M,256M,1G", p->sizes, &p->n_sizes));
  CC_CALL(parse_list_bytes("8k,512k", p->buffers, &p->n_buffers));
  const char *backends = "posix,uring,offload,hdf5";
  p->repeat            = 5;
  p->queue_depth       = 4;
  p->durable           = true;
  *help                = false;
  for (int i = 1; i < argc; i++) {
    char key[64], *value = NULL;
    char *eq = strchr(argv[i], '=');
    snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - argv[i]) : (int)strlen(argv[i]), argv[i]);
    if (eq) value = eq + 1;
    bool flag = !strcmp(key, "--help") || !strcmp(key, "--durable") ||
                !strcmp(key, "--no-durable") || !strcmp(key, "--checksum") ||
                !strcmp(key, "--fallback");
    if (!flag && !value) {
      CC_CHECK(i + 1 < argc, CC_ERR_ARG, "option %s needs a value (see --help)", key);
      value = argv[++i];
    }
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
    else if (!strcmp(key, "--dir")) {
      CC_CHECK(strlen(value) < sizeof p->dir, CC_ERR_ARG, "--dir longer than %zu characters",
               sizeof p->dir - 1);
      snprintf(p->dir, sizeof p->dir, "%s", value);
    } else if (!strcmp(key, "--sizes"))
      CC_CALL(parse_list_bytes(value, p->sizes, &p->n_sizes));
    else if (!strcmp(key, "--buffers"))
      CC_CALL(parse_list_bytes(value, p->buffers, &p->n_buffers));
    else if (!strcmp(key, "--backends"))
      backends = value;
    else if (!strcmp(key, "--repeat"))
      CC_CALL(parse_int(key, value, &p->repeat));
    else if (!strcmp(key, "--queue-depth"))
      CC_CALL(parse_int(key, value, &p->queue_depth));
    else if (!strcmp(key, "--report"))
      snprintf(p->report, sizeof p->report, "%s", value);
    else
      CC_FAIL(CC_ERR_ARG, "unknown option %s (see --help)", argv[i]);
  }
  CC_CHECK(p->repeat >= 1 && p->repeat <= 1000, CC_ERR_ARG, "--repeat %d (1..1000)", p->repeat);
  CC_CHECK(p->queue_depth >= 1 && p->queue_depth <= 64, CC_ERR_ARG, "--queue-depth %d (1..64)",
           p->queue_depth);
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", backends);
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    CC_CHECK(p->n_backends < MAX_LIST, CC_ERR_ARG, "too many backends");
    CC_CHECK(cc_io_backend_find(tok, NULL) != NULL, CC_ERR_ARG, "unknown backend '%s' (built: %s)",
             tok, cc_io_backend_names());
    snprintf(p->backends[p->n_backends++], sizeof p->backends[0], "%s", tok);
  }
  for (int s = 0; s < p->n_sizes; s++)
    CC_CHECK(p->sizes[s] >= 8 && p->sizes[s] % 8 == 0, CC_ERR_ARG,
             "size %zu: a multiple of 8 bytes (whole doubles) is needed", p->sizes[s]);
  return CC_OK;
}

/* ---- resources --------------------------------------------------------------------------------
 */
static int64_t mem_available(void)
{
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return -1;
  char line[256];
  long long kb = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) break;
  fclose(f);
  return kb < 0 ? -1 : kb * 1024;
}

/* Sizes that fit: disk for every rank's file (one run at a time) and memory for the source, the
 * read buffer and the offload staging of every rank on this node. */
static cc_err cap_sizes(bench_params *p, MPI_Comm node_comm, char *skipped, size_t n_skipped)
{
  int node_ranks;
  CC_MPI(MPI_Comm_size(node_comm, &node_ranks));
  int64_t disk = -1, mem = mem_available();
  if (rank == 0) {
    struct statvfs vfs;
    if (statvfs(p->dir, &vfs) == 0) disk = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
  }
  CC_MPI(MPI_Bcast(&disk, 1, MPI_INT64_T, 0, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &mem, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
  int kept   = 0;
  skipped[0] = '\0';
  for (int s = 0; s < p->n_sizes; s++) {
    double need_disk = (double)p->sizes[s] * size * 1.05 + 64.0 * (1 << 20);
    double need_mem  = 3.0 * (double)p->sizes[s] * node_ranks + 256.0 * (1 << 20);
    char why[256]    = "";
    if (disk >= 0 && need_disk > (double)disk)
      snprintf(why, sizeof why, "needs %.0f MiB of disk in %s, %.0f MiB free", need_disk / 1048576,
               p->dir, (double)disk / 1048576);
    else if (mem >= 0 && need_mem > 0.8 * (double)mem)
      snprintf(why, sizeof why,
               "needs %.0f MiB of memory on a node (%d ranks x 3 buffers), %.0f "
               "MiB available",
               need_mem / 1048576, node_ranks, (double)mem / 1048576);
    if (why[0]) {
      if (rank == 0) printf("cubecg-iobench: skipping size %zu bytes: %s\n", p->sizes[s], why);
      size_t used = strlen(skipped);
      snprintf(skipped + used, n_skipped - used, "%s%zu: %s", used ? "; " : "", p->sizes[s], why);
      continue;
    }
    p->sizes[kept++] = p->sizes[s];
  }
  p->n_sizes = kept;
  return CC_OK;
}

/* Drop the page cache so reads come from the device (root only; says so when not permitted). */
static bool drop_page_cache(MPI_Comm node_comm, char *why, size_t n)
{
  int node_rank, ok = 1;
  MPI_Comm_rank(node_comm, &node_rank);
  sync();
  if (node_rank == 0) {
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
    if (fd < 0 || write(fd, "1", 1) != 1) {
      ok = 0;
      snprintf(why, n, "/proc/sys/vm/drop_caches: %s", strerror(errno));
    }
    if (fd >= 0) close(fd);
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  return ok;
}

/* ---- statistics -------------------------------------------------------------------------------
 */
static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static bench_stat stat_of(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  bench_stat s = {n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[0], v[n - 1]};
  return s;
}

/* ---- one configuration ------------------------------------------------------------------------
 */
typedef struct {  /* this rank's times of one repetition */
  double open;    /* before the open (IOR: earliest open) */
  double started; /* after the open and a barrier (seeds: MPI_Barrier + MPI_Wtime) */
  double flushed; /* write + flush returned (offload: the snapshot was handed over) */
  double closed;  /* after fsync (when durable) and close (IOR: latest close) */
  double stall, helper_write;
} rep_times;

static cc_err run_write(const char *backend, const cc_io_options *opt, const cc_io_layout *layout,
                        const char *dir, double *source, rep_times *t, cc_io_file_info *info)
{
  cc_io_state state;
  memset(&state, 0, sizeof state);
  snprintf(state.solver, sizeof state.solver, "iobench");
  state.n_vectors = 1;
  snprintf(state.vector_name[0], CC_IO_NAME_LEN, "data");
  state.vector[0] = source;
  bool offload    = !strncmp(backend, "offload", 7);
  cc_io_handle *h;
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  t->open = MPI_Wtime();
  CC_CALL(cc_io_open(backend, opt, layout, dir, CC_IO_WRITE, &h));
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  t->started = MPI_Wtime();
  CC_CALL(cc_io_write_vectors(h, &state));
  if (offload) t->flushed = MPI_Wtime(); /* the caller may go on: "write returned" */
  CC_CALL(cc_io_commit(h));
  if (!offload) t->flushed = MPI_Wtime();
  *info = *cc_io_handle_info(h);
  CC_CALL(cc_io_close(&h));
  if (opt->durable && !offload) { /* offload fsyncs on its helper (inside commit) */
    char path[4200];
    if (!strcmp(backend, "hdf5"))
      snprintf(path, sizeof path, "%s/state.h5", dir);
    else
      snprintf(path, sizeof path, "%s", info->file);
    int fd = open(path, O_RDONLY);
    CC_CHECK(fd >= 0 && fsync(fd) == 0, CC_ERR_IO, "fsync(%s): %s", path, strerror(errno));
    close(fd);
  }
  t->closed       = MPI_Wtime();
  t->stall        = info->stall_s;
  t->helper_write = info->write_s;
  return CC_OK;
}

static cc_err run_read(const char *backend, const cc_io_options *write_opt,
                       const cc_io_layout *layout, const char *dir, double *target, rep_times *t)
{
  cc_io_options read_opt = *write_opt, *opt = &read_opt;
  read_opt.read_into = true;
  cc_io_state state;
  memset(&state, 0, sizeof state);
  state.n_vectors = 1;
  state.vector[0] = target; /* read into our buffer: no allocation in the timed region */
  cc_io_handle *h;
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  t->open = MPI_Wtime();
  CC_CALL(cc_io_open(backend, opt, layout, dir, CC_IO_READ, &h));
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  t->started = MPI_Wtime();
  CC_CALL(cc_io_read_vectors(h, &state));
  CC_CALL(cc_io_close(&h));
  t->flushed = t->closed = MPI_Wtime();
  return CC_OK;
}

/* Reduce the repetitions' times into barrier- and IOR-style rows. */
static cc_err make_rows(const rep_times *t, int reps, size_t bytes, bool durable, bool write,
                        bench_row *barrier_row, bench_row *ior_row)
{
  double *agg_b, *agg_i, *mine_b, *mine_i, *all_b = NULL, *all_i = NULL, *stall, *hw;
  CC_CALL(cc_malloc((size_t)reps, sizeof(double), &agg_b));
  CC_CALL(cc_malloc((size_t)reps, sizeof(double), &agg_i));
  CC_CALL(cc_malloc((size_t)reps, sizeof(double), &mine_b));
  CC_CALL(cc_malloc((size_t)reps, sizeof(double), &mine_i));
  CC_CALL(cc_malloc((size_t)reps, sizeof(double), &stall));
  CC_CALL(cc_malloc((size_t)reps, sizeof(double), &hw));
  for (int r = 0; r < reps; r++) {
    double barrier = t[r].flushed - t[r].started, first_open, last_close, slowest;
    CC_MPI(MPI_Allreduce(&barrier, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CC_MPI(MPI_Allreduce(&t[r].open, &first_open, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
    CC_MPI(MPI_Allreduce(&t[r].closed, &last_close, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    agg_b[r]  = (double)bytes * size / slowest;
    agg_i[r]  = (double)bytes * size / (last_close - first_open);
    mine_b[r] = (double)bytes / barrier;
    mine_i[r] = (double)bytes / (t[r].closed - t[r].open);
    CC_MPI(MPI_Allreduce(&t[r].stall, &stall[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CC_MPI(MPI_Allreduce(&t[r].helper_write, &hw[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  }
  if (rank == 0) {
    CC_CALL(cc_malloc((size_t)reps * size, sizeof(double), &all_b));
    CC_CALL(cc_malloc((size_t)reps * size, sizeof(double), &all_i));
  }
  CC_MPI(MPI_Gather(mine_b, reps, MPI_DOUBLE, all_b, reps, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  CC_MPI(MPI_Gather(mine_i, reps, MPI_DOUBLE, all_i, reps, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    snprintf(barrier_row->op, sizeof barrier_row->op, "%s", write ? "write" : "read");
    snprintf(ior_row->op, sizeof ior_row->op, "%s", write ? "write" : "read");
    snprintf(barrier_row->timing, sizeof barrier_row->timing, "barrier");
    snprintf(ior_row->timing, sizeof ior_row->timing, "ior");
    barrier_row->durable      = false; /* write + flush: "write returned" */
    ior_row->durable          = write && durable;
    barrier_row->aggregate    = stat_of(agg_b, reps);
    ior_row->aggregate        = stat_of(agg_i, reps);
    barrier_row->per_rank     = stat_of(all_b, reps * size);
    ior_row->per_rank         = stat_of(all_i, reps * size);
    barrier_row->stall_median = ior_row->stall_median = stat_of(stall, reps).median;
    barrier_row->write_median = ior_row->write_median = stat_of(hw, reps).median;
  }
  cc_free(&agg_b);
  cc_free(&agg_i);
  cc_free(&mine_b);
  cc_free(&mine_i);
  cc_free(&all_b);
  cc_free(&all_i);
  cc_free(&stall);
  cc_free(&hw);
  return CC_OK;
}

static cc_err run_config(const bench_params *p, const char *backend, size_t bytes, size_t buffer,
                         MPI_Comm node_comm, bench_row *rows, int *n_rows, bool *dropped,
                         char *drop_why, size_t n_why)
{
  cc_io_options opt;
  cc_io_options_default(&opt);
  opt.buffer_bytes = buffer;
  opt.queue_depth  = p->queue_depth;
  opt.fallback     = p->fallback;
  opt.checksum     = p->checksum;
  /* the timed interval adds an fsync per file afterwards; offload fsyncs on its helper */
  opt.durable = !strncmp(backend, "offload", 7) ? p->durable : false;
  int64_t n   = (int64_t)(bytes / sizeof(double));
  int64_t *ids;
  double *source, *target;
  CC_CALL(cc_malloc((size_t)n, sizeof(int64_t), &ids));
  CC_CALL(cc_malloc((size_t)n, sizeof(double), &source));
  CC_CALL(cc_malloc((size_t)n, sizeof(double), &target));
  for (int64_t i = 0; i < n; i++) { /* touched before timing; distinct per rank and position */
    ids[i]    = (int64_t)rank * n + i;
    source[i] = (double)ids[i] * 0.5 + 1.0;
    target[i] = 0.0;
  }
  cc_io_layout layout = {MPI_COMM_WORLD, n, ids, n * size, 1};
  char dir[1400];
  snprintf(dir, sizeof dir, "%s/%s-%zu-%zu", p->dir, backend, bytes, buffer);
  rep_times *tw, *tr;
  CC_CALL(cc_calloc((size_t)p->repeat, sizeof *tw, &tw));
  CC_CALL(cc_calloc((size_t)p->repeat, sizeof *tr, &tr));
  cc_io_file_info info;
  memset(&info, 0, sizeof info);
  for (int r = 0; r < p->repeat; r++) {
    if (rank == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST)
      CC_FAIL(CC_ERR_SYS, "cannot create %s: %s", dir, strerror(errno));
    CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CC_CALL(run_write(backend, &opt, &layout, dir, source, &tw[r], &info));
    if (!drop_page_cache(node_comm, drop_why, n_why)) *dropped = false;
    CC_CALL(run_read(backend, &opt, &layout, dir, target, &tr[r]));
    CC_CHECK(!memcmp(source, target, bytes), CC_ERR_CHECK,
             "%s: the data read back differs from what was written (%zu bytes)", backend, bytes);
    memset(target, 0, bytes);
    CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) { /* one configuration's files at a time on the disk */
      char cmd[1500];
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
      CC_CHECK(system(cmd) == 0, CC_ERR_SYS, "cannot remove %s", dir);
    }
  }
  bench_row *w = &rows[*n_rows], *r = &rows[*n_rows + 2];
  CC_CALL(make_rows(tw, p->repeat, bytes, p->durable, true, &w[0], &w[1]));
  CC_CALL(make_rows(tr, p->repeat, bytes, p->durable, false, &r[0], &r[1]));
  for (int k = 0; k < 4; k++) {
    bench_row *row = &rows[*n_rows + k];
    snprintf(row->backend, sizeof row->backend, "%s", backend);
    snprintf(row->path, sizeof row->path, "%s", info.path_used);
    snprintf(row->detail, sizeof row->detail, "%s", info.detail);
    row->size   = bytes;
    row->buffer = buffer;
  }
  *n_rows += 4;
  cc_free(&tw);
  cc_free(&tr);
  cc_free(&ids);
  cc_free(&source);
  cc_free(&target);
  return CC_OK;
}

/* ---- output -----------------------------------------------------------------------------------
 */
static void print_table(const bench_row *rows, int n, bool dropped, const char *drop_why)
{
  printf("\ncubecg-iobench: %d ranks, GB/s = 1e9 bytes/s; barrier = write+flush (seeds), "
         "ior = open..close%s (slowest rank)\n",
         size, rows && n && rows[1].durable ? " incl. fsync" : "");
  if (!dropped)
    printf("page cache NOT dropped between write and read (%s): buffered reads may come from "
           "memory\n",
           drop_why);
  printf("%-14s %-5s %9s %7s %-7s %10s %10s %10s %10s  %s\n", "backend", "op", "size", "buffer",
         "timing", "agg_med", "agg_min", "agg_max", "rank_med", "path");
  for (int i = 0; i < n; i++) {
    const bench_row *r = &rows[i];
    char buf[24];
    if (r->buffer)
      snprintf(buf, sizeof buf, "%zuk", r->buffer >> 10);
    else
      snprintf(buf, sizeof buf, "-");
    printf("%-14s %-5s %8.0fM %7s %-7s %10.3f %10.3f %10.3f %10.3f  %s", r->backend, r->op,
           (double)r->size / 1048576, buf, r->timing, r->aggregate.median / 1e9,
           r->aggregate.min / 1e9, r->aggregate.max / 1e9, r->per_rank.median / 1e9, r->path);
    if (!strncmp(r->backend, "offload", 7) && !strcmp(r->op, "write") && r->write_median > 0)
      printf(" (stall %.1f%% of write)", 100.0 * r->stall_median / r->write_median);
    printf("\n");
  }
}

static cc_topology topo; /* nodes, hosts, affinity (cc_topology.h) */

static cc_err write_report(const bench_params *p, const bench_row *rows, int n, bool dropped,
                           const char *drop_why, const char *skipped)
{
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  CC_CALL(cc_mpi_library(library, sizeof library));
  FILE *f = fopen(p->report, "w");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create report %s: %s", p->report, strerror(errno));
  cc_json js = {.out = f};
  cc_json_begin_object(&js, NULL);
  cc_json_int(&js, "cubecg_report_version", CC_REPORT_VERSION);
  cc_json_string(&js, "kind", "iobench");
  cc_json_string(&js, "cubecg_version", CC_VERSION);
  cc_provenance_json(&js); /* date, build, platform */
  cc_json_begin_object(&js, "mpi");
  cc_json_string(&js, "library", library);
  cc_json_end_object(&js);
  cc_topology_json(&topo, &js);
  cc_json_int(&js, "ranks", size);
  cc_json_string(&js, "dir", p->dir);
  cc_json_bool(&js, "page_cache_dropped", dropped);
  if (!dropped) cc_json_string(&js, "page_cache_not_dropped_because", drop_why);
  cc_json_int(&js, "repeat", p->repeat);
  cc_json_int(&js, "queue_depth", p->queue_depth);
  cc_json_bool(&js, "checksum", p->checksum);
  cc_json_string(&js, "skipped_sizes", skipped);
  cc_json_begin_array(&js, "results");
  for (int i = 0; i < n; i++) {
    const bench_row *r = &rows[i];
    cc_json_begin_object(&js, NULL);
    cc_json_string(&js, "backend", r->backend);
    cc_json_string(&js, "op", r->op);
    cc_json_int(&js, "size_bytes", (int64_t)r->size);
    cc_json_int(&js, "ranks", size);
    cc_json_int(&js, "buffer_bytes", (int64_t)r->buffer);
    cc_json_bool(&js, "durable", r->durable);
    cc_json_string(&js, "timing", r->timing);
    cc_json_begin_object(&js, "aggregate_bytes_per_s");
    cc_json_double(&js, "median", r->aggregate.median);
    cc_json_double(&js, "min", r->aggregate.min);
    cc_json_double(&js, "max", r->aggregate.max);
    cc_json_end_object(&js);
    cc_json_begin_object(&js, "per_rank_bytes_per_s");
    cc_json_double(&js, "median", r->per_rank.median);
    cc_json_double(&js, "min", r->per_rank.min);
    cc_json_double(&js, "max", r->per_rank.max);
    cc_json_end_object(&js);
    cc_json_string(&js, "path", r->path);
    cc_json_string(&js, "detail", r->detail);
    if (!strncmp(r->backend, "offload", 7) && !strcmp(r->op, "write")) {
      cc_json_double(&js, "stall_s_median", r->stall_median);
      cc_json_double(&js, "write_s_median", r->write_median);
    }
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  cc_json_end_object(&js);
  int failed = ferror(f);
  failed |= fclose(f) != 0;
  CC_CHECK(!failed, CC_ERR_IO, "writing %s failed", p->report);
  return CC_OK;
}

static cc_err bench(int argc, char **argv)
{
  bench_params p;
  bool help = false;
  CC_CALL(parse_args(argc, argv, &p, &help));
  if (help) {
    if (rank == 0) usage();
    return CC_OK;
  }
  CC_CALL(cc_topology_setup(MPI_COMM_WORLD, NULL, 0, &topo));
  if (rank == 0 && topo.oversubscribed)
    printf("cubecg-iobench: WARNING: oversubscribed: %s\n", topo.oversubscribed_why);
  cc_err local = CC_OK;
  if (rank == 0 && mkdir(p.dir, 0755) != 0 && errno != EEXIST)
    local = cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__, "cannot create %s: %s", p.dir,
                          strerror(errno));
  cc_err global;
  CC_CALL(cc_error_agree(MPI_COMM_WORLD, local, &global));
  CC_CHECK(global == CC_OK, global, "cannot create the benchmark directory %s", p.dir);
  MPI_Comm node_comm;
  CC_MPI(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm));
  char skipped[2048];
  CC_CALL(cap_sizes(&p, node_comm, skipped, sizeof skipped));
  int max_rows = p.n_backends * p.n_sizes * p.n_buffers * 4;
  bench_row *rows;
  CC_CALL(cc_calloc((size_t)(max_rows > 0 ? max_rows : 1), sizeof *rows, &rows));
  int n_rows         = 0;
  bool dropped       = true;
  char drop_why[256] = "";
  for (int b = 0; b < p.n_backends; b++) {
    /* hdf5 and fortran have no buffer size of their own: one run each */
    bool buffered = strcmp(p.backends[b], "hdf5") && strcmp(p.backends[b], "fortran");
    for (int s = 0; s < p.n_sizes; s++)
      for (int k = 0; k < (buffered ? p.n_buffers : 1); k++) {
        if (rank == 0) {
          printf("cubecg-iobench: %s, %zu bytes per rank, buffer %zu ...\n", p.backends[b],
                 p.sizes[s], buffered ? p.buffers[k] : 0);
          fflush(stdout);
        }
        CC_CALL(run_config(&p, p.backends[b], p.sizes[s], buffered ? p.buffers[k] : 0, node_comm,
                           rows, &n_rows, &dropped, drop_why, sizeof drop_why));
      }
  }
  if (rank == 0) {
    print_table(rows, n_rows, dropped, drop_why);
    for (int b = 0; b < p.n_backends; b++)
      if (!strcmp(p.backends[b], "uring") && p.n_sizes > 0) /* the reference for the target */
        printf("compare uring with: fio --name=cubecg --directory=%s --ioengine=io_uring "
               "--direct=1 --fixedbufs --rw=write --bs=%zu --iodepth=%d --size=%zu --numjobs=%d "
               "--end_fsync=1 --group_reporting\n",
               p.dir, p.buffers[p.n_buffers - 1], p.queue_depth, p.sizes[p.n_sizes - 1], size);
  }
  cc_err err =
      rank == 0 && p.report[0] ? write_report(&p, rows, n_rows, dropped, drop_why, skipped) : CC_OK;
  cc_free(&rows);
  cc_topology_free(&topo);
  MPI_Comm_free(&node_comm);
  CC_CALL(err);
  return CC_OK;
}

int main(int argc, char **argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED,
                  &provided); /* offload helper makes no MPI call */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cc_err err = bench(argc, argv);
  if (err && (rank == 0 || err != CC_ERR_ARG))
    cc_error_print(stderr, rank); /* options: all alike */
  cc_error_clear();
  MPI_Finalize();
  return err == CC_ERR_ARG ? 2 : err ? 1 : 0; /* 2 = bad input, as cubecg */
}
