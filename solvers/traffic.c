/* traffic.c: the explicit memory-traffic model of the kernels and of one CG iteration, and the
 * STREAM triad it is measured against (McCalpin's STREAM conventions).
 * The one place of the model: cubecg-bench and the driver's roofline fraction both call it.
 *
 * Bytes that must cross the memory bus once per call on this rank; vectors gathered through
 * column indices are taken as cache resident after their first touch; write-allocate is not
 * counted (as in STREAM); halo messages are not counted. With P = bytes of a stored value (8 for
 * double, 4 for float, 2 for binary16, --precond-precision):
 *   block        = 9 values + one int32 column index = 9 P + 4 (76 B double, 40 B float, 22 B half)
 *   SpMV         = 76 B per stored block + 8 B row_ptr per row (+ 8 B l_ptr with split storage)
 *                  (+ 4 B per row of the row-class list, --halo-overlap on)
 *                  + 24 B x per local node (internal + halo) + 24 B y write per row
 *   SGS pair     = forward:  L blocks + D^-1 (9 P) + 24 B r read + 24 B y write
 *                  backward: U blocks + D^-1 (9 P) + 24 B z read + 24 B z write
 *                  + pointers: 16 B/row (sequential sweeps: l_ptr, u_ptr on copies),
 *                    32 B/row (multicolor sweeps in place: l_ptr, diag_pos, row_ptr)
 *                  = (9 P + 4)(nL + nU) + 18 P + 96 + 16|32 B per row  (272 B/row double colored)
 *                  (L, U: the internal off-diagonal blocks; the sweep vectors stay double)
 *                  + half: 32 B/row (each sweep reads row i's two power-of-2 scales, 16 B)
 *   ASDD(N), --asdd-residual full:
 *                = N SGS pairs + (N-1) (residual t = r - A z in one pass with the
 *                  preconditioner's blocks: an SpMV + 24 B/row r read; + 72 B/row z += w;
 *                  + half: 8 B/row, the row scale)
 *   ASDD(N), fused (default; precond_asdd.c): no residual pass. N SGS pairs + 24 B/row u written
 *                  by every backward sweep but the last + (N-1) (the fused forward sweep's extra:
 *                  24 B/row u read and written instead of r read, 4 B/row the row's last column
 *                  index (are there external blocks?), the external blocks (9 P + 4 each) and
 *                  24 B per halo node of the correction; + 72 B/row z += w)
 *   jacobi       = D^-1 (72 B) + 48 B/row;  none = 48 B/row (z = r)
 *   dot          = 48 B per row (two vectors of 3 doubles);  AXPY = 72 B per row
 *   vector pass  = 24 B per row (one vector of 3 doubles read or written once)
 *   STREAM triad = 24 B per element (a = b + s c: read b, c, write a; 32 B with write-allocate)
 * One iteration = SpMVs x SpMV + preconditioner applications x its bytes + the variant's vector
 * passes (reads + writes of whole vectors outside SpMV and preconditioner) x 24 B/row.
 */
#include "cc_precond_impl.h"

#include <omp.h>
#include <stdlib.h>

static double spmv_bytes(const cc_bcrs *a, double block_bytes)
{
  const double n = a->n_rows, nc = a->n_cols;
  return block_bytes * (double)cc_bcrs_blocks(a) + (a->l_ptr ? 16.0 : 8.0) * n +
         (a->row_class ? 4.0 : 0.0) * n + 24.0 * nc + 24.0 * n;
}

