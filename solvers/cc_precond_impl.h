/* cc_precond_impl.h: private interface between the preconditioner registry (precond.c) and the
 * preconditioners (precond_*.c), plus the SGS sweep shared by "sgs" and "asdd" (GeoFEM's
 * indexL/itemL/AL, indexU/itemU/AU, ALU storage; Nakajima, multicolor SGS). Tests include it too.
 */
#ifndef CC_PRECOND_IMPL_H
#define CC_PRECOND_IMPL_H

#include "cc_solvers.h"

#include <float.h>
#include <omp.h>

/* Each preconditioner's create function (registered by name in precond.c: cc_precond_list). */
CC_WUR cc_err cc_precond_create_none(const cc_precond_params *params, const cc_bcrs *a,
                                     const cc_comm_table *comm, cc_precond *pc);
CC_WUR cc_err cc_precond_create_jacobi(const cc_precond_params *params, const cc_bcrs *a,
                                       const cc_comm_table *comm, cc_precond *pc);
CC_WUR cc_err cc_precond_create_sgs(const cc_precond_params *params, const cc_bcrs *a,
                                    const cc_comm_table *comm, cc_precond *pc);
CC_WUR cc_err cc_precond_create_asdd(const cc_precond_params *params, const cc_bcrs *a,
                                     const cc_comm_table *comm, cc_precond *pc);

/* inv = a^-1 for a 3x3 row-major block (thread-safe, no error chain). Scale-invariant: the
 * singularity test is a pivoted LU of a with each row divided by its own largest |entry|, refused
 * when a pivot is <= CC_BLOCK3_PIVOT_TOL (the assembled entries carry rounding errors of a few eps
 * of their row: a pivot below 64 eps cannot be told from 0). Returns CC_BLOCK3_OK (0), or
 * CC_BLOCK3_NONFINITE (an entry is NaN/Inf: not called singular), CC_BLOCK3_SINGULAR, or
 * CC_BLOCK3_OVERFLOW (the inverse is not representable); cc_block3_error says which. */
#define CC_BLOCK3_PIVOT_TOL (64 * DBL_EPSILON)
enum { CC_BLOCK3_OK = 0, CC_BLOCK3_SINGULAR = 1, CC_BLOCK3_NONFINITE = 2, CC_BLOCK3_OVERFLOW = 3 };
int cc_block3_inverse(const double *a, double *inv);
/* The CC_ERR_NUMERIC error for a diagonal block a that cc_block3_inverse refused (NaN/Inf entry,
 * singular, or overflowing inverse) of local node `node` (current
 * numbering; the original id via ord when given), called outside parallel regions. */
/* dinv[9 i] = inverse of row i's diagonal block, rows [groups[g], groups[g+1]) split statically
 * over the threads group by group (the schedule of the kernel that reads dinv, so first touch
 * places it; groups NULL = all rows as one group). A singular block is an error naming the node. */
CC_WUR cc_err cc_block3_invert_diagonal(const cc_bcrs *a, int n_groups, const int *groups,
                                        const cc_ordering *ord, const cc_comm_table *comm,
                                        double *dinv);
CC_WUR cc_err cc_block3_error(const double *a, int node, const cc_ordering *ord,
                              const cc_comm_table *comm);

/* Localized symmetric Gauss-Seidel M = (D + L) D^-1 (D + U) over the internal columns of a
 * (external columns ignored: block Jacobi across ranks). With colors (ordering->n_colors >= 1),
 * nodes of one color are swept by OpenMP threads in parallel; otherwise the sweep is sequential in
 * the matrix's current numbering. */
