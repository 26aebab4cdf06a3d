/* bench_kernels.c (cubecg-bench): the solver kernels (SpMV, SGS sweep pair, ASDD, dot, AXPY)
 * against a STREAM triad with the same ranks, threads and first touch (McCalpin's STREAM
 * conventions). A triad runs just before every repetition of every kernel, and a
 * kernel's fraction of STREAM is the median over repetitions of (kernel bytes/s) / (that triad's
 * bytes/s), so a neighbour's burst moves both numbers of a pair. Times: the slowest rank, after an
 * MPI_Barrier. Bytes: the traffic model of solvers/traffic.c (cc_traffic_model), summed over
 * ranks. A mesh whose matrix is smaller than 4x the last-level cache of its nodes is refused
 * (--allow-cached: run it with a loud warning); the default mesh is the smallest 2^k cube whose
 * matrix is at least that large.
 */
#include "kernelbench.h"

/* Stored matrix of an nx x ny x nz node cube over all ranks, from the mesh alone: a node couples
 * with the nodes of its neighbouring hexahedra, so the nonzero 3x3 blocks are
 * (3 nx - 2)(3 ny - 2)(3 nz - 2); 76 B per block (9 doubles + int32 column) and 16 B per row
 * (row_ptr, l_ptr): the traffic model's SpMV matrix stream (solvers/traffic.c). */
static double bench_matrix_bytes(const cc_mesh_params *m)
{
  return 76.0 * (3.0 * m->nx - 2) * (3.0 * m->ny - 2) * (3.0 * m->nz - 2) +
         16.0 * m->nx * m->ny * (double)m->nz;
}

/* The default mesh: the smallest 2^k cube (k >= 5) whose matrix is at least 4x the last-level
 * cache of all nodes (STREAM's rule for its arrays), e.g. 64^3 (0.52 GB) for a 64 MiB LLC,
 * 128^3 (4.2 GB) for a 384 MiB one. Then the check: a matrix below that is refused unless
 * --allow-cached (same rule, so the default always passes). */
