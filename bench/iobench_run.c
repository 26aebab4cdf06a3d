/* iobench_run.c: one configuration of cubecg-iobench (backend, file size, buffer): every rank
 * writes then reads its file, timed as the rows of bench_io.c say; the memory and disk caps, the
 * page-cache control of cold reads, the statistics and fio's twin. */
#include "iobench.h"

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
cc_err cap_sizes(bench_params *p, MPI_Comm node_comm, char *skipped, size_t n_skipped)
{
  int node_ranks;
  CC_MPI(MPI_Comm_size(node_comm, &node_ranks));
  int64_t disk = INT64_MAX, mem = mem_available();
  struct statvfs vfs; /* every rank's directory (--dirs): the fullest one counts */
  if (statvfs(p->dir, &vfs) == 0) disk = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &disk, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
  if (disk == INT64_MAX) disk = -1;
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

/* The share of path's pages in the page cache (mincore over a mapping that faults nothing in);
 * -1 when it cannot be told. */
static double resident_fraction(const char *path)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  struct stat st;
  double frac = -1;
  if (fstat(fd, &st) == 0 && st.st_size == 0) frac = 0;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = ((size_t)st.st_size + page - 1) / page;
    void *map          = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char *vec = malloc(pages);
    if (map != MAP_FAILED && vec && mincore(map, (size_t)st.st_size, vec) == 0) {
      size_t in = 0;
      for (size_t i = 0; i < pages; i++) in += vec[i] & 1;
      frac = (double)in / (double)pages;
    }
    free(vec);
    if (map != MAP_FAILED) munmap(map, (size_t)st.st_size);
  }
  close(fd);
  return frac;
}

/* Evict this rank's file from the page cache: fsync (the pages must be clean), then
 * posix_fadvise(DONTNEED) -- no root needed and nobody else's cache is touched, unlike
 * /proc/sys/vm/drop_caches. Verified with mincore: dropped only when <= 1% stays resident. */
static bool drop_file_cache(const char *path, double *left, char *why, size_t n)
{
  *left = 0;
  if (!path[0]) return true; /* shared file: rank 0 holds it */
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    snprintf(why, n, "open(%s): %s", path, strerror(errno));
    return false;
  }
  /* test seam: CUBECG_IOBENCH_KEEP_CACHE=1 skips the fadvise, so the mincore check must refuse
   * to call the next read cold */
  const char *keep = getenv("CUBECG_IOBENCH_KEEP_CACHE");
  bool skip        = keep && !strcmp(keep, "1");
  int rc = fsync(fd) != 0 ? errno : skip ? 0 : posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
  if (rc) {
    snprintf(why, n, "posix_fadvise(%s, DONTNEED): %s", path, strerror(rc));
    return false;
  }
  *left = resident_fraction(path);
  if (*left < 0 || *left > 0.01) {
    snprintf(why, n, "posix_fadvise(DONTNEED) left %.0f%% of %s in the page cache",
             100.0 * (*left < 0 ? 1 : *left), path);
    return false;
  }
  return true;
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
  double sum = 0;
  for (int i = 0; i < n; i++) sum += v[i];
  bench_stat s = {sum / n, n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[0], v[n - 1]};
  return s;
}

/* ---- one configuration ------------------------------------------------------------------------
 */
typedef struct {    /* this rank's times of one repetition */
  double open;      /* before the open (IOR: earliest open) */
  double started;   /* after the open and a barrier (seeds: MPI_Barrier + MPI_Wtime) */
  double returned;  /* write + flush returned (offload: the snapshot was handed over) */
  double closed;    /* after close (offload: commit waited for the helper's write + fsync) */
  double completed; /* the data is on the device: after fsync (offload: = closed) */
  double stall, helper_write;
} write_times;

typedef struct {
  double open, started, done;
  double resident; /* page-cache share of the file just before the read */
  bool dropped;    /* the cache was dropped (cold reads) */
} read_times;