typedef struct {
  int n;          /* internal nodes */
  int n_colors;   /* 0: sequential sweep */
  int *color_ptr; /* [n_colors + 1] */
  /* The multicolor sweeps' order (sgs_schedule.c): n_steps row ranges [steps[2k], steps[2k+1]),
   * each of one color, forward in this order, backward in reverse: the colors, or CM-RCM's
   * chunks of levels. NULL for the sequential sweep. */
  int n_steps;
  int *steps;
  /* Colors: the sweeps read the matrix in place (row i's blocks before diag_pos[i] are L, those
   * after it up to the first external column are U), so the preconditioner costs only D^-1 in
   * memory (24 B/DOF instead of a second copy of the matrix). Sequential sweeps use copies: */
  const cc_bcrs *a;
  int64_t *l_ptr; /* [n + 1] strictly lower blocks (internal columns) of row i */
  int32_t *l_col;
  double *l_val; /* 9 per block */
  /* Strictly upper blocks (internal columns), sequential sweeps only: row i at position n-1-i, and
   * D^-1 again in that order (dinv_back), so that the backward sweep reads memory ascending like
   * the forward one (descending streams defeat the hardware prefetcher). */
  int64_t *u_ptr; /* [n + 1] */
  int32_t *u_col;
  double *u_val;
  double *dinv;      /* [9 n] inverted diagonal blocks */
  double *dinv_back; /* [9 n] sequential sweep only (else NULL) */
  /* --precond-precision single (precond_sgs_single.c): float shadows of a's values sharing a's
   * index arrays (row_ptr/col_idx/diag_pos, l_ptr/l_col), and D^-1 in float; dinv, the copies
   * above and dinv_back stay NULL. The sweeps and ASDD's residual read these and accumulate in
   * double (see precond_sgs_single.c for why). */
  cc_precision precision;
  /* Column-major blocks, each array followed by CC_SGS_FLOAT_PAD zero floats. */
  float *val_f;   /* [9 a->n_blocks] float(a->val): diagonal, upper and external blocks */
  float *l_val_f; /* [9 a->l_ptr[n]] float(a->l_val) with split storage, else NULL */
  float *dinv_f;  /* [9 n] float(D_i^-1) */
  /* Powers of 2 (exact): A = a_unscale val_f, D^-1 = d_unscale dinv_f, so that float's range
   * holds the blocks in any units. 1 for double. */
  double a_unscale, d_unscale;
  /* --precond-precision half (precond_sgs_half.c): binary16 shadows, column-major like the float
   * ones, each block row i scaled by its own power of 2 (row_unscale[2 i] = 2^s_i) and D_i^-1 by
   * its own (row_unscale[2 i + 1] = 2^d_i); each array followed by CC_SGS_FLOAT_PAD zero halves. */
  uint16_t *val_h;     /* [9 a->n_blocks] */
  uint16_t *l_val_h;   /* [9 a->l_ptr[n]] with split storage, else NULL */
  uint16_t *dinv_h;    /* [9 n] */
  double *row_unscale; /* [2 n] */
} cc_sgs;

/* Zero floats behind each float array: the kernels load a block's last column as 4 floats. */
#define CC_SGS_FLOAT_PAD 4

/* Default rows per chunk of CM-RCM levels in the sweeps (cc_precond_params.sweep_chunk_rows 0). */
#define CC_SGS_CHUNK_ROWS 65536
/* s->steps from s's colors and ord's levels (sgs_schedule.c), chunk_rows as
 * cc_precond_params.sweep_chunk_rows; checks against s->a that every row comes after its lower
 * neighbours (CC_ERR_CHECK otherwise). */
CC_WUR cc_err cc_sgs_schedule(cc_sgs *s, const cc_ordering *ord, int chunk_rows);

/* Rows between two polls of a pending reduction (the exec's poll hook) in the sweeps and ASDD's
 * residual, as SpMV's POLL_ROWS. */
#define CC_SGS_POLL_ROWS 4096

/* First block of row i's external columns (ids >= n, sorted last in the row storage), or
 * row_ptr[i + 1] when the row has none (an interior row). */
static inline int64_t cc_sgs_external_begin(const cc_sgs *s, int64_t i)
{
  const cc_bcrs *a = s->a;
  int64_t k        = a->row_ptr[i + 1];
  while (k > a->diag_pos[i] + 1 && a->col_idx[k - 1] >= s->n) k--;
  return k;
}

