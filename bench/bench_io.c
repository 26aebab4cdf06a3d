/* bench_io.c: cubecg-iobench, the seeds' checkpoint I/O experiment (normal / accelerated / offload
 * I/O, file sizes 1 MB - 1 GB, I/O buffers 8 KB and 512 KB) on the io/ backends: every rank writes
 * then reads its file. Rows: "returned" (MPI_Barrier + MPI_Wtime around write + flush,
 * as the seeds; offload: "handover", the snapshot handed to the helper), "completed" (until the
 * data is on the device, fsync included; offload: the helper's finish), "ior" (earliest open to
 * latest close, slowest rank, as IOR), "read-warm" (just written) and "read-cold" (after
 * posix_fadvise(DONTNEED), verified with mincore). Statistic: the mean over ranks and repetitions
 * (the seeds'), with median, min and max. --fio runs each backend's fio twin beside it. */
#include "iobench.h"

int rank, size;

/* ---- output -----------------------------------------------------------------------------------
 */
static void print_table(const bench_params *p, const bench_row *rows, int n, const char *fio_state)
{
  printf(
      "\ncubecg-iobench: %d ranks over %d director%s (%s), %d repetitions; GB/s = 1e9 bytes/s, "
      "aggregate over all ranks\n"
      "  returned  = MPI_Barrier + MPI_Wtime around write + flush (the seeds; offload: handover)\n"
      "  completed = until the data is on the device, fsync included (offload: helper's finish)\n"
      "  ior       = earliest open to latest close%s, slowest rank\n"
      "  read-warm = just written; read-cold = after posix_fadvise(DONTNEED) (read-not-dropped: "
      "the cache could not be dropped)\n"
      "  mean = over ranks x repetitions (the seeds' statistic: per-rank GB/s x ranks); "
      "med/min/max "
      "over repetitions\n",
      size, p->n_dirs, p->n_dirs == 1 ? "y" : "ies", p->mapping, p->repeat,
      p->durable ? " incl. fsync" : "");
  if (p->fio)
    printf("  fio: %s; fio-GB/s = the fio twin's mean aggregate GB/s, fio = row mean / twin mean, "
           "fio-med = median over repetitions of row / the twin run right after it\n",
           fio_state);
  printf("%-14s %-5s %7s %6s %-16s %8s %8s %8s %8s %9s %8s %6s %7s  %s\n", "backend", "op", "size",
         "buffer", "timing", "mean", "med", "min", "max", "s/rank", "fio-GB/s", "fio", "fio-med",
         "path");
  for (int i = 0; i < n; i++) {
    const bench_row *r = &rows[i];
    char buf[24], fio_gbs[24] = "-", fio[24] = "-", fio_med[24] = "-", sz[24];
    if (r->size >= (1u << 20))
      snprintf(sz, sizeof sz, "%.0fM", (double)r->size / 1048576);
    else
      snprintf(sz, sizeof sz, "%.0fk", (double)r->size / 1024);
    if (r->buffer)
      snprintf(buf, sizeof buf, "%zuk", r->buffer >> 10);
    else
      snprintf(buf, sizeof buf, "-");
    if (r->fio.mean > 0) snprintf(fio_gbs, sizeof fio_gbs, "%.3f", r->fio.mean / 1e9);
    if (r->fio.mean > 0) snprintf(fio, sizeof fio, "%.2fx", r->aggregate.mean / r->fio.mean);
    if (r->fio.mean > 0) snprintf(fio_med, sizeof fio_med, "%.2fx", r->fio_ratio_median);
    printf("%-14s %-5s %7s %6s %-16s %8.3f %8.3f %8.3f %8.3f %9.4f %8s %6s %7s  %s", r->backend,
           r->op, sz, buf, r->timing, r->per_rank.mean * size / 1e9, r->aggregate.median / 1e9,
           r->aggregate.min / 1e9, r->aggregate.max / 1e9, r->seconds.mean, fio_gbs, fio, fio_med,
           r->path);
    if (!strncmp(r->backend, "offload", 7) && !strcmp(r->op, "write") && r->write_median > 0)
      printf(" (stall %.1f%% of write)", 100.0 * r->stall_median / r->write_median);
    if (r->resident_max >= 0) printf(" (cached before read: %.0f%%)", 100.0 * r->resident_max);
    printf("\n");
  }
}