static const char *file_of(const char *backend, const char *dir, const cc_io_file_info *info,
                           char *path, size_t n)
{
  if (!strcmp(backend, "hdf5"))
    snprintf(path, n, "%s/state.h5", dir);
  else
    snprintf(path, n, "%s", info->file);
  return path;
}

/* IOR's open: every rank starts together (*open), and the timed transfer starts once all have
 * opened (*started). */
static cc_err open_timed(const char *backend, const cc_io_options *opt, const cc_io_layout *layout,
                         const char *dir, cc_io_mode mode, cc_io_handle **h, double *open,
                         double *started)
{
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  *open = MPI_Wtime();
  CC_CALL(cc_io_open(backend, opt, layout, dir, mode, h));
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  *started = MPI_Wtime();
  return CC_OK;
}

static cc_err run_write(const char *backend, const cc_io_options *opt, const cc_io_layout *layout,
                        const char *dir, double *source, write_times *t, cc_io_file_info *info)
{
  cc_io_state state;
  memset(&state, 0, sizeof state);
  snprintf(state.solver, sizeof state.solver, "iobench");
  state.n_vectors = 1;
  snprintf(state.vector_name[0], CC_IO_NAME_LEN, "data");
  state.vector[0] = source;
  bool offload    = !strncmp(backend, "offload", 7);
  cc_io_handle *h;
  CC_CALL(open_timed(backend, opt, layout, dir, CC_IO_WRITE, &h, &t->open, &t->started));
  CC_CALL(cc_io_write_vectors(h, &state));
  if (offload) t->returned = MPI_Wtime(); /* the caller may go on: the handover */
  CC_CALL(cc_io_commit(h));               /* offload: waits for the helper (write + fsync) */
  if (!offload) t->returned = MPI_Wtime();
  *info = *cc_io_handle_info(h);
  CC_CALL(cc_io_close(&h));
  t->closed = MPI_Wtime();
  if (!offload) { /* "completed": on the device (offload's helper fsynced inside commit) */
    char path[4200];
    file_of(backend, dir, info, path, sizeof path);
    int fd = open(path, O_RDONLY);
    CC_CHECK(fd >= 0 && fsync(fd) == 0, CC_ERR_IO, "fsync(%s): %s", path, strerror(errno));
    close(fd);
  }
  t->completed    = MPI_Wtime();
  t->stall        = info->stall_s;
  t->helper_write = info->write_s;
  return CC_OK;
}

static cc_err run_read(const char *backend, const cc_io_options *write_opt,
                       const cc_io_layout *layout, const char *dir, const char *file,
                       double *target, read_times *t)
{
  cc_io_options read_opt = *write_opt, *opt = &read_opt;
  read_opt.read_into = true;
  cc_io_state state;
  memset(&state, 0, sizeof state);
  state.n_vectors = 1;
  state.vector[0] = target; /* read into our buffer: no allocation in the timed region */
  t->resident     = file[0] ? resident_fraction(file) : 0;
  cc_io_handle *h;
  CC_CALL(open_timed(backend, opt, layout, dir, CC_IO_READ, &h, &t->open, &t->started));
  CC_CALL(cc_io_read_vectors(h, &state));
  CC_CALL(cc_io_close(&h));
  t->done = MPI_Wtime();
  return CC_OK;
}

/* One row from every rank's interval [t0, t1] of each repetition: per rank, bytes / (t1 - t0)
 * and the seconds themselves over ranks x repetitions (the seeds' mean); aggregate, per
 * repetition, all ranks' bytes over the slowest rank's interval, or with span (IOR) over the
 * earliest t0 to the latest t1. Collective; the row is filled on rank 0. */
/* One repetition's aggregate bandwidth: all ranks' bytes over the slowest rank's time (span:
 * from the first rank's start to the last rank's end). Collective. */