/* CC_SGS_STEP_ROWS(lo, hi, WAYS, ROW): inside a parallel region, the rows [lo, hi) of one step
 * (independent rows) split over the threads in contiguous shares as schedule(static) splits them,
 * then a barrier. Each thread runs its share as WAYS interleaved parts (row j of part 0, row j of
 * part 1, ...): WAYS streams through the matrix at once instead of one. A core's bandwidth grows
 * with its concurrent streams (X1, cubecg-bench --read-streams 6, one rank per core: 1, 2, 4, 6
 * streams read at 0.55, 0.83, 1.05, 1.13 of the triad), and the double sweeps' values are one
 * stream per sweep (the split L forward, the matrix rows backward). Rows of a step are
 * independent, so the results are the same bits for every WAYS. */
#define CC_SGS_STEP_ROWS(lo, hi, WAYS, ROW)                                                        \
  do {                                                                                             \
    const int nt_ = omp_get_num_threads(), t_ = omp_get_thread_num();                              \
    const int q_ = ((hi) - (lo)) / nt_, r_ = ((hi) - (lo)) % nt_;                                  \
    const int b_ = (lo) + t_ * q_ + (t_ < r_ ? t_ : r_), m_end_ = q_ + (t_ < r_);                  \
    const int h_ = m_end_ / (WAYS);                                                                \
    for (int m_ = 0; m_ < m_end_; m_++) { /* one copy of the row: as inlined as a plain loop */   \
      const int i = m_ < (WAYS) * h_ ? b_ + (m_ % (WAYS)) * h_ + m_ / (WAYS) : b_ + m_;           \
      ROW;                                                                                         \
    }                                                                                              \
    _Pragma("omp barrier")                                                                         \
  } while (0)

/* CC_SGS_SWEEP_STMTS(s, ex, WAYS, SEQ_FWD, SEQ_BWD, FWD, BWD): the sweep pair's loops, the one
 * schedule of every sweep; the row statements name the row as i. Without colors (s->n_colors 0):
 * sequential in the current numbering with SEQ_FWD ascending, SEQ_BWD descending, the poll hook
 * every CC_SGS_POLL_ROWS rows. With colors: FWD then BWD over s's steps (BWD in reverse); rows of
 * one step are independent: CC_SGS_STEP_ROWS (WAYS interleaved parts per thread), whose barrier
 * orders the steps; the master thread (MPI's main thread under FUNNELED) polls a pending
 * reduction between steps. A macro, not an inline function taking the row kernels as arguments:
 * OpenMP outlines the parallel region into a function of its own, which received them as pointers
 * and called them indirectly, once per row (a call, a prologue and the row's pointer loads again,
 * every row); here the outlined body names them, so they are called directly and inlined. */
#define CC_SGS_SWEEP_STMTS(s, ex, WAYS, SEQ_FWD, SEQ_BWD, FWD, BWD)                                \
  do {                                                                                             \
    if ((s)->n_colors) {                                                                           \
      const int ns_ = (s)->n_steps, *st_ = (s)->steps;                                             \
      _Pragma("omp parallel")                                                                      \
      {                                                                                            \
        for (int k_ = 0; k_ < ns_; k_++) {                                                         \
          CC_SGS_STEP_ROWS(st_[2 * k_], st_[2 * k_ + 1], WAYS, FWD);                               \
          _Pragma("omp master")                                                                    \
          cc_exec_poll(ex);                                                                        \
        }                                                                                          \
        for (int k_ = ns_ - 1; k_ >= 0; k_--) {                                                    \
          CC_SGS_STEP_ROWS(st_[2 * k_], st_[2 * k_ + 1], WAYS, BWD);                               \
          _Pragma("omp master")                                                                    \
          cc_exec_poll(ex);                                                                        \
        }                                                                                          \
      }                                                                                            \
    } else {                                                                                       \
      const int n_ = (s)->n;                                                                       \
      for (int lo_ = 0; lo_ < n_; lo_ += CC_SGS_POLL_ROWS) {                                       \
        const int hi_ = lo_ + CC_SGS_POLL_ROWS < n_ ? lo_ + CC_SGS_POLL_ROWS : n_;                 \
        for (int64_t i = lo_; i < hi_; i++) {                                                      \
          SEQ_FWD;                                                                                 \
        }                                                                                          \
        cc_exec_poll(ex);                                                                          \
      }                                                                                            \
      for (int hi_ = n_; hi_ > 0; hi_ -= CC_SGS_POLL_ROWS) {                                       \
        const int lo_ = hi_ - CC_SGS_POLL_ROWS > 0 ? hi_ - CC_SGS_POLL_ROWS : 0;                   \
        for (int64_t i = hi_ - 1; i >= lo_; i--) {                                                 \
          SEQ_BWD;                                                                                 \
        }                                                                                          \
        cc_exec_poll(ex);                                                                          \
      }                                                                                            \
    }                                                                                              \
  } while (0)

