/* kernels.c: the distributed kernels of the CG variants: GeoFEM-style halo exchange
 * (Isend/Irecv/Waitall over the communication table, in two halves so that the rows needing no
 * halo value hide it), 3x3 block CRS SpMV (OpenMP + a plain reference), local dot products and
 * AXPY-type vector updates (Table 1 of the study counts them).
 */
#include "cc_solvers.h"

#include "cc_block3_simd.h"

#include <omp.h>

#define HALO_TAG 7301
/* the main thread calls the exec's poll hook (and tests pending halo messages) every POLL_ROWS
 * rows of SpMV */
#define POLL_ROWS 4096

/* ------------------------------------------------------------------------------------------------
 * Halo exchange
 * ---------------------------------------------------------------------------------------------- */
cc_err cc_halo_begin(const cc_comm_table *comm, double *x)
{
  const int nb = comm->n_neighbors;
  if (nb == 0) return CC_OK;
  /* the table's own buffers, made for its current sizes (cc_comm_table_buffers) */
  const int n_import = comm->import_index[nb], n_export = comm->export_index[nb];
  CC_CHECK(comm->halo.send && comm->halo.n_neighbors == nb && comm->halo.n_import == n_import &&
               comm->halo.n_export == n_export,
           CC_ERR_ARG,
           "communication table (%d neighbours, %d import / %d export items) has no halo buffers "
           "of its size (cc_comm_table_buffers not called after it was built or changed)",
           nb, n_import, n_export);
  const cc_halo_buffers *h    = &comm->halo;
  const int *restrict imp_idx = comm->import_index, *restrict imp = comm->import_item;
  const int *restrict exp_idx = comm->export_index, *restrict exp = comm->export_item;

  /* post receives first so the eager messages find them; where a neighbour's imports are one
   * contiguous range of halo ids (GeoFEM numbers the halo by neighbour) they land in x directly */
  for (int i = 0; i < nb; i++) {
    int count = imp_idx[i + 1] - imp_idx[i], first = count > 0 ? imp[imp_idx[i]] : 0;
    h->direct[i] = 1;
    for (int k = 1; k < count && h->direct[i]; k++) h->direct[i] = imp[imp_idx[i] + k] == first + k;
    double *dst = h->direct[i] ? x + 3 * (int64_t)first : h->recv + 3 * (int64_t)imp_idx[i];
    CC_MPI(MPI_Irecv(dst, 3 * count, MPI_DOUBLE, comm->neighbor_rank[i], HALO_TAG, comm->comm,
                     &h->req[i]));
  }
  /* send[3k..3k+2] <- x[export node k] */
  double *restrict send = h->send;
  const int n_ex        = h->n_export;
#pragma omp parallel for schedule(static) if (n_ex > CC_OMP_CHUNK / 3)
  for (int k = 0; k < n_ex; k++) {
    const double *src = x + 3 * (int64_t)exp[k];
    send[3 * k]       = src[0];
    send[3 * k + 1]   = src[1];
    send[3 * k + 2]   = src[2];
  }
  for (int i = 0; i < nb; i++)
    CC_MPI(MPI_Isend(send + 3 * (int64_t)exp_idx[i], 3 * (exp_idx[i + 1] - exp_idx[i]), MPI_DOUBLE,
                     comm->neighbor_rank[i], HALO_TAG, comm->comm, &h->req[nb + i]));
  return CC_OK;
}

cc_err cc_halo_end(const cc_comm_table *comm, double *x, cc_timers *t, cc_timer_id wait_region)
{
  const int nb = comm->n_neighbors;
  if (nb == 0) return CC_OK;
  const cc_halo_buffers *h = &comm->halo;
  cc_timer_token t_wait    = cc_timer_start(t, wait_region);
  int rc                   = MPI_Waitall(2 * nb, h->req, h->status);
  cc_timer_stop(t, t_wait);
  CC_MPI(rc);
  /* x[import node k] <- recv[3k..3k+2] */
  const int *restrict imp_idx = comm->import_index, *restrict imp = comm->import_item;
  const double *restrict recv = h->recv;
  for (int i = 0; i < nb; i++)
    if (!h->direct[i])
      for (int k = imp_idx[i]; k < imp_idx[i + 1]; k++) {
        double *dst = x + 3 * (int64_t)imp[k];
        dst[0]      = recv[3 * k];
        dst[1]      = recv[3 * k + 1];
        dst[2]      = recv[3 * k + 2];
      }
  return CC_OK;
}

