/* kernelbench_report.c: cubecg-bench's printed table and JSON report (kernelbench.h) */
#include "kernelbench.h"

static const char *kernel_name[K_COUNT] = {"spmv",      "sgs", "asdd", "asdd-single",
                                           "asdd-half", "dot", "axpy", "triad"};

/* the traffic model of each kernel (solvers/traffic.c), echoed into the report */
static const char *kernel_model[K_COUNT] = {
    "76 B/block + 16 B/row row_ptr and l_ptr + 4 B/row row classes + 24 B/local node x + 24 B/row "
    "y",
    "76 B per L and U block + 256 B/row (ptrs 16, D^-1 twice 144, r, y, z read/write 96); "
    "multicolor sweeps read the split matrix in place: ptrs 32 (l_ptr, diag_pos, row_ptr), 272 "
    "B/row",
    "N sgs + (N-1) (spmv + 96 B/row: r read by the one-pass residual, z += w)",
    "asdd with float blocks (--precond-precision single): 40 B per block, D^-1 36 B; its "
    "repetitions alternate with asdd's",
    "asdd with binary16 blocks (--precond-precision half): 22 B per block, D^-1 18 B, 16 B/row of "
    "row scales read by each sweep (8 B by the residual); its repetitions alternate with asdd's",
    "48 B/row + MPI_Allreduce",
    "72 B/row",
    "24 B/element (write-allocate not counted)"};

const char *const ms_row_name[MS_ROWS] = {
    "spmv",        "sgs-double", "sgs-single", "sgs-half",         "asdd-double",      "asdd-single",
    "asdd-half",   "dot",        "axpy",       "iteration-double", "iteration-single", "iteration-half"};

void bench_placement_print(const triad_placement *pl)
{
  printf("cubecg-bench --triad-placement: %d sets of STREAM triad arrays (3 x %.1f MiB per rank "
         "each), "
         "allocated and first-touched one after another; %d rounds, every set once per round, "
         "the order rotating\n",
         pl->sets, pl->array_bytes_per_rank / 1048576.0, pl->rounds);
  double fastest = 0;
  for (int s = 0; s < pl->sets; s++) fastest = fmax(fastest, pl->median[s]);
  printf("%-4s %12s %10s %10s %16s\n", "set", "median GB/s", "min GB/s", "max GB/s",
         "median / fastest");
  for (int s = 0; s < pl->sets; s++)
    printf("%-4d %12.2f %10.2f %10.2f %16.3f\n", s + 1, pl->median[s] * 1e-9, pl->min[s] * 1e-9,
           pl->max[s] * 1e-9, fastest > 0 ? pl->median[s] / fastest : 0);
  printf("spread (fastest median / slowest median): %.3f\n", pl->spread);
  if (pl->spread > TRIAD_PLACEMENT_WARN)
    printf("WARNING: the triad's bandwidth depends on where its pages lie (spread %.2f > %.2f): a "
           "fraction of STREAM measured on this machine carries that uncertainty\n",
           pl->spread, TRIAD_PLACEMENT_WARN);
}

/* Opens report path and writes the keys every cubecg-bench report starts with (version, kind,
 * provenance, MPI library, topology, ranks, threads), inside the still open top-level object. */
static cc_err bench_report_open(const char *path, const char *kind, int size, int threads,
                                const cc_topology *topo, FILE **f, cc_json *js)
{
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  CC_CALL(cc_mpi_library(library, sizeof library));
  *f = fopen(path, "w");
  CC_CHECK(*f != NULL, CC_ERR_SYS, "cannot write report %s: %s", path, strerror(errno));
  bench_json_begin(js, *f, kind);
  cc_provenance_json(js); /* date, build, platform */
  cc_json_begin_object(js, "mpi");
  cc_json_string(js, "library", library);
  cc_json_end_object(js);
  cc_topology_json(topo, js);
  cc_json_int(js, "ranks", size);
  cc_json_int(js, "threads", threads);
  return CC_OK;
}

/* Closes the top-level object bench_report_open began and the file. */
static cc_err bench_report_close(const char *path, FILE *f, cc_json *js)
{
  cc_json_end_object(js);
  CC_CHECK(fclose(f) == 0, CC_ERR_SYS, "closing report %s: %s", path, strerror(errno));
  return CC_OK;
}