/* CC_SGS_FUSED_DEFINE(P, WAYS, name_u, name_fused) defines, from the row kernels P##_forward_row,
 * P##_backward_row, P##_backward_row_u and P##_fused_forward_row, ASDD's two fused sweeps
 * (cc_sgs_apply_u and cc_sgs_asdd_step below) for one precision. */
#define CC_SGS_FUSED_DEFINE(P, WAYS, name_u, name_fused)                                           \
  void name_u(const cc_sgs *s, const cc_exec *ex, const double *r, double *z, double *u)           \
  {                                                                                                \
    CC_SGS_SWEEP_STMTS(s, ex, WAYS, P##_forward_row(s, i, r, z), P##_backward_row_u(s, i, z, u),   \
                       P##_forward_row(s, i, r, z), P##_backward_row_u(s, i, z, u));               \
  }                                                                                                \
  void name_fused(const cc_sgs *s, const cc_exec *ex, double *u, const double *wh, double *w,      \
                  int want_u)                                                                      \
  {                                                                                                \
    if (want_u)                                                                                    \
      CC_SGS_SWEEP_STMTS(s, ex, WAYS, P##_fused_forward_row(s, i, u, wh, w),                       \
                         P##_backward_row_u(s, i, w, u), P##_fused_forward_row(s, i, u, wh, w),    \
                         P##_backward_row_u(s, i, w, u));                                          \
    else                                                                                           \
      CC_SGS_SWEEP_STMTS(s, ex, WAYS, P##_fused_forward_row(s, i, u, wh, w),                       \
                         P##_backward_row(s, i, w), P##_fused_forward_row(s, i, u, wh, w),         \
                         P##_backward_row(s, i, w));                                               \
  }

/* CC_SGS_SWEEP_DEFINE(name, WAYS, seq_fwd, seq_bwd, fwd, bwd) defines static void
 * name(s, ex, r, z), the sweep pair of every precision (y in z): the sequential row kernels
 * seq_fwd(s, i, r, z), seq_bwd(s, i, z) without colors, fwd and bwd with colors, on
 * CC_SGS_SWEEP_STMTS's schedule (WAYS as CC_SGS_STEP_ROWS). */
#define CC_SGS_SWEEP_DEFINE(name, WAYS, seq_fwd, seq_bwd, fwd, bwd)                                \
  static void name(const cc_sgs *s, const cc_exec *ex, const double *r, double *z)                 \
  {                                                                                                \
    CC_SGS_SWEEP_STMTS(s, ex, WAYS, seq_fwd(s, i, r, z), seq_bwd(s, i, z), fwd(s, i, r, z),        \
                       bwd(s, i, z));                                                              \
  }

/* CC_SGS_RESIDUAL_ROWS_DEFINE(name, rows_fn) defines int name(s, ex, r, z, t, rows, begin, end,
 * halo) (the signature of cc_sgs_residual_single_rows) over the row kernel
 * rows_fn(s, rows, r, z, t, begin, end): one contiguous range per thread (SpMV's schedule); the
 * main thread polls between blocks of CC_SGS_POLL_ROWS rows and, while halo's messages are
 * pending, tests them (they move on only inside MPI calls). Returns the first MPI error of those
 * tests (MPI_SUCCESS if none). */
#define CC_SGS_RESIDUAL_ROWS_DEFINE(name, rows_fn)                                                 \
  int name(const cc_sgs *s, const cc_exec *ex, const double *r, const double *z, double *t,        \
           const int32_t *rows, int begin, int end, const cc_comm_table *halo)                     \
  {                                                                                                \
    const int n = end - begin;                                                                     \
    int rc      = MPI_SUCCESS;                                                                     \
    _Pragma("omp parallel if (n >= 512)")                                                          \
    {                                                                                              \
      const int nt = omp_get_num_threads(), th = omp_get_thread_num();                             \
      const int q = n / nt, rem = n % nt;                                                          \
      const int lo = begin + th * q + (th < rem ? th : rem), hi = lo + q + (th < rem);             \
      if (th == 0) {                                                                               \
        int done = halo == NULL || halo->n_neighbors == 0;                                         \
        for (int b = lo; b < hi; b += CC_SGS_POLL_ROWS) {                                          \
          rows_fn(s, rows, r, z, t, b, b + CC_SGS_POLL_ROWS < hi ? b + CC_SGS_POLL_ROWS : hi);     \
          if (!done && rc == MPI_SUCCESS)                                                          \
            rc = MPI_Testall(2 * halo->n_neighbors, halo->halo.req, &done, halo->halo.status);     \
          cc_exec_poll(ex);                                                                        \
        }                                                                                          \
      } else {                                                                                     \
        rows_fn(s, rows, r, z, t, lo, hi);                                                         \
      }                                                                                            \
    }                                                                                              \
    return rc;                                                                                     \
  }

/* CC_SGS_LOW_ROW_KERNELS(P, T, VAL, L_VAL, DINV, UA, UD) defines the row kernels of a
 * preconditioner stored in type T (float, binary16 as uint16_t) from its block kernels
 * P##_block_row(k0, k1, col, val, col_end, v, out[3]) (out = sum_k B_k v_col(k) over the blocks
 * whose column is below col_end) and P##_block_diag(d, s[3], q[3]) (q = d s): the stored blocks
 * s->VAL (a's row storage), s->L_VAL (the split lower part), s->DINV, unscaled by the powers of 2
 * UA (the blocks of row i) and UD (D_i^-1), expressions of s and i. Defines
 *   P##_forward_row(s, i, r, z)   y_i = D_i^-1 (r_i - sum_{j<i} L_ij y_j), y stored in z;
 *   P##_backward_row(s, i, z)     z_i = y_i - D_i^-1 sum_{j>i} U_ij z_j over the internal columns
 *                                 (external ids >= n);
 *   P##_residual_rows(s, rows, r, z, t, begin, end)   t_i = r_i - sum_j A_ij z_j for the rows
 *                                 rows[begin..end) (rows NULL: begin..end-1): the lower part, then
 *                                 the diagonal, upper and external blocks of the row storage. */
#define CC_SGS_LOW_ROW_KERNELS(P, T, VAL, L_VAL, DINV, UA, UD)                                     \
  static inline void P##_forward_row(const cc_sgs *s, int64_t i, const double *restrict r,         \
                                     double *restrict z)                                           \
  {                                                                                                \
    const cc_bcrs *a = s->a;                                                                       \
    const int split  = a->l_ptr != NULL; /* L: the split part, or the blocks before D */           \
    const int64_t k0 = split ? a->l_ptr[i] : a->row_ptr[i];                                        \
    const int64_t k1 = split ? a->l_ptr[i + 1] : a->diag_pos[i];                                   \
    double sum[3], q[3];                                                                           \
    P##_block_row(k0, k1, split ? a->l_col : a->col_idx, split ? s->L_VAL : s->VAL, INT32_MAX, z,  \
                  sum);                                                                            \
    const double ua = (UA), ud = (UD);                                                             \
    const double acc[3] = {r[3 * i] - ua * sum[0], r[3 * i + 1] - ua * sum[1],                     \
                           r[3 * i + 2] - ua * sum[2]};                                            \
    P##_block_diag(s->DINV + 9 * i, acc, q);                                                       \
    z[3 * i] = ud * q[0], z[3 * i + 1] = ud * q[1], z[3 * i + 2] = ud * q[2];                      \
  }                                                                                                \
  static inline void P##_backward_row(const cc_sgs *s, int64_t i, double *restrict z)              \
  {                                                                                                \
    const cc_bcrs *a = s->a;                                                                       \
    double sum[3], q[3];                                                                           \
    P##_block_row(a->diag_pos[i] + 1, a->row_ptr[i + 1], a->col_idx, s->VAL, s->n, z, sum);        \
    P##_block_diag(s->DINV + 9 * i, sum, q);                                                       \
    const double u = (UA) * (UD); /* exact: a power of 2 */                                        \
    z[3 * i] -= u * q[0], z[3 * i + 1] -= u * q[1], z[3 * i + 2] -= u * q[2];                      \
  }                                                                                                \
  static void P##_residual_rows(const cc_sgs *s, const int32_t *rows, const double *restrict r,    \
                                const double *restrict z, double *restrict t, int begin, int end)  \
  {                                                                                                \
    const cc_bcrs *a = s->a;                                                                       \
    for (int p = begin; p < end; p++) {                                                            \
      const int64_t i = rows ? rows[p] : p;                                                        \
      double lo[3]    = {0.0, 0.0, 0.0}, up[3];                                                    \
      if (a->l_ptr)                                                                                \
        P##_block_row(a->l_ptr[i], a->l_ptr[i + 1], a->l_col, s->L_VAL, INT32_MAX, z, lo);         \
      P##_block_row(a->row_ptr[i], a->row_ptr[i + 1], a->col_idx, s->VAL, INT32_MAX, z, up);       \
      const double ua = (UA);                                                                      \
      for (int c = 0; c < 3; c++) t[3 * i + c] = r[3 * i + c] - ua * (lo[c] + up[c]);              \
    }                                                                                              \
  }                                                                                                \
  static inline void P##_backward_row_u(const cc_sgs *s, int64_t i, double *restrict z,            \
                                        double *restrict u)                                        \
  {                                                                                                \
    const cc_bcrs *a = s->a;                                                                       \
    double sum[3], q[3];                                                                           \
    P##_block_row(a->diag_pos[i] + 1, a->row_ptr[i + 1], a->col_idx, s->VAL, s->n, z, sum);        \
    P##_block_diag(s->DINV + 9 * i, sum, q);                                                       \
    const double uu = (UA) * (UD);                                                                 \
    for (int c = 0; c < 3; c++) {                                                                  \
      const double d = uu * q[c];                                                                  \
      z[3 * i + c] -= d, u[3 * i + c] = d; /* u_i = y_i - z_i */                                   \
    }                                                                                              \
  }                                                                                                \
  static inline void P##_fused_forward_row(const cc_sgs *s, int64_t i, double *restrict u,         \
                                           const double *restrict wh, double *restrict w)          \
  {                                                                                                \
    const cc_bcrs *a = s->a;                                                                       \
    const int split  = a->l_ptr != NULL;                                                           \
    const int64_t k0 = split ? a->l_ptr[i] : a->row_ptr[i];                                        \
    const int64_t k1 = split ? a->l_ptr[i + 1] : a->diag_pos[i];                                   \
    double lo[3], ext[3] = {0.0, 0.0, 0.0}, q[3];                                                  \
    P##_block_row(k0, k1, split ? a->l_col : a->col_idx, split ? s->L_VAL : s->VAL, INT32_MAX, u,  \
                  lo);                                                                             \
    const int64_t ke = cc_sgs_external_begin(s, i);                                                \
    if (ke < a->row_ptr[i + 1])                                                                    \
      P##_block_row(ke, a->row_ptr[i + 1], a->col_idx, s->VAL, INT32_MAX, wh, ext);                \
    const double ua = (UA), ud = (UD);                                                             \
    const double acc[3] = {ua * (lo[0] - ext[0]), ua * (lo[1] - ext[1]), ua * (lo[2] - ext[2])};   \
    P##_block_diag(s->DINV + 9 * i, acc, q);                                                       \
    for (int c = 0; c < 3; c++) {                                                                  \
      const double y = ud * q[c];                                                                  \
      w[3 * i + c] = y, u[3 * i + c] -= y;                                                         \
    }                                                                                              \
  }

