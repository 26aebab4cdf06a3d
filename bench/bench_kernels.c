/* bench_kernels.c (cubecg-bench): the solver kernels (SpMV, SGS sweep pair, ASDD, dot, AXPY)
 * against a STREAM triad with the same ranks, threads and first touch (issue 3; McCalpin's STREAM
 * conventions). Each kernel: median over --repeat runs of the slowest rank, MPI_Barrier before
 * each run. Bandwidth = modelled bytes (summed over ranks) / time.
 *
 * Traffic model (bytes that must cross the memory bus once per call; vectors gathered through
 * column indices are assumed cache resident after their first touch, write-allocate not counted
 * as in STREAM):
 *   block        = 9 doubles + one int32 column index = 76 B
 *   SpMV         = 76 B per stored block + 8 B row_ptr per row + 24 B x per local node (internal +
 *                  halo) + 24 B y write per row                     (halo messages not counted)
 *   SGS pair     = forward:  76 B per L block + 8 B l_ptr + 72 B D^-1 + 24 B r read + 24 B y write
 *                  backward: 76 B per U block + 8 B u_ptr + 72 B D^-1 + 24 B z read + 24 B z write
 *                  = 76 (nL + nU) + 256 B per row (L, U: internal off-diagonal blocks only);
 *                  multicolor sweeps read L and U in place in the matrix, with row_ptr and
 *                  diag_pos in both sweeps: + 16 B per row = 272 B per row
 *   ASDD(N)      = N SGS pairs + (N-1) (SpMV + 72 B/row t = r - A z + 72 B/row z += w)
 *   dot          = 48 B per row (two vectors of 3 doubles), + one MPI_Allreduce
 *   AXPY         = 72 B per row (read x, read y, write y)
 *   STREAM triad = 24 B per element (a = b + s c: read b, c, write a; 32 B with write-allocate)
 */
#include "cc_mesh.h"
#include "cc_solvers.h"
#include "cc_topology.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  cc_mesh_params mesh;
  char ordering[16];
  int colors, asdd_iters, repeat;
  double stream_mb; /* total of the three triad arrays over all ranks, MiB; 0 = auto */
  const char *report;
} bench_opts;

enum { K_SPMV, K_SGS, K_ASDD, K_DOT, K_AXPY, K_TRIAD, K_COUNT };
static const char *kernel_name[K_COUNT] = {"spmv", "sgs", "asdd", "dot", "axpy", "triad"};
/* the traffic model of each kernel, echoed into the report */
static const char *kernel_model[K_COUNT] = {
    "76 B/block + 16 B/row row_ptr and l_ptr + 24 B/local node x + 24 B/row y",
    "76 B per L and U block + 256 B/row (ptrs 16, D^-1 twice 144, r, y, z read/write 96); "
    "multicolor sweeps read the split matrix in place: ptrs 32 (l_ptr, diag_pos, row_ptr), 272 "
    "B/row",
    "N sgs + (N-1) (spmv + 144 B/row vector updates)",
    "48 B/row + MPI_Allreduce",
    "72 B/row",
    "24 B/element (write-allocate not counted)"};

typedef struct {
  double seconds[K_COUNT]; /* median over repeats of the max over ranks */
  double bytes[K_COUNT];   /* modelled, summed over ranks */
  int colors_min, colors_max, levels_max;
  double stream_bytes_per_array;   /* per rank */
  int pinned_threads, pinned_cpus; /* threads bound to one CPU, distinct CPUs among them */
  double llc_bytes;
  int64_t rss_max;
} bench_result;

static void bench_usage(void)
{
  printf(
      "cubecg-bench: solver kernels vs STREAM triad (issue 3)\n"
      "  --nx N --ny N --nz N     nodes per direction (default 64)\n"
      "  --partition box|metis    (default box)\n"
      "  --ordering KIND          natural, rcm, mc, cm-rcm (default cm-rcm)\n"
      "  --colors K               colors for mc, cm-rcm (default 10)\n"
      "  --asdd-iters N           ASDD iterations (default 2)\n"
      "  --repeat R               timed runs per kernel, median reported (default 20)\n"
      "  --stream-mb M            MiB of the three triad arrays over all ranks (default: 4 x LLC,\n"
      "                           at most half of MemAvailable)\n"
      "  --report FILE            JSON report (kind \"kernels\")\n");
}