cc_err cc_traffic_model(const cc_bcrs *a, const cc_precond_params *pc, cc_traffic *t)
{
  CC_CHECK(a && pc && pc->name && t, CC_ERR_ARG, "traffic model: missing matrix or parameters");
  /* the bytes of a stored value and of a row's scales in the preconditioner's precision (the
   * vectors of the sweeps stay double) */
  const cc_sgs_ops *ops = cc_sgs_ops_of(pc->precision);
  CC_CHECK(ops != NULL, CC_ERR_ARG, "traffic model: precision %d unknown", (int)pc->precision);
  memset(t, 0, sizeof *t);
  const int n = a->n_rows;
  /* internal off-diagonal blocks: the split-off lower part, then those of row_ptr */
  int64_t n_lu = a->l_ptr ? a->l_ptr[n] : 0, n_ext = 0;
  for (int i = 0; i < n; i++)
    for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
      n_lu += a->col_idx[k] != i && a->col_idx[k] < n;
      n_ext += a->col_idx[k] >= n;
    }
  const double p    = ops->value_bytes;
  const double sc   = ops->row_scale_bytes; /* per sweep (half: 16 B) */
  const int colored = pc->ordering && pc->ordering->n_colors > 0;
  t->rows           = n;
  t->blocks         = cc_bcrs_blocks(a);
  t->blocks_lu      = n_lu;
  t->stream         = 24.0 * n;                    /* 3 doubles per row */
  t->spmv           = spmv_bytes(a, 76.0);         /* SpMV is always double */
  t->sgs            = (9 * p + 4) * (double)n_lu + /* L and U blocks */
           (18 * p + 96.0 + (colored ? 32.0 : 16.0) + 2 * sc) *
               n; /* D^-1 twice, r y z, pointers, the row scales of both sweeps */
  const int iters = pc->asdd_iters > 0 ? pc->asdd_iters : 1;
  if (pc->asdd_full_residual || iters == 1)
    t->asdd = iters * t->sgs + (iters - 1) * (spmv_bytes(a, 9 * p + 4) + (96.0 + 0.5 * sc) * n);
  else
    t->asdd = iters * t->sgs + 24.0 * n * (iters - 1) +
              (iters - 1) * ((24.0 + 4.0 + 72.0) * n + (9 * p + 4) * (double)n_ext +
                             24.0 * (double)(a->n_cols - n));
  t->dot  = 2 * t->stream;
  t->axpy = 3 * t->stream;
  if (!strcmp(pc->name, "asdd"))
    t->precond = t->asdd;
  else if (!strcmp(pc->name, "sgs"))
    t->precond = t->sgs;
  else if (!strcmp(pc->name, "jacobi"))
    t->precond = 9 * p * n + 2 * t->stream; /* z_i = D_i^-1 r_i */
  else if (!strcmp(pc->name, "none"))
    t->precond = 2 * t->stream; /* z = r */
  else
    CC_FAIL(CC_ERR_ARG, "traffic model: preconditioner '%s' has no model", pc->name);
  return CC_OK;
}

/* Vector passes per iteration of a variant: the reads + writes of whole vectors (doubles per DOF,
 * one pass = 24 B/row) its AXPY-type passes and local dots make, SpMV and preconditioner
 * excluded, as the Krylov registry counts them (cc_krylov.vector_fused / vector_unfused, the same
 * numbers the solver measures). A variant without a count falls back to Table 1 unfused: 2 reads
 * per dot, 2 reads + 1 write per AXPY. */
double cc_traffic_vector_passes(const cc_krylov *variant, int unfused, int depth)
{
  cc_krylov_traffic v = cc_krylov_vector_traffic_at(variant, unfused, depth);
  if (v.reads + v.writes > 0) return (double)(v.reads + v.writes);
  return 2.0 * variant->table1.dot + 3.0 * variant->table1.axpy;
}

double cc_traffic_iteration(const cc_traffic *t, const cc_krylov *variant, int unfused, int depth,
                            double spmv_per_it, double precond_per_it)
{
  /* SpMV x A + M^-1 applications x M + the variant's vector passes x 24 B/row */
  return spmv_per_it * t->spmv + precond_per_it * t->precond +
         cc_traffic_vector_passes(variant, unfused, depth) * t->stream;
}

/* ------------------------------------------------------------------------------------------------
 * STREAM triad with the caller's ranks and threads
 * ---------------------------------------------------------------------------------------------- */