/* ord may be NULL (natural, sequential); a must already be permuted by ord (cc_ordering_apply). */
CC_WUR cc_err cc_sgs_setup(const cc_bcrs *a, const cc_ordering *ord, int chunk_rows,
                           const cc_comm_table *comm, cc_sgs *s);
/* z = M^-1 r on the internal DOFs (forward then backward sweep; z also holds the intermediate y).
 * Runs cc_sgs_apply_single when s was set up in single precision. */
void cc_sgs_apply(const cc_sgs *s, const cc_exec *ex, const double *r, double *z);
void cc_sgs_free(cc_sgs *s);
/* Bytes the sweep holds beyond the matrix (D^-1, copies, float shadows, color table). */
int64_t cc_sgs_bytes(const cc_sgs *s);
/* Bytes cc_sgs_setup (double) would hold for a with n_colors colors (0: sequential copies) and a
 * schedule of n_steps steps. */
int64_t cc_sgs_bytes_double(const cc_bcrs *a, int n_colors, int n_steps);

/* Single precision (precond_sgs_single.c). The set-up keeps float copies of a's blocks and of
 * D^-1 (a is still needed: SpMV reads it); the sweep is the same SGS of the float-rounded blocks.
 */
CC_WUR cc_err cc_sgs_setup_single(const cc_bcrs *a, const cc_ordering *ord, int chunk_rows,
                                  const cc_comm_table *comm, cc_sgs *s);