cc_err cc_halo_exchange(const cc_comm_table *comm, double *x)
{
  CC_CALL(cc_halo_begin(comm, x));
  CC_CALL(cc_halo_end(comm, x, NULL, CC_T_HALO_WAIT));
  return CC_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Row classes: interior rows (all columns internal) can run while the halo messages fly.
 * ---------------------------------------------------------------------------------------------- */
/* 1 when row i reads no halo column (the split-off lower part holds internal columns only) */
static int row_is_interior(const cc_bcrs *a, int i)
{
  for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
    if (a->col_idx[k] >= a->n_rows) return 0;
  return 1;
}

cc_err cc_bcrs_classify_rows(cc_bcrs *a, const int32_t *order)
{
  cc_bcrs_unclassify_rows(a);
  const int n    = a->n_rows;
  int n_interior = 0;
  for (int i = 0; i < n; i++) n_interior += row_is_interior(a, i);
  CC_CALL(cc_malloc((size_t)n + 1, sizeof(int32_t), &a->row_class));
  int next_interior = 0, next_boundary = n_interior;
  for (int p = 0; p < n; p++) { /* each class in order's order (ascending without one) */
    const int i        = order ? order[p] : p;
    const int slot     = row_is_interior(a, i) ? next_interior++ : next_boundary++;
    a->row_class[slot] = i;
  }
  a->n_interior = n_interior;
  return CC_OK;
}

void cc_bcrs_unclassify_rows(cc_bcrs *a)
{
  cc_free(&a->row_class);
  a->n_interior = 0;
}

/* ------------------------------------------------------------------------------------------------
 * SpMV
 * ---------------------------------------------------------------------------------------------- */
/* y_i = sum_k A_ik x_col(k) for row i: streams 72 bytes of values + 4 bytes of column
 * index per block; x is gathered (3 contiguous doubles per column, mostly cache resident).
 * The 9 products of a block go into independent accumulators laid out as the block's row-major
 * values, [a00 a01 a02 a10] [a11 a12 a20 a21] [a22], multiplied by [x0 x1 x2 x0] [x1 x2 x0 x1]
 * [x2]: two 4-wide multiply-adds and one scalar per block, summed into y once per row
 * (measured 1.4x faster than the 3 dot products per block in cache, about 1.1x from memory on AMD
 * EPYC). */
#define SPMV_INLINE static inline __attribute__((always_inline))
#if defined(CC_BLOCK3_SIMD)
/* cc_block3_simd.h: 3 FMAs per block, so more blocks' gathers of x are in flight at once (the
 * level order's x lies in several places, not next to the row as in natural order). */
#define SPMV_BLOCKS(K0, K1, COL, VAL)                                                              \
  for (int64_t k = (K0), k_end = (K1); k < k_end; k++) {                                           \
    const double *b = (VAL) + 9 * k;                                                               \
    CC_BLOCK3_PREFETCH(b);                                                                         \
    const __m256d xj = CC_BLOCK3_LOAD3(x + 3 * (int64_t)(COL)[k]);                                 \
    CC_BLOCK3_FMA(b, xj, a0, a1, a2);                                                              \
  }

/* out[0..2] <- (A x)_i: out[r] = (a_r[0] + a_r[1]) + (a_r[2] + a_r[3]) */
SPMV_INLINE void spmv_row(const cc_bcrs *m, const double *restrict x, int i, double out[3])
{
  const int64_t *restrict rp = m->row_ptr, *restrict lp = m->l_ptr;
  const int32_t *restrict ci = m->col_idx, *restrict lc = m->l_col;
  const double *restrict va = m->val, *restrict lv = m->l_val;
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), a2 = _mm256_setzero_pd();
  if (lp) SPMV_BLOCKS(lp[i], lp[i + 1], lc, lv) /* split-off lower part */
  SPMV_BLOCKS(rp[i], rp[i + 1], ci, va)
  cc_block3_sum(a0, a1, a2, out);
}
#elif defined(__GNUC__)
typedef double spmv_v4 __attribute__((vector_size(32)));
/* accumulate blocks [K0, K1) of (COL, VAL) into the row's accumulators a, c, e (a macro, so the
 * accumulators stay in registers for both parts of a split row) */
