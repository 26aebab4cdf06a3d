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
/* The start every create function shares: pc->name, pc->apply and pc->destroy set, pc->ctx a new
 * zeroed ctx_size bytes (freed by destroy, also after a failed create). */
CC_WUR cc_err cc_precond_init(cc_precond *pc, const char *name, size_t ctx_size,
                              cc_err (*apply)(cc_precond *pc, const cc_exec *ex, double *r,
                                              double *z),
                              void (*destroy)(cc_precond *pc));

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
typedef struct cc_sgs_ops cc_sgs_ops;
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
  /* The precision of the stored blocks and its operations (the table chosen at set-up; every
   * apply calls through it). */
  cc_precision precision;
  const cc_sgs_ops *ops;
  /* --precond-precision single (precond_sgs_single.c): float shadows of a's values sharing a's
   * index arrays (row_ptr/col_idx/diag_pos, l_ptr/l_col), and D^-1 in float; dinv, the copies
   * above and dinv_back stay NULL. The sweeps and ASDD's residual read these and accumulate in
   * double (see precond_sgs_single.c for why). Column-major blocks, each array followed by
   * CC_SGS_FLOAT_PAD zero floats. */
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

/* The sweeps of one precision of the stored blocks (after PETSc's ops tables; the storage type
 * apart from the arithmetic, which is double in every precision, as Ginkgo separates them). One
 * table per precision (precond_sgs.c, precond_sgs_single.c, precond_sgs_half.c), listed by
 * precision in precond.c (cc_sgs_ops_of); cc_sgs_setup_as picks it once, every apply calls
 * through it. docs/design.md says how to add a precision. */
struct cc_sgs_ops {
  cc_precision precision;
  /* The traffic model (traffic.c): bytes of one stored value (8, 4, 2), and the bytes of row i's
   * scales each sweep reads besides its blocks (half: 2^s_i and 2^d_i, 16 B; else 0). */
  double value_bytes, row_scale_bytes;
  /* The set-up of this precision's blocks, after cc_sgs_setup_as's shared part (s->n, n_colors,
   * color_ptr, the schedule, a, ops and precision set; the unscales 1). */
  cc_err (*setup)(cc_sgs *s, const cc_ordering *ord, const cc_comm_table *comm);
  /* cc_sgs_apply, cc_sgs_apply_u, cc_sgs_asdd_step in this precision */
  void (*apply)(const cc_sgs *s, const cc_exec *ex, const double *r, double *z);
  void (*apply_u)(const cc_sgs *s, const cc_exec *ex, const double *r, double *z, double *u);
  void (*asdd_step)(const cc_sgs *s, const cc_exec *ex, double *u, const double *wh, double *w,
                    int want_u);
  /* ASDD's full residual t = r - A_s z on the stored blocks A_s, on the internal rows
   * rows[begin..end) (rows NULL: rows begin..end-1) over all local columns (z's halo exchanged by
   * the caller), the main thread testing halo's pending messages between row blocks (halo NULL:
   * none), as cc_spmv_halo's interior rows do; returns the first MPI error code of those tests
   * (MPI_SUCCESS if none). NULL: the stored blocks are a's own (double), so the residual is a's
   * SpMV (cc_spmv_halo). */
  int (*residual_rows)(const cc_sgs *s, const cc_exec *ex, const double *r, const double *z,
                       double *t, const int32_t *rows, int begin, int end,
                       const cc_comm_table *halo);
  /* Bytes of this precision's own arrays (NULL: none beyond the double ones cc_sgs_bytes counts) */
  int64_t (*bytes)(const cc_sgs *s);
};
extern const cc_sgs_ops cc_sgs_ops_double, cc_sgs_ops_single, cc_sgs_ops_half;
/* The table of precision p (precond.c), NULL when p is none of cc_precision's. */
const cc_sgs_ops *cc_sgs_ops_of(cc_precision p);

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

/* The groups of rows the set-ups first-touch with the sweeps' static schedule: s's colors, or all
 * rows as one group (in one_group). */
static inline const int *cc_sgs_touch_groups(const cc_sgs *s, int one_group[2], int *n_groups)
{
  one_group[0] = 0, one_group[1] = s->n;
  *n_groups = s->n_colors ? s->n_colors : 1;
  return s->n_colors ? s->color_ptr : one_group;
}

/* CC_SGS_STEP_ROWS(lo, hi, WAYS, ROW): inside a parallel region, the rows [lo, hi) of one step
 * (independent rows) split over the threads in contiguous shares as schedule(static) splits them,
 * then a barrier. Each thread runs its share as WAYS interleaved parts (row j of part 0, row j of
 * part 1, ...): WAYS streams through the matrix at once instead of one, since a core's bandwidth
 * grows with its concurrent streams (docs/performance.md, two streams per sweep). Rows of a step
 * are independent, so the results are the same bits for every WAYS. */