void cc_sgs_apply_single(const cc_sgs *s, const cc_exec *ex, const double *r, double *z);
/* ASDD's inner residual t = r - A_f z on the internal rows over all local columns (z's halo
 * exchanged by the caller), A_f = the float blocks of a set-up in single precision; rows
 * [begin, end) so that an interior/boundary split can call it in two parts. */
void cc_sgs_residual_single(const cc_sgs *s, const cc_exec *ex, const double *r, const double *z,
                            double *t, int begin, int end);
/* The same on the rows rows[begin..end) (rows NULL: rows begin..end-1), the main thread testing
 * halo's pending messages between row blocks (halo NULL: none), as cc_spmv_halo's interior rows
 * do. Returns the first MPI error code of those tests (MPI_SUCCESS if none). */
int cc_sgs_residual_single_rows(const cc_sgs *s, const cc_exec *ex, const double *r,
                                const double *z, double *t, const int32_t *rows, int begin, int end,
                                const cc_comm_table *halo);
/* Half precision (precond_sgs_half.c): binary16 copies of a's blocks and of D^-1, each block row
 * scaled by a power of 2, entries rounded on the coarser grid of the two rows they couple (A_h
 * bitwise symmetric). A matrix whose entries would lose all their digits (round to 0 while above
 * CC_HALF_NOISE of their rows' largest entry) is refused, CC_ERR_ARG naming the row, on all ranks
 * of comm (comm NULL: this process alone). */