#define SPMV_BLOCKS(K0, K1, COL, VAL)                                                              \
  for (int64_t k = (K0), k_end = (K1); k < k_end; k++) {                                           \
    const double *b = (VAL) + 9 * k;                                                               \
    CC_BLOCK3_PREFETCH(b);                                                                         \
    const double *xj = x + 3 * (int64_t)(COL)[k];                                                  \
    const double x0 = xj[0], x1 = xj[1], x2 = xj[2];                                               \
    spmv_v4 b0, b1;                                                                                \
    memcpy(&b0, b, sizeof b0); /* unaligned 4-wide loads */                                        \
    memcpy(&b1, b + 4, sizeof b1);                                                                 \
    const spmv_v4 xa = {x0, x1, x2, x0}, xb = {x1, x2, x0, x1};                                    \
    a += b0 * xa;                                                                                  \
    c += b1 * xb;                                                                                  \
    e += b[8] * x2;                                                                                \
  }

/* out[0..2] <- (A x)_i */
SPMV_INLINE void spmv_row(const cc_bcrs *m, const double *restrict x, int i, double out[3])
{
  const int64_t *restrict rp = m->row_ptr, *restrict lp = m->l_ptr;
  const int32_t *restrict ci = m->col_idx, *restrict lc = m->l_col;
  const double *restrict va = m->val, *restrict lv = m->l_val;
  spmv_v4 a = {0.0, 0.0, 0.0, 0.0}, c = {0.0, 0.0, 0.0, 0.0};
  double e = 0.0;
  if (lp) SPMV_BLOCKS(lp[i], lp[i + 1], lc, lv) /* split-off lower part */
  SPMV_BLOCKS(rp[i], rp[i + 1], ci, va)
  out[0] = a[0] + a[1] + a[2]; /* row 0 of the blocks */
  out[1] = a[3] + c[0] + c[1]; /* row 1 */
  out[2] = c[2] + c[3] + e;    /* row 2 */
}
#else
SPMV_INLINE void spmv_blocks(int64_t k0, int64_t k1, const int32_t *restrict col_idx,
                             const double *restrict val, const double *restrict x, double *y3)
{
  for (int64_t k = k0; k < k1; k++) {
    const double *restrict b  = val + 9 * k;
    const double *restrict xj = x + 3 * (int64_t)col_idx[k];
    const double x0 = xj[0], x1 = xj[1], x2 = xj[2];
    y3[0] += b[0] * x0 + b[1] * x1 + b[2] * x2;
    y3[1] += b[3] * x0 + b[4] * x1 + b[5] * x2;
    y3[2] += b[6] * x0 + b[7] * x1 + b[8] * x2;
  }
}

SPMV_INLINE void spmv_row(const cc_bcrs *m, const double *restrict x, int i, double out[3])
{
  out[0] = out[1] = out[2] = 0.0;
  if (m->l_ptr) spmv_blocks(m->l_ptr[i], m->l_ptr[i + 1], m->l_col, m->l_val, x, out);
  spmv_blocks(m->row_ptr[i], m->row_ptr[i + 1], m->col_idx, m->val, x, out);
}
#endif

/* Rows rows[p] for p in [p0, p1) (rows NULL: rows p0..p1-1) of y = A x, or of the residual
 * y = b - A x when b is not NULL. Every caller computes a row with this same code, so the split
 * and the plain SpMV give the same bits. (Inlined with constant rows / b where they are.) */
SPMV_INLINE void spmv_rows(const cc_bcrs *m, const int32_t *restrict rows, const double *restrict x,
                           const double *restrict b, double *restrict y, int p0, int p1)
{
  for (int p = p0; p < p1; p++) {
    const int i      = rows ? rows[p] : p;
    const int64_t i3 = 3 * (int64_t)i;
    double o[3];
    spmv_row(m, x, i, o);
    if (b) {
      y[i3] = b[i3] - o[0], y[i3 + 1] = b[i3 + 1] - o[1], y[i3 + 2] = b[i3 + 2] - o[2]; /* b - Ax */
    } else {
      y[i3] = o[0], y[i3 + 1] = o[1], y[i3 + 2] = o[2];
    }
  }
}

