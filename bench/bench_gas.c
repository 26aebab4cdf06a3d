/* bench_gas.c: cubecg-gasbench, vGASNet's measurements on cubecg's global memory store:
 * put / get bandwidth against transfer size for several page sizes, as separate rows for a DRAM
 * hit at the owner, an SSD miss (the owner reads its page file first) and a cooperative hit (a
 * third rank's cached copy), against MPI_Send/Recv of the same size between the same pair and fio
 * on the same disk; and a weak-scaling throughput run (every rank reads one hot data set) with and
 * without cooperative caching. Rank 0 is the requester; its pages are owned by its partner (on
 * another node when there are two). */
#include "cc_gas.h"
#include "cc_io.h"

#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LIST 16
#define MAX_ROWS 2048 /* 16 sizes x 16 pages x 5 store rows + send-recv */

typedef struct {
  char ssd_dir[512];
  size_t sizes[MAX_LIST], pages[MAX_LIST];
  int n_sizes, n_pages;
  size_t dram;
  int repeat;
  bool fallback, fio, weak;
  size_t weak_page, weak_dram;
  int weak_pages;
  char report[CC_IO_PATH_MAX];
} gb_params;

typedef struct {
  char op[8], kase[16];
  size_t size, page;
  double median, min, max;                      /* bytes/s over repetitions */
  int64_t served_dram, served_ssd, served_coop; /* how the timed gets were served (sum) */
  /* ssd-miss with --fio: a fio read of the same size just before each get; the median over the
   * repetitions of get / that fio (0: not paired), and of the fio runs themselves */
  double vs_fio, fio_median;
} gb_row;

typedef struct {
  int ranks, nodes;
  bool coop;
  size_t page, hot_bytes;
  double seconds, bytes_per_s;
  int64_t ssd_misses, coop_hits, dram_hits, local_hits;
} gb_weak;

static int rank, size;
static char data_path[32]; /* cc_gas_data_path of the stores measured */

static void usage(void)
{
  printf("cubecg-gasbench: put/get of the global memory store against MPI_Send/Recv and fio\n"
         "  --sizes LIST      transfer sizes (default 4k,64k,1M,4M,16M,64M,256M)\n"
         "  --page LIST       page sizes (default 64k,1M,4M)\n"
         "  --dram SIZE       DRAM page cache per rank (default 320M; rows larger are skipped)\n"
         "  --ssd-dir DIR     the owners' page files (default ./cubecg-gasbench.tmp)\n"
         "  --repeat R        repetitions, median reported (default 5)\n"
         "  --fio             run fio --ioengine=io_uring --direct=1 --rw=read (bs min(size,1M),\n"
         "                    iodepth 4) on --ssd-dir as the SSD anchor (rank 0, fio in PATH):\n"
         "                    one read of the size just before each ssd-miss get (paired), and\n"
         "                    R reads of each size before and after the rows (ssd-stream)\n"
         "  --no-weak         skip the weak-scaling run\n"
         "  --weak-page SIZE  page of the weak-scaling run (default 1M)\n"
         "  --weak-pages N    hot data set in pages (default 32)\n"
         "  --weak-dram SIZE  DRAM per rank in the weak-scaling run (default 8M)\n"
         "  --fallback        allow the uring fallback chain for the page files\n"
         "  --report FILE     JSON report (kind \"gasbench\", docs/report-schema.md)\n");
}

static cc_err parse_list(const char *text, size_t *out, int *n)
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

/* A strict decimal integer (no "2x", no "1e3", no overflow): atoi would read "2x" as 2. */
static cc_err parse_count(const char *key, const char *text, int *out)
{
  char *end;
  errno      = 0;
  long value = strtol(text, &end, 10);
  CC_CHECK(end != text && *end == '\0' && errno == 0 && value >= INT_MIN && value <= INT_MAX,
           CC_ERR_ARG, "%s '%s': not an integer", key, text);
  *out = (int)value;
  return CC_OK;
}