static cc_err parse_int(const char *key, const char *val, int lo, int *out)
{
  char *end;
  long v = strtol(val, &end, 10);
  CC_CHECK(*val && !*end && v >= lo && v <= 1 << 30, CC_ERR_ARG,
           "--%s %s: expected an integer >= %d", key, val, lo);
  *out = (int)v;
  return CC_OK;
}

/* --key value or --key=value; returns 1 in *help for --help */
static cc_err bench_parse(int argc, char **argv, bench_opts *o, int *help)
{
  cc_mesh_params_default(&o->mesh);
  o->mesh.nx = o->mesh.ny = o->mesh.nz = 64;
  snprintf(o->ordering, sizeof o->ordering, "cm-rcm");
  o->colors = 10, o->asdd_iters = 2, o->repeat = 20, o->stream_mb = 0, o->report = NULL;
  *help = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *val = NULL, *eq;
    char key[32];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      *help = 1;
      return CC_OK;
    }
    CC_CHECK(!strncmp(arg, "--", 2), CC_ERR_ARG, "unexpected argument '%s'", arg);
    if ((eq = strchr(arg, '='))) {
      snprintf(key, sizeof key, "%.*s", (int)(eq - arg - 2), arg + 2);
      val = eq + 1;
    } else {
      snprintf(key, sizeof key, "%s", arg + 2);
      CC_CHECK(i + 1 < argc, CC_ERR_ARG, "option --%s needs a value", key);
      val = argv[++i];
    }
    if (!strcmp(key, "nx"))
      CC_CALL(parse_int(key, val, 2, &o->mesh.nx));
    else if (!strcmp(key, "ny"))
      CC_CALL(parse_int(key, val, 2, &o->mesh.ny));
    else if (!strcmp(key, "nz"))
      CC_CALL(parse_int(key, val, 2, &o->mesh.nz));
    else if (!strcmp(key, "colors"))
      CC_CALL(parse_int(key, val, 2, &o->colors));
    else if (!strcmp(key, "asdd-iters"))
      CC_CALL(parse_int(key, val, 1, &o->asdd_iters));
    else if (!strcmp(key, "repeat"))
      CC_CALL(parse_int(key, val, 1, &o->repeat));
    else if (!strcmp(key, "ordering")) {
      CC_CHECK(strlen(val) < sizeof o->ordering, CC_ERR_ARG, "--ordering %s: unknown", val);
      snprintf(o->ordering, sizeof o->ordering, "%s", val);
    } else if (!strcmp(key, "partition")) {
      CC_CHECK(!strcmp(val, "box") || !strcmp(val, "metis"), CC_ERR_ARG,
               "--partition %s: expected box or metis", val);
      o->mesh.partition = strcmp(val, "box") ? CC_PARTITION_METIS : CC_PARTITION_BOX;
    } else if (!strcmp(key, "stream-mb")) {
      char *end;
      o->stream_mb = strtod(val, &end);
      CC_CHECK(*val && !*end && o->stream_mb >= 1, CC_ERR_ARG, "--stream-mb %s: expected >= 1",
               val);
    } else if (!strcmp(key, "report"))
      o->report = val;
    else
      CC_FAIL(CC_ERR_ARG, "unknown option --%s (see --help)", key);
  }
  return CC_OK;
}

/* Last-level cache in bytes: the larger of sysconf and sysfs (VMs disagree); 32 MiB if unknown. */
static double llc_bytes(void)
{
  double best = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  long s = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (s > 0) best = (double)s;
#endif
  for (int idx = 0; idx < 8; idx++) {
    char path[96], buf[32];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fgets(buf, sizeof buf, f)) {
      char *end;
      double v = strtod(buf, &end);
      if (*end == 'K') v *= 1024;
      if (*end == 'M') v *= 1024 * 1024;
      if (v > best) best = v;
    }
    fclose(f);
  }
  return best > 0 ? best : 32.0 * 1024 * 1024;
}