/* The n rows of one class (rows NULL: rows 0..n-1) over the threads, each thread one contiguous
 * range as schedule(static) (and the assembly's first touch) give it, so each thread streams the
 * matrix rows it owns in memory. The main thread calls ex's poll hook every POLL_ROWS rows and,
 * while halo is not NULL and its messages pending, tests them (progress of the halo behind the
 * interior rows). Returns the first MPI error code of those tests (MPI_SUCCESS if none). */
SPMV_INLINE int spmv_class(const cc_exec *ex, const cc_bcrs *a, const int32_t *rows, int n,
                           const double *x, const double *b, double *y, const cc_comm_table *halo)
{
  int rc = MPI_SUCCESS;
#pragma omp parallel if (n >= 512)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int q = n / nt, rem = n % nt;
    const int begin = t * q + (t < rem ? t : rem), end = begin + q + (t < rem);
    if (t == 0) {
      /* the main thread drives MPI between row blocks: a posted reduction (progress = poll) and
       * the halo messages, which move on only inside MPI calls */
      int done = halo == NULL || halo->n_neighbors == 0;
      for (int p = begin; p < end; p += POLL_ROWS) {
        spmv_rows(a, rows, x, b, y, p, p + POLL_ROWS < end ? p + POLL_ROWS : end);
        if (!done && rc == MPI_SUCCESS)
          rc = MPI_Testall(2 * halo->n_neighbors, halo->halo.req, &done, halo->halo.status);
        cc_exec_poll(ex);
      }
    } else {
      spmv_rows(a, rows, x, b, y, begin, end);
    }
  }
  return rc;
}

void cc_spmv_local(const cc_exec *ex, const cc_bcrs *a, const double *x, double *y)
{
  (void)spmv_class(ex, a, NULL, a->n_rows, x, NULL, y, NULL); /* no halo: no MPI error */
}

void cc_spmv_ref(const cc_bcrs *a, const double *x, double *y)
{
  for (int i = 0; i < a->n_rows; i++)
    for (int c = 0; c < 3; c++) {
      double sum = 0.0;
      if (a->l_ptr) /* split storage: the lower part first */
        for (int64_t k = a->l_ptr[i]; k < a->l_ptr[i + 1]; k++)
          for (int d = 0; d < 3; d++)
            sum += a->l_val[9 * k + 3 * c + d] * x[3 * (int64_t)a->l_col[k] + d];
      for (int64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
        for (int d = 0; d < 3; d++)
          sum += a->val[9 * k + 3 * c + d] * x[3 * (int64_t)a->col_idx[k] + d];
      y[3 * (int64_t)i + c] = sum;
    }
}

cc_err cc_spmv_halo(const cc_exec *ex, const cc_bcrs *a, const cc_comm_table *comm, double *x,
                    const double *b, double *y, cc_timer_id halo_region, cc_timer_id wait_region)
{
  cc_timers *t = cc_exec_timers(ex);
  /* the exchange's own time is its two halves: counted once, the rows between them excluded */
  cc_timer_token tok = cc_timer_start(t, halo_region);
  cc_err err         = cc_halo_begin(comm, x);
  cc_timer_stop(t, tok);
  CC_CALL(err);
  /* with row classes (on a rank without neighbours every row is interior) */
  const int overlap = a->row_class != NULL;
  int rc            = MPI_SUCCESS;
  if (overlap) /* interior rows while the messages fly: y_i <- (b_i -) (A x)_i */
    rc = spmv_class(ex, a, a->row_class, a->n_interior, x, b, y, comm);
  tok = cc_timer_start_n(t, halo_region, 0);
  err = rc == MPI_SUCCESS ? cc_halo_end(comm, x, t, wait_region) : CC_OK;
  cc_timer_stop(t, tok);
  CC_MPI(rc); /* a failed test of the halo messages (they are still pending: abort-level) */
  CC_CALL(err);
  if (overlap) /* then the rows touching the halo (no MPI test: no error) */
    (void)spmv_class(ex, a, a->row_class + a->n_interior, a->n_rows - a->n_interior, x, b, y, NULL);
  else /* no row classes: every row in storage order */
    (void)spmv_class(ex, a, NULL, a->n_rows, x, b, y, NULL);
  return CC_OK;
}

cc_err cc_spmv(const cc_exec *ex, const cc_bcrs *a, const cc_comm_table *comm, double *x, double *y)
{
  cc_timers *t          = cc_exec_timers(ex);
  cc_timer_token t_spmv = cc_timer_start(t, CC_T_SPMV);
  cc_err err            = cc_spmv_halo(ex, a, comm, x, NULL, y, CC_T_HALO, CC_T_HALO_WAIT);
  cc_timer_stop(t, t_spmv);
  CC_CALL(err); /* y <- A x */
  return CC_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Dot products
 * ---------------------------------------------------------------------------------------------- */
double cc_dot_local(const cc_exec *ex, int64_t n, const double *x, const double *y)
{
  cc_count_op(cc_exec_timers(ex), CC_T_DOT, 1);
  double sum = 0.0;
  /* sum <- (x, y) */
#pragma omp parallel for simd schedule(static) reduction(+ : sum) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) sum += x[i] * y[i];
  return sum;
}

void cc_dot_local_multi(const cc_exec *ex, int64_t n, int k, const double *const x[],
                        const double *const y[], double out[])
{
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  /* unused pairs point at the first one; their sums are discarded */
  const double *restrict x0 = x[0], *restrict y0 = y[0];
  const double *restrict x1 = k > 1 ? x[1] : x0, *restrict y1 = k > 1 ? y[1] : y0;
  const double *restrict x2 = k > 2 ? x[2] : x0, *restrict y2 = k > 2 ? y[2] : y0;
  const double *restrict x3 = k > 3 ? x[3] : x0, *restrict y3 = k > 3 ? y[3] : y0;
  if (k <= 1) {
    out[0] = cc_dot_local(ex, n, x0, y0);
    return;
  }
  cc_count_op(cc_exec_timers(ex), CC_T_DOT, k);
  if (k == 2) {
#pragma omp parallel for simd schedule(static) reduction(+ : s0, s1) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      s0 += x0[i] * y0[i];
      s1 += x1[i] * y1[i];
    }
  } else if (k == 3) {
#pragma omp parallel for simd schedule(static) reduction(+ : s0, s1, s2) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      s0 += x0[i] * y0[i];
      s1 += x1[i] * y1[i];
      s2 += x2[i] * y2[i];
    }
  } else {
#pragma omp parallel for simd schedule(static) reduction(+ : s0, s1, s2, s3) if (n > CC_OMP_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      s0 += x0[i] * y0[i];
      s1 += x1[i] * y1[i];
      s2 += x2[i] * y2[i];
      s3 += x3[i] * y3[i];
    }
  }
  double s[4] = {s0, s1, s2, s3};
  for (int j = 0; j < k && j < 4; j++) out[j] = s[j];
}