static cc_err aggregate_of(double t0, double t1, size_t bytes, bool span, double *agg)
{
  double dt = t1 - t0, slowest, first, last;
  CC_MPI(MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  double wall = span ? last - first : slowest;
  *agg        = (double)bytes * size / (wall > 0 ? wall : 1e-9);
  return CC_OK;
}

static cc_err make_row(const double *t0, const double *t1, int reps, size_t bytes, bool span,
                       bench_row *row)
{
  double *agg, *bw, *sec, *all_bw = NULL, *all_sec = NULL;
  CC_CALL(cc_malloc((size_t)reps, sizeof(double), &agg));
  CC_CALL(cc_malloc((size_t)reps, sizeof(double), &bw));
  CC_CALL(cc_malloc((size_t)reps, sizeof(double), &sec));
  for (int r = 0; r < reps; r++) {
    double dt = t1[r] - t0[r];
    CC_CALL(aggregate_of(t0[r], t1[r], bytes, span, &agg[r]));
    bw[r]  = (double)bytes / (dt > 0 ? dt : 1e-9);
    sec[r] = dt;
  }
  if (rank == 0) {
    CC_CALL(cc_malloc((size_t)reps * size, sizeof(double), &all_bw));
    CC_CALL(cc_malloc((size_t)reps * size, sizeof(double), &all_sec));
  }
  CC_MPI(MPI_Gather(bw, reps, MPI_DOUBLE, all_bw, reps, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  CC_MPI(MPI_Gather(sec, reps, MPI_DOUBLE, all_sec, reps, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    row->aggregate = stat_of(agg, reps);
    row->per_rank  = stat_of(all_bw, reps * size);
    row->seconds   = stat_of(all_sec, reps * size);
  }
  cc_free(&agg);
  cc_free(&bw);
  cc_free(&sec);
  cc_free(&all_bw);
  cc_free(&all_sec);
  return CC_OK;
}

/* Settle dir's file system after a configuration's files were removed, untimed: the journal commit
 * of the freed blocks (mounted with discard: their discards) would otherwise land inside the next
 * timed write, the backend's or its fio twin's, whichever comes next. */
static cc_err settle_fs(const char *dir)
{
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CC_CHECK(fd >= 0, CC_ERR_SYS, "open(%s): %s", dir, strerror(errno));
  int rc = syncfs(fd), saved = errno;
  close(fd);
  CC_CHECK(rc == 0, CC_ERR_SYS, "syncfs(%s): %s", dir, strerror(saved));
  return CC_OK;
}

/* The paired fio ratio: per repetition, the row's aggregate (as make_row) over the bandwidth of the
 * fio twin run right after it (same machine load), and the median of those ratios, on rank 0.
 * Collective. */
static cc_err paired_fio_ratio(const double *t0, const double *t1, int reps, size_t bytes,
                               bool span, const double *fio_bps, double *median)
{
  double ratio[1000]; /* --repeat <= 1000 */
  for (int r = 0; r < reps; r++) {
    double agg = 0.0;
    CC_CALL(aggregate_of(t0[r], t1[r], bytes, span, &agg)); /* = make_row's aggregate */
    ratio[r] = fio_bps[r] > 0 ? agg / fio_bps[r] : 0;       /* fio_bps: rank 0 only */
  }
  *median = stat_of(ratio, reps).median;
  return CC_OK;
}

/* The fio twin of a backend, doing the backend's work: posix = psync + end_fsync, buffered, no
 * preallocation (fopen "wb" allocates as it goes; fio would fallocate the file first, untimed);
 * uring = io_uring + O_DIRECT + fixedbufs at the same queue depth, file fallocate'd first (the
 * backend's reserve). NULL when the backend has none. */
const char *fio_engine(const char *backend)
{
  if (!strcmp(backend, "posix")) return "--ioengine=psync --end_fsync=1 --fallocate=none";
  if (!strcmp(backend, "uring"))
    return "--ioengine=io_uring --direct=1 --fixedbufs --end_fsync=1 --fallocate=native";
  return NULL;
}

/* Rank 0 runs fio with as many jobs as ranks, each writing one file of bytes in requests of
 * buffer, over the same directories (fio deals the jobs' files out over D1:D2:... in turn).
 * Returns fio's aggregate write bandwidth (bytes/s) on rank 0. */
static cc_err run_fio(const bench_params *p, const char *backend, size_t bytes, size_t buffer,
                      const char *sub, double *bps)
{
  *bps      = 0;
  cc_err rc = CC_OK;
  if (rank == 0) {
    char dirs[4096] = "", cmd[8192], out[1400], mk[4400];
    for (int d = 0; d < p->n_dirs; d++) {
      size_t used = strlen(dirs);
      snprintf(dirs + used, sizeof dirs - used, "%s%s/%s-fio", d ? ":" : "", p->dirs[d], sub);
      snprintf(mk, sizeof mk, "mkdir -p '%s/%s-fio'", p->dirs[d], sub);
      CC_CHECK(system(mk) == 0, CC_ERR_SYS, "%s failed", mk);
    }
    snprintf(out, sizeof out, "%s/%s-fio.json", p->dirs[0], sub);
    snprintf(cmd, sizeof cmd,
             "fio --name=cubecg-twin --directory='%s' %s --rw=write --bs=%zu --iodepth=%d "
             "--size=%zu --numjobs=%d --group_reporting --output-format=json --output='%s' "
             ">/dev/null 2>&1",
             dirs, fio_engine(backend), buffer, p->queue_depth, bytes, size, out);
    int status = system(cmd);
    FILE *f    = fopen(out, "r");
    char *text = NULL;
    long len   = 0;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = calloc((size_t)len + 1, 1)) && fread(text, 1, (size_t)len, f) != (size_t)len) {
      free(text);
      text = NULL;
    }
    if (f) fclose(f);
    cJSON *root = text ? cJSON_Parse(strchr(text, '{') ? strchr(text, '{') : text) : NULL;
    cJSON *jobs = cJSON_GetObjectItem(root, "jobs");
    cJSON *w    = cJSON_GetObjectItem(cJSON_GetArrayItem(jobs, 0), "write");
    cJSON *bw   = cJSON_GetObjectItem(w, "bw_bytes");
    if (status != 0 || !cJSON_IsNumber(bw) || bw->valuedouble <= 0)
      rc =
          cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__,
                        "fio failed (status %d) or wrote no bandwidth to %s: %s", status, out, cmd);
    else
      *bps = bw->valuedouble;
    cJSON_Delete(root);
    free(text);
    for (int d = 0; d < p->n_dirs; d++) {
      snprintf(mk, sizeof mk, "rm -rf '%s/%s-fio' '%s'", p->dirs[d], sub, out);
      if (system(mk) != 0 && !rc)
        rc = cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__, "%s failed", mk);
      if (!rc) rc = settle_fs(p->dirs[d]);
    }
  }
  cc_err global;
  CC_CALL(cc_error_agree(MPI_COMM_WORLD, rc, &global));
  CC_CHECK(global == CC_OK, global, "the fio twin of %s failed", backend);
  return CC_OK;
}

