/* bench_gas.c: cubecg-gasbench, vGASNet's measurements on cubecg's global memory store:
 * put / get bandwidth against transfer size for several page sizes, as separate rows for a DRAM
 * hit at the owner, an SSD miss (the owner reads its page file first) and a cooperative hit (a
 * third rank's cached copy), against MPI_Send/Recv of the same size between the same pair and fio
 * on the same disk; and a weak-scaling throughput run (every rank reads one hot data set) with and
 * without cooperative caching. Rank 0 is the requester; its pages are owned by its partner (on
 * another node when there are two). */
#include "gasbench.h"

int rank, size;
static char data_path[32]; /* cc_gas_data_path of the stores measured */

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
  cc_json js;
  bench_json_begin(&js, f, "gasbench");
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
  return bench_json_end(&js, f, p->report);
}

/* The pair: rank 0 and the owner of its pages (a throw-away store tells which); the helper is a
 * third rank for the coop-hit rows (-1: none). */
static cc_err find_pair(const gb_params *p, int *owner, int *nodes, int *helper)
{
  cc_gas_params gp;
  store_params(p, 4096, 4096, false, &gp);
  cc_gas *probe;
  CC_CALL(cc_gas_create(MPI_COMM_WORLD, &gp, 1, &probe));
  *owner = cc_gas_partner(probe, 0), *nodes = cc_gas_n_nodes(probe), *helper = -1;
  snprintf(data_path, sizeof data_path, "%s", cc_gas_data_path(probe));
  CC_CALL(cc_gas_destroy(&probe));
  for (int r = 1; r < size && *helper < 0; r++)
    if (r != *owner) *helper = r;
  if (rank == 0) {
    printf("cubecg-gasbench: %d ranks, %d node(s); rank 0's pages are owned by rank %d%s\n", size,
           *nodes, *owner, *helper >= 0 ? "" : " (no third rank: no coop-hit rows)");
    fflush(stdout);
  }
  return CC_OK;
}

/* The rows of each page size: MPI_Send/Recv's baseline first (rank 0 and its owner apart), then
 * the store's gets and puts, streaming, and with a helper the coop-hit rows. */
static cc_err page_rows(const gb_params *p, int owner, int helper, char *src, char *dst,
                        gb_row *rows, int *n_rows, char *ssd_path, size_t ssd_path_size)
{
  if (owner != 0) CC_CALL(sendrecv_rows(p, owner, src, rows, n_rows));
  for (int k = 0; k < p->n_pages; k++) {
    if (rank == 0) {
      printf("cubecg-gasbench: page %zu KiB ...\n", p->pages[k] >> 10);
      fflush(stdout);
    }
    CC_CALL(
        store_rows(p, p->pages[k], false, helper, src, dst, rows, n_rows, ssd_path, ssd_path_size));
    CC_CALL(stream_rows(p, p->pages[k], src, dst, rows, n_rows));
    if (helper >= 0)
      CC_CALL(store_rows(p, p->pages[k], true, helper, src, dst, rows, n_rows, ssd_path,
                         ssd_path_size));
  }
  return CC_OK;
}

/* --fio, rank 0: the reads after the rows, and each size's anchor: the mean of before and after */
static void fio_after(const gb_params *p, gb_fio *fio)
{
  if (p->fio && rank == 0)
    for (int s = 0; s < p->n_sizes; s++) {
      fio->after[s] = fio_read(p, p->sizes[s], p->repeat);
      fio->mean[s]  = fio->before[s] > 0 && fio->after[s] > 0
                          ? 0.5 * (fio->before[s] + fio->after[s])
                      : fio->before[s] > 0 ? fio->before[s]
                                           : fio->after[s];
    }
  if (p->fio && rank == 0) fio_remove(p);
}

/* The weak-scaling runs on 1, 2, 4, ... and all ranks, coop off and on (none with --no-weak). */
static cc_err weak_rows(const gb_params *p, gb_weak *weak, int *n_weak)
{
  int counts[32], n_counts = 0; /* 1, 2, 4, ... and size */
  for (int n = 1; n < size && n_counts < 31; n *= 2) counts[n_counts++] = n;
  counts[n_counts++] = size;
  for (int i = 0; p->weak && i < n_counts; i++)
    for (int coop = 0; coop < 2; coop++) {
      if (rank == 0) {
        printf("cubecg-gasbench: weak scaling, %d rank(s), coop %s ...\n", counts[i],
               coop ? "on" : "off");
        fflush(stdout);
      }
      CC_CALL(weak_run(p, counts[i], coop, &weak[(*n_weak)++]));
    }
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
  int owner = 0, nodes = 0, helper = -1;
  CC_CALL(find_pair(&p, &owner, &nodes, &helper));
  /* fio brackets the store's rows (before and after, the ssd-stream rows' anchor their mean):
   * this virtual disk's speed moves between runs seconds apart, and one fio run after the rows
   * moved the ratio by 2x; the ssd-miss rows are paired with a fio read each (store_rows) */
  gb_fio fio = {{0}, {0}, {0}};
  if (p.fio && rank == 0)
    for (int s = 0; s < p.n_sizes; s++) fio.before[s] = fio_read(&p, p.sizes[s], p.repeat);
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  char ssd_path[32] = "";
  CC_CALL(page_rows(&p, owner, helper, src, dst, rows, &n_rows, ssd_path, sizeof ssd_path));
  fio_after(&p, &fio);
  CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
  gb_weak weak[2 * 32];
  int n_weak = 0;
  CC_CALL(weak_rows(&p, weak, &n_weak));
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