/* ------------------------------------------------------------------------------------------------
 * Vector updates
 * ---------------------------------------------------------------------------------------------- */
void cc_vec_axpy(const cc_exec *ex, int64_t n, double alpha, const double *restrict x,
                 double *restrict y)
{
  cc_timer_token tok = cc_timer_start(cc_exec_timers(ex), CC_T_AXPY);
  /* y <- y + alpha x */
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) y[i] += alpha * x[i];
  cc_timer_stop(cc_exec_timers(ex), tok);
}

void cc_vec_xpby(const cc_exec *ex, int64_t n, const double *restrict x, double beta,
                 double *restrict y)
{
  cc_timer_token tok = cc_timer_start(cc_exec_timers(ex), CC_T_AXPY);
  /* y <- x + beta y */
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) y[i] = x[i] + beta * y[i];
  cc_timer_stop(cc_exec_timers(ex), tok);
}

void cc_vec_copy(const cc_exec *ex, int64_t n, const double *restrict x, double *restrict y)
{
  cc_timer_token tok = cc_timer_start(cc_exec_timers(ex), CC_T_AXPY);
  /* y <- x */
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) y[i] = x[i];
  cc_timer_stop(cc_exec_timers(ex), tok);
}

void cc_vec_sub(const cc_exec *ex, int64_t n, const double *restrict x, const double *restrict y,
                double *restrict z)
{
  cc_timer_token tok = cc_timer_start(cc_exec_timers(ex), CC_T_AXPY);
  /* z <- x - y */
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) z[i] = x[i] - y[i];
  cc_timer_stop(cc_exec_timers(ex), tok);
}

void cc_vec_zero(int64_t n, double *x)
{
#pragma omp parallel for simd schedule(static) if (n > CC_OMP_CHUNK)
  for (int64_t i = 0; i < n; i++) x[i] = 0.0;
}