static cc_err bench_default_mesh(bench_opts *o, const cc_topology *topo, double *matrix_bytes)
{
  const double need = 4.0 * topo->llc_bytes * topo->nodes;
  if (o->mesh_auto) {
    int n = 32;
    for (;;) {
      o->mesh.nx = o->mesh.ny = o->mesh.nz = n;
      if (bench_matrix_bytes(&o->mesh) >= need || n >= 1024) break;
      n *= 2;
    }
  }
  *matrix_bytes = bench_matrix_bytes(&o->mesh);
  CC_CHECK(*matrix_bytes >= need || o->allow_cached, CC_ERR_ARG,
           "%dx%dx%d nodes: the matrix (%.0f MiB) is below 4x the last-level cache of its %d "
           "node(s) (%.0f MiB): the kernels would run partly from cache; use a larger mesh (the "
           "default picks one) or --allow-cached",
           o->mesh.nx, o->mesh.ny, o->mesh.nz, *matrix_bytes / 1048576.0, topo->nodes,
           need / 1048576.0);
  return CC_OK;
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

/* The triad's arrays per node: 4x the LLC, or --stream-mb over all ranks. */
static double bench_stream_node_bytes(const bench_opts *o, const cc_topology *topo, int size)
{
  return o->stream_mb > 0 ? o->stream_mb * 1024 * 1024 / size * topo->node_size
                          : 4.0 * topo->llc_bytes;
}

/* The smallest MemAvailable of the ranks' hosts (INFINITY where /proc/meminfo cannot tell) */
static cc_err bench_min_mem_available(double *avail)
{
  *avail = mem_available_bytes();
  if (*avail <= 0) *avail = INFINITY; /* no /proc/meminfo: not checked */
  CC_MPI(MPI_Allreduce(MPI_IN_PLACE, avail, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
  return CC_OK;
}

/* --triad-placement N: the triad alone on N sets of arrays (triad_placement.h); refused before any
 * allocation when the sets need more than 80 % of the smallest MemAvailable of the ranks' hosts.
 * Rank 0 prints the table and writes the report. */
static cc_err bench_placement(const bench_opts *o, const cc_topology *topo, int size, int rank)
{
  const double node_bytes = bench_stream_node_bytes(o, topo, size);
  const double need       = o->placement * node_bytes;
  double avail;
  CC_CALL(bench_min_mem_available(&avail));
  CC_CHECK(need <= 0.8 * avail, CC_ERR_ARG,
           "--triad-placement %d: %d sets of %.0f MiB per node need %.0f MiB, more than 80%% of "
           "MemAvailable (%.0f MiB); use fewer sets or a smaller --stream-mb",
           o->placement, o->placement, node_bytes / 1048576.0, need / 1048576.0, avail / 1048576.0);
  triad_placement pl;
  CC_CALL(triad_placement_run(MPI_COMM_WORLD, node_bytes, topo->node_size, o->placement, o->repeat,
                              &pl));
  if (rank != 0) return CC_OK;
  bench_placement_print(&pl);
  if (o->report) CC_CALL(bench_placement_report(o->report, &pl, size, omp_get_max_threads(), topo));
  return CC_OK;
}

/* --read-streams N (read_streams.h) or --block-ceilings (block_ceilings.h): beside one set of
 * triad arrays, refused before any allocation as --triad-placement. Rank 0 prints and reports. */
static cc_err bench_beside_triad(const bench_opts *o, const cc_topology *topo, int size, int rank)
{
  const double node_bytes = bench_stream_node_bytes(o, topo, size);
  const char *name        = o->read_streams ? "--read-streams" : "--block-ceilings";
  double avail;
  CC_CALL(bench_min_mem_available(&avail));
  CC_CHECK(node_bytes <= 0.8 * avail, CC_ERR_ARG,
           "%s: the triad's arrays need %.0f MiB per node, more than 80%% of MemAvailable "
           "(%.0f MiB); use a smaller --stream-mb",
           name, node_bytes / 1048576.0, avail / 1048576.0);
  const int threads = omp_get_max_threads();
  if (o->read_streams) {
    read_streams rs;
    CC_CALL(read_streams_run(MPI_COMM_WORLD, node_bytes, topo->node_size, o->read_streams,
                             o->repeat, &rs));
    if (rank != 0) return CC_OK;
    bench_read_streams_print(&rs);
    return o->report ? bench_read_streams_report(o->report, &rs, size, threads, topo) : CC_OK;
  }
  block_ceilings bc;
  CC_CALL(block_ceilings_run(MPI_COMM_WORLD, node_bytes, topo->node_size, o->repeat, &bc));
  if (rank != 0) return CC_OK;
  bench_block_ceilings_print(&bc);
  return o->report ? bench_block_ceilings_report(o->report, &bc, size, threads, topo) : CC_OK;
}

/* Per kernel and repetition: the slowest rank's time of the kernel and of the triad run just
 * before it (every rank gets the same values). */
typedef struct {
  double *kernel, *triad; /* [repeat] */
  int n;
} timing;

/* count timings of reps repetitions each in one allocation *samples, which ends with reps doubles
 * of scratch for timing_summary (*scratch); the caller frees *samples */
static cc_err timing_create(int count, int reps, timing *tm, double **samples, double **scratch)
{
  CC_CALL(cc_malloc((size_t)(2 * count + 1) * (size_t)reps, sizeof(double), samples));
  for (int k = 0; k < count; k++)
    tm[k] = (timing){*samples + 2 * k * reps, *samples + (2 * k + 1) * reps, 0};
  *scratch = *samples + 2 * count * reps;
  return CC_OK;
}

/* One repetition: a triad, then the kernel, each after a barrier, each the slowest rank's time. */
#define BENCH_REP(tr, t, body)                                                                     \
  do {                                                                                             \
    CC_CALL(cc_triad_run((tr), &(t)->triad[(t)->n]));                                              \
    CC_MPI(MPI_Barrier(MPI_COMM_WORLD));                                                           \
    double t0_ = MPI_Wtime();                                                                      \
    body;                                                                                          \
    double dt_ = MPI_Wtime() - t0_;                                                                \
    CC_MPI(MPI_Allreduce(&dt_, &(t)->kernel[(t)->n], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));     \
    (t)->n++;                                                                                      \
  } while (0)

/* Median kernel time, and the median over repetitions of (bytes / t_kernel) / (triad bytes /
 * t_triad) = (bytes / triad bytes) (t_triad / t_kernel): the interleaved fraction of STREAM. */
static void timing_summary(timing *t, double bytes, double triad_bytes, double *seconds,
                           double *fraction, double *scratch)
{
  *fraction = cc_median_fraction_of_triad(bytes, t->kernel, triad_bytes, t->triad, t->n, scratch);
  for (int r = 0; r < t->n; r++) scratch[r] = t->kernel[r];
  *seconds = cc_median(scratch, t->n);
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

/* --anatomy: cc_spmv and the variants of spmv_anatomy.h in turn (the order rotating between
 * repetitions), each run after a triad, each timed against SpMV's modelled bytes; then the copy's
 * y checked against cc_spmv's, bit for bit (else the variants would not price what they claim). */
static cc_err bench_anatomy(const bench_opts *o, const cc_bcrs *a, const cc_comm_table *comm,
                            cc_triad *triad, double *x, double *y, double *z, double spmv_bytes,
                            bench_result *res)
{
  double *buf, *scratch;
  timing tm[BENCH_AN_COUNT];
  CC_CALL(timing_create(BENCH_AN_COUNT, o->repeat, tm, &buf, &scratch));
  for (int rep = 0; rep < o->repeat; rep++)
    for (int k = 0; k < BENCH_AN_COUNT; k++) {
      const int v = (k + rep) % BENCH_AN_COUNT;
      if (v == BENCH_AN_SPMV)
        BENCH_REP(triad, &tm[v], CC_CALL(cc_spmv(NULL, a, comm, x, y)));
      else
        BENCH_REP(triad, &tm[v], bench_anatomy_run(v, a, x, z));
    }
  for (int v = 0; v < BENCH_AN_COUNT; v++)
    timing_summary(&tm[v], spmv_bytes, triad->bytes, &res->an_seconds[v], &res->an_fraction[v],
                   scratch);
  cc_free(&buf);
  CC_CALL(cc_spmv(NULL, a, comm, x, y));
  bench_anatomy_run(BENCH_AN_COPY, a, x, z);
  int equal = memcmp(y, z, 3 * (size_t)a->n_rows * sizeof(double)) == 0;
  CC_MPI(MPI_Allreduce(&equal, &res->an_copy_equal, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  CC_CHECK(res->an_copy_equal, CC_ERR_CHECK,
           "--anatomy: bench/spmv_anatomy.c's copy of SpMV's row loop gives other bits than "
           "cc_spmv, so its variants would not price what they claim");
  return CC_OK;
}

/* --model-stream: every kernel (model_stream.h) and, in turn, the stream of exactly its modelled
 * bytes over its own arrays, each after a triad. The streams' bytes must equal the model's
 * (solvers/traffic.c) on every rank, else the comparison would not price what it claims. */
static cc_err bench_model_stream(const bench_opts *o, const cc_bcrs *a, const cc_comm_table *comm,
                                 const cc_ordering *ord, int chunk, cc_triad *triad, double *x,
                                 double *y, double *z, double *r, bench_result *res)
{
  static const cc_precision prec[3] = {CC_PRECISION_DOUBLE, CC_PRECISION_SINGLE, CC_PRECISION_HALF};
  const int64_t nd                  = 3 * (int64_t)a->n_rows;
  cc_precond *pc[6] = {NULL}; /* sgs double, single, half; asdd double, single, half */
  cc_traffic tm[3];
  model_stream ms[MR_KERNELS];
  double local_model[MR_KERNELS], local_stream[MR_KERNELS];
  for (int p = 0; p < 3; p++) {
    cc_precond_params pp = {.name             = "sgs",
                            .asdd_iters       = 1,
                            .ordering         = ord,
                            .sweep_chunk_rows = chunk,
                            .precision        = prec[p]};
    CC_CALL(cc_precond_create(&pp, a, comm, &pc[p]));
    pp.name               = "asdd";
    pp.asdd_iters         = o->asdd_iters;
    pp.asdd_full_residual = o->asdd_full_residual;
    CC_CALL(cc_precond_create(&pp, a, comm, &pc[3 + p]));
    CC_CALL(cc_traffic_model(a, &pp, &tm[p]));
    double *t, *w;
    ms[MR_SGS_D + p] =
        (model_stream){a, cc_precond_sgs(pc[p], NULL, NULL), 0, x, z, r, NULL, NULL, 0};
    const cc_sgs *sa  = cc_precond_sgs(pc[3 + p], &t, &w);
    ms[MR_ASDD_D + p] = (model_stream){a, sa, o->asdd_iters, x, z, r, t, w, o->asdd_full_residual};
    local_model[MR_SGS_D + p]  = tm[p].sgs;
    local_model[MR_ASDD_D + p] = tm[p].asdd;
  }
  ms[MR_SPMV] = ms[MR_DOT] = ms[MR_AXPY] = (model_stream){a, NULL, 0, x, y, r, NULL, NULL, 0};
  local_model[MR_SPMV] = tm[0].spmv, local_model[MR_DOT] = tm[0].dot;
  local_model[MR_AXPY]       = tm[0].axpy;
  const int kind[MR_KERNELS] = {MS_SPMV,  MS_SWEEP, MS_SWEEP, MS_SWEEP, MS_SWEEP,
                                MS_SWEEP, MS_SWEEP, MS_DOT,   MS_AXPY};
  for (int k = 0; k < MR_KERNELS; k++) local_stream[k] = (double)model_stream_run(kind[k], &ms[k]);
  CC_MPI(
      MPI_Allreduce(local_model, res->ms_bytes, MR_KERNELS, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(local_stream, res->ms_stream_bytes, MR_KERNELS, MPI_DOUBLE, MPI_SUM,
                       MPI_COMM_WORLD));
  for (int k = 0; k < MR_KERNELS; k++)
    CC_CHECK(res->ms_stream_bytes[k] == res->ms_bytes[k], CC_ERR_CHECK,
             "--model-stream: the %s stream touches %.17g bytes, the traffic model counts %.17g",
             ms_row_name[k], res->ms_stream_bytes[k], res->ms_bytes[k]);

  double *buf, *scratch;
  timing tr[2 * MR_KERNELS]; /* real kernel k, then its stream at MR_KERNELS + k */
  CC_CALL(timing_create(2 * MR_KERNELS, o->repeat, tr, &buf, &scratch));
  volatile double sink = 0;
  for (int rep = 0; rep < o->repeat; rep++)
    for (int k = 0; k < MR_KERNELS; k++) {
      if (k == MR_SPMV)
        BENCH_REP(triad, &tr[k], CC_CALL(cc_spmv(NULL, a, comm, x, y)));
      else if (k == MR_DOT)
        BENCH_REP(triad, &tr[k], sink += cc_dot_local(NULL, nd, x, r));
      else if (k == MR_AXPY)
        BENCH_REP(triad, &tr[k], cc_vec_axpy(NULL, nd, 1e-3, x, y));
      else
        BENCH_REP(triad, &tr[k], CC_CALL(cc_precond_apply(pc[k - MR_SGS_D], NULL, r, z)));
      BENCH_REP(triad, &tr[MR_KERNELS + k], model_stream_run(kind[k], &ms[k]));
    }
  (void)sink;
  for (int k = 0; k < MR_KERNELS; k++) {
    double unused;
    timing_summary(&tr[k], res->ms_bytes[k], triad->bytes, &res->ms_real[k], &unused, scratch);
    timing_summary(&tr[MR_KERNELS + k], res->ms_bytes[k], triad->bytes, &res->ms_stream[k],
                   &res->ms_stream_fraction[k], scratch);
    for (int rep = 0; rep < o->repeat; rep++)
      scratch[rep] = tr[k].kernel[rep] / tr[MR_KERNELS + k].kernel[rep];
    res->ms_ratio[k] = cc_median(scratch, o->repeat);
  }
  /* Alg.1's iteration: SpMV + ASDD + its vector passes, priced per byte as AXPY and its stream */
  double all_triads = 0, stream_rows = 0, local_rows = 24.0 * (double)a->n_rows;
  for (int k = 0; k < 2 * MR_KERNELS; k++)
    for (int rep = 0; rep < tr[k].n; rep++) all_triads += tr[k].triad[rep];
  all_triads /= 2.0 * MR_KERNELS * o->repeat; /* mean triad time of the run */
  CC_MPI(MPI_Allreduce(&local_rows, &stream_rows, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  const cc_krylov *alg1 = cc_krylov_find("pcg");
  CC_CHECK(alg1 != NULL, CC_ERR_CHECK, "--model-stream: Alg.1 (pcg) is not registered");
  res->ms_vector_passes  = cc_traffic_vector_passes(alg1, 0, 0);
  const double vec_bytes = res->ms_vector_passes * stream_rows;
  for (int p = 0; p < 3; p++) {
    const int it = MR_IT_D + p, pre = MR_ASDD_D + p;
    res->ms_bytes[it] = res->ms_bytes[MR_SPMV] + res->ms_bytes[pre] + vec_bytes;
    res->ms_stream_bytes[it] =
        res->ms_stream_bytes[MR_SPMV] + res->ms_stream_bytes[pre] + vec_bytes;
    res->ms_real[it] = res->ms_real[MR_SPMV] + res->ms_real[pre] +
                       vec_bytes / res->ms_bytes[MR_AXPY] * res->ms_real[MR_AXPY];
    res->ms_stream[it] = res->ms_stream[MR_SPMV] + res->ms_stream[pre] +
                         vec_bytes / res->ms_bytes[MR_AXPY] * res->ms_stream[MR_AXPY];
    res->ms_ratio[it] = res->ms_real[it] / res->ms_stream[it];
    res->ms_stream_fraction[it] =
        all_triads > 0 ? res->ms_bytes[it] / res->ms_stream[it] / (triad->bytes / all_triads) : 0;
  }
  cc_free(&buf);
  for (int k = 0; k < 6; k++) cc_precond_destroy(&pc[k]);
  return CC_OK;
}

/* The system as cubecg builds it: the ordering from the pattern, then the matrix assembled in that
 * order with the lower part split off (cc_mesh_assemble_ordered), rows first-touched color by
 * color, and the row classes of the driver's default (--halo-overlap on). */
cc_err bench_system_create(const bench_opts *o, cc_mesh *mesh, cc_ordering *ord, cc_bcrs *a)
{
  double *rhs;
  CC_CALL(cc_mesh_create(&o->mesh, MPI_COMM_WORLD, mesh));
  cc_bcrs pattern;
  CC_CALL(cc_mesh_pattern(mesh, &pattern));
  CC_CALL(cc_ordering_create(o->ordering, o->colors, &pattern, ord));
  cc_bcrs_free(&pattern);
  cc_ordering_apply_comm(ord, &mesh->comm);
  CC_CALL(cc_mesh_assemble_ordered(mesh, &o->mesh, ord->new_of_old, ord->old_of_new, ord->n_colors,
                                   ord->n_colors > 0 ? ord->color_ptr : NULL, 1, a, &rhs));
  cc_free(&rhs); /* the kernels run on synthetic vectors */
  CC_CALL(cc_bcrs_classify_rows(a, o->level_order ? ord->level_order : NULL));
  return CC_OK;
}

/* The kernels' working set: the ordered system, the vectors, the triad timed before every
 * repetition, the preconditioners' parameters and the timings. */
typedef struct {
  const bench_opts *o;
  cc_mesh mesh;
  cc_bcrs a;
  cc_ordering ord;
  int64_t nd; /* 3 x owned rows */
  double *x, *y, *z, *r;
  cc_triad triad;
  int chunk; /* the sweeps' chunks: 0 level by level, -1 color by color */
  cc_precond_params pp_sgs, pp_asdd, pp_single, pp_half;
  timing tm[K_COUNT];
  double *samples, *scratch;
} kernels;

/* x, y, z, r over the owned rows and the halo: r a dense vector (the cube's b is zero away from
 * the loaded face; a residual is not), the halo zero. */
static cc_err kernels_vectors(kernels *k)
{
  const int nc = k->a.n_cols;
  k->nd        = 3 * (int64_t)k->a.n_rows;
  CC_CALL(cc_malloc(3 * (size_t)nc, sizeof(double), &k->x));
  CC_CALL(cc_malloc(3 * (size_t)nc, sizeof(double), &k->y));
  CC_CALL(cc_malloc(3 * (size_t)nc, sizeof(double), &k->z));
  CC_CALL(cc_malloc(3 * (size_t)nc, sizeof(double), &k->r));
  double *x = k->x, *y = k->y, *z = k->z, *r = k->r;
  const int64_t nd = k->nd;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nd; i++) x[i] = 1.0, y[i] = 0.0, z[i] = 0.0, r[i] = 1.0 + 0.1 * (i % 7);
  for (int64_t i = nd; i < 3 * (int64_t)nc; i++) x[i] = y[i] = z[i] = r[i] = 0.0;
  return CC_OK;
}

/* STREAM arrays after the kernels' data, as cubecg --roofline allocates them, kept for the triad
 * before every repetition. 4x the LLC per node, split over the node's ranks (or --stream-mb over
 * all). Not first: on a VM the memory a process touches first can stream slower than what it
 * touches later (measured here, README "Where the triad's arrays lie"), and a triad on the slower
 * pages read the kernels up to 1.3x "of STREAM". */
static cc_err kernels_triad(kernels *k, const cc_topology *topo, int size, bench_result *res)
{
  res->llc_bytes    = topo->llc_bytes;
  double node_bytes = bench_stream_node_bytes(k->o, topo, size);
  double avail      = mem_available_bytes();
  if (k->o->stream_mb <= 0 && avail > 0 && node_bytes > 0.5 * avail) node_bytes = 0.5 * avail;
  CC_CALL(cc_triad_create(MPI_COMM_WORLD, node_bytes, topo->node_size, &k->triad));
  res->stream_bytes_per_array = 8.0 * (double)k->triad.n;
  res->bytes[K_TRIAD]         = k->triad.bytes;
  return CC_OK;
}

/* The preconditioners timed (the sweep pair, ASDD with double, float and binary16 blocks) and
 * their modelled bytes (solvers/traffic.c), summed over ranks, beside SpMV's, dot's and AXPY's. */
static cc_err kernels_model(kernels *k, bench_result *res)
{
  const bench_opts *o = k->o;
  k->chunk            = o->level_order ? 0 : -1; /* -1: color by color */
  k->pp_sgs           = (cc_precond_params){
                .name = "sgs", .asdd_iters = 1, .ordering = &k->ord, .sweep_chunk_rows = k->chunk};
  k->pp_asdd             = (cc_precond_params){.name               = "asdd",
                                               .asdd_iters         = o->asdd_iters,
                                               .ordering           = &k->ord,
                                               .sweep_chunk_rows   = k->chunk,
                                               .asdd_full_residual = o->asdd_full_residual};
  k->pp_single           = k->pp_asdd;
  k->pp_single.precision = CC_PRECISION_SINGLE;
  k->pp_half             = k->pp_asdd;
  k->pp_half.precision   = CC_PRECISION_HALF;
  cc_traffic ts, ta, tf, th;
  CC_CALL(cc_traffic_model(&k->a, &k->pp_sgs, &ts));
  CC_CALL(cc_traffic_model(&k->a, &k->pp_asdd, &ta));
  CC_CALL(cc_traffic_model(&k->a, &k->pp_single, &tf));
  CC_CALL(cc_traffic_model(&k->a, &k->pp_half, &th));
  double local[K_COUNT - 1] = {ts.spmv, ts.sgs, ta.asdd, tf.asdd, th.asdd, ts.dot, ts.axpy};
  CC_MPI(MPI_Allreduce(local, res->bytes, K_COUNT - 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  return CC_OK;
}

/* SpMV including its halo exchange (with --anatomy and --model-stream beside it), then one
 * forward + backward sweep pair; each preconditioner built alone (memory). */
static cc_err kernels_spmv_sweeps(kernels *k, bench_result *res)
{
  const bench_opts *o       = k->o;
  const cc_comm_table *comm = &k->mesh.comm;
  CC_CALL(cc_spmv(NULL, &k->a, comm, k->x, k->y));
  for (int rep = 0; rep < o->repeat; rep++)
    BENCH_REP(&k->triad, &k->tm[K_SPMV], CC_CALL(cc_spmv(NULL, &k->a, comm, k->x, k->y)));
  if (o->anatomy)
    CC_CALL(bench_anatomy(o, &k->a, comm, &k->triad, k->x, k->y, k->z, res->bytes[K_SPMV], res));
  if (o->model_stream)
    CC_CALL(bench_model_stream(o, &k->a, comm, &k->ord, k->chunk, &k->triad, k->x, k->y, k->z, k->r,
                               res));
  cc_precond *pc;
  CC_CALL(cc_precond_create(&k->pp_sgs, &k->a, comm, &pc));
  CC_CALL(cc_precond_apply(pc, NULL, k->r, k->z));
  for (int rep = 0; rep < o->repeat; rep++)
    BENCH_REP(&k->triad, &k->tm[K_SGS], CC_CALL(cc_precond_apply(pc, NULL, k->r, k->z)));
  cc_precond_destroy(&pc);
  return CC_OK;
}

/* ASDD in double and with float and binary16 blocks, repetitions alternating: their ratios are
 * taken in pairs a few seconds apart, which a neighbour's burst moves less than two runs. */
static cc_err kernels_asdd(kernels *k, bench_result *res)
{
  const int repeat          = k->o->repeat;
  const cc_comm_table *comm = &k->mesh.comm;
  double *r = k->r, *z = k->z, *scratch = k->scratch;
  timing *tm = k->tm;
  cc_precond *pc, *pf, *ph;
  CC_CALL(cc_precond_create(&k->pp_asdd, &k->a, comm, &pc));
  CC_CALL(cc_precond_create(&k->pp_single, &k->a, comm, &pf));
  CC_CALL(cc_precond_create(&k->pp_half, &k->a, comm, &ph));
  CC_CALL(cc_precond_apply(pc, NULL, r, z));
  CC_CALL(cc_precond_apply(pf, NULL, r, z));
  CC_CALL(cc_precond_apply(ph, NULL, r, z));
  for (int rep = 0; rep < repeat; rep++) {
    BENCH_REP(&k->triad, &tm[K_ASDD], CC_CALL(cc_precond_apply(pc, NULL, r, z)));
    BENCH_REP(&k->triad, &tm[K_ASDD_SINGLE], CC_CALL(cc_precond_apply(pf, NULL, r, z)));
    BENCH_REP(&k->triad, &tm[K_ASDD_HALF], CC_CALL(cc_precond_apply(ph, NULL, r, z)));
    scratch[rep] = tm[K_ASDD].kernel[rep] / tm[K_ASDD_SINGLE].kernel[rep];
  }
  res->asdd_double_over_single = cc_median(scratch, repeat);
  for (int rep = 0; rep < repeat; rep++)
    scratch[rep] = tm[K_ASDD].kernel[rep] / tm[K_ASDD_HALF].kernel[rep];
  res->asdd_double_over_half = cc_median(scratch, repeat);
  cc_precond_destroy(&pc);
  cc_precond_destroy(&pf);
  cc_precond_destroy(&ph);
  return CC_OK;
}

/* dot with its global reduction; AXPY */
static cc_err kernels_vector_ops(kernels *k)
{
  const int64_t nd = k->nd;
  double *x = k->x, *y = k->y, *r = k->r;
  volatile double sink = 0;
  double s             = cc_dot_local(NULL, nd, x, r); /* warm-up */
  for (int rep = 0; rep < k->o->repeat; rep++)
    BENCH_REP(&k->triad, &k->tm[K_DOT], s = cc_dot_local(NULL, nd, x, r);
              CC_MPI(MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
              sink += s);
  cc_vec_axpy(NULL, nd, 1e-3, x, y);
  for (int rep = 0; rep < k->o->repeat; rep++)
    BENCH_REP(&k->triad, &k->tm[K_AXPY], cc_vec_axpy(NULL, nd, 1e-3, x, y));
  (void)sink;
  return CC_OK;
}

/* Each kernel's median time and fraction of STREAM; the triad's own row: every triad of the run.
 * Beside them the ordering's colors and levels and the peak RSS, over ranks. */
static cc_err kernels_summary(kernels *k, bench_result *res)
{
  double *all_triads;
  CC_CALL(cc_malloc((size_t)(K_COUNT - 1) * (size_t)k->o->repeat, sizeof(double), &all_triads));
  int n_triads = 0;
  for (int i = 0; i < K_TRIAD; i++)
    for (int rep = 0; rep < k->tm[i].n; rep++) all_triads[n_triads++] = k->tm[i].triad[rep];
  res->seconds[K_TRIAD]  = cc_median(all_triads, n_triads);
  res->fraction[K_TRIAD] = 1.0;
  cc_free(&all_triads);
  for (int i = 0; i < K_TRIAD; i++)
    timing_summary(&k->tm[i], res->bytes[i], k->triad.bytes, &res->seconds[i], &res->fraction[i],
                   k->scratch);

  int levels = k->ord.n_levels;
  CC_MPI(MPI_Allreduce(&k->ord.n_colors, &res->colors_min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(&k->ord.n_colors, &res->colors_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CC_MPI(MPI_Allreduce(&levels, &res->levels_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  int64_t rss = cc_peak_rss_bytes();
  CC_MPI(MPI_Allreduce(&rss, &res->rss_max, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD));
  return CC_OK;
}

static cc_err bench_run(const bench_opts *o, const cc_topology *topo, bench_result *res)
{
  int size;
  CC_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CC_CALL(bench_pinning(&res->pinned_threads, &res->pinned_cpus));
  kernels k = {.o = o};
  CC_CALL(timing_create(K_COUNT, o->repeat, k.tm, &k.samples, &k.scratch));
  CC_CALL(bench_system_create(o, &k.mesh, &k.ord, &k.a)); /* the system, ordered */
  CC_CALL(kernels_vectors(&k));
  CC_CALL(kernels_triad(&k, topo, size, res));
  CC_CALL(kernels_model(&k, res));
  CC_CALL(kernels_spmv_sweeps(&k, res));
  CC_CALL(kernels_asdd(&k, res));
  CC_CALL(kernels_vector_ops(&k));
  CC_CALL(kernels_summary(&k, res));
  cc_triad_free(&k.triad);
  cc_free_all((void *[]){&k.samples, &k.x, &k.y, &k.z, &k.r, NULL});
  cc_ordering_free(&k.ord);
  cc_bcrs_free(&k.a);
  cc_mesh_free(&k.mesh);
  return CC_OK;
}

/* --overlap: measure, print and report (rank 0); an argument error is agreed (every rank parsed
 * the same options and sees the same size) */
static cc_err bench_overlap_main(const bench_opts *o, const cc_mpi_info *mpi,
                                 const cc_topology *topo, int rank)
{
  static bench_overlap ov;
  cc_err err = bench_overlap_run(o, mpi, &ov);
  if (!err && rank == 0) {
    bench_overlap_print(o, &ov, mpi);
    if (o->report) err = bench_overlap_report(o->report, &ov, o, mpi, omp_get_max_threads(), topo);
  }
  if (err && (rank == 0 || err != CC_ERR_ARG)) cc_error_print(stderr, rank);
  return err;
}

int main(int argc, char **argv)
{
  int rank, size;
  /* as cubecg starts MPI: the thread level the library's progress thread needs when its knob is
   * on, and what runs read back (--overlap's thread setting) */
  static cc_mpi_info mpi;
  if (cc_mpi_start(&argc, &argv, &mpi)) {
    cc_error_print(stderr, 0);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench_opts o;
  bench_result res;
  int help   = 0;
  cc_err err = bench_parse(argc, argv, &o, &help);
  if (!err && !help && !o.mesh_auto) err = cc_mesh_params_validate(&o.mesh, size, 0);
  /* the report's path before the benchmark (rank 0 writes it; every rank gets the verdict) */
  if (!err && !help && o.report)
    err = cc_agree(MPI_COMM_WORLD, rank == 0 ? cc_check_output_file("report", o.report, 0) : CC_OK);
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
  if (o.overlap) {
    err = bench_overlap_main(&o, &mpi, &topo, rank);
    cc_topology_free(&topo);
    MPI_Finalize();
    return err == CC_ERR_ARG ? 2 : err ? 1 : 0;
  }
  if (o.read_streams || o.placement || o.block_ceilings) { /* the triad and probes: no mesh */
    err = o.placement ? bench_placement(&o, &topo, size, rank)
                      : bench_beside_triad(&o, &topo, size, rank);
    if (err && (rank == 0 || err != CC_ERR_ARG)) cc_error_print(stderr, rank); /* ARG: agreed */
    cc_topology_free(&topo);
    MPI_Finalize();
    return err == CC_ERR_ARG ? 2 : err ? 1 : 0;
  }
  /* the default DRAM-sized mesh, or the refusal of a cached one: before any large allocation */
  memset(&res, 0, sizeof res);
  err = bench_default_mesh(&o, &topo, &res.matrix_bytes);
  if (!err) err = cc_mesh_params_validate(&o.mesh, size, 0);
  if (err) { /* every rank decided on the same numbers (LLC and nodes are agreed) */
    if (rank == 0) cc_error_print(stderr, rank);
    cc_error_clear();
    cc_topology_free(&topo);
    MPI_Finalize();
    return err == CC_ERR_ARG ? 2 : 1;
  }
  res.matrix_cached = res.matrix_bytes < 4.0 * topo.llc_bytes * topo.nodes;
  if (rank == 0) printf("cubecg-bench: threads %s\n", topo.threads_chosen_by);
  if (rank == 0 && res.matrix_cached)
    printf("WARNING: --allow-cached: %dx%dx%d nodes, the matrix (%.0f MiB) is below 4x the "
           "last-level cache (%.0f MiB per node x %d nodes): kernels run partly from cache\n",
           o.mesh.nx, o.mesh.ny, o.mesh.nz, res.matrix_bytes / 1048576.0,
           4.0 * topo.llc_bytes / 1048576.0, topo.nodes);
  if (rank == 0 && topo.oversubscribed)
    printf("WARNING: oversubscribed: %s; bandwidths are not representative\n",
           topo.oversubscribed_why);
  err = bench_run(&o, &topo, &res);
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