cc_err bench_placement_report(const char *path, const triad_placement *pl, int size,
                                     int threads, const cc_topology *topo)
{
  FILE *f;
  cc_json js;
  CC_CALL(bench_report_open(path, "triad_placement", size, threads, topo, &f, &js));
  cc_json_int(&js, "rounds", pl->rounds);
  cc_json_double(&js, "stream_array_bytes_per_rank", pl->array_bytes_per_rank);
  cc_json_double(&js, "triad_bytes", pl->bytes);
  cc_json_begin_array(&js, "sets"); /* in allocation order */
  for (int s = 0; s < pl->sets; s++) {
    cc_json_begin_object(&js, NULL);
    cc_json_int(&js, "allocated", s + 1);
    cc_json_double(&js, "median_bytes_per_s", pl->median[s]);
    cc_json_double(&js, "min_bytes_per_s", pl->min[s]);
    cc_json_double(&js, "max_bytes_per_s", pl->max[s]);
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  cc_json_double(&js, "spread", pl->spread);
  cc_json_double(&js, "spread_warning_above", TRIAD_PLACEMENT_WARN);
  cc_json_bool(&js, "spread_warning", pl->spread > TRIAD_PLACEMENT_WARN);
  return bench_report_close(path, f, &js);
}

void bench_read_streams_print(const read_streams *rs)
{
  printf("cubecg-bench --read-streams: %.1f MiB per rank read as k interleaved streams per core "
         "(64 B of each in turn), every rank at once; %d rounds, a triad over the same arrays "
         "before each\n",
         rs->array_bytes_per_rank / 1048576.0, rs->rounds);
  printf("triad: %.2f GB/s (median)\n", rs->triad_median * 1e-9);
  printf("%-8s %12s %18s\n", "streams", "median GB/s", "read / triad");
  for (int k = 1; k <= rs->max_streams; k++)
    printf("%-8d %12.2f %18.3f\n", k, rs->median[k - 1] * 1e-9, rs->fraction[k - 1]);
  if (!rs->each_element_once) printf("ERROR: a read did not read each element once\n");
  printf("read / triad = median over rounds of the read's bytes/s over the same round's triad's "
         "(24 B/element, write-allocate not counted)\n");
}

cc_err bench_read_streams_report(const char *path, const read_streams *rs, int size, int threads,
                                 const cc_topology *topo)
{
  FILE *f;
  cc_json js;
  CC_CALL(bench_report_open(path, "read_streams", size, threads, topo, &f, &js));
  cc_json_int(&js, "rounds", rs->rounds);
  cc_json_double(&js, "read_array_bytes_per_rank", rs->array_bytes_per_rank);
  cc_json_double(&js, "read_bytes", rs->read_bytes);
  cc_json_double(&js, "triad_median_bytes_per_s", rs->triad_median);
  cc_json_bool(&js, "each_element_read_once", rs->each_element_once);
  cc_json_begin_array(&js, "streams");
  for (int k = 1; k <= rs->max_streams; k++) {
    cc_json_begin_object(&js, NULL);
    cc_json_int(&js, "streams", k);
    cc_json_double(&js, "median_bytes_per_s", rs->median[k - 1]);
    cc_json_double(&js, "fraction_of_triad", rs->fraction[k - 1]);
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  return bench_report_close(path, f, &js);
}

void bench_print(const bench_opts *o, const bench_result *res, int size, int threads)
{
  double stream = res->bytes[K_TRIAD] / res->seconds[K_TRIAD];
  printf("cubecg-bench: %dx%dx%d nodes, %d ranks x %d threads, ordering %s (K = %d, colors used "
         "%d..%d), asdd-iters %d (residual %s), median of %d runs\n",
         o->mesh.nx, o->mesh.ny, o->mesh.nz, size, threads, o->ordering, o->colors, res->colors_min,
         res->colors_max, o->asdd_iters, o->asdd_full_residual ? "full" : "fused", o->repeat);
  printf("STREAM triad arrays: 3 x %.1f MiB per rank (LLC %.0f MiB); 24 B/element, write-allocate "
         "not counted\n",
         res->stream_bytes_per_array / 1048576.0, res->llc_bytes / 1048576.0);
  printf(
      "a triad before every repetition; %% of STREAM = median over repetitions of kernel bytes/s "
      "/ the bytes/s of the triad just before it\n");
  if (res->matrix_cached)
    printf("WARNING: --allow-cached: the matrix (%.0f MiB) is below 4x the last-level cache (%.0f "
           "MiB per node): the kernels run partly from cache, %% of STREAM overstates DRAM use\n",
           res->matrix_bytes / 1048576.0, 4.0 * res->llc_bytes / 1048576.0);
  if (res->pinned_cpus < res->pinned_threads)
    printf("WARNING: %d threads are pinned to only %d distinct CPUs: ranks share cores (bind ranks "
           "with mpiexec.mpich -bind-to core, or unset OMP_PROC_BIND)\n",
           res->pinned_threads, res->pinned_cpus);
  printf("%-8s %12s %14s %10s %12s\n", "kernel", "median s", "bytes", "GB/s", "% of STREAM");
  (void)stream;
  for (int k = 0; k < K_COUNT; k++) {
    double bw = res->bytes[k] / res->seconds[k];
    printf("%-8s %12.4e %14.4e %10.2f %11.1f%%\n", kernel_name[k], res->seconds[k], res->bytes[k],
           bw * 1e-9, 100.0 * res->fraction[k]);
  }
  printf("asdd double / single time: %.3f (median of %d alternating pairs)\n",
         res->asdd_double_over_single, o->repeat);
  printf("asdd double / half time:   %.3f (median of %d alternating pairs; binary16 conversion: "
         "%s)\n",
         res->asdd_double_over_half, o->repeat, cc_half_conversion_path);
  if (o->anatomy) {
    printf("SpMV anatomy (--anatomy, bench/spmv_anatomy.h): in turn, a triad before each; bytes = "
           "SpMV's model for every row; copy = cc_spmv bit for bit: %s\n",
           res->an_copy_equal ? "yes" : "NO");
    printf("%-10s %12s %10s %12s %12s\n", "variant", "median s", "GB/s", "% of STREAM",
           "time / spmv");
    for (int v = 0; v < BENCH_AN_COUNT; v++)
      printf("%-10s %12.4e %10.2f %11.1f%% %12.3f\n", bench_anatomy_name[v], res->an_seconds[v],
             res->bytes[K_SPMV] / res->an_seconds[v] * 1e-9, 100.0 * res->an_fraction[v],
             res->an_seconds[v] / res->an_seconds[BENCH_AN_SPMV]);
  }
  if (o->model_stream) {
    printf("model stream (--model-stream, bench/model_stream.h): each kernel, then a stream of "
           "exactly its modelled bytes over its own arrays, each after a triad; iteration = "
           "spmv + asdd + %.0f vector passes priced as axpy\n",
           res->ms_vector_passes);
    printf("%-17s %14s %12s %12s %12s %14s\n", "kernel", "model bytes", "real s", "stream s",
           "real/stream", "stream/triad");
    for (int k = 0; k < MS_ROWS; k++)
      printf("%-17s %14.6e %12.4e %12.4e %12.3f %13.1f%%\n", ms_row_name[k], res->ms_bytes[k],
             res->ms_real[k], res->ms_stream[k], res->ms_ratio[k],
             100.0 * res->ms_stream_fraction[k]);
  }
  printf("peak RSS (max over ranks): %.1f MiB\n", (double)res->rss_max / 1048576.0);
}

cc_err bench_report(const bench_opts *o, const bench_result *res, int size, int threads,
                           const cc_topology *topo)
{
  FILE *f;
  cc_json js;
  CC_CALL(bench_report_open(o->report, "kernels", size, threads, topo, &f, &js));
  double stream = res->bytes[K_TRIAD] / res->seconds[K_TRIAD];
  cc_json_int(&js, "nx", o->mesh.nx);
  cc_json_int(&js, "ny", o->mesh.ny);
  cc_json_int(&js, "nz", o->mesh.nz);
  cc_json_string(&js, "partition", o->mesh.partition == CC_PARTITION_METIS ? "metis" : "box");
  cc_json_string(&js, "ordering", o->ordering);
  cc_json_int(&js, "colors_requested", o->colors);
  cc_json_int(&js, "colors_used_min", res->colors_min);
  cc_json_int(&js, "colors_used_max", res->colors_max);
  cc_json_int(&js, "levels_max", res->levels_max);
  cc_json_int(&js, "asdd_iters", o->asdd_iters);
  cc_json_string(&js, "asdd_residual", o->asdd_full_residual ? "full" : "fused");
  cc_json_string(&js, "level_order", o->level_order ? "on" : "off");
  cc_json_int(&js, "repeat", o->repeat);
  cc_json_double(&js, "stream_array_bytes_per_rank", res->stream_bytes_per_array);
  cc_json_double(&js, "llc_bytes", res->llc_bytes);
  cc_json_double(&js, "matrix_bytes", res->matrix_bytes);
  cc_json_bool(&js, "matrix_fits_cache", res->matrix_cached);
  cc_json_string(&js, "stream_interleave",
                 "triad before every repetition; fraction_of_stream = median of per-repetition "
                 "ratios");
  cc_json_double(&js, "stream_triad_bytes_per_s", stream);
  cc_json_double(&js, "stream_triad_seconds", res->seconds[K_TRIAD]);
  cc_json_int(&js, "peak_rss_bytes_max", res->rss_max);
  cc_json_int(&js, "pinned_threads", res->pinned_threads);
  cc_json_int(&js, "pinned_cpus", res->pinned_cpus);
  cc_json_bool(&js, "cores_shared", res->pinned_cpus < res->pinned_threads);
  cc_json_double(&js, "asdd_double_over_single", res->asdd_double_over_single);
  cc_json_double(&js, "asdd_double_over_half", res->asdd_double_over_half);
  cc_json_string(&js, "half_conversion", cc_half_conversion_path);
  cc_json_begin_array(&js, "kernels");
  for (int k = 0; k < K_COUNT; k++) {
    if (k == K_TRIAD) continue;
    double bw = res->bytes[k] / res->seconds[k];
    cc_json_begin_object(&js, NULL);
    cc_json_string(&js, "name", kernel_name[k]);
    cc_json_double(&js, "seconds", res->seconds[k]);
    cc_json_double(&js, "bytes", res->bytes[k]);
    cc_json_double(&js, "bytes_per_s", bw);
    cc_json_double(&js, "fraction_of_stream", res->fraction[k]); /* interleaved median */
    cc_json_string(&js, "bytes_model", kernel_model[k]);
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  if (o->anatomy) {
    cc_json_begin_object(&js, "spmv_anatomy");
    cc_json_bool(&js, "copy_equals_spmv", res->an_copy_equal);
    cc_json_begin_array(&js, "variants");
    for (int v = 0; v < BENCH_AN_COUNT; v++) {
      cc_json_begin_object(&js, NULL);
      cc_json_string(&js, "name", bench_anatomy_name[v]);
      cc_json_double(&js, "seconds", res->an_seconds[v]);
      cc_json_double(&js, "bytes_per_s", res->bytes[K_SPMV] / res->an_seconds[v]);
      cc_json_double(&js, "fraction_of_stream", res->an_fraction[v]);
      cc_json_end_object(&js);
    }
    cc_json_end_array(&js);
    cc_json_end_object(&js);
  }
  if (o->model_stream) { /* per row: its name, whether composed, then these columns */
    const struct {
      const char *key;
      const double *v;
    } col[] = {{"bytes_model", res->ms_bytes},       {"bytes_stream", res->ms_stream_bytes},
               {"seconds_real", res->ms_real},       {"seconds_stream", res->ms_stream},
               {"real_over_stream", res->ms_ratio}, {"stream_fraction_of_triad", res->ms_stream_fraction}};
    cc_json_begin_object(&js, "model_stream");
    cc_json_begin_array(&js, "rows");
    for (int k = 0; k < MS_ROWS; k++) {
      cc_json_begin_object(&js, NULL);
      cc_json_string(&js, "name", ms_row_name[k]);
      cc_json_bool(&js, "composed", k >= MR_KERNELS);
      for (size_t c = 0; c < sizeof col / sizeof col[0]; c++)
        cc_json_double(&js, col[c].key, col[c].v[k]);
      cc_json_end_object(&js);
    }
    cc_json_end_array(&js);
    cc_json_double(&js, "vector_passes", res->ms_vector_passes);
    cc_json_end_object(&js);
  }
  return bench_report_close(o->report, f, &js);
}

void bench_block_ceilings_print(const block_ceilings *bc)
{
  printf("cubecg-bench --block-ceilings: each precision's sweep kernel on %d rows of %d blocks per "
         "core, held in L1, %d ranks x threads at once; %d rounds, a triad before each\n",
         BLOCK_CEILINGS_ROWS, BLOCK_CEILINGS_PER_ROW, bc->workers, bc->rounds);
  printf("triad: %.2f GB/s (median)\n", bc->triad_median * 1e-9);
  printf("%-10s %8s %16s %14s %14s\n", "precision", "B/block", "Gblocks/s", "GB/s", "of triad");
  for (int p = 0; p < 3; p++)
    printf("%-10s %8.0f %16.3f %14.2f %14.3f\n", cc_precision_list[p].name, bc->bytes_per_block[p],
           bc->blocks_per_s[p] * 1e-9, bc->blocks_per_s[p] * bc->bytes_per_block[p] * 1e-9,
           bc->fraction[p]);
  if (!bc->exact) printf("ERROR: a kernel's row sums differ from the exact ones\n");
  printf("B/block = the values and the 4-byte column index a sweep streams per block; of triad = "
         "median over rounds of those bytes/s over the same round's triad's: below 1, the kernel "
         "is bound by its instructions on these cores, not by the memory\n");
}

cc_err bench_block_ceilings_report(const char *path, const block_ceilings *bc, int size,
                                   int threads, const cc_topology *topo)
{
  FILE *f;
  cc_json js;
  CC_CALL(bench_report_open(path, "block_ceilings", size, threads, topo, &f, &js));
  cc_json_int(&js, "rounds", bc->rounds);
  cc_json_int(&js, "ranks_x_threads", bc->workers);
  cc_json_int(&js, "rows_per_core", BLOCK_CEILINGS_ROWS);
  cc_json_int(&js, "blocks_per_row", BLOCK_CEILINGS_PER_ROW);
  cc_json_double(&js, "triad_median_bytes_per_s", bc->triad_median);
  cc_json_bool(&js, "row_sums_exact", bc->exact);
  cc_json_begin_array(&js, "kernels");
  for (int p = 0; p < 3; p++) {
    cc_json_begin_object(&js, NULL);
    cc_json_string(&js, "precision", cc_precision_list[p].name);
    cc_json_double(&js, "bytes_per_block", bc->bytes_per_block[p]);
    cc_json_double(&js, "blocks_per_s", bc->blocks_per_s[p]);
    cc_json_double(&js, "bytes_per_s", bc->blocks_per_s[p] * bc->bytes_per_block[p]);
    cc_json_double(&js, "fraction_of_triad", bc->fraction[p]);
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  cc_json_string(&js, "half_conversion", cc_half_conversion_path);
  return bench_report_close(path, f, &js);
}

cc_err bench_overlap_report(const char *path, const bench_overlap *ov, const bench_opts *o,
                            const cc_mpi_info *mpi, int threads, const cc_topology *topo)
{
  FILE *f;
  cc_json js;
  CC_CALL(bench_report_open(path, "overlap", ov->ranks, threads, topo, &f, &js));
  cc_json_begin_array(&js, "mesh");
  cc_json_int(&js, NULL, o->mesh.nx);
  cc_json_int(&js, NULL, o->mesh.ny);
  cc_json_int(&js, NULL, o->mesh.nz);
  cc_json_end_array(&js);
  cc_json_string(&js, "work", "spmv+asdd");
  cc_json_int(&js, "asdd_iters", o->asdd_iters);
  cc_json_string(&js, "mpi_implementation", mpi->implementation);
  cc_json_bool(&js, "progress_thread", ov->thread);
  cc_json_string(&js, "progress_thread_decided_by", mpi->async_decided_by);
  cc_json_string(&js, "progress_knob", mpi->knob);
  bench_overlap_settings_json(&js, ov); /* "sizes" and "settings" (measured or why not) */
  cc_json_begin_array(&js, "rows");     /* setting-major, sizes ascending */
  for (int i = 0; i < ov->n_rows; i++) cc_overlap_json(&js, NULL, &ov->rows[i]);
  cc_json_end_array(&js);
  return bench_report_close(path, f, &js);
}
