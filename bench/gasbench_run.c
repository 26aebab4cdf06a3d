/* gasbench_run.c: the rows cubecg-gasbench measures: the MPI_Send/Recv baseline between rank 0
 * and the owner, the store's gets and puts per case (DRAM hit, SSD, cooperative copy), streaming,
 * fio reading the same disk, and weak scaling (every rank reads one hot data set). */
#include "gasbench.h"

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void summarize(double *bw, int n, gb_row *row)
{
  qsort(bw, (size_t)n, sizeof *bw, cmp_double);
  row->median = n % 2 ? bw[n / 2] : 0.5 * (bw[n / 2 - 1] + bw[n / 2]);
  row->min    = bw[0];
  row->max    = bw[n - 1];
}

void fill_pattern(char *buf, size_t n, unsigned seed)
{
  uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (size_t i = 0; i < n; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    size_t k = n - i < 8 ? n - i : 8;
    memcpy(buf + i, &x, k);
  }
}

/* ---- MPI_Send/Recv between rank 0 and the owner: the baseline ------------------------------- */
cc_err sendrecv_rows(const gb_params *p, int owner, char *buf, gb_row *rows, int *n_rows)
{
  double *bw;
  CC_CALL(cc_malloc((size_t)p->repeat, sizeof *bw, &bw));
  for (int s = 0; s < p->n_sizes; s++) {
    size_t n = p->sizes[s];
    for (int dir = 0; dir < 2; dir++) { /* 0: get-like (owner sends), 1: put-like */
      for (int r = 0; r < p->repeat; r++) {
        int64_t token = 0;
        CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        if (rank == 0 && dir == 0) {
          CC_MPI(MPI_Send(&token, 1, MPI_INT64_T, owner, 7, MPI_COMM_WORLD));
          CC_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, owner, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else if (rank == 0) {
          CC_MPI(MPI_Send(buf, (int)n, MPI_BYTE, owner, 8, MPI_COMM_WORLD));
          CC_MPI(MPI_Recv(&token, 1, MPI_INT64_T, owner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else if (rank == owner && dir == 0) {
          CC_MPI(MPI_Recv(&token, 1, MPI_INT64_T, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
          CC_MPI(MPI_Send(buf, (int)n, MPI_BYTE, 0, 8, MPI_COMM_WORLD));
        } else if (rank == owner) {
          CC_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
          CC_MPI(MPI_Send(&token, 1, MPI_INT64_T, 0, 7, MPI_COMM_WORLD));
        }
        bw[r] = (double)n / (MPI_Wtime() - t0);
      }
      gb_row *row = &rows[(*n_rows)++];
      memset(row, 0, sizeof *row);
      snprintf(row->op, sizeof row->op, "%s", dir == 0 ? "get" : "put");
      snprintf(row->kase, sizeof row->kase, "send-recv");
      row->size = n;
      summarize(bw, p->repeat, row);
    }
  }
  cc_free(&bw);
  return CC_OK;
}

/* ---- store rows ----------------------------------------------------------------------------- */
typedef enum { CASE_DRAM, CASE_SSD, CASE_COOP } gb_case;

static void served_delta(cc_gas *gas, const cc_gas_stats *before, gb_row *row)
{
  cc_gas_stats now;
  cc_gas_get_stats(gas, &now);
  row->served_dram += now.dram_hits - before->dram_hits;
  row->served_ssd += now.ssd_misses - before->ssd_misses;
  row->served_coop += now.coop_hits - before->coop_hits;
}

/* The benchmark's store: page and DRAM budget as given, coop, --fallback, --ssd-dir; not durable
 * (the SSD tier is a cache here; the drain is not timed). */
void store_params(const gb_params *p, size_t page, size_t dram, bool coop, cc_gas_params *gp)
{
  cc_gas_params_default(gp);
  gp->page_bytes = page;
  gp->dram_bytes = dram;
  gp->coop       = coop;
  gp->fallback   = p->fallback;
  gp->durable    = false;
  snprintf(gp->ssd_dir, sizeof gp->ssd_dir, "%s", p->ssd_dir);
}

/* One store (page size, coop) and every size: put dram-hit, get dram-hit, get ssd-miss (coop
 * off) or get coop-hit (coop on; rank `helper` caches the copy first). */
cc_err store_rows(const gb_params *p, size_t page, bool coop, int helper, char *src,
                  char *dst, gb_row *rows, int *n_rows, char *ssd_path, size_t n_ssd_path)
{
  size_t max = 0;
  for (int s = 0; s < p->n_sizes; s++)
    if (p->sizes[s] <= p->dram && p->sizes[s] > max) max = p->sizes[s];
  if (max == 0) return CC_OK;
  cc_gas_params gp;
  store_params(p, page, p->dram / page * page, coop, &gp);
  int64_t P = (int64_t)((max + page - 1) / page);
  CC_CALL(cc_gas_check_capacity(MPI_COMM_WORLD, &gp, (int64_t)max));
  cc_gas *gas;
  CC_CALL(cc_gas_create(MPI_COMM_WORLD, &gp, P, &gas));
  cc_gas_stats st;
  cc_gas_get_stats(gas, &st);
  snprintf(ssd_path, n_ssd_path, "%s", st.ssd_path_used);
  double *bw, *fio_bw, *pair;
  CC_CALL(cc_malloc((size_t)p->repeat, sizeof *bw, &bw));
  CC_CALL(cc_calloc((size_t)p->repeat, sizeof *fio_bw, &fio_bw));
  CC_CALL(cc_calloc((size_t)p->repeat, sizeof *pair, &pair));
  int64_t home = 0; /* rank 0's pages: owned by its partner */
  for (int s = 0; s < p->n_sizes; s++) {
    size_t n = p->sizes[s];
    if (n > p->dram) continue;
    int first = *n_rows;
    int kinds = coop ? 1 : 3;
    for (int k = 0; k < kinds; k++) {
      gb_row *row = &rows[(*n_rows)++];
      memset(row, 0, sizeof *row);
      row->size = n, row->page = page;
      snprintf(row->op, sizeof row->op, "%s", !coop && k == 0 ? "put" : "get");
      snprintf(row->kase, sizeof row->kase, "%s",
               coop     ? "coop-hit"
               : k == 2 ? "ssd-miss"
                        : "dram-hit");
    }
    if (rank == 0) fill_pattern(src, n, (unsigned)s);
    for (int k = 0; k < kinds; k++) {
      gb_row *row = &rows[first + k];
      gb_case c   = coop ? CASE_COOP : k == 2 ? CASE_SSD : CASE_DRAM;
      bool put    = !coop && k == 0;
      for (int r = 0; r < p->repeat; r++) {
        if (!put && r == 0 && k == 0 && coop) { /* the data, once */
          if (rank == 0) CC_CALL(cc_gas_put(gas, home, src, n));
        }
        if (c == CASE_SSD || c == CASE_COOP) CC_CALL(cc_gas_evict_all(gas, false));
        /* the disk's speed drifts within seconds here: fio reads the same n bytes once, the way
         * the get does (one read in 1 MiB requests, 4 in flight, after a pause), just before each
         * SSD-miss get; the row's ratio is the median of the pairs (as the kernel bench's triad
         * before every repetition) */
        if (c == CASE_SSD && p->fio && rank == 0) fio_bw[r] = fio_read(p, n, 1);
        if (c == CASE_COOP) {
          if (rank == helper) CC_CALL(cc_gas_get(gas, home, dst, n)); /* caches the copies */
          CC_CALL(cc_gas_evict_all(gas, true)); /* the owner's DRAM is empty, the copy stays */
        }
        CC_CALL(cc_gas_barrier(gas));
        cc_gas_stats before;
        cc_gas_get_stats(gas, &before);
        double t0 = MPI_Wtime(), t = 0;
        if (rank == 0) {
          if (put)
            CC_CALL(cc_gas_put(gas, home, src, n));
          else
            CC_CALL(cc_gas_get(gas, home, dst, n));
          t = MPI_Wtime() - t0;
          if (!put) served_delta(gas, &before, row);
        }
        CC_CALL(cc_gas_barrier(gas));
        bw[r]   = t > 0 ? (double)n / t : 0;
        pair[r] = fio_bw[r] > 0 ? bw[r] / fio_bw[r] : 0;
        if (rank == 0 && !put)
          CC_CHECK(!memcmp(src, dst, n), CC_ERR_CHECK,
                   "gasbench: %s get of %zu bytes (page %zu) returned other data", row->kase, n,
                   page);
      }
      summarize(bw, p->repeat, row);
      if (c == CASE_SSD && p->fio && rank == 0) {
        gb_row tmp;
        summarize(pair, p->repeat, &tmp); /* a failed fio run (0) sorts first: min 0 = failed */
        row->vs_fio = tmp.min > 0 ? tmp.median : 0;
        summarize(fio_bw, p->repeat, &tmp);
        row->fio_median = tmp.min > 0 ? tmp.median : 0;
      }
    }
  }
  cc_free(&bw);
  cc_free(&fio_bw);
  cc_free(&pair);
  CC_CALL(cc_gas_destroy(&gas));
  return CC_OK;
}

/* SSD misses back to back (fio's pattern), case "ssd-stream": repeat regions of n bytes are put,
 * all evicted to the owner's SSD, then rank 0 gets them one after another with no eviction or
 * barrier in between, each get timed alone (its median is the row's). fio's loops read back to
 * back too, while the "ssd-miss" row's every get follows an eviction and two barriers, a pause
 * this virtual disk charges to the next read. Sizes whose repeat regions exceed 1 GiB are skipped.
 * A restart from the SSD tier reads its pages this way. */
#define STREAM_MAX_BYTES ((size_t)1 << 30)
cc_err stream_rows(const gb_params *p, size_t page, char *src, char *dst, gb_row *rows,
                   int *n_rows)
{
  for (int s = 0; s < p->n_sizes; s++) {
    const size_t n = p->sizes[s];
    if (n > p->dram || (size_t)p->repeat * n > STREAM_MAX_BYTES) continue;
    cc_gas_params gp;
    store_params(p, page, p->dram / page * page, false, &gp);
    const int64_t pp   = (int64_t)((n + page - 1) / page); /* pages per region */
    const int64_t span = pp * (int64_t)page;               /* bytes between region starts */
    CC_CALL(cc_gas_check_capacity(MPI_COMM_WORLD, &gp, (int64_t)p->repeat * span));
    cc_gas *gas;
    CC_CALL(cc_gas_create(MPI_COMM_WORLD, &gp, (int64_t)p->repeat * pp, &gas));
    gb_row *row = &rows[(*n_rows)++];
    memset(row, 0, sizeof *row);
    row->size = n, row->page = page;
    snprintf(row->op, sizeof row->op, "get");
    snprintf(row->kase, sizeof row->kase, "ssd-stream");
    if (rank == 0) fill_pattern(src, n, (unsigned)s);
    for (int r = 0; r < p->repeat && rank == 0; r++) CC_CALL(cc_gas_put(gas, r * span, src, n));
    CC_CALL(cc_gas_evict_all(gas, false)); /* every region on the owner's SSD, its DRAM empty */
    double *bw;
    CC_CALL(cc_malloc((size_t)p->repeat, sizeof *bw, &bw));
    cc_gas_stats before;
    cc_gas_get_stats(gas, &before);
    for (int r = 0; r < p->repeat && rank == 0; r++) {
      double t0 = MPI_Wtime();
      CC_CALL(cc_gas_get(gas, r * span, dst, n));
      double t = MPI_Wtime() - t0;
      bw[r]    = t > 0 ? (double)n / t : 0;
      CC_CHECK(!memcmp(src, dst, n), CC_ERR_CHECK,
               "gasbench: ssd-stream get %d of %zu bytes (page %zu) returned other data", r, n,
               page);
    }
    if (rank == 0) served_delta(gas, &before, row);
    CC_CALL(cc_gas_barrier(gas)); /* the owner serves rank 0's gets from inside it */
    if (rank == 0) summarize(bw, p->repeat, row);
    cc_free(&bw);
    CC_CALL(cc_gas_destroy(&gas));
  }
  return CC_OK;
}

/* ---- fio on the same disk ------------------------------------------------------------------- */

/* One fio run reading n bytes `loops` times in requests of bs = min(n, 1 MiB), 4 in flight (the
 * store's SSD reads: gas_ssd.c); its file (gasbench.0.0) stays until fio_remove, so the paired
 * runs only read (laying the file out and deleting it around each run slowed the get that
 * followed by a quarter here). Bytes/s: fio's bw_bytes, which divides by whole milliseconds; a
 * single read of at most 4 requests (all in flight at once) divides n by its slowest request's
 * submit-to-completion latency instead (lat_ns max, nanoseconds). */
double fio_read(const gb_params *p, size_t n, int loops)
{
  size_t bs = n < ((size_t)1 << 20) ? (n + 4095) / 4096 * 4096 : (size_t)1 << 20;
  size_t sz = (n + 4095) / 4096 * 4096;
  char cmd[1500];
  snprintf(cmd, sizeof cmd,
           "fio --name=gasbench --directory='%s' --ioengine=io_uring --direct=1 --rw=read "
           "--bs=%zu --iodepth=4 --size=%zu --numjobs=1 --loops=%d --output-format=json "
           "2>/dev/null",
           p->ssd_dir, bs, sz, loops);
  FILE *f = popen(cmd, "r");
  if (!f) return 0;
  static char out[1 << 16];
  size_t len = fread(out, 1, sizeof out - 1, f);
  out[len]   = '\0';
  pclose(f);
  const char *read = strstr(out, "\"read\"");
  if (read && loops == 1 && (sz + bs - 1) / bs <= 4) {
    const char *lat = strstr(read, "\"lat_ns\"");
    const char *max = lat ? strstr(lat, "\"max\"") : NULL;
    double ns       = max ? strtod(strchr(max, ':') + 1, NULL) : 0;
    return ns > 0 ? (double)n / (ns * 1e-9) : 0;
  }
  const char *bw = read ? strstr(read, "\"bw_bytes\"") : NULL;
  return bw ? strtod(strchr(bw, ':') + 1, NULL) : 0;
}

void fio_remove(const gb_params *p)
{
  char path[700];
  snprintf(path, sizeof path, "%s/gasbench.0.0", p->ssd_dir);
  if (unlink(path) != 0 && errno != ENOENT)
    fprintf(stderr, "cubecg-gasbench: cannot remove fio's file %s: %s\n", path, strerror(errno));
}

/* ---- weak scaling: every rank reads one hot data set ----------------------------------------- */
cc_err weak_run(const gb_params *p, int n, bool coop, gb_weak *out)
{
  MPI_Comm comm;
  CC_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &comm));
  memset(out, 0, sizeof *out);
  out->ranks = n, out->coop = coop, out->page = p->weak_page;
  out->hot_bytes = (size_t)p->weak_pages * p->weak_page;
  if (comm == MPI_COMM_NULL) return CC_OK;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  cc_gas_params gp;
  store_params(p, p->weak_page, p->weak_dram, coop, &gp);
  cc_gas *gas;
  cc_err err = cc_gas_create(comm, &gp, p->weak_pages, &gas);
  char *buf  = NULL;
  if (!err) err = cc_malloc(out->hot_bytes, 1, &buf);
  int me;
  MPI_Comm_rank(comm, &me);
  if (!err && me == 0) fill_pattern(buf, out->hot_bytes, 99);
  if (!err && me == 0) err = cc_gas_put(gas, 0, buf, out->hot_bytes); /* home 0: the hot set */
  if (!err) err = cc_gas_evict_all(gas, false);                       /* all on the SSD */
  /* pass 1 (untimed) warms the caches: with coop every rank keeps copies of the last pages it
   * read (staggered starts: different ranks hold different pages); then the owner's DRAM is
   * emptied and pass 2 is timed: without coop every get is an SSD miss, with coop the pages the
   * ranks hold together are served from their DRAM (vGASNet: aggregate cache grows with nodes) */
  for (int i = 0; !err && i < p->weak_pages; i++) { /* pass 1, untimed */
    int pg = (i + me * p->weak_pages / n) % p->weak_pages;
    err    = cc_gas_get(gas, (int64_t)pg * (int64_t)p->weak_page, buf + (size_t)pg * p->weak_page,
                        p->weak_page);
  }
  if (!err) err = cc_gas_evict_all(gas, true);
  cc_gas_reset_stats(gas);
  if (!err) err = cc_gas_barrier(gas);
  double t0 = MPI_Wtime();
  for (int i = 0; !err && i < p->weak_pages; i++) { /* pass 2, timed */
    int pg = (i + me * p->weak_pages / n) % p->weak_pages;
    err    = cc_gas_get(gas, (int64_t)pg * (int64_t)p->weak_page, buf + (size_t)pg * p->weak_page,
                        p->weak_page);
  }
  double t = MPI_Wtime() - t0;
  if (!err) err = cc_gas_barrier(gas);
  cc_gas_stats st;
  cc_gas_get_stats(gas, &st);
  int64_t counts[4] = {st.ssd_misses, st.coop_hits, st.dram_hits, st.local_hits}, sums[4];
  if (!err) err = MPI_Allreduce(counts, sums, 4, MPI_INT64_T, MPI_SUM, comm) ? CC_ERR_MPI : CC_OK;
  double tmax = t;
  if (!err) err = MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm) ? CC_ERR_MPI : CC_OK;
  out->nodes       = cc_gas_n_nodes(gas);
  out->seconds     = tmax;
  out->bytes_per_s = (double)n * (double)out->hot_bytes / tmax;
  out->ssd_misses = sums[0], out->coop_hits = sums[1], out->dram_hits = sums[2];
  out->local_hits = sums[3];
  cc_free(&buf);
  cc_err derr = cc_gas_destroy(&gas);
  MPI_Comm_free(&comm);
  CC_CALL(err);
  CC_CALL(derr);
  return CC_OK;
}