static cc_err parse_args(int argc, char **argv, gb_params *p, bool *help)
{
  memset(p, 0, sizeof *p);
  snprintf(p->ssd_dir, sizeof p->ssd_dir, "cubecg-gasbench.tmp");
  CC_CALL(parse_list("4k,64k,1M,4M,16M,64M,256M", p->sizes, &p->n_sizes));
  CC_CALL(parse_list("64k,1M,4M", p->pages, &p->n_pages));
  p->dram       = (size_t)320 << 20;
  p->repeat     = 5;
  p->weak       = true;
  p->weak_page  = (size_t)1 << 20;
  p->weak_pages = 32;
  p->weak_dram  = (size_t)8 << 20;
  *help         = false;
  for (int i = 1; i < argc; i++) {
    char key[64], *value = NULL;
    char *eq = strchr(argv[i], '=');
    snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - argv[i]) : (int)strlen(argv[i]), argv[i]);
    if (eq) value = eq + 1;
    bool flag = !strcmp(key, "--help") || !strcmp(key, "--fio") || !strcmp(key, "--no-weak") ||
                !strcmp(key, "--fallback");
    if (!flag && !value) {
      CC_CHECK(i + 1 < argc, CC_ERR_ARG, "option %s needs a value (see --help)", key);
      value = argv[++i];
    }
    if (!strcmp(key, "--help"))
      *help = true;
    else if (!strcmp(key, "--fio"))
      p->fio = true;
    else if (!strcmp(key, "--no-weak"))
      p->weak = false;
    else if (!strcmp(key, "--fallback"))
      p->fallback = true;
    else if (!strcmp(key, "--sizes"))
      CC_CALL(parse_list(value, p->sizes, &p->n_sizes));
    else if (!strcmp(key, "--page"))
      CC_CALL(parse_list(value, p->pages, &p->n_pages));
    else if (!strcmp(key, "--dram"))
      CC_CALL(cc_io_parse_bytes(value, &p->dram));
    else if (!strcmp(key, "--weak-page"))
      CC_CALL(cc_io_parse_bytes(value, &p->weak_page));
    else if (!strcmp(key, "--weak-dram"))
      CC_CALL(cc_io_parse_bytes(value, &p->weak_dram));
    else if (!strcmp(key, "--weak-pages"))
      CC_CALL(parse_count(key, value, &p->weak_pages));
    else if (!strcmp(key, "--ssd-dir")) {
      CC_CHECK(strlen(value) < sizeof p->ssd_dir, CC_ERR_ARG, "--ssd-dir longer than %zu",
               sizeof p->ssd_dir - 1);
      snprintf(p->ssd_dir, sizeof p->ssd_dir, "%s", value);
    } else if (!strcmp(key, "--repeat"))
      CC_CALL(parse_count(key, value, &p->repeat));
    else if (!strcmp(key, "--report"))
      snprintf(p->report, sizeof p->report, "%s", value);
    else
      CC_FAIL(CC_ERR_ARG, "unknown option %s (see --help)", key);
  }
  CC_CHECK(p->repeat >= 1 && p->repeat <= 1000, CC_ERR_ARG, "--repeat %d must be in [1, 1000]",
           p->repeat);
  CC_CHECK(p->weak_pages >= 1, CC_ERR_ARG, "--weak-pages %d must be >= 1", p->weak_pages);
  for (int i = 0; i < p->n_sizes; i++)
    CC_CHECK(p->sizes[i] >= 1 && p->sizes[i] <= ((size_t)1 << 31) - 4096, CC_ERR_ARG,
             "--sizes entry %zu must be in [1, 2 GiB)", p->sizes[i]);
  cc_gas_params gp;
  cc_gas_params_default(&gp);
  gp.dram_bytes = p->dram;
  snprintf(gp.ssd_dir, sizeof gp.ssd_dir, "%s", p->ssd_dir);
  for (int i = 0; i < p->n_pages; i++) { /* bad page sizes / budgets: one line each */
    size_t pg = p->pages[i];
    CC_CHECK(pg >= CC_GAS_MIN_PAGE && (pg & (pg - 1)) == 0, CC_ERR_ARG,
             "--page %zu must be a power of two >= 4096 bytes", pg);
    CC_CHECK(p->dram >= pg, CC_ERR_ARG, "--dram %zu is below one page (--page %zu)", p->dram, pg);
    gp.page_bytes = pg;
    CC_CALL(cc_gas_params_check(&gp));
  }
  gp.page_bytes = p->weak_page;
  gp.dram_bytes = p->weak_dram;
  CC_CALL(cc_gas_params_check(&gp));
  return CC_OK;
}

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