cc_err run_config(const bench_params *p, const char *backend, size_t bytes, size_t buffer, bool fio,
                  bench_row *rows, int *n_rows)
{
  cc_io_options opt;
  cc_io_options_default(&opt);
  CC_CHECK(cc_io_backend_find(backend, &opt), CC_ERR_ARG, "unknown backend '%s'", backend);
  opt.buffer_bytes    = buffer;
  opt.queue_depth     = p->queue_depth;
  opt.writeback_bytes = p->durable ? p->writeback : 0; /* the fsync is timed: as a checkpoint's */
  opt.fallback        = p->fallback;
  opt.checksum        = p->checksum;
  bool offload        = !strncmp(backend, "offload", 7);
  /* the fsync is timed apart ("completed"); offload fsyncs on its helper, inside its commit */
  opt.durable = offload;
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
  char sub[100], dir[1400], file[4200];
  snprintf(sub, sizeof sub, "%s-%zu-%zu", backend, bytes, buffer);
  snprintf(dir, sizeof dir, "%s/%s", p->dir, sub);
  const int R = p->repeat;
  write_times *tw;
  read_times *warm, *cold;
  double *t0, *t1, *fio_bps = NULL;
  CC_CALL(cc_calloc((size_t)R, sizeof *tw, &tw));
  CC_CALL(cc_calloc((size_t)R, sizeof *warm, &warm));
  CC_CALL(cc_calloc((size_t)R, sizeof *cold, &cold));
  CC_CALL(cc_calloc((size_t)R, sizeof(double), &t0));
  CC_CALL(cc_calloc((size_t)R, sizeof(double), &t1));
  CC_CALL(cc_calloc((size_t)R, sizeof(double), &fio_bps));
  cc_io_file_info info;
  memset(&info, 0, sizeof info);
  int all_dropped = 1;
  char why[300]   = "";
  for (int r = 0; r < R; r++) {
    cc_err local = CC_OK;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
      local = cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__, "cannot create %s: %s", dir,
                            strerror(errno));
    cc_err global;
    CC_CALL(cc_error_agree(MPI_COMM_WORLD, local, &global));
    CC_CHECK(global == CC_OK, global, "cannot create the directories of %s", sub);
    CC_CALL(run_write(backend, &opt, &layout, dir, source, &tw[r], &info));
    file_of(backend, dir, &info, file, sizeof file);
    if (!strcmp(backend, "hdf5") && rank != 0) file[0] = '\0'; /* rank 0 looks after it */
    /* read-warm: just written (O_DIRECT backends never went through the cache: see resident) */
    CC_CALL(run_read(backend, &opt, &layout, dir, file, target, &warm[r]));
    CC_CHECK(!memcmp(source, target, bytes), CC_ERR_CHECK,
             "%s: the data read back differs from what was written (%zu bytes)", backend, bytes);
    memset(target, 0, bytes);
    double left;
    char mine[300] = "";
    int ok         = drop_file_cache(file, &left, mine, sizeof mine);
    int every      = ok;
    CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (!every && all_dropped) { /* the first reason, from the lowest rank that has one */
      int who = ok ? size : rank;
      CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
      if (rank == who) /* a note: cut to fit (%.*s), the rank prefix kept */
        snprintf(why, sizeof why, "rank %d: %.*s", rank, (int)sizeof why - 24, mine);
      CC_MPI(MPI_Bcast(why, sizeof why, MPI_CHAR, who, MPI_COMM_WORLD));
    }
    all_dropped &= every;
    cold[r].dropped = ok;
    CC_CALL(run_read(backend, &opt, &layout, dir, file, target, &cold[r]));
    CC_CHECK(!memcmp(source, target, bytes), CC_ERR_CHECK,
             "%s: the data read back differs from what was written (%zu bytes)", backend, bytes);
    memset(target, 0, bytes);
    CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (p->dir_leader) { /* one configuration's files at a time on the disk */
      char cmd[1500];
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
      local = system(cmd) == 0 ? CC_OK
                               : cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__,
                                               "cannot remove %s", dir);
      if (!local) local = settle_fs(p->dir);
    }
    CC_CALL(cc_error_agree(MPI_COMM_WORLD, local, &global));
    CC_CHECK(global == CC_OK, global, "cannot remove the files of %s", sub);
    if (fio) /* interleaved with the backend's repetitions: both see the same machine load */
      CC_CALL(run_fio(p, backend, bytes, buffer, sub, &fio_bps[r]));
  }
  bench_row *w         = &rows[*n_rows];
  const char *returned = offload ? "handover" : "returned";
  for (int r = 0; r < R; r++) t0[r] = tw[r].started, t1[r] = tw[r].returned;
  CC_CALL(make_row(t0, t1, R, bytes, false, &w[0]));
  if (fio) CC_CALL(paired_fio_ratio(t0, t1, R, bytes, false, fio_bps, &w[0].fio_ratio_median));
  for (int r = 0; r < R; r++) t1[r] = tw[r].completed;
  CC_CALL(make_row(t0, t1, R, bytes, false, &w[1]));
  if (fio) CC_CALL(paired_fio_ratio(t0, t1, R, bytes, false, fio_bps, &w[1].fio_ratio_median));
  for (int r = 0; r < R; r++)
    t0[r] = tw[r].open, t1[r] = p->durable ? tw[r].completed : tw[r].closed;
  CC_CALL(make_row(t0, t1, R, bytes, true, &w[2]));
  if (fio) CC_CALL(paired_fio_ratio(t0, t1, R, bytes, true, fio_bps, &w[2].fio_ratio_median));
  for (int r = 0; r < R; r++) t0[r] = warm[r].started, t1[r] = warm[r].done;
  CC_CALL(make_row(t0, t1, R, bytes, false, &w[3]));
  for (int r = 0; r < R; r++) t0[r] = cold[r].started, t1[r] = cold[r].done;
  CC_CALL(make_row(t0, t1, R, bytes, false, &w[4]));
  double stall[1000], hw[1000], res_w = 0, res_c = 0;
  for (int r = 0; r < R; r++) {
    CC_MPI(MPI_Allreduce(&tw[r].stall, &stall[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CC_MPI(MPI_Allreduce(&tw[r].helper_write, &hw[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    res_w = fmax(res_w, warm[r].resident);
    res_c = fmax(res_c, cold[r].resident);
  }
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &res_w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &res_c, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  if (rank == 0) {
    const char *timing[5] = {returned, "completed", "ior", "read-warm",
                             all_dropped ? "read-cold" : "read-not-dropped"};
    double stall_med = stat_of(stall, R).median, write_med = stat_of(hw, R).median;
    bench_stat fio_stat = {-1, -1, -1, -1};
    if (fio) fio_stat = stat_of(fio_bps, R);
    for (int k = 0; k < 5; k++) {
      bench_row *row = &w[k];
      snprintf(row->backend, sizeof row->backend, "%s", backend);
      snprintf(row->op, sizeof row->op, "%s", k < 3 ? "write" : "read");
      snprintf(row->timing, sizeof row->timing, "%s", timing[k]);
      snprintf(row->path, sizeof row->path, "%s", info.path_used);
      snprintf(row->detail, sizeof row->detail, "%s", info.detail);
      row->size         = bytes;
      row->buffer       = buffer;
      row->durable      = k == 1 || (k == 2 && (p->durable || offload));
      row->stall_median = stall_med;
      row->write_median = write_med;
      row->resident_max = k == 3 ? res_w : k == 4 ? res_c : -1;
      row->fio          = k < 3 ? fio_stat : (bench_stat){-1, -1, -1, -1};
      if (k == 4 && !all_dropped)
        snprintf(row->cache_note, sizeof row->cache_note, "page cache not dropped: %.*s",
                 (int)sizeof row->cache_note - 25, why); /* cut to fit the note */
      else if (k == 4)
        snprintf(row->cache_note, sizeof row->cache_note,
                 "posix_fadvise(DONTNEED) after fsync, <= 1%% resident (mincore) on every rank");
      else if (k == 3)
        snprintf(row->cache_note, sizeof row->cache_note, "just written");
    }
  }
  *n_rows += 5;
  cc_free(&tw);
  cc_free(&warm);
  cc_free(&cold);
  cc_free(&t0);
  cc_free(&t1);
  cc_free(&fio_bps);
  cc_free(&ids);
  cc_free(&source);
  cc_free(&target);
  return CC_OK;
}