cc_err cc_triad_create(MPI_Comm comm, double node_bytes, int node_ranks, cc_triad *tr)
{
  memset(tr, 0, sizeof *tr);
  CC_CHECK(node_bytes > 0 && node_ranks > 0, CC_ERR_ARG, "triad: %g bytes over %d ranks",
           node_bytes, node_ranks);
  int64_t n = (int64_t)(node_bytes / node_ranks / 24.0); /* three arrays of doubles */
  tr->comm  = comm;
  tr->n     = n < 1024 ? 1024 : n;
  CC_CALL(cc_malloc((size_t)tr->n, sizeof(double), &tr->a));
  CC_CALL(cc_malloc((size_t)tr->n, sizeof(double), &tr->b));
  CC_CALL(cc_malloc((size_t)tr->n, sizeof(double), &tr->c));
  double *restrict a = tr->a, *restrict b = tr->b, *restrict c = tr->c;
  /* first touch by the static schedule of the timed loop: each thread's pages near it */
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < tr->n; i++) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
  double local = 24.0 * (double)tr->n;
  CC_MPI(MPI_Allreduce(&local, &tr->bytes, 1, MPI_DOUBLE, MPI_SUM, comm));
  double warm;
  CC_CALL(cc_triad_run(tr, &warm)); /* page tables and TLBs warm before the first timed run */
  return CC_OK;
}

/* a[0, n) <- b + 3 c after a barrier; *seconds = the slowest rank's time */
static cc_err triad_time(MPI_Comm comm, double *restrict a, const double *restrict b,
                         const double *restrict c, int64_t n, double *seconds)
{
  const double s = 3.0;
  CC_MPI(MPI_Barrier(comm));
  double t0 = MPI_Wtime();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) a[i] = b[i] + s * c[i]; /* a <- b + s c */
  double dt = MPI_Wtime() - t0;
  if (n > 0) {
    volatile double sink = a[n / 2]; /* keep the stores */
    (void)sink;
  }
  CC_MPI(MPI_Allreduce(&dt, seconds, 1, MPI_DOUBLE, MPI_MAX, comm)); /* the slowest rank */
  return CC_OK;
}

cc_err cc_triad_run(cc_triad *tr, double *seconds)
{
  return triad_time(tr->comm, tr->a, tr->b, tr->c, tr->n, seconds);
}

static int cmp_double(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

double cc_median(double *v, int n)
{
  if (n <= 0) return 0.0;
  qsort(v, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

cc_err cc_triad_run_over(cc_triad *tr, const double *b, const double *c, int64_t n, double *seconds)
{
  CC_CHECK(n >= 0 && n <= tr->n && (n == 0 || (b && c)), CC_ERR_ARG,
           "triad over other pages: %lld elements (at most %lld)", (long long)n, (long long)tr->n);
  return triad_time(tr->comm, tr->a, b, c, n, seconds);
}

double cc_median_fraction_of_triad(double bytes, const double *t, double triad_bytes,
                                   const double *t_triad, int n, double *scratch)
{
  for (int r = 0; r < n; r++)
    scratch[r] = t[r] > 0 && t_triad[r] > 0 ? (bytes / t[r]) / (triad_bytes / t_triad[r]) : 0.0;
  return cc_median(scratch, n);
}

cc_err cc_triad_bandwidth_over(cc_triad *tr, const double *b, const double *c, int64_t n,
                               int repeat, double *bytes_per_s)
{
  double t[CC_TRIAD_MAX_REPEAT], local = 24.0 * (double)n, bytes;
  CC_CHECK(repeat >= 1 && repeat <= CC_TRIAD_MAX_REPEAT, CC_ERR_ARG,
           "triad: repeat %d not in [1, %d]", repeat, CC_TRIAD_MAX_REPEAT);
  CC_MPI(MPI_Allreduce(&local, &bytes, 1, MPI_DOUBLE, MPI_SUM, tr->comm));
  for (int r = 0; r < repeat; r++) CC_CALL(cc_triad_run_over(tr, b, c, n, &t[r]));
  double med   = cc_median(t, repeat);
  *bytes_per_s = med > 0 ? bytes / med : 0.0;
  return CC_OK;
}

cc_err cc_triad_bandwidth(cc_triad *tr, int repeat, double *bytes_per_s)
{
  return cc_triad_bandwidth_over(tr, tr->b, tr->c, tr->n, repeat, bytes_per_s);
}

void cc_triad_free(cc_triad *tr)
{
  cc_free(&tr->a);
  cc_free(&tr->b);
  cc_free(&tr->c);
}