CC_WUR cc_err cc_sgs_setup_half(const cc_bcrs *a, const cc_ordering *ord, int chunk_rows,
                                const cc_comm_table *comm, cc_sgs *s);
void cc_sgs_apply_half(const cc_sgs *s, const cc_exec *ex, const double *r, double *z);
/* ASDD's inner residual t = r - A_h z, as cc_sgs_residual_single_rows */
int cc_sgs_residual_half_rows(const cc_sgs *s, const cc_exec *ex, const double *r, const double *z,
                              double *t, const int32_t *rows, int begin, int end,
                              const cc_comm_table *halo);
/* ASDD with the fused residual (precond_asdd.c). cc_sgs_apply_u: z = B r as cc_sgs_apply, and
 * u = y - z (y the forward sweep's result; written by the backward sweep, where it is D_i^-1
 * sum_{j>i} U_ij z_j). cc_sgs_asdd_step: the next correction w = B t for the residual
 * t = r - A (z + w_prev) = L u - E_ext w_prev, in one forward sweep that reads L once: row i
 * gathers u_j of the rows before it (already u_j - y'_j) and the external blocks times wh's halo
 * (w_prev's halo, exchanged by the caller; its internal part may be w itself), writes y'_i to w
 * and u_i - y'_i to u; then the backward sweep on w, writing u = y' - w again when want_u (another
 * step follows). Every precision; its own blocks (A_f, A_h for single and half). */