static cc_topology topo; /* nodes, hosts, affinity (cc_topology.h) */

static void json_stat(cc_json *js, const char *key, const bench_stat *s)
{
  cc_json_begin_object(js, key);
  cc_json_double(js, "mean", s->mean);
  cc_json_double(js, "median", s->median);
  cc_json_double(js, "min", s->min);
  cc_json_double(js, "max", s->max);
  cc_json_end_object(js);
}

static cc_err write_report(const bench_params *p, const bench_row *rows, int n, const char *skipped,
                           const char *fio_state)
{
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  CC_CALL(cc_mpi_library(library, sizeof library));
  FILE *f = fopen(p->report, "w");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot create report %s: %s", p->report, strerror(errno));
  bool dropped    = true;
  const char *why = "";
  for (int i = 0; i < n; i++)
    if (!strcmp(rows[i].timing, "read-not-dropped")) dropped = false, why = rows[i].cache_note;
  cc_json js;
  bench_json_begin(&js, f, "iobench");
  cc_provenance_json(&js); /* date, build, platform */
  cc_json_begin_object(&js, "mpi");
  cc_json_string(&js, "library", library);
  cc_json_end_object(&js);
  cc_topology_json(&topo, &js);
  cc_json_int(&js, "ranks", size);
  cc_json_string(&js, "dir", p->dirs[0]);
  cc_json_begin_array(&js, "dirs");
  for (int d = 0; d < p->n_dirs; d++) cc_json_string(&js, NULL, p->dirs[d]);
  cc_json_end_array(&js);
  cc_json_string(&js, "mapping", p->mapping);
  cc_json_bool(&js, "page_cache_dropped", dropped);
  if (!dropped) cc_json_string(&js, "page_cache_not_dropped_because", why);
  cc_json_int(&js, "repeat", p->repeat);
  cc_json_int(&js, "queue_depth", p->queue_depth);
  cc_json_int(&js, "writeback_bytes", (int64_t)p->writeback);
  cc_json_bool(&js, "checksum", p->checksum);
  cc_json_string(&js, "fio", fio_state);
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
    json_stat(&js, "aggregate_bytes_per_s", &r->aggregate);
    json_stat(&js, "per_rank_bytes_per_s", &r->per_rank);
    json_stat(&js, "seconds", &r->seconds);
    cc_json_string(&js, "path", r->path);
    cc_json_string(&js, "detail", r->detail);
    if (r->cache_note[0]) cc_json_string(&js, "page_cache", r->cache_note);
    if (r->resident_max >= 0) cc_json_double(&js, "cached_fraction_before_read", r->resident_max);
    if (!strncmp(r->backend, "offload", 7) && !strcmp(r->op, "write")) {
      cc_json_double(&js, "stall_s_median", r->stall_median);
      cc_json_double(&js, "write_s_median", r->write_median);
    }
    if (r->fio.mean > 0) {
      cc_json_double(&js, "fio_bytes_per_s", r->fio.mean);
      cc_json_double(&js, "fio_bytes_per_s_min", r->fio.min);
      cc_json_double(&js, "fio_bytes_per_s_max", r->fio.max);
      cc_json_double(&js, "fio_ratio", r->aggregate.mean / r->fio.mean);
      cc_json_double(&js, "fio_ratio_median", r->fio_ratio_median);
    }
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  return bench_json_end(&js, f, p->report);
}

