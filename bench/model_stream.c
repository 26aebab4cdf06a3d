/* model_stream.c: the streams of model_stream.h, pass by pass as solvers/traffic.c counts them.
 * Every thread takes a contiguous slice of each array (rows for the per-row segments), as the
 * kernels' static schedules do; each function returns the bytes of its slice, summed over the
 * threads into the stream's total. */
#include "model_stream.h"

#include <omp.h>
#include <string.h>

static volatile uint64_t ms_sink;     /* keeps the sums of the reads */
static volatile double ms_zero = 0.0; /* the value written (not a byte pattern: no memset) */

/* [lo, hi) of `count` items for thread t of nt */
static inline void slice(int64_t count, int t, int nt, int64_t *lo, int64_t *hi)
{
  *lo = count * t / nt, *hi = count * (t + 1) / nt;
}

/* the slice of `bytes` bytes at p read front to back: 8-byte words, the odd tail on the last
 * thread */
static int64_t rd(const void *p, int64_t bytes, int t, int nt, uint64_t *sum)
{
  if (!p || bytes <= 0) return 0;
  const unsigned char *c = p;
  int64_t lo, hi, words = bytes / 8;
  slice(words, t, nt, &lo, &hi);
  uint64_t s = 0;
  for (int64_t k = lo; k < hi; k++) {
    uint64_t w;
    memcpy(&w, c + 8 * k, 8);
    s += w;
  }
  int64_t got = 8 * (hi - lo);
  if (t == nt - 1)
    for (int64_t b = 8 * words; b < bytes; b++) s += c[b], got++;
  *sum += s;
  return got;
}

/* the slice of n doubles at v written (wr) or read and written in one pass (rw) */
static int64_t wr(double *v, int64_t n, int t, int nt)
{
  int64_t lo, hi;
  slice(n, t, nt, &lo, &hi);
  const double z = ms_zero;
  for (int64_t k = lo; k < hi; k++) v[k] = z;
  return 8 * (hi - lo);
}

static int64_t rw(double *v, int64_t n, int t, int nt)
{
  int64_t lo, hi;
  slice(n, t, nt, &lo, &hi);
  const double z = ms_zero;
  for (int64_t k = lo; k < hi; k++) v[k] += z;
  return 16 * (hi - lo);
}

/* The preconditioner's value arrays in its precision: blocks of a's row_ptr part, of the split
 * lower part, D^-1; P bytes per value */
typedef struct {
  const void *val, *l_val, *dinv;
  int p;
} ms_values;

static ms_values values_of(const cc_sgs *s)
{
  if (s->precision == CC_PRECISION_HALF) return (ms_values){s->val_h, s->l_val_h, s->dinv_h, 2};
  if (s->precision == CC_PRECISION_SINGLE) return (ms_values){s->val_f, s->l_val_f, s->dinv_f, 4};
  return (ms_values){s->a->val, s->a->l_val, s->dinv, 8};
}

/* Per row of the slice, the blocks of one segment of the row_ptr part: lower = [row_ptr[i],
 * diag_pos[i]) (no split storage), else upper = (diag_pos[i], first external column): their
 * values (9 P each) and column indices (4 B each) */
static int64_t rd_segments(const cc_bcrs *a, const unsigned char *val, int p, int lower, int t,
                           int nt, uint64_t *sum)
{
  int64_t lo, hi, got = 0;
  slice(a->n_rows, t, nt, &lo, &hi);
  const int32_t n = a->n_rows;
  uint64_t s      = 0;
  for (int64_t i = lo; i < hi; i++) {
    int64_t k0 = lower ? a->row_ptr[i] : a->diag_pos[i] + 1, k1 = k0;
    if (lower)
      k1 = a->diag_pos[i];
    else
      while (k1 < a->row_ptr[i + 1] && a->col_idx[k1] < n) s += (uint64_t)a->col_idx[k1++];
    if (lower)
      for (int64_t k = k0; k < k1; k++) s += (uint64_t)a->col_idx[k];
    /* the segment's values as whole 8-byte words: its first and last word may hold a neighbour
     * block's bytes, which lie in the same cache lines (the count stays the segment's) */
    const int64_t b0 = 9 * (int64_t)p * k0, b1 = 9 * (int64_t)p * k1;
    for (int64_t e = b0 / 8; b1 > b0 && e < (b1 + 7) / 8; e++) {
      uint64_t w;
      memcpy(&w, val + 8 * e, 8);
      s += w;
    }
    got += b1 - b0 + 4 * (k1 - k0);
  }
  *sum += s;
  return got;
}

