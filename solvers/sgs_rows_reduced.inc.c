/* sgs_rows_reduced.inc.c: the row kernels, sweeps and ASDD residual of a preconditioner whose
 * blocks are stored in a reduced precision (float, binary16 as uint16_t), included once by
 * precond_sgs_single.c and once by precond_sgs_half.c (a template, not compiled on its own). The
 * including file defines
 *   CC_SGS_PREFIX, CC_SGS_WAYS    as sgs_sweeps.inc.c
 *   NAME(block_row)(k0, k1, col, val, col_end, v, out[3])   out = sum_k B_k v_col(k) over the
 *                                 blocks k in [k0, k1) whose column is below col_end
 *   NAME(block_diag)(d, s[3], q[3])                          q = d s
 *   CC_SGS_VAL, CC_SGS_L_VAL, CC_SGS_DINV   the cc_sgs fields of the stored blocks: a's row
 *                                 storage, the split lower part, D^-1
 *   CC_SGS_UA(s, i), CC_SGS_UD(s, i)   the powers of 2 that unscale the blocks of row i and D_i^-1
 * and gets, besides sgs_sweeps.inc.c's sweeps:
 *   NAME(forward_row)(s, i, r, z)   y_i = D_i^-1 (r_i - sum_{j<i} L_ij y_j), y stored in z;
 *   NAME(backward_row)(s, i, z)     z_i = y_i - D_i^-1 sum_{j>i} U_ij z_j over the internal columns
 *                                   (external ids >= n);
 *   NAME(residual_rows)(s, ex, r, z, t, rows, begin, end, halo)   ASDD's full residual (the ops
 *                                   table's residual_rows). */

static inline void CC_SGS_NAME(forward_row)(const cc_sgs *s, int64_t i, const double *restrict r,
                                            double *restrict z)
{
  const cc_bcrs *a = s->a;
  const int split  = a->l_ptr != NULL; /* L: the split part, or the blocks before D */
  const int64_t k0 = split ? a->l_ptr[i] : a->row_ptr[i];
  const int64_t k1 = split ? a->l_ptr[i + 1] : a->diag_pos[i];
  double sum[3], q[3];
  CC_SGS_NAME(block_row)
  (k0, k1, split ? a->l_col : a->col_idx, split ? s->CC_SGS_L_VAL : s->CC_SGS_VAL, INT32_MAX, z,
   sum);
  const double ua = CC_SGS_UA(s, i), ud = CC_SGS_UD(s, i);
  const double acc[3] = {r[3 * i] - ua * sum[0], r[3 * i + 1] - ua * sum[1],
                         r[3 * i + 2] - ua * sum[2]};
  CC_SGS_NAME(block_diag)(s->CC_SGS_DINV + 9 * i, acc, q);
  z[3 * i] = ud * q[0], z[3 * i + 1] = ud * q[1], z[3 * i + 2] = ud * q[2];
}

static inline void CC_SGS_NAME(backward_row)(const cc_sgs *s, int64_t i, double *restrict z)
{
  const cc_bcrs *a = s->a;
  double sum[3], q[3];
  CC_SGS_NAME(block_row)
  (a->diag_pos[i] + 1, a->row_ptr[i + 1], a->col_idx, s->CC_SGS_VAL, s->n, z, sum);
  CC_SGS_NAME(block_diag)(s->CC_SGS_DINV + 9 * i, sum, q);
  const double u = CC_SGS_UA(s, i) * CC_SGS_UD(s, i); /* exact: a power of 2 */
  z[3 * i] -= u * q[0], z[3 * i + 1] -= u * q[1], z[3 * i + 2] -= u * q[2];
}

/* The sequential sweep runs the same rows (the reduced blocks are read in place either way) */
static inline void CC_SGS_NAME(seq_forward_row)(const cc_sgs *s, int64_t i,
                                                const double *restrict r, double *restrict z)
{
  CC_SGS_NAME(forward_row)(s, i, r, z);
}

static inline void CC_SGS_NAME(seq_backward_row)(const cc_sgs *s, int64_t i, double *restrict z)
{
  CC_SGS_NAME(backward_row)(s, i, z);
}

/* u_i = y_i - z_i, z_i = y_i - D_i^-1 sum_{j>i} U_ij z_j */
static inline void CC_SGS_NAME(backward_row_u)(const cc_sgs *s, int64_t i, double *restrict z,
                                               double *restrict u)
{
  const cc_bcrs *a = s->a;
  double sum[3], q[3];
  CC_SGS_NAME(block_row)
  (a->diag_pos[i] + 1, a->row_ptr[i + 1], a->col_idx, s->CC_SGS_VAL, s->n, z, sum);
  CC_SGS_NAME(block_diag)(s->CC_SGS_DINV + 9 * i, sum, q);
  const double uu = CC_SGS_UA(s, i) * CC_SGS_UD(s, i);
  for (int c = 0; c < 3; c++) {
    const double d = uu * q[c];
    z[3 * i + c] -= d, u[3 * i + c] = d; /* u_i = y_i - z_i */
  }
}