static cc_err bench(int argc, char **argv)
{
  bench_params p;
  bool help = false;
  CC_CALL(parse_args(argc, argv, &p, &help));
  if (help) {
    if (rank == 0 && !p.list_only) usage();
    return CC_OK;
  }
  /* the report's path before the benchmark (rank 0 writes it; every rank gets the verdict) */
  CC_CALL(cc_agree(MPI_COMM_WORLD,
                   rank == 0 && p.report[0] ? cc_check_output_file("report", p.report, 0) : CC_OK));
  CC_CALL(cc_topology_setup(MPI_COMM_WORLD, NULL, 0, &topo));
  if (rank == 0 && topo.oversubscribed)
    printf("cubecg-iobench: WARNING: oversubscribed: %s\n", topo.oversubscribed_why);
  MPI_Comm node_comm, dir_comm;
  CC_MPI(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm));
  /* the lowest rank of a directory on each node creates and removes (node-local disks too) */
  int dir_rank, n_nodes, node_rank;
  CC_MPI(MPI_Comm_split(node_comm, p.dir_index, rank, &dir_comm));
  CC_MPI(MPI_Comm_rank(dir_comm, &dir_rank));
  CC_MPI(MPI_Comm_free(&dir_comm));
  p.dir_leader = dir_rank == 0;
  CC_MPI(MPI_Comm_rank(node_comm, &node_rank));
  n_nodes = node_rank == 0;
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &n_nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CC_CHECK(!p.fio || n_nodes == 1, CC_ERR_ARG,
           "--fio runs its twin on one node: %d nodes here (run the fio comparison on one node)",
           n_nodes);
  cc_err local = CC_OK;
  if (mkdir(p.dir, 0755) != 0 && errno != EEXIST)
    local = cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__, "cannot create %s: %s", p.dir,
                          strerror(errno));
  cc_err global;
  CC_CALL(cc_error_agree(MPI_COMM_WORLD, local, &global));
  CC_CHECK(global == CC_OK, global, "cannot create the benchmark directory %s", p.dir);
  char fio_state[160] = "not asked (--fio)";
  int have_fio        = 0;
  if (p.fio && rank == 0) {
    FILE *v          = popen("fio --version 2>/dev/null", "r");
    char version[64] = "";
    if (v && fgets(version, sizeof version, v)) version[strcspn(version, "\n")] = '\0';
    if (v) pclose(v);
    have_fio = version[0] != '\0';
    if (have_fio)
      snprintf(fio_state, sizeof fio_state, "%s", version);
    else {
      snprintf(fio_state, sizeof fio_state, "missing: fio is not installed (not in PATH)");
      printf("cubecg-iobench: --fio: fio is not installed (not in PATH): rows get no "
             "fio_bytes_per_s\n");
    }
  }
  CC_MPI(MPI_Bcast(&have_fio, 1, MPI_INT, 0, MPI_COMM_WORLD));
  char skipped[2048];
  CC_CALL(cap_sizes(&p, node_comm, skipped, sizeof skipped));
  int max_rows = p.n_backends * p.n_sizes * p.n_buffers * 5;
  bench_row *rows;
  CC_CALL(cc_calloc((size_t)(max_rows > 0 ? max_rows : 1), sizeof *rows, &rows));
  int n_rows = 0;
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
        CC_CALL(run_config(&p, p.backends[b], p.sizes[s], buffered ? p.buffers[k] : 0,
                           have_fio && fio_engine(p.backends[b]), rows, &n_rows));
      }
  }
  if (rank == 0) print_table(&p, rows, n_rows, fio_state);
  cc_err err =
      rank == 0 && p.report[0] ? write_report(&p, rows, n_rows, skipped, fio_state) : CC_OK;
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
  cc_io_set_inject(getenv("CUBECG_IO_INJECT")); /* io/'s test seam: its one reader here */
  cc_err err = bench(argc, argv);
  if (err && (rank == 0 || err != CC_ERR_ARG))
    cc_error_print(stderr, rank); /* options: all alike */
  cc_error_clear();
  MPI_Finalize();
  return err == CC_ERR_ARG ? 2 : err ? 1 : 0; /* 2 = bad input, as cubecg */
}