/* ASDD's fused forward sweep beyond a sweep's forward (solvers/traffic.c): per row of the slice
 * the last column index (4 B: external blocks?), and the external blocks' values and columns */
static int64_t rd_external(const cc_bcrs *a, const unsigned char *val, int p, int t, int nt,
                           uint64_t *sum)
{
  int64_t lo, hi, got = 0;
  slice(a->n_rows, t, nt, &lo, &hi);
  const int32_t n = a->n_rows;
  uint64_t s      = 0;
  for (int64_t i = lo; i < hi; i++) {
    int64_t k0 = a->row_ptr[i + 1];
    s += (uint64_t)a->col_idx[k0 - 1];
    got += 4;
    while (k0 > a->diag_pos[i] + 1 && a->col_idx[k0 - 1] >= n) k0--;
    for (int64_t k = k0; k < a->row_ptr[i + 1]; k++) s += (uint64_t)a->col_idx[k];
    const int64_t b0 = 9 * (int64_t)p * k0, b1 = 9 * (int64_t)p * a->row_ptr[i + 1];
    for (int64_t e = b0 / 8; b1 > b0 && e < (b1 + 7) / 8; e++) {
      uint64_t w;
      memcpy(&w, val + 8 * e, 8);
      s += w;
    }
    got += b1 - b0 + 4 * (a->row_ptr[i + 1] - k0);
  }
  *sum += s;
  return got;
}

/* SpMV's pass: blocks (9 P + 4 B), row_ptr (+ l_ptr) 8 B/row, row classes 4 B/row, x over every
 * local node, y written. With vals NULL: a's double blocks (SpMV), else the preconditioner's
 * (ASDD's residual t = r - A z: x = z, y = t). */
static int64_t spmv_pass(const cc_bcrs *a, const ms_values *vals, const double *x, double *y, int t,
                         int nt, uint64_t *sum)
{
  const int64_t n = a->n_rows, nu = a->row_ptr[n], nl = a->l_ptr ? a->l_ptr[n] : 0;
  const int p     = vals ? vals->p : 8;
  int64_t got     = 0;
  got += rd(vals ? vals->val : a->val, 9 * p * nu, t, nt, sum);
  got += rd(a->col_idx, 4 * nu, t, nt, sum);
  got += rd(vals ? vals->l_val : a->l_val, 9 * p * nl, t, nt, sum);
  got += rd(a->l_col, 4 * nl, t, nt, sum);
  got += rd(a->row_ptr, 8 * n, t, nt, sum);
  if (a->l_ptr) got += rd(a->l_ptr, 8 * n, t, nt, sum);
  if (a->row_class) got += rd(a->row_class, 4 * n, t, nt, sum);
  got += rd(x, 24 * (int64_t)a->n_cols, t, nt, sum);
  got += wr(y, 3 * n, t, nt);
  return got;
}

/* One SGS pair as the model counts it (colored sweeps, matrix in place). Forward: L blocks, D^-1,
 * r read, y written (into z), l_ptr and diag_pos; backward: U blocks, D^-1, z read and written,
 * diag_pos and row_ptr; half: both row scales (16 B/row) in each sweep. */