/* y'_i = D_i^-1 (sum_{j<i} L_ij u_j - E_ext,i wh) to w_i, u_i -= y'_i */
static inline void CC_SGS_NAME(fused_forward_row)(const cc_sgs *s, int64_t i, double *restrict u,
                                                  const double *restrict wh, double *restrict w)
{
  const cc_bcrs *a = s->a;
  const int split  = a->l_ptr != NULL;
  const int64_t k0 = split ? a->l_ptr[i] : a->row_ptr[i];
  const int64_t k1 = split ? a->l_ptr[i + 1] : a->diag_pos[i];
  double lo[3], ext[3] = {0.0, 0.0, 0.0}, q[3];
  CC_SGS_NAME(block_row)
  (k0, k1, split ? a->l_col : a->col_idx, split ? s->CC_SGS_L_VAL : s->CC_SGS_VAL, INT32_MAX, u,
   lo);
  const int64_t ke = cc_sgs_external_begin(s, i);
  if (ke < a->row_ptr[i + 1])
    CC_SGS_NAME(block_row)(ke, a->row_ptr[i + 1], a->col_idx, s->CC_SGS_VAL, INT32_MAX, wh, ext);
  const double ua = CC_SGS_UA(s, i), ud = CC_SGS_UD(s, i);
  const double acc[3] = {ua * (lo[0] - ext[0]), ua * (lo[1] - ext[1]), ua * (lo[2] - ext[2])};
  CC_SGS_NAME(block_diag)(s->CC_SGS_DINV + 9 * i, acc, q);
  for (int c = 0; c < 3; c++) {
    const double y = ud * q[c];
    w[3 * i + c]   = y, u[3 * i + c] -= y;
  }
}

#include "sgs_sweeps.inc.c"

/* t_i = r_i - sum_j A_ij z_j for the rows rows[begin..end) (rows NULL: begin..end-1): the lower
 * part, then the diagonal, upper and external blocks of the row storage */
static void CC_SGS_NAME(residual_part)(const cc_sgs *s, const int32_t *rows,
                                       const double *restrict r, const double *restrict z,
                                       double *restrict t, int begin, int end)
{
  const cc_bcrs *a = s->a;
  for (int p = begin; p < end; p++) {
    const int64_t i = rows ? rows[p] : p;
    double lo[3]    = {0.0, 0.0, 0.0}, up[3];
    if (a->l_ptr) CC_SGS_NAME(block_row)
    (a->l_ptr[i], a->l_ptr[i + 1], a->l_col, s->CC_SGS_L_VAL, INT32_MAX, z, lo);
    CC_SGS_NAME(block_row)
    (a->row_ptr[i], a->row_ptr[i + 1], a->col_idx, s->CC_SGS_VAL, INT32_MAX, z, up);
    const double ua = CC_SGS_UA(s, i);
    for (int c = 0; c < 3; c++) t[3 * i + c] = r[3 * i + c] - ua * (lo[c] + up[c]);
  }
}

/* The same rows split over the threads in one contiguous range each (SpMV's schedule); the main
 * thread polls between blocks of CC_SGS_POLL_ROWS rows and, while halo's messages are pending,
 * tests them (they move on only inside MPI calls). Returns the first MPI error of those tests
 * (MPI_SUCCESS if none). */
static int CC_SGS_NAME(residual_rows)(const cc_sgs *s, const cc_exec *ex, const double *r,
                                      const double *z, double *t, const int32_t *rows, int begin,
                                      int end, const cc_comm_table *halo)
{
  const int n = end - begin;
  int rc      = MPI_SUCCESS;
#pragma omp parallel if (n >= 512)
  {
    const int nt = omp_get_num_threads(), th = omp_get_thread_num();
    const int q = n / nt, rem = n % nt;
    const int lo = begin + th * q + (th < rem ? th : rem), hi = lo + q + (th < rem);
    if (th == 0) {
      int done = halo == NULL || halo->n_neighbors == 0;
      for (int b = lo; b < hi; b += CC_SGS_POLL_ROWS) {
        CC_SGS_NAME(residual_part)
        (s, rows, r, z, t, b, b + CC_SGS_POLL_ROWS < hi ? b + CC_SGS_POLL_ROWS : hi);
        if (!done && rc == MPI_SUCCESS)
          rc = MPI_Testall(2 * halo->n_neighbors, halo->halo.req, &done, halo->halo.status);
        cc_exec_poll(ex);
      }
    } else {
      CC_SGS_NAME(residual_part)(s, rows, r, z, t, lo, hi);
    }
  }
  return rc;
}