static double mem_available_bytes(void)
{
  FILE *f = fopen("/proc/meminfo", "r");
  char line[128];
  double kb = 0;
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over runs of the slowest rank's time; all ranks get the same value. */
typedef struct {
  double *samples;
  int n;
} timing;

static cc_err timing_add(timing *t, double local)
{
  double worst;
  CC_MPI(MPI_Allreduce(&local, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  t->samples[t->n++] = worst;
  return CC_OK;
}

static double timing_median(timing *t)
{
  qsort(t->samples, (size_t)t->n, sizeof(double), cmp_double);
  return t->n % 2 ? t->samples[t->n / 2] : 0.5 * (t->samples[t->n / 2 - 1] + t->samples[t->n / 2]);
}

#define BENCH_TIME(t, body)                                                                        \
  do {                                                                                             \
    CC_MPI(MPI_Barrier(MPI_COMM_WORLD));                                                           \
    double t0_ = MPI_Wtime();                                                                      \
    body;                                                                                          \
    CC_CALL(timing_add((t), MPI_Wtime() - t0_));                                                   \
  } while (0)

/* STREAM triad a = b + s c over arrays of n doubles, first touched by the same static schedule */
static cc_err bench_triad(int64_t n, int repeat, timing *t)
{
  double *a, *b, *c;
  CC_CALL(cc_malloc((size_t)n, sizeof(double), &a));
  CC_CALL(cc_malloc((size_t)n, sizeof(double), &b));
  CC_CALL(cc_malloc((size_t)n, sizeof(double), &c));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
  const double s = 3.0;
  for (int r = -1; r < repeat; r++) {
    CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) a[i] = b[i] + s * c[i]; /* a <- b + s c */
    double dt = MPI_Wtime() - t0;
    if (r >= 0) CC_CALL(timing_add(t, dt)); /* r = -1: warm-up */
  }
  volatile double sink = a[n / 2];
  (void)sink;
  cc_free(&a);
  cc_free(&b);
  cc_free(&c);
  return CC_OK;
}

static cc_err sum_over_ranks(double local, double *global)
{
  CC_MPI(MPI_Allreduce(&local, global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  return CC_OK;
}

/* Threads bound to a single CPU (OMP_PROC_BIND, mpiexec -bind-to) and how many distinct CPUs they
 * use over all ranks: fewer CPUs than threads means ranks share a core (e.g. OMP_PROC_BIND=close
 * with one thread per rank and no per-rank binding pins every rank to the first CPU). */
#define BENCH_CPU_WORDS 16
static cc_err bench_pinning(int *pinned_threads, int *pinned_cpus)
{
  uint64_t mask[BENCH_CPU_WORDS] = {0};
  int pinned                     = 0;
#pragma omp parallel reduction(+ : pinned)
  {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1)
      for (int c = 0; c < 64 * BENCH_CPU_WORDS && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
          pinned++;
#pragma omp critical
          mask[c / 64] |= 1ull << (c % 64);
        }
  }
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, mask, BENCH_CPU_WORDS, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(&pinned, pinned_threads, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  *pinned_cpus = 0;
  for (int w = 0; w < BENCH_CPU_WORDS; w++) *pinned_cpus += __builtin_popcountll(mask[w]);
  return CC_OK;
}

static cc_err bench_run(const bench_opts *o, bench_result *res)
{
  int size;
  CC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  memset(res, 0, sizeof *res);
  CC_CALL(bench_pinning(&res->pinned_threads, &res->pinned_cpus));

  /* STREAM first, before the mesh occupies memory */
  res->llc_bytes = llc_bytes();
  double total   = o->stream_mb > 0 ? o->stream_mb * 1024 * 1024 : 4.0 * res->llc_bytes;
  double avail   = mem_available_bytes();
  if (o->stream_mb <= 0 && avail > 0 && total > 0.5 * avail) total = 0.5 * avail;
  int64_t n_triad             = (int64_t)(total / 3.0 / 8.0 / size);
  n_triad                     = n_triad < 1024 ? 1024 : n_triad;
  res->stream_bytes_per_array = 8.0 * (double)n_triad;
  timing tm[K_COUNT];
  double *samples;
  CC_CALL(cc_malloc((size_t)K_COUNT * (size_t)o->repeat, sizeof(double), &samples));
  for (int k = 0; k < K_COUNT; k++) tm[k] = (timing){samples + k * o->repeat, 0};
  CC_CALL(bench_triad(n_triad, o->repeat, &tm[K_TRIAD]));
  CC_CALL(sum_over_ranks(24.0 * (double)n_triad, &res->bytes[K_TRIAD]));

  /* the system, ordered */
  cc_mesh mesh;
  cc_bcrs a;
  double *rhs;
  CC_CALL(cc_mesh_create(&o->mesh, MPI_COMM_WORLD, &mesh));
  /* as cubecg does: the ordering from the pattern, then the matrix assembled in that order with
   * the lower part split off (cc_mesh_assemble_ordered), rows first-touched color by color */
  cc_ordering ord;
  cc_bcrs pattern;
  CC_CALL(cc_mesh_pattern(&mesh, &pattern));
  CC_CALL(cc_ordering_create(o->ordering, o->colors, &pattern, &ord));
  cc_bcrs_free(&pattern);
  cc_ordering_apply_comm(&ord, &mesh.comm);
  CC_CALL(cc_mesh_assemble_ordered(&mesh, &o->mesh, ord.new_of_old, ord.old_of_new, ord.n_colors,
                                   ord.n_colors > 0 ? ord.color_ptr : NULL, 1, &a, &rhs));
  cc_free(&rhs); /* the kernels run on synthetic vectors */
  const int n = a.n_rows, nc = a.n_cols;
  const int64_t nd = 3 * (int64_t)n;
  double *x, *y, *z, *r;
  CC_CALL(cc_malloc(3 * (size_t)nc, sizeof(double), &x));
  CC_CALL(cc_malloc(3 * (size_t)nc, sizeof(double), &y));
  CC_CALL(cc_malloc(3 * (size_t)nc, sizeof(double), &z));
  CC_CALL(cc_malloc(3 * (size_t)nc, sizeof(double), &r));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nd; i++) x[i] = 1.0, y[i] = 0.0, z[i] = 0.0, r[i] = 1.0 + 0.1 * (i % 7);
  for (int64_t i = nd; i < 3 * (int64_t)nc; i++) x[i] = y[i] = z[i] = r[i] = 0.0;
  /* r: a dense vector (the cube's b is zero away from the loaded face; a residual is not) */

  /* modelled bytes of this rank */
  int64_t n_lu = a.l_ptr ? a.l_ptr[n] : 0; /* split-off lower blocks, then the upper internal */
  for (int i = 0; i < n; i++)
    for (int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; k++)
      n_lu += a.col_idx[k] != i && a.col_idx[k] < n;
  /* split storage: the lower part adds its own row pointer (8 B/row) */
  double b_spmv =
      76.0 * (double)cc_bcrs_blocks(&a) + (a.l_ptr ? 16.0 : 8.0) * n + 24.0 * nc + 24.0 * n;
  double b_sgs  = 76.0 * (double)n_lu + (ord.n_colors > 0 ? 272.0 : 256.0) * n;
  double b_asdd = o->asdd_iters * b_sgs + (o->asdd_iters - 1) * (b_spmv + 144.0 * n);
  CC_CALL(sum_over_ranks(b_spmv, &res->bytes[K_SPMV]));
  CC_CALL(sum_over_ranks(b_sgs, &res->bytes[K_SGS]));
  CC_CALL(sum_over_ranks(b_asdd, &res->bytes[K_ASDD]));
  CC_CALL(sum_over_ranks(48.0 * n, &res->bytes[K_DOT]));
  CC_CALL(sum_over_ranks(72.0 * n, &res->bytes[K_AXPY]));

  /* SpMV including its halo exchange */
  CC_CALL(cc_spmv(NULL, &a, &mesh.comm, x, y));
  for (int rep = 0; rep < o->repeat; rep++)
    BENCH_TIME(&tm[K_SPMV], CC_CALL(cc_spmv(NULL, &a, &mesh.comm, x, y)));

  /* one forward + backward sweep pair; then ASDD; each preconditioner built alone (memory) */
  cc_precond *pc;
  cc_precond_params pp = {.name = "sgs", .asdd_iters = 1, .ordering = &ord};
  CC_CALL(cc_precond_create(&pp, &a, &mesh.comm, &pc));
  CC_CALL(cc_precond_apply(pc, NULL, r, z));
  for (int rep = 0; rep < o->repeat; rep++)
    BENCH_TIME(&tm[K_SGS], CC_CALL(cc_precond_apply(pc, NULL, r, z)));
  cc_precond_destroy(&pc);
  pp = (cc_precond_params){.name = "asdd", .asdd_iters = o->asdd_iters, .ordering = &ord};
  CC_CALL(cc_precond_create(&pp, &a, &mesh.comm, &pc));
  CC_CALL(cc_precond_apply(pc, NULL, r, z));
  for (int rep = 0; rep < o->repeat; rep++)
    BENCH_TIME(&tm[K_ASDD], CC_CALL(cc_precond_apply(pc, NULL, r, z)));
  cc_precond_destroy(&pc);

  /* dot with its global reduction; AXPY */
  volatile double sink = 0;
  for (int rep = -1; rep < o->repeat; rep++) {
    CC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime(), s = cc_dot_local(NULL, nd, x, r);
    CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    double dt = MPI_Wtime() - t0;
    sink += s;
    if (rep >= 0) CC_CALL(timing_add(&tm[K_DOT], dt));
  }
  cc_vec_axpy(NULL, nd, 1e-3, x, y);
  for (int rep = 0; rep < o->repeat; rep++)
    BENCH_TIME(&tm[K_AXPY], cc_vec_axpy(NULL, nd, 1e-3, x, y));
  (void)sink;

  for (int k = 0; k < K_COUNT; k++) res->seconds[k] = timing_median(&tm[k]);
  int levels = ord.n_levels;
  CC_MPI(MPI_Allreduce(&ord.n_colors, &res->colors_min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(&ord.n_colors, &res->colors_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(&levels, &res->levels_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  int64_t rss = cc_peak_rss_bytes();
  CC_MPI(MPI_Allreduce(&rss, &res->rss_max, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));

  cc_free(&samples);
  cc_free(&x);
  cc_free(&y);
  cc_free(&z);
  cc_free(&r);
  cc_ordering_free(&ord);
  cc_bcrs_free(&a);
  cc_mesh_free(&mesh);
  return CC_OK;
}

static void bench_print(const bench_opts *o, const bench_result *res, int size, int threads)
{
  double stream = res->bytes[K_TRIAD] / res->seconds[K_TRIAD];
  printf("cubecg-bench: %dx%dx%d nodes, %d ranks x %d threads, ordering %s (K = %d, colors used "
         "%d..%d), asdd-iters %d, median of %d runs\n",
         o->mesh.nx, o->mesh.ny, o->mesh.nz, size, threads, o->ordering, o->colors, res->colors_min,
         res->colors_max, o->asdd_iters, o->repeat);
  printf("STREAM triad arrays: 3 x %.1f MiB per rank (LLC %.0f MiB); 24 B/element, write-allocate "
         "not counted\n",
         res->stream_bytes_per_array / 1048576.0, res->llc_bytes / 1048576.0);
  if (res->pinned_cpus < res->pinned_threads)
    printf("WARNING: %d threads are pinned to only %d distinct CPUs: ranks share cores (bind ranks "
           "with mpiexec.mpich -bind-to core, or unset OMP_PROC_BIND)\n",
           res->pinned_threads, res->pinned_cpus);
  printf("%-8s %12s %14s %10s %12s\n", "kernel", "median s", "bytes", "GB/s", "% of STREAM");
  for (int k = 0; k < K_COUNT; k++) {
    double bw = res->bytes[k] / res->seconds[k];
    printf("%-8s %12.4e %14.4e %10.2f %11.1f%%\n", kernel_name[k], res->seconds[k], res->bytes[k],
           bw * 1e-9, 100.0 * bw / stream);
  }
  printf("peak RSS (max over ranks): %.1f MiB\n", (double)res->rss_max / 1048576.0);
}

static cc_err bench_report(const bench_opts *o, const bench_result *res, int size, int threads,
                           const cc_topology *topo)
{
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  CC_CALL(cc_mpi_library(library, sizeof library));
  FILE *f = fopen(o->report, "w");
  CC_CHECK(f != NULL, CC_ERR_SYS, "cannot write report %s: %s", o->report, strerror(errno));
  cc_json js    = {.out = f};
  double stream = res->bytes[K_TRIAD] / res->seconds[K_TRIAD];
  cc_json_begin_object(&js, NULL);
  cc_json_int(&js, "cubecg_report_version", CC_REPORT_VERSION);
  cc_json_string(&js, "kind", "kernels");
  cc_json_string(&js, "cubecg_version", CC_VERSION);
  cc_provenance_json(&js); /* date, build, platform */
  cc_json_begin_object(&js, "mpi");
  cc_json_string(&js, "library", library);
  cc_json_end_object(&js);
  cc_topology_json(topo, &js);
  cc_json_int(&js, "ranks", size);
  cc_json_int(&js, "threads", threads);
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
  cc_json_int(&js, "repeat", o->repeat);
  cc_json_double(&js, "stream_array_bytes_per_rank", res->stream_bytes_per_array);
  cc_json_double(&js, "llc_bytes", res->llc_bytes);
  cc_json_double(&js, "stream_triad_bytes_per_s", stream);
  cc_json_double(&js, "stream_triad_seconds", res->seconds[K_TRIAD]);
  cc_json_int(&js, "peak_rss_bytes_max", res->rss_max);
  cc_json_int(&js, "pinned_threads", res->pinned_threads);
  cc_json_int(&js, "pinned_cpus", res->pinned_cpus);
  cc_json_bool(&js, "cores_shared", res->pinned_cpus < res->pinned_threads);
  cc_json_begin_array(&js, "kernels");
  for (int k = 0; k < K_COUNT; k++) {
    if (k == K_TRIAD) continue;
    double bw = res->bytes[k] / res->seconds[k];
    cc_json_begin_object(&js, NULL);
    cc_json_string(&js, "name", kernel_name[k]);
    cc_json_double(&js, "seconds", res->seconds[k]);
    cc_json_double(&js, "bytes", res->bytes[k]);
    cc_json_double(&js, "bytes_per_s", bw);
    cc_json_double(&js, "fraction_of_stream", bw / stream);
    cc_json_string(&js, "bytes_model", kernel_model[k]);
    cc_json_end_object(&js);
  }
  cc_json_end_array(&js);
  cc_json_end_object(&js);
  CC_CHECK(fclose(f) == 0, CC_ERR_SYS, "closing report %s: %s", o->report, strerror(errno));
  return CC_OK;
}

int main(int argc, char **argv)
{
  int provided, rank, size;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 1;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench_opts o;
  bench_result res;
  int help   = 0;
  cc_err err = bench_parse(argc, argv, &o, &help);
  if (!err && !help) err = cc_mesh_params_validate(&o.mesh, size, 0);
  if (!err && help) {
    if (rank == 0) bench_usage();
    MPI_Finalize();
    return 0;
  }
  if (err) { /* every rank parsed the same options */
    if (rank == 0) cc_error_print(stderr, rank);
    MPI_Finalize();
    return 2;
  }
  /* OMP_NUM_THREADS unset: CPUs per host / ranks per host, as cubecg does (cc_topology.h) */
  static cc_topology topo;
  err = cc_topology_setup(MPI_COMM_WORLD, NULL, 0, &topo);
  if (err) {
    if (rank == 0) cc_error_print(stderr, rank);
    MPI_Finalize();
    return err == CC_ERR_ARG ? 2 : 1;
  }
  if (rank == 0) printf("cubecg-bench: threads %s\n", topo.threads_chosen_by);
  if (rank == 0 && topo.oversubscribed)
    printf("WARNING: oversubscribed: %s; bandwidths are not representative\n",
           topo.oversubscribed_why);
  err = bench_run(&o, &res);
  if (err) {
    cc_error_print(stderr, rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int threads = omp_get_max_threads();
  if (rank == 0) {
    bench_print(&o, &res, size, threads);
    if (o.report && (err = bench_report(&o, &res, size, threads, &topo))) {
      cc_error_print(stderr, rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  cc_topology_free(&topo);
  MPI_Finalize();
  return 0;
}