static int64_t sweep_pair(const cc_sgs *s, const double *r, double *z, int t, int nt, uint64_t *sum)
{
  const cc_bcrs *a   = s->a;
  const int64_t n    = a->n_rows;
  const ms_values v  = values_of(s);
  const int half     = s->precision == CC_PRECISION_HALF;
  int64_t got        = 0;
  const int64_t nl   = a->l_ptr ? a->l_ptr[n] : 0;
  /* forward */
  if (a->l_ptr) {
    got += rd(v.l_val, 9 * v.p * nl, t, nt, sum);
    got += rd(a->l_col, 4 * nl, t, nt, sum);
    got += rd(a->l_ptr, 8 * n, t, nt, sum);
  } else {
    got += rd_segments(a, v.val, v.p, 1, t, nt, sum);
    got += rd(a->row_ptr, 8 * n, t, nt, sum);
  }
  got += rd(a->diag_pos, 8 * n, t, nt, sum);
  got += rd(v.dinv, 9 * v.p * n, t, nt, sum);
  if (half) got += rd(s->row_unscale, 16 * n, t, nt, sum);
  got += rd(r, 24 * n, t, nt, sum);
  got += wr(z, 3 * n, t, nt);
  /* backward */
  got += rd_segments(a, v.val, v.p, 0, t, nt, sum);
  got += rd(a->diag_pos, 8 * n, t, nt, sum);
  got += rd(a->row_ptr, 8 * n, t, nt, sum);
  got += rd(v.dinv, 9 * v.p * n, t, nt, sum);
  if (half) got += rd(s->row_unscale, 16 * n, t, nt, sum);
  got += rw(z, 3 * n, t, nt);
  return got;
}

int64_t model_stream_run(int kind, const model_stream *m)
{
  const cc_bcrs *a = m->a;
  const int64_t n  = a->n_rows;
  int64_t bytes    = 0;
  uint64_t total   = 0;
#pragma omp parallel reduction(+ : bytes, total) if (n >= 512)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    uint64_t sum = 0;
    if (kind == MS_SPMV) bytes += spmv_pass(a, NULL, m->x, m->y, t, nt, &sum);
    if (kind == MS_DOT) bytes += rd(m->x, 24 * n, t, nt, &sum) + rd(m->r, 24 * n, t, nt, &sum);
    if (kind == MS_AXPY) bytes += rd(m->x, 24 * n, t, nt, &sum) + rw(m->y, 3 * n, t, nt);
    if (kind == MS_SWEEP && m->asdd_iters == 0) bytes += sweep_pair(m->s, m->r, m->y, t, nt, &sum);
    if (kind == MS_SWEEP && m->asdd_iters > 1 && !m->full_residual) {
      /* ASDD(N), fused: z = B r with u (in t) written by the backward sweep; N - 1 times: the
       * sweep pair with u read in r's place, u written back and w written by the forward sweep,
       * which also reads the last column index and the external blocks of every row and the
       * correction's halo; u written by the backward sweep but the last; z += w */
      const ms_values v = values_of(m->s);
      const int64_t nh  = 24 * ((int64_t)a->n_cols - n);
      bytes += sweep_pair(m->s, m->r, m->y, t, nt, &sum) + wr(m->t, 3 * n, t, nt);
      for (int it = 1; it < m->asdd_iters; it++) {
#pragma omp barrier
        bytes += sweep_pair(m->s, m->t, m->w, t, nt, &sum) + wr(m->t, 3 * n, t, nt);
        bytes += rd_external(a, v.val, v.p, t, nt, &sum);
        if (t == 0) bytes += rd(m->w + 3 * n, nh, 0, 1, &sum);
        if (it + 1 < m->asdd_iters) bytes += wr(m->t, 3 * n, t, nt);
        bytes += rd(m->w, 24 * n, t, nt, &sum) + rw(m->y, 3 * n, t, nt);
      }
    } else if (kind == MS_SWEEP && m->asdd_iters > 0) {
      /* ASDD(N): z = B r; N - 1 times: t = r - A z (one pass with the preconditioner's blocks, r
       * read), w = B t, z += w (72 B/row); half: the residual's row scale, 8 B/row */
      const ms_values v = values_of(m->s);
      bytes += sweep_pair(m->s, m->r, m->y, t, nt, &sum);
      for (int it = 1; it < m->asdd_iters; it++) {
#pragma omp barrier
        bytes += spmv_pass(a, &v, m->y, m->t, t, nt, &sum);
        bytes += rd(m->r, 24 * n, t, nt, &sum);
        if (m->s->precision == CC_PRECISION_HALF) bytes += rd(m->s->row_unscale, 8 * n, t, nt, &sum);
#pragma omp barrier
        bytes += sweep_pair(m->s, m->t, m->w, t, nt, &sum);
        bytes += rd(m->w, 24 * n, t, nt, &sum) + rw(m->y, 3 * n, t, nt);
      }
    }
    total += sum;
  }
  ms_sink += total;
  return bytes;
}