static void fill_pattern(char *buf, size_t n, unsigned seed)
{
  uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (size_t i = 0; i < n; i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    size_t k = n - i < 8 ? n - i : 8;
    memcpy(buf + i, &x, k);
  }
}

/* ---- MPI_Send/Recv between rank 0 and the owner: the baseline ------------------------------- */
static cc_err sendrecv_rows(const gb_params *p, int owner, char *buf, gb_row *rows, int *n_rows)
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
static void store_params(const gb_params *p, size_t page, size_t dram, bool coop, cc_gas_params *gp)
{
  cc_gas_params_default(gp);
  gp->page_bytes = page;
  gp->dram_bytes = dram;
  gp->coop       = coop;
  gp->fallback   = p->fallback;
  gp->durable    = false;
  snprintf(gp->ssd_dir, sizeof gp->ssd_dir, "%s", p->ssd_dir);
}

static double fio_read(const gb_params *p, size_t n, int loops);

/* One store (page size, coop) and every size: put dram-hit, get dram-hit, get ssd-miss (coop
 * off) or get coop-hit (coop on; rank `helper` caches the copy first). */
static cc_err store_rows(const gb_params *p, size_t page, bool coop, int helper, char *src,
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
static cc_err stream_rows(const gb_params *p, size_t page, char *src, char *dst, gb_row *rows,
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
/* fio's read bandwidth per size: run before and after the store's rows, the anchor their mean */
typedef struct {
  double mean[MAX_LIST], before[MAX_LIST], after[MAX_LIST];
} gb_fio;

/* One fio run reading n bytes `loops` times in requests of bs = min(n, 1 MiB), 4 in flight (the
 * store's SSD reads: gas_ssd.c); its file (gasbench.0.0) stays until fio_remove, so the paired
 * runs only read (laying the file out and deleting it around each run slowed the get that
 * followed by a quarter here). Bytes/s: fio's bw_bytes, which divides by whole milliseconds; a
 * single read of at most 4 requests (all in flight at once) divides n by its slowest request's
 * submit-to-completion latency instead (lat_ns max, nanoseconds). */
static double fio_read(const gb_params *p, size_t n, int loops)
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

static void fio_remove(const gb_params *p)
{
  char path[700];
  snprintf(path, sizeof path, "%s/gasbench.0.0", p->ssd_dir);
  if (unlink(path) != 0 && errno != ENOENT)
    fprintf(stderr, "cubecg-gasbench: cannot remove fio's file %s: %s\n", path, strerror(errno));
}

/* ---- weak scaling: every rank reads one hot data set ----------------------------------------- */
static cc_err weak_run(const gb_params *p, int n, bool coop, gb_weak *out)
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

/* ---- output ---------------------------------------------------------------------------------- */
static const gb_row *find(const gb_row *rows, int n, const char *op, const char *kase, size_t sz,
                          size_t page)
{
  for (int i = 0; i < n; i++)
    if (!strcmp(rows[i].op, op) && !strcmp(rows[i].kase, kase) && rows[i].size == sz &&
        (page == 0 || rows[i].page == page))
      return &rows[i];
  return NULL;
}

typedef struct {
  const char *name, *what;
  double value, target;
  char why[160];
} gb_ratio;
#define N_RATIOS 5

static void ratios(const gb_row *rows, int n, const gb_fio *fio, const gb_params *p,
                   gb_ratio r[N_RATIOS])
{
  const size_t four = (size_t)4 << 20;
  size_t page       = 0; /* the largest page <= 4 MB */
  for (int i = 0; i < p->n_pages; i++)
    if (p->pages[i] <= four && p->pages[i] > page) page = p->pages[i];
  const gb_row *sr_get = find(rows, n, "get", "send-recv", four, 0);
  const gb_row *sr_put = find(rows, n, "put", "send-recv", four, 0);
  const gb_row *get    = find(rows, n, "get", "dram-hit", four, page);
  const gb_row *put    = find(rows, n, "put", "dram-hit", four, page);
  const gb_row *ssd    = find(rows, n, "get", "ssd-miss", four, page);
  const gb_row *coop   = find(rows, n, "get", "coop-hit", four, page);
  const gb_row *stream = find(rows, n, "get", "ssd-stream", four, page);
  double fio4          = 0;
  for (int s = 0; s < p->n_sizes; s++)
    if (p->sizes[s] == four) fio4 = fio->mean[s];
  r[0] = (gb_ratio){"dram_get_vs_send_recv", "DRAM-hit get / MPI_Send+Recv, 4 MB", 0, 0.8, ""};
  r[1] = (gb_ratio){"dram_put_vs_send_recv", "DRAM-hit put / MPI_Send+Recv, 4 MB", 0, 0.8, ""};
  r[2] = (gb_ratio){"ssd_get_vs_fio", "SSD-miss get / fio read just before it, 4 MB", 0, 0.8, ""};
  r[3] = (gb_ratio){"coop_vs_ssd", "coop-hit get / SSD-miss get, 4 MB", 0, 1.0, ""};
  r[4] =
      (gb_ratio){"ssd_stream_get_vs_fio", "SSD-miss get back to back / fio read, 4 MB", 0, 0.8, ""};
  if (get && sr_get && sr_get->median > 0) r[0].value = get->median / sr_get->median;
  if (put && sr_put && sr_put->median > 0) r[1].value = put->median / sr_put->median;
  if (ssd) r[2].value = ssd->vs_fio; /* the pairs' median */
  if (coop && ssd && ssd->median > 0) r[3].value = coop->median / ssd->median;
  if (stream && fio4 > 0) r[4].value = stream->median / fio4;
  for (int i = 0; i < N_RATIOS; i++)
    if (r[i].value == 0)
      snprintf(r[i].why, sizeof r[i].why, "%s",
               size < 2                   ? "needs >= 2 ranks (rank 0 and its partner)"
               : i == 3 && size < 3       ? "needs >= 3 ranks (a third rank holds the copy)"
               : i == 2 && ssd && !p->fio ? "fio not run (--fio)"
               : i == 2 && ssd            ? "a fio run failed (fio in PATH?)"
               : i == 4 && fio4 <= 0      ? "fio not run (--fio) or failed"
               : !page                    ? "no page size <= 4 MB"
                                          : "4 MB not among --sizes or above --dram");
}

static void print_table(const gb_row *rows, int n, const gb_weak *weak, int n_weak,
                        const gb_ratio *r, const gb_fio *fio, const gb_params *p,
                        const char *ssd_path, int owner, int nodes)
{
  printf("\ncubecg-gasbench: %d ranks on %d node(s), requester rank 0, owner rank %d, "
         "SSD path %s, data path %s; GB/s = 1e9 bytes/s, median of %d\n",
         size, nodes, owner, ssd_path, data_path, p->repeat);
  printf("%-4s %-10s %10s %8s %9s %9s %9s  %s\n", "op", "case", "size", "page", "median", "min",
         "max", "served (dram/ssd/coop)");
  for (int i = 0; i < n; i++) {
    const gb_row *w = &rows[i];
    char pg[24]     = "-";
    if (w->page) snprintf(pg, sizeof pg, "%zuk", w->page >> 10);
    printf("%-4s %-10s %9zuk %8s %9.3f %9.3f %9.3f", w->op, w->kase, w->size >> 10, pg,
           w->median / 1e9, w->min / 1e9, w->max / 1e9);
    if (!strcmp(w->op, "get") && strcmp(w->kase, "send-recv"))
      printf("  %lld/%lld/%lld", (long long)w->served_dram, (long long)w->served_ssd,
             (long long)w->served_coop);
    if (w->vs_fio > 0)
      printf("  %.2f x fio just before (fio median %.3f GB/s)", w->vs_fio, w->fio_median / 1e9);
    printf("\n");
  }
  for (int s = 0; s < p->n_sizes; s++)
    if (fio->mean[s] > 0)
      printf("fio read %9zuk  %9.3f GB/s (mean of %.3f before and %.3f after the store's rows)\n",
             p->sizes[s] >> 10, fio->mean[s] / 1e9, fio->before[s] / 1e9, fio->after[s] / 1e9);
  if (n_weak) {
    printf("\nweak scaling: every rank re-reads the %zu-page hot set (%zu KiB pages) after the "
           "owner's DRAM was emptied\n",
           (size_t)p->weak_pages, p->weak_page >> 10);
    printf("%5s %5s %5s %12s %10s %10s %10s %10s %10s\n", "ranks", "nodes", "coop", "GB/s",
           "x 1 rank", "ssd", "coop", "dram", "own copy");
    for (int i = 0; i < n_weak; i++) {
      double base = 0;
      for (int j = 0; j < n_weak; j++)
        if (weak[j].ranks == 1 && weak[j].coop == weak[i].coop) base = weak[j].bytes_per_s;
      printf("%5d %5d %5s %12.3f %10.2f %10lld %10lld %10lld %10lld\n", weak[i].ranks,
             weak[i].nodes, weak[i].coop ? "on" : "off", weak[i].bytes_per_s / 1e9,
             base > 0 ? weak[i].bytes_per_s / base : 0, (long long)weak[i].ssd_misses,
             (long long)weak[i].coop_hits, (long long)weak[i].dram_hits,
             (long long)weak[i].local_hits);
    }
  }
  printf("\ntargets (measured on a shared machine: other jobs disturb these numbers)\n");
  for (int i = 0; i < N_RATIOS; i++)
    if (r[i].value > 0)
      printf("  %-48s %6.2f  (target >= %.1f%s)\n", r[i].what, r[i].value, r[i].target,
             i == 3 ? ", i.e. faster" : "");
    else
      printf("  %-48s    n/a  (%s)\n", r[i].what, r[i].why);
}

static cc_err write_report(const gb_params *p, const gb_row *rows, int n, const gb_weak *weak,
                           int n_weak, const gb_ratio *r, const gb_fio *fio, const char *ssd_path,
                           int owner, int nodes)
{
  FILE *f = fopen(p->report, "w");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create report %s: %s", p->report, strerror(errno));
  cc_json js = {.out = f};
  cc_json_begin_object(&js, NULL);
  cc_json_int(&js, "cubecg_report_version", CC_REPORT_VERSION);
  cc_json_string(&js, "kind", "gasbench");
  cc_json_string(&js, "cubecg_version", CC_VERSION);
  cc_json_int(&js, "ranks", size);
  cc_json_int(&js, "nodes", nodes);
  cc_json_int(&js, "requester", 0);
  cc_json_int(&js, "owner", owner);
  cc_json_string(&js, "ssd_dir", p->ssd_dir);
  cc_json_string(&js, "ssd_path_used", ssd_path);
  cc_json_int(&js, "dram_bytes", (int64_t)p->dram);
  cc_json_int(&js, "repeat", p->repeat);
  cc_json_string(&js, "service", "polling (owner services requests inside store calls)");
  cc_json_string(&js, "data_path", data_path);
  cc_json_begin_array(&js, "results");
  for (int i = 0; i < n; i++) {
    const gb_row *w = &rows[i];
    cc_json_begin_object(&js, NULL);
    cc_json_string(&js, "op", w->op);
    cc_json_string(&js, "case", w->kase);
    cc_json_int(&js, "size_bytes", (int64_t)w->size);
    cc_json_int(&js, "page_bytes", (int64_t)w->page);
    cc_json_begin_object(&js, "bytes_per_s");
    cc_json_double(&js, "median", w->median);
    cc_json_double(&js, "min", w->min);
    cc_json_double(&js, "max", w->max);
    cc_json_end_object(&js);
    if (!strcmp(w->op, "get") && strcmp(w->kase, "send-recv")) {
      cc_json_begin_object(&js, "served");
      cc_json_int(&js, "dram", w->served_dram);
      cc_json_int(&js, "ssd", w->served_ssd);
      cc_json_int(&js, "coop", w->served_coop);
      cc_json_end_object(&js);
    }
    if (w->vs_fio > 0) {
      cc_json_double(&js, "vs_fio_paired", w->vs_fio);
      cc_json_double(&js, "fio_paired_bytes_per_s", w->fio_median);
    }
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  cc_json_begin_array(&js, "fio");
  for (int s = 0; s < p->n_sizes; s++)
    if (fio->mean[s] > 0) {
      cc_json_begin_object(&js, NULL);
      cc_json_int(&js, "size_bytes", (int64_t)p->sizes[s]);
      cc_json_double(&js, "read_bytes_per_s", fio->mean[s]);
      cc_json_double(&js, "read_bytes_per_s_before", fio->before[s]);
      cc_json_double(&js, "read_bytes_per_s_after", fio->after[s]);
      cc_json_end_object(&js);
    }
  cc_json_end_array(&js);
  cc_json_begin_array(&js, "weak_scaling");
  for (int i = 0; i < n_weak; i++) {
    cc_json_begin_object(&js, NULL);
    cc_json_int(&js, "ranks", weak[i].ranks);
    cc_json_int(&js, "nodes", weak[i].nodes);
    cc_json_bool(&js, "coop", weak[i].coop);
    cc_json_int(&js, "page_bytes", (int64_t)weak[i].page);
    cc_json_int(&js, "hot_bytes", (int64_t)weak[i].hot_bytes);
    cc_json_double(&js, "seconds", weak[i].seconds);
    cc_json_double(&js, "bytes_per_s", weak[i].bytes_per_s);
    cc_json_int(&js, "ssd_misses", weak[i].ssd_misses);
    cc_json_int(&js, "coop_hits", weak[i].coop_hits);
    cc_json_int(&js, "dram_hits", weak[i].dram_hits);
    cc_json_int(&js, "local_hits", weak[i].local_hits);
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  cc_json_begin_object(&js, "ratios");
  for (int i = 0; i < N_RATIOS; i++) {
    cc_json_begin_object(&js, r[i].name);
    cc_json_string(&js, "what", r[i].what);
    if (r[i].value > 0)
      cc_json_double(&js, "value", r[i].value);
    else {
      cc_json_double(&js, "value", NAN);
      cc_json_string(&js, "why_missing", r[i].why);
    }
    cc_json_double(&js, "target", r[i].target);
    cc_json_end_object(&js);
  }
  cc_json_end_object(&js);
  cc_json_end_object(&js);
  int failed = ferror(f);
  failed |= fclose(f) != 0;
  CC_CHECK(!failed, CC_ERR_IO, "writing %s failed", p->report);
  return CC_OK;
}

static cc_err bench(int argc, char **argv)
{
  gb_params p;
  bool help = false;
  CC_CALL(parse_args(argc, argv, &p, &help));
  if (help) {
    if (rank == 0) usage();
    return CC_OK;
  }
  /* the report's path before the benchmark (rank 0 writes it; every rank gets the verdict) */
  CC_CALL(cc_agree(MPI_COMM_WORLD,
                   rank == 0 && p.report[0] ? cc_check_output_file("report", p.report, 0) : CC_OK));
  /* the disk first: O_DIRECT refused is a one-line error (or the fallback path, reported) */
  cc_err local = cc_gas_probe_dir(p.ssd_dir, p.fallback), global;
  CC_CALL(cc_error_agree(MPI_COMM_WORLD, local, &global));
  if (global && !local)
    CC_FAIL(global, "another rank cannot use --ssd-dir %s (see its message)", p.ssd_dir);
  CC_CALL(local);
  size_t max = 0;
  for (int s = 0; s < p.n_sizes; s++)
    if (p.sizes[s] > max) max = p.sizes[s];
  char *src = NULL, *dst = NULL;
  CC_CALL(cc_malloc(max, 1, &src));
  CC_CALL(cc_malloc(max, 1, &dst));
  /* written pages on every rank before anything is sent: a never-written buffer maps the kernel's
   * zero page, and a send from it copies one cached 4 KiB page over and over (4 MB across emulated
   * nodes: 15-16 GB/s, against 8-10 GB/s from written memory), a baseline no page really stored
   * can match; the get-direction send-recv rows sent from the owner's never-written buffer */
  fill_pattern(src, max, 1000u + (unsigned)rank);
  fill_pattern(dst, max, 2000u + (unsigned)rank);
  gb_row *rows;
  CC_CALL(cc_calloc(MAX_ROWS, sizeof *rows, &rows));
  int n_rows = 0;
  /* the pair: rank 0 and the owner of its pages (a throw-away store tells which) */
  cc_gas_params gp;
  store_params(&p, 4096, 4096, false, &gp);
  cc_gas *probe;
  CC_CALL(cc_gas_create(MPI_COMM_WORLD, &gp, 1, &probe));
  int owner = cc_gas_partner(probe, 0), nodes = cc_gas_n_nodes(probe), helper = -1;
  snprintf(data_path, sizeof data_path, "%s", cc_gas_data_path(probe));
  CC_CALL(cc_gas_destroy(&probe));
  for (int r = 1; r < size && helper < 0; r++)
    if (r != owner) helper = r;
  if (rank == 0) {
    printf("cubecg-gasbench: %d ranks, %d node(s); rank 0's pages are owned by rank %d%s\n", size,
           nodes, owner, helper >= 0 ? "" : " (no third rank: no coop-hit rows)");
    fflush(stdout);
  }
  /* fio brackets the store's rows (before and after, the ssd-stream rows' anchor their mean):
   * this virtual disk's speed moves between runs seconds apart, and one fio run after the rows
   * moved the ratio by 2x; the ssd-miss rows are paired with a fio read each (store_rows) */
  gb_fio fio = {{0}, {0}, {0}};
  if (p.fio && rank == 0)
    for (int s = 0; s < p.n_sizes; s++) fio.before[s] = fio_read(&p, p.sizes[s], p.repeat);
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (owner != 0) CC_CALL(sendrecv_rows(&p, owner, src, rows, &n_rows));
  char ssd_path[32] = "";
  for (int k = 0; k < p.n_pages; k++) {
    if (rank == 0) {
      printf("cubecg-gasbench: page %zu KiB ...\n", p.pages[k] >> 10);
      fflush(stdout);
    }
    CC_CALL(store_rows(&p, p.pages[k], false, helper, src, dst, rows, &n_rows, ssd_path,
                       sizeof ssd_path));
    CC_CALL(stream_rows(&p, p.pages[k], src, dst, rows, &n_rows));
    if (helper >= 0)
      CC_CALL(store_rows(&p, p.pages[k], true, helper, src, dst, rows, &n_rows, ssd_path,
                         sizeof ssd_path));
  }
  if (p.fio && rank == 0)
    for (int s = 0; s < p.n_sizes; s++) {
      fio.after[s] = fio_read(&p, p.sizes[s], p.repeat);
      fio.mean[s]  = fio.before[s] > 0 && fio.after[s] > 0 ? 0.5 * (fio.before[s] + fio.after[s])
                     : fio.before[s] > 0                   ? fio.before[s]
                                                           : fio.after[s];
    }
  if (p.fio && rank == 0) fio_remove(&p);
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  gb_weak weak[2 * 32];
  int n_weak = 0;
  int counts[32], n_counts = 0; /* 1, 2, 4, ... and size */
  for (int n = 1; n < size && n_counts < 31; n *= 2) counts[n_counts++] = n;
  counts[n_counts++] = size;
  for (int i = 0; p.weak && i < n_counts; i++)
    for (int coop = 0; coop < 2; coop++) {
      if (rank == 0) {
        printf("cubecg-gasbench: weak scaling, %d rank(s), coop %s ...\n", counts[i],
               coop ? "on" : "off");
        fflush(stdout);
      }
      CC_CALL(weak_run(&p, counts[i], coop, &weak[n_weak++]));
    }
  gb_ratio r[N_RATIOS];
  ratios(rows, n_rows, &fio, &p, r);
  cc_err err = CC_OK;
  if (rank == 0) {
    print_table(rows, n_rows, weak, n_weak, r, &fio, &p, ssd_path, owner, nodes);
    if (p.report[0])
      err = write_report(&p, rows, n_rows, weak, n_weak, r, &fio, ssd_path, owner, nodes);
  }
  cc_free(&rows);
  cc_free(&src);
  cc_free(&dst);
  CC_CALL(err);
  return CC_OK;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cc_io_set_inject(getenv("CUBECG_IO_INJECT")); /* io/'s test seam: its one reader here */
  cc_err err = bench(argc, argv);
  if (err) cc_error_print(stderr, rank);
  MPI_Finalize();
  return err ? (err == CC_ERR_ARG ? 2 : 1) : 0;
}