#define CC_SGS_STEP_ROWS(lo, hi, WAYS, ROW)                                                        \
  do {                                                                                             \
    const int nt_ = omp_get_num_threads(), t_ = omp_get_thread_num();                              \
    const int q_ = ((hi) - (lo)) / nt_, r_ = ((hi) - (lo)) % nt_;                                  \
    const int b_ = (lo) + t_ * q_ + (t_ < r_ ? t_ : r_), m_end_ = q_ + (t_ < r_);                  \
    const int h_ = m_end_ / (WAYS);                                                                \
    for (int m_ = 0; m_ < m_end_; m_++) { /* one copy of the row: as inlined as a plain loop */    \
      const int i = m_ < (WAYS)*h_ ? b_ + (m_ % (WAYS)) * h_ + m_ / (WAYS) : b_ + m_;              \
      ROW;                                                                                         \
    }                                                                                              \
    _Pragma("omp barrier")                                                                         \
  } while (0)

/* CC_SGS_NAME(name): the kernel templates' names (sgs_sweeps.inc.c, sgs_rows_reduced.inc.c)
 * prefixed by the including file's CC_SGS_PREFIX: sgsd_ double, sgsf_ float, sgsh_ binary16. */
#define CC_SGS_NAME(name) CC_SGS_NAME_(CC_SGS_PREFIX, name)
#define CC_SGS_NAME_(prefix, name) CC_SGS_NAME__(prefix, name)
#define CC_SGS_NAME__(prefix, name) prefix##_##name

/* cc_sgs_setup_as: s set up for precision's sweeps on a (ord may be NULL: natural, sequential; a
 * must already be permuted by ord, cc_ordering_apply): the part every precision shares (the
 * ordering's checks, the colors, the schedule), then the precision's ops->setup. cc_sgs_setup,
 * cc_sgs_setup_single and cc_sgs_setup_half are it in one precision. */
CC_WUR cc_err cc_sgs_setup_as(cc_precision precision, const cc_bcrs *a, const cc_ordering *ord,
                              int chunk_rows, const cc_comm_table *comm, cc_sgs *s);
CC_WUR cc_err cc_sgs_setup(const cc_bcrs *a, const cc_ordering *ord, int chunk_rows,
                           const cc_comm_table *comm, cc_sgs *s);
/* z = M^-1 r on the internal DOFs (forward then backward sweep; z also holds the intermediate y),
 * in s's precision. */
void cc_sgs_apply(const cc_sgs *s, const cc_exec *ex, const double *r, double *z);
void cc_sgs_free(cc_sgs *s);
/* Bytes the sweep holds beyond the matrix (D^-1, copies, float shadows, color table). */
int64_t cc_sgs_bytes(const cc_sgs *s);
/* Bytes cc_sgs_setup (double) would hold for a with n_colors colors (0: sequential copies) and a
 * schedule of n_steps steps. */
int64_t cc_sgs_bytes_double(const cc_bcrs *a, int n_colors, int n_steps);
/* The shared parts of the reduced-precision set-ups (precond_sgs.c). cc_sgs_check_split: the row
 * kernels of the reduced precisions index the split lower part from 0. cc_sgs_new_dinv: *dinv a
 * new [9 n] array of D^-1 in double, first-touched color by color (freed again on error).
 * cc_sgs_shadow_bytes: the shadows of a's values and of D^-1 at value_size bytes per value. */
CC_WUR cc_err cc_sgs_check_split(const cc_bcrs *a);
CC_WUR cc_err cc_sgs_new_dinv(const cc_sgs *s, const cc_ordering *ord, const cc_comm_table *comm,
                              double **dinv);
int64_t cc_sgs_shadow_bytes(const cc_sgs *s, int64_t value_size);

/* Single precision (precond_sgs_single.c). The set-up keeps float copies of a's blocks and of
 * D^-1 (a is still needed: SpMV reads it); the sweep is the same SGS of the float-rounded blocks.
 */
CC_WUR cc_err cc_sgs_setup_single(const cc_bcrs *a, const cc_ordering *ord, int chunk_rows,
                                  const cc_comm_table *comm, cc_sgs *s);
/* ASDD's inner residual t = r - A_f z on the internal rows over all local columns (z's halo
 * exchanged by the caller), A_f = the float blocks of a set-up in single precision; rows
 * [begin, end) so that an interior/boundary split can call it in two parts. */
void cc_sgs_residual_single(const cc_sgs *s, const cc_exec *ex, const double *r, const double *z,
                            double *t, int begin, int end);
/* Half precision (precond_sgs_half.c): binary16 copies of a's blocks and of D^-1, each block row
 * scaled by a power of 2, entries rounded on the coarser grid of the two rows they couple (A_h
 * bitwise symmetric). A matrix whose entries would lose all their digits (round to 0 while above
 * CC_HALF_NOISE of their rows' largest entry) is refused, CC_ERR_ARG naming the row, on all ranks
 * of comm (comm NULL: this process alone). */
CC_WUR cc_err cc_sgs_setup_half(const cc_bcrs *a, const cc_ordering *ord, int chunk_rows,
                                const cc_comm_table *comm, cc_sgs *s);
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
/* The assembly's rounding noise relative to a row's largest entry (as CC_BLOCK3_PIVOT_TOL): an
 * entry below it that rounds to 0 in binary16 loses no digit it had. */
#define CC_HALF_NOISE (64 * DBL_EPSILON)
/* binary16 bits to double, portable (the kernels use F16C, or AVX-512 F + BW, where compiled in) */
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
      double *o = out + 3 * i;                                                                     \
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