void cc_sgs_apply_u(const cc_sgs *s, const cc_exec *ex, const double *r, double *z, double *u);
void cc_sgs_asdd_step(const cc_sgs *s, const cc_exec *ex, double *u, const double *wh, double *w,
                      int want_u);
void cc_sgs_apply_u_single(const cc_sgs *s, const cc_exec *ex, const double *r, double *z,
                           double *u);
void cc_sgs_asdd_step_single(const cc_sgs *s, const cc_exec *ex, double *u, const double *wh,
                             double *w, int want_u);
void cc_sgs_apply_u_half(const cc_sgs *s, const cc_exec *ex, const double *r, double *z,
                         double *u);
void cc_sgs_asdd_step_half(const cc_sgs *s, const cc_exec *ex, double *u, const double *wh,
                           double *w, int want_u);
/* The assembly's rounding noise relative to a row's largest entry (as CC_BLOCK3_PIVOT_TOL): an
 * entry below it that rounds to 0 in binary16 loses no digit it had. */
#define CC_HALF_NOISE (64 * DBL_EPSILON)
/* binary16 bits to double, portable (the kernels use F16C / AVX512-FP16 where compiled in) */
double cc_half_to_double(uint16_t h);
/* x rounded to the nearest binary16 value (ties to even; no overflow check: |x| < 65520 assumed) */
double cc_half_round(double x);
/* The bits of x, which must already be a binary16 value (cc_half_round of something in range) */
uint16_t cc_half_bits(double x);

/* cubecg-bench --block-ceilings (bench/block_ceilings.h): the sweeps' block-row kernel of one
 * precision, alone, on rows [0, n_rows) of per_row blocks each (blocks k in [i per_row, (i + 1)
 * per_row) of row i, in the precision's layout: row-major doubles, column-major floats or
 * binary16, the last two followed by CC_SGS_FLOAT_PAD zeros), col the blocks' sorted node indices
 * into x (3 doubles per node); out[3 i..3 i + 2] = sum_k B_k x_col(k). */
void cc_sgs_rows_probe_double(int n_rows, int per_row, const int32_t *col, const double *val,
                              const double *x, double *out);
void cc_sgs_rows_probe_single(int n_rows, int per_row, const int32_t *col, const float *val,
                              const double *x, double *out);
void cc_sgs_rows_probe_half(int n_rows, int per_row, const int32_t *col, const uint16_t *val,
                            const double *x, double *out);
/* Their bodies: ROW computes row i's sums into o from the blocks [k0, k1) */
#define CC_SGS_ROWS_PROBE_DEFINE(name, T, ROW)                                                     \
  void name(int n_rows, int per_row, const int32_t *col, const T *val, const double *x,            \
            double *out)                                                                           \
  {                                                                                                \
    for (int64_t i = 0; i < n_rows; i++) {                                                         \
      const int64_t k0 = i * per_row, k1 = k0 + per_row;                                           \
      double *o        = out + 3 * i;                                                              \
      ROW;                                                                                         \
    }                                                                                              \
  }

/* The sweep of a preconditioner made by cc_precond_create ("sgs" or "asdd"; NULL for any other),
 * and for "asdd" its residual and correction vectors (*t, *w, [3 n_cols]; NULL otherwise): the
 * arrays its apply reads and writes, for cubecg-bench --model-stream. */
const cc_sgs *cc_precond_sgs(const cc_precond *pc, double **t, double **w);

/* Plain reference: sequential SGS over the full internal L/U of a in its current numbering. */
CC_WUR cc_err cc_sgs_ref(const cc_bcrs *a, const double *r, double *z);

#endif
