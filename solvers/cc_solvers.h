/* cc_solvers.h: distributed kernels, orderings, preconditioners and the six CG variants: the four
 * of the GeoFEM/Cube study (docs/algorithms.md: Alg.1-4 and Table 1), p(l)-CG and s-step CG.
 *
 * Contract:
 * - solvers/ sees a distributed 3x3 block CRS matrix (cc_bcrs: rows = internal nodes, columns =
 *   local nodes with the halo after them) and a communication table (cc_comm_table); nothing of the
 *   mesh. A vector holds 3 doubles per local node: 3*n_cols doubles, the internal part first; only
 *   the internal part is meaningful on input/output, the halo part is scratch for exchanges.
 * - Kernels are OpenMP-parallel (static schedule) with a plain *_ref beside them for tests.
 * - Every global reduction goes through cc_reduce_* so that the timing (CC_T_REDUCTION), the
 *   injected latency and application-driven progress (poll) apply to all variants alike.
 * - Operation counts (SpMV, preconditioner, dot, AXPY-type updates, reductions) are counted by the
 *   kernels themselves in the cc_timers their caller hands them (cc_exec), so Table 1 is
 *   measured, not typed in.
 * - No process-wide state: timers, reduction settings and the pending request belong to the solve
 *   (its context), halo buffers to the communication table. Two solves may run in one process,
 *   one even inside the other's monitor callback.
 */
#ifndef CC_SOLVERS_H
#define CC_SOLVERS_H

#include "cc_common.h"

/* ------------------------------------------------------------------------------------------------
 * Kernels
 * ---------------------------------------------------------------------------------------------- */
/* What a kernel is handed by its caller (a solve, a check, a test): where to time and count its
 * work, and the hook to drive a pending non-blocking reduction from inside long loops (called
 * from MPI's main thread only). NULL, or NULL members: not timed / no polling. */
typedef struct {
  cc_timers *timers;
  void (*poll)(void *poll_ctx);
  void *poll_ctx;
} cc_exec;
static inline cc_timers *cc_exec_timers(const cc_exec *ex)
{
  return ex ? ex->timers : NULL;
}
static inline void cc_exec_poll(const cc_exec *ex)
{
  if (ex && ex->poll) ex->poll(ex->poll_ctx);
}

/* Exchange the halo of x (3 doubles per node) with MPI_Isend/Irecv/Waitall, through the table's
 * own buffers (cc_comm_table_buffers): cc_halo_begin then cc_halo_end. */
CC_WUR cc_err cc_halo_exchange(const cc_comm_table *comm, double *x);
/* The exchange in two halves, so that work needing no halo value runs while the messages fly:
 * begin posts the receives, packs x's export nodes and posts the sends; end waits (the MPI_Waitall
 * timed as wait_region in t; t NULL: not timed) and unpacks. In between, x's internal part must
 * not change nor its halo part be read, and no other exchange may use the table's buffers. */
CC_WUR cc_err cc_halo_begin(const cc_comm_table *comm, double *x);
CC_WUR cc_err cc_halo_end(const cc_comm_table *comm, double *x, cc_timers *t,
                          cc_timer_id wait_region);
/* Row classes (a->row_class, a->n_interior; see cc_bcrs): interior rows read no halo column,
 * boundary rows do; each class keeps the matrix's row order. Made once, after the last reordering
 * (cc_ordering_apply drops them with the old rows); without them the SpMV waits for the whole
 * halo before any row (--halo-overlap off). */
CC_WUR cc_err cc_bcrs_classify_rows(cc_bcrs *a, const int32_t *order);
void cc_bcrs_unclassify_rows(cc_bcrs *a);
/* y = A x (b NULL) or the residual y = b - A x (b not NULL), on the internal rows, exchanging x's
 * halo on the way. With a's row classes: begin the exchange, the interior rows (the main thread
 * tests the halo messages and calls ex's poll hook every few thousand rows), wait, the boundary
 * rows; without them: the whole exchange, then every row. The exchange's two halves are timed as
 * halo_region (one count; the rows between them excluded), its MPI_Waitall also as wait_region.
 * Every row is computed by the same code either way, so both give the same bits. */
CC_WUR cc_err cc_spmv_halo(const cc_exec *ex, const cc_bcrs *a, const cc_comm_table *comm,
                           double *x, const double *b, double *y, cc_timer_id halo_region,
                           cc_timer_id wait_region);
/* y = A x on the internal rows: cc_spmv_halo timed CC_T_SPMV, halo CC_T_HALO / CC_T_HALO_WAIT. */
CC_WUR cc_err cc_spmv(const cc_exec *ex, const cc_bcrs *a, const cc_comm_table *comm, double *x,
                      double *y);
void cc_spmv_local(const cc_exec *ex, const cc_bcrs *a, const double *x, double *y); /* no comm */
void cc_spmv_ref(const cc_bcrs *a, const double *x, double *y); /* plain loop */
/* Local dot product over n doubles (OpenMP reduction, counted as CC_T_DOT). */
double cc_dot_local(const cc_exec *ex, int64_t n, const double *x, const double *y);
/* k <= 4 local dot products out[j] = (x[j], y[j]) in one pass over memory (counted as k CC_T_DOT;
 * like cc_dot_local, not timed: the caller times the dot region). */
void cc_dot_local_multi(const cc_exec *ex, int64_t n, int k, const double *const x[],
                        const double *const y[], double out[]);
/* Note: cc_halo_exchange itself is not timed, so that each caller attributes it to its own region:
 * cc_spmv times it as CC_T_HALO (wait CC_T_HALO_WAIT), ASDD as CC_T_PRECOND_HALO (wait
 * CC_T_PRECOND_HALO_WAIT). cc_spmv_local calls the exec's poll hook from the main thread every few
 * thousand rows. */

/* Vector updates over n doubles (OpenMP static), timed CC_T_AXPY and counted as one AXPY-type
 * operation per vector written (Table 1). */
void cc_vec_axpy(const cc_exec *ex, int64_t n, double alpha, const double *x,
                 double *y); /* y <- y + a x */
void cc_vec_xpby(const cc_exec *ex, int64_t n, const double *x, double beta, double *y); /* x+by */
void cc_vec_copy(const cc_exec *ex, int64_t n, const double *x, double *y); /* y <- x */
void cc_vec_sub(const cc_exec *ex, int64_t n, const double *x, const double *y,
                double *z); /* z <- x - y */
/* Not timed nor counted: zero-fill with the threads that stream the vector later (first touch). */
void cc_vec_zero(int64_t n, double *x);

/* ------------------------------------------------------------------------------------------------
 * Global reductions (sum of n <= CC_REDUCE_MAX doubles). AR: blocking MPI_Allreduce. IAR:
 * MPI_Iallreduce posted by cc_reduce_begin, completed by cc_reduce_end. cc_reduce_poll (the
 * kernels' poll hook, through cc_exec) is called by kernels between row blocks / colors when
 * progress mode is poll. An injected latency makes a reduction complete no earlier than latency_us
 * after it was posted (simulated network; the report labels it). The settings, the pending request,
 * the first poll error and the poll count live in a cc_reducer owned by the caller (a solve's
 * context).
 * ---------------------------------------------------------------------------------------------- */
typedef enum { CC_REDUCTION_AR, CC_REDUCTION_IAR, CC_REDUCTION_COUNT } cc_reduction_mode;
typedef enum { CC_PROGRESS_NONE, CC_PROGRESS_POLL, CC_PROGRESS_COUNT } cc_progress_mode;
/* The registries of reduction and progress modes (the only lists of their names), indexed by the
 * enum value: cc_reduction_list[CC_REDUCTION_IAR].name is "iar". */
typedef struct {
  const char *name;
  const char *description;
} cc_mode_kind;
extern const cc_mode_kind cc_reduction_list[CC_REDUCTION_COUNT];
extern const cc_mode_kind cc_progress_list[CC_PROGRESS_COUNT];

/* values one reduction may sum: s-step CG's Gram blocks at S = 10 (S(S+1)/2 + S^2 + S + 1 = 166) */
#define CC_REDUCE_MAX 256
typedef struct {
  MPI_Comm comm;
  MPI_Request request;
  int active;
  double posted_at;
  uint64_t trace_id; /* its request id in the --trace archive */
  double buffer[CC_REDUCE_MAX];
} cc_reduction;

typedef struct {
  MPI_Comm comm;
  cc_progress_mode progress;
  double latency_s;     /* injected latency */
  cc_timers *timers;    /* CC_T_REDUCTION (NULL: not timed) */
  cc_reduction *active; /* the posted IAR cc_reduce_poll may test */
  int poll_error;       /* first MPI_Test failure, reported by cc_reduce_end */
  int64_t polls;        /* MPI_Test calls made by cc_reduce_poll (reports, tests) */
  /* reductions of this reducer: blocking (MPI_Allreduce, each pays the whole latency), posted
   * (MPI_Iallreduce) and, of those, waited early (cc_reduce_end entered before posted + the
   * injected latency: a wait that pays part of it; 0 without --inject-reduction-latency) */
  int64_t blocking, posted, waited_early;
  int64_t waited; /* posted reductions completed by cc_reduce_end */
} cc_reducer;

CC_WUR cc_err cc_reducer_init(cc_reducer *rd, MPI_Comm comm, cc_progress_mode progress,
                              double inject_latency_us, cc_timers *timers);
CC_WUR cc_err cc_reduce_blocking(cc_reducer *rd, double *values, int n); /* AR, in place */
CC_WUR cc_err cc_reduce_begin(cc_reducer *rd, const double *values, int n, cc_reduction *red);
CC_WUR cc_err cc_reduce_end(cc_reducer *rd, cc_reduction *red, double *values, int n);
/* MPI_Test on rd's active request when progress = poll (signature of cc_exec.poll; rd is a
 * cc_reducer *). */
void cc_reduce_poll(void *rd);

/* ------------------------------------------------------------------------------------------------
 * Orderings (natural, rcm, mc, cm-rcm) of each rank's internal nodes. The system is permuted once
 * (matrix rows and columns, communication table items) so that each color is contiguous; vectors
 * are permuted in and out with the helpers below.
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  char kind[16];        /* "natural", "rcm", "mc", "cm-rcm" */
  int colors_requested; /* K */
  int n_colors;         /* colors actually used (0: sequential sweep, no independent sets) */
  int n_levels;         /* RCM levels (rcm, cm-rcm) */
  int n_nodes;          /* internal nodes */
  int *color_ptr;       /* [n_colors + 1] node ranges in the new numbering */
  int *new_of_old;      /* [n_nodes] */
  int *old_of_new;      /* [n_nodes] */
  /* CM-RCM's levels (NULL for the other orderings): color c holds levels c, c + K, c + 2K ... in
   * that order, and a node's neighbours lie a few levels away, in other colors. A color-by-color
   * pass therefore meets each vector entry once per neighbouring color, each time after a whole
   * color of the matrix has gone through the cache; visiting the levels in ascending order
   * instead keeps the few levels a row reads in cache. */
  int *level_first;     /* [n_levels] new id of the first node of each level */
  int32_t *level_order; /* [n_nodes] new ids level by level (SpMV: any row order, same y) */
  /* [n_colors] blocks of K levels by which color c's chunks lag (sgs_schedule.c): a coupled
   * lower-color node of a level in block t lies in a block <= t + shift[c] - shift[c'] */
  int *level_shift;
} cc_ordering;

CC_WUR cc_err cc_ordering_create(const char *kind, int colors, const cc_bcrs *a, cc_ordering *ord);
/* The ordering registry (ordering.c), the only list of their names; ends with a NULL name. */
struct cc_graph;
typedef struct {
  const char *name;
  const char *description;
  int needs_colors; /* colors >= 2 */
  cc_err (*create)(const struct cc_graph *g, int colors, cc_ordering *ord);
} cc_ordering_kind;
extern const cc_ordering_kind cc_ordering_list[];
/* Permute a's internal rows/columns (halo columns keep their ids) and the export items of comm. */
CC_WUR cc_err cc_ordering_apply(const cc_ordering *ord, cc_bcrs *a, cc_comm_table *comm);
/* Only the communication table's export items, for a matrix assembled in the new order by its
 * producer (cc_mesh_assemble_ordered): no second copy of the matrix is ever held. */
void cc_ordering_apply_comm(const cc_ordering *ord, cc_comm_table *comm);
void cc_ordering_permute(const cc_ordering *ord, const double *in_old, double *out_new);
void cc_ordering_unpermute(const cc_ordering *ord, const double *in_new, double *out_old);
void cc_ordering_free(cc_ordering *ord);

/* ------------------------------------------------------------------------------------------------
 * Preconditioners: z = M^-1 r on internal DOFs (r, z of length 3*n_cols). Chosen by name.
 * ---------------------------------------------------------------------------------------------- */
/* The precision of the preconditioner's stored blocks and sweeps (--precond-precision). SpMV, the
 * Krylov vectors and every reduction stay double either way. */
typedef enum {
  CC_PRECISION_DOUBLE = 0,
  CC_PRECISION_SINGLE,
  CC_PRECISION_HALF, /* IEEE binary16 blocks, each block row scaled by a power of 2 */
  CC_PRECISION_COUNT
} cc_precision;
/* Their names ("double", "single", "half"), indexed by the enum (precond.c). */
extern const cc_mode_kind cc_precision_list[CC_PRECISION_COUNT];
/* The binary16 conversion compiled into the half sweeps: "avx512" (AVX-512 F + BW: two blocks'
 * 16 halves per vcvtph2ps zmm, then vcvtps2pd zmm), "f16c" (vcvtph2ps + vcvtps2pd per block
 * column) or "portable" (scalar C, built without F16C). */
extern const char *const cc_half_conversion_path;

typedef struct {
  const char *name;            /* "asdd", "sgs", "jacobi", "none" */
  int asdd_iters;              /* >= 1; default 2 */
  const cc_ordering *ordering; /* colors for the multicolor sweep (NULL: natural sequential) */
  cc_precision precision;      /* default (0) double */
  /* CM-RCM sweeps (sgs_schedule.c): rows per chunk of levels; 0 = CC_SGS_CHUNK_ROWS, -1 = color
   * by color (Nakajima's order; the same bits either way) */
  int sweep_chunk_rows;
  /* ASDD's residual t = r - A (z + w) (--asdd-residual): 0 = fused into the next forward sweep
   * (default: t = L u - E_ext w, L read once, U, D and r not at all; precond_asdd.c), 1 = full
   * (its own pass over every block, as the study's ASDD) */
  int asdd_full_residual;
} cc_precond_params;

typedef struct cc_precond cc_precond;
struct cc_precond {
  const char *name;
  void *ctx;
  cc_err (*apply)(cc_precond *pc, const cc_exec *ex, double *r, double *z);
  void (*destroy)(cc_precond *pc);
  /* Set by create: bytes this rank's preconditioner holds beyond the matrix, and what the same
   * preconditioner in double precision would hold (equal for double). */
  int64_t bytes, bytes_double;
};

/* The preconditioner registry (precond.c), the only list of their names; ends with a NULL name. */
typedef cc_err (*cc_precond_create_fn)(const cc_precond_params *params, const cc_bcrs *a,
                                       const cc_comm_table *comm, cc_precond *pc);
typedef struct {
  const char *name;
  const char *description;
  cc_precond_create_fn create;
  int has_reduced; /* 1: has the reduced-precision forms, single and half (--precond-precision) */
} cc_precond_kind;
extern const cc_precond_kind cc_precond_list[];

CC_WUR cc_err cc_precond_create(const cc_precond_params *params, const cc_bcrs *a,
                                const cc_comm_table *comm, cc_precond **pc);
/* Timed (CC_T_PRECOND in ex's timers) and counted wrapper around pc->apply. cc_precond_create is
 * not timed: its caller times the set-up (CC_T_SETUP). */
CC_WUR cc_err cc_precond_apply(cc_precond *pc, const cc_exec *ex, double *r, double *z);
void cc_precond_destroy(cc_precond **pc);
/* dinv[9 i] = the inverse of row i's 3x3 diagonal block, as the point-block Jacobi preconditioner
 * ("jacobi") computes and applies it (a singular block is an error naming the node). */
CC_WUR cc_err cc_precond_jacobi_blocks(const cc_bcrs *a, const cc_comm_table *comm, double *dinv);

/* ------------------------------------------------------------------------------------------------
 * Krylov solvers (Alg.1-4, p(l)-CG, s-step CG) behind one solve call, chosen by name.
 * ---------------------------------------------------------------------------------------------- */
/* The solver state handed to a checkpoint callback or given back for a restart: cc_state, the one
 * solver-state type of cc_common.h (3*n_rows doubles per vector, the solver's ordering). */
typedef cc_state cc_solver_state;

typedef cc_err (*cc_checkpoint_fn)(void *ctx, const cc_solver_state *state);

/* cc_krylov_opts.replace_every: replace when the estimated gap |b - A x - r| / |b| (the rounding
 * error bound of Cools et al. 2018, accumulated per iteration) reaches sqrt(eps) tol-wise; see
 * cc_krylov_gap in krylov_impl.h */
#define CC_REPLACE_AUTO (-1)
/* the residual replacements a result lists one by one (more are counted, not listed) */
#define CC_MAX_REPLACEMENTS 64
#define CC_PLCG_MAX_DEPTH 8
#define CC_SSTEP_MAX 10
/* PCG iterations whose coefficients give the Lanczos estimate of M^-1 A's spectrum */
#define CC_SPECTRUM_LANCZOS_STEPS 20
/* The polynomials of the s-step basis v_{j+1} = (M^-1 A - theta_j) v_j / scale_j: monomial
 * (theta = 0, the reference), Chebyshev (shifted and scaled to [lambda_min, lambda_max]) or Newton
 * (theta = Leja-ordered Ritz values). Names in cc_sstep_basis_list. */
typedef enum {
  CC_SSTEP_CHEBYSHEV = 0,
  CC_SSTEP_NEWTON,
  CC_SSTEP_MONOMIAL,
  CC_SSTEP_BASIS_COUNT
} cc_sstep_basis;
extern const cc_mode_kind cc_sstep_basis_list[CC_SSTEP_BASIS_COUNT];
/* Called once per completed iteration (same iterations on every rank, after the checkpoint when
 * one is due) with the latest recursive |r|/|b|. Setting *stop (the same value on every rank: the
 * callback must agree collectively) ends the solve there: a last checkpoint is written when a
 * checkpoint callback is set and none was written at this iteration, the result is marked
 * interrupted and the solve returns CC_OK (x holds that iteration's iterate). */
typedef cc_err (*cc_monitor_fn)(void *ctx, int iteration, double rel_residual, int *stop);
/* A test seam: NaN or Inf put into r[0] of rank 0 at the end of iteration `iteration` (>= 1; 0 =
 * off), so that the breakdown path can be tested on a valid problem; with solver set, only in that
 * variant's solves. The driver fills it from CUBECG_KRYLOV_INJECT (src/test_seams.c). */
typedef struct {
  int iteration;
  double value;    /* NAN or INFINITY */
  char solver[32]; /* a variant's name, "" = every variant */
  /* debugging aid, not a fault: p(l)-CG's rank 0 prints each iteration's natural residual norm
   * and G's square-root argument to stderr (CUBECG_PLCG_TRACE set and not empty) */
  int plcg_trace;
} cc_krylov_inject;

typedef struct {
  double tol; /* |r|/|b| < tol; default 1e-8 */
  int maxit;  /* default 20000 */
  cc_reduction_mode reduction;
  int replace_every;           /* residual replacement period (0 = off); default 50 */
  cc_checkpoint_fn checkpoint; /* called every checkpoint_every iterations, NULL = never */
  void *checkpoint_ctx;
  int checkpoint_every;
  /* p(l)-CG and s-step CG only (the others always restart exactly): 1 = their recurrence
   * restarts after every checkpoint (a new p(l)-CG cycle from x, an s-step block that starts
   * afresh), so that a restart from a checkpoint continues bit for bit; 0 = a restart rebuilds
   * r and the basis from x (the same answer, not the same bits; no iterations lost) */
  int checkpoint_exact;
  const cc_solver_state *restart; /* resume from this state (NULL = x0 = 0) */
  cc_monitor_fn monitor;          /* per-iteration hook (NULL = none) */
  void *monitor_ctx;
  /* The solve's reduction settings (each solve its own: nothing process-wide). */
  cc_progress_mode progress; /* poll: kernels MPI_Test the pending IAR; default none */
  double inject_latency_us;  /* simulated reduction latency (>= 0); default 0 */
  int count_only;            /* 1: the solve's timers count, never read the clock */
  /* Where the solve times and counts (zeroed when it starts; callbacks may read it while it
   * runs): NULL = a table of the solve's own. Never shared by two solves running at once. */
  cc_timers *timers;
  /* --trace: the solve's regions, iterations and reductions also go to this OTF2 trace (the
   * solve's timers point to it; NULL = not traced) */
  cc_trace *trace;
  /* 1: the reference path, one pass over memory per Table-1 operation (each AXPY-type update and
   * each local dot its own sweep; --fused 0). 0 (default): the fused passes of each variant (its
   * updates and the local dots that follow them in one sweep, where the algorithm allows). Both
   * compute the same values element by element and the dots with the same OpenMP reductions. */
  int unfused;
  /* Recursive |r|/|b| of every iteration the solve checks (history[j] for iteration start + j;
   * the last one is result->rel_residual), at most history_cap values; NULL = not recorded. */
  double *history;
  int history_cap;
  /* p(l)-CG: pipeline depth L (1..CC_PLCG_MAX_DEPTH; 0 = 2) and the spectrum of M^-1 A its
   * Chebyshev shifts cover ([spectrum_min, spectrum_max]; both 0 = estimated by Lanczos from the
   * coefficients of CC_SPECTRUM_LANCZOS_STEPS PCG iterations run before the solve) */
  int pipeline_depth;
  double spectrum_min, spectrum_max;
  /* s-step CG: steps per block S (1..CC_SSTEP_MAX; 0 = 4) and the basis' polynomials */
  int sstep;
  cc_sstep_basis sstep_basis;
  const cc_krylov_inject *inject; /* test seam (NULL = none) */
} cc_krylov_opts;

typedef struct {
  char solver[16];
  char reduction[8];
  int iterations;
  int converged;
  char failure[160];          /* breakdown / maxit reason, "" when converged */
  int breakdown;              /* 1: stopped on a NaN, overflowed, subnormal or non-positive value
                               * (failure says which): a numerical error, not a slow solve */
  double rel_residual;        /* recursive |r|/|b| */
  double true_rel_residual;   /* |b - A x| / |b| after the solve */
  double time_s;              /* max over ranks */
  double seconds[CC_T_COUNT]; /* this rank's timers for the solve (the solve's own cc_timers) */
  int64_t count[CC_T_COUNT];  /* this rank's operation counts for the solve */
  int64_t polls;              /* MPI_Test calls of progress = poll during the solve */
  int start_iteration;        /* > 0 after a restart */
  int interrupted;            /* the monitor hook stopped the solve (signal); converged = 0 */
  int restart_rebuilt;        /* 1: restarted from x alone (state of another operator) */
  /* Operation counts per iteration measured inside the loop, between the end of the first and of
   * the last completed iteration (set-up, the final convergence check and the true residual
   * excluded; residual replacement amortised): Table 1 as run. 0 with fewer than 2 iterations. */
  double ops_per_iteration[CC_T_COUNT];
  /* Vector traffic per iteration measured the same way (see cc_krylov_traffic): full-vector
   * passes, doubles read and written per DOF by the vector kernels; residual replacement
   * amortised. With replace_every 0 these are the registry's vector_fused / vector_unfused. */
  double vector_passes_per_iteration, vector_reads_per_iteration, vector_writes_per_iteration;
  int history_len; /* values written to opts->history (<= history_cap) */
  /* The series this solve belongs to: the solver's name, or "plcg-l<L>", "sstep-s<S>". */
  char label[24];
  int pipeline_depth;   /* p(l)-CG's L (0 for the other variants) */
  int sstep;            /* s-step CG's S (0 for the other variants) */
  char sstep_basis[12]; /* s-step CG's basis ("" for the others) */
  /* p(l)-CG / s-step: the spectrum bounds used and where they came from ("option", "lanczos"),
   * the extreme Ritz values of the estimate and the PCG steps it took (0 with the option) */
  double spectrum_min, spectrum_max, ritz_min, ritz_max;
  char spectrum_source[12];
  int spectrum_steps;
  double spectrum_seconds; /* wall time of the estimate (inside time_s; not an iteration's) */
  int sqrt_breakdowns;     /* p(l)-CG: restarts after a square-root breakdown */
  int natural_iteration;   /* p(l)-CG: iteration where the natural-norm estimate fell below tol */
  /* the solve's global reductions (cc_reducer's counts): blocking, posted non-blocking, posted
   * but waited for before the injected latency elapsed; the spectrum estimate's blocking ones
   * (inside the blocking count, before iteration 0) */
  int64_t reductions_blocking, reductions_posted, reductions_waited_early;
  int64_t reductions_waited; /* posted ones completed by their wait */
  int spectrum_reductions;
  /* the same per iteration inside the loop (measured like ops_per_iteration: set-up, the
   * spectrum estimate and the final checks excluded): blocking, posted, waited early */
  double reductions_per_iteration[3];
  double basis_condition; /* s-step: largest condition estimate of a block's Gram matrix */
  /* residual replacements: how many, the iterations of the first CC_MAX_REPLACEMENTS, and with
   * --replace-every auto the largest estimated gap |b - A x - r| / |b| seen */
  int replacements;
  int replacement_iteration[CC_MAX_REPLACEMENTS];
  double gap_estimate_max;
} cc_solve_result;

/* Notes on the solve contract (cc_krylov_solve):
 * - result->iterations is the global iteration index reached (it continues from
 *   restart->iteration; the work done by this call is iterations - start_iteration); maxit bounds
 *   that global index. time_s, seconds[] and count[] cover the solve only (the true-residual check
 *   after it is not included); count[] includes residual-replacement work.
 * - A breakdown (non-positive or non-finite curvature / (r,u)), NaN or maxit returns CC_OK with
 *   converged = 0 and result->failure set; errors (bad options, MPI) return an error code.
 * - Restart continues exactly from the saved vectors and scalars (same recurrences, same
 *   replacement/checkpoint schedule by global iteration index). */
/* Table 1 of the study: the operations of one iteration of a variant (residual replacement and
 * set-up excluded). The solvers count them as they run (cc_solve_result.ops_per_iteration); these
 * are the published numbers, the registry's record of what each variant should do. */
typedef struct {
  int spmv, precond, dot, axpy, reductions;
} cc_krylov_ops;

/* Memory traffic of the Krylov vector kernels in one iteration (the AXPY-type updates and the
 * local dot products; SpMV, the preconditioner, residual replacement and set-up excluded: their
 * vectors belong to those kernels' own traffic). passes = sweeps over the vectors; reads / writes
 * = full vectors streamed in / out, i.e. doubles per DOF (a vector read twice in one pass counts
 * once). Bytes per iteration = 8 (reads + writes) x DOF of the rank. */
typedef struct {
  int passes, reads, writes;
} cc_krylov_traffic;

#define CC_KRYLOV_SIZES_MAX 4 /* distinct reduction sizes of one variant's iteration loop */
/* A solve's context (solvers/krylov_impl.h): what the variants' iterations share. */
typedef struct cc_krylov_ctx cc_krylov_ctx;

/* A variant's registry entry: const cc_krylov cc_krylov_<name> at the end of krylov_<name>.c,
 * listed once in CC_KRYLOV_VARIANTS (solvers/krylov.c). cc_krylov_solve runs it. */
typedef struct {
  const char *name;        /* "pcg", "cgcg", "pipecg", "gropp", "plcg", "sstep" */
  const char *description; /* "Alg.1 original PCG", ... */
  int supports_iar;        /* pcg: 0 (the only place that says so) */
  /* The variant's own options (depth, steps, basis, spectrum bounds), checked once with the
   * common ones, before anything is allocated or reduced; the refusal names the bad value.
   * NULL: the variant has none. */
  cc_err (*check)(const cc_krylov_opts *opts);
  /* The iteration from x (the restart state or the initial guess) to the answer in x, between
   * the common set-up (|b|, timers, reducer) and end (counts, true residual) of the solve. */
  cc_err (*iterate)(cc_krylov_ctx *k, double *b, double *x);
  cc_krylov_ops table1;
  /* vector traffic per iteration of the fused passes (default) and of the unfused reference
   * (cc_krylov_opts.unfused): read by the roofline traffic model */
  cc_krylov_traffic vector_fused, vector_unfused;
  /* 1: beyond the study's Alg.1-4 (p(l)-CG, s-step CG): their Table 1 row and traffic are those
   * of the default depth / steps, their tests are their own (one path: fused = unfused) */
  int deep;
  /* the traffic at a solve's own pipeline depth (p(l)-CG's L; one path, fused = unfused); NULL:
   * vector_fused / vector_unfused at every depth */
  cc_krylov_traffic (*vector_traffic_at)(int depth);
  /* the sizes (doubles) of the reductions the iteration loop posts at the solve's options (depth,
   * S, the guard's (x, x) of --replace-every auto), ascending; returns how many (the overlap probe
   * measures these) */
  int (*reduction_sizes)(const cc_krylov_opts *opts, int sizes[CC_KRYLOV_SIZES_MAX]);
} cc_krylov;
/* The traffic of a variant in the mode a solve ran (unfused = cc_krylov_opts.unfused), at the
 * registry's default depth. */
static inline cc_krylov_traffic cc_krylov_vector_traffic(const cc_krylov *v, int unfused)
{
  return unfused ? v->vector_unfused : v->vector_fused;
}
/* The same at the solve's depth (cc_krylov_opts.pipeline_depth; 0 = the variant's default). */
static inline cc_krylov_traffic cc_krylov_vector_traffic_at(const cc_krylov *v, int unfused,
                                                            int depth)
{
  return v->vector_traffic_at && depth > 0 ? v->vector_traffic_at(depth)
                                           : cc_krylov_vector_traffic(v, unfused);
}

/* Look up a variant by name; NULL if unknown. cc_krylov_list: NULL-terminated table. */
const cc_krylov *cc_krylov_find(const char *name);
extern const cc_krylov *const cc_krylov_list[];

/* Solve A x = b with the variant. x holds the initial guess on entry (used only when
 * opts->restart is NULL and nonzero), the solution on exit. b, x of length 3*n_cols. */
CC_WUR cc_err cc_krylov_solve(const cc_krylov *variant, const cc_bcrs *a, const cc_comm_table *comm,
                              cc_precond *pc, double *b, double *x, const cc_krylov_opts *opts,
                              cc_solve_result *result);

/* ------------------------------------------------------------------------------------------------
 * Memory-traffic model and STREAM triad (traffic.c): the one model that
 * cubecg-bench's bandwidths and the driver's modelled bytes per iteration and roofline fraction
 * use. The model itself (bytes per block, per row, per vector pass) is written out in traffic.c.
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  int64_t rows, blocks, blocks_lu; /* internal rows; stored blocks; internal off-diagonal blocks */
  double spmv;                     /* bytes of one y = A x on this rank (always double) */
  double sgs;     /* one forward + backward SGS sweep pair in the preconditioner's precision */
  double asdd;    /* one ASDD(N) application */
  double precond; /* one application of the named preconditioner */
  double dot;     /* one local dot product (two vectors) */
  double axpy;    /* one y <- y + a x */
  double stream;  /* one pass over one vector of the internal DOFs: 24 B/row */
} cc_traffic;

/* The model of a and the preconditioner pc would build (name, asdd_iters, ordering's colors,
 * precision) on this rank. */
CC_WUR cc_err cc_traffic_model(const cc_bcrs *a, const cc_precond_params *pc, cc_traffic *t);
/* Whole-vector passes (reads + writes) per iteration of a variant outside SpMV and M^-1, at the
 * solve's pipeline depth (cc_krylov_opts.pipeline_depth: p(l)-CG's L; 0 = the default). */
double cc_traffic_vector_passes(const cc_krylov *variant, int unfused, int depth);
/* Bytes of one iteration: spmv_per_it SpMVs, precond_per_it applications, the variant's passes
 * (the counts as measured, cc_solve_result.ops_per_iteration, so that residual replacement is
 * amortised as it ran; Table 1 gives 1 and 1). */
double cc_traffic_iteration(const cc_traffic *t, const cc_krylov *variant, int unfused, int depth,
                            double spmv_per_it, double precond_per_it);

/* STREAM triad a = b + s c over three arrays of n doubles per rank (24 B/element, write-allocate
 * not counted), first touched by the static schedule of the timed loop, i.e. by the same OpenMP
 * threads. node_bytes (the three arrays of all ranks of a node, e.g. 4x the last-level cache)
 * is split over the node's node_ranks ranks. Collective over comm. */
#define CC_TRIAD_MAX_REPEAT 64
typedef struct {
  MPI_Comm comm;
  int64_t n;    /* elements per array on this rank */
  double bytes; /* modelled bytes of one triad, summed over the ranks of comm */
  double *a, *b, *c;
} cc_triad;
CC_WUR cc_err cc_triad_create(MPI_Comm comm, double node_bytes, int node_ranks, cc_triad *tr);
/* One timed triad after a barrier; *seconds = the slowest rank's time (same on every rank). */
CC_WUR cc_err cc_triad_run(cc_triad *tr, double *seconds);
/* Median over repeat triads of the aggregate bandwidth: bytes / median slowest time. */
CC_WUR cc_err cc_triad_bandwidth(cc_triad *tr, int repeat, double *bytes_per_s);
/* The same triad with b[0, n) and c[0, n) from other allocations, read only, and a = tr->a[0, n)
 * (0 <= n <= tr->n, this rank's n): the bandwidth of those pages, e.g. the matrix's values
 * (--roofline's matrix-page triad). run: one, the slowest rank's time; bandwidth: the median over
 * repeat of 24 n summed over ranks / that time. */
CC_WUR cc_err cc_triad_run_over(cc_triad *tr, const double *b, const double *c, int64_t n,
                                double *seconds);
CC_WUR cc_err cc_triad_bandwidth_over(cc_triad *tr, const double *b, const double *c, int64_t n,
                                      int repeat, double *bytes_per_s);
void cc_triad_free(cc_triad *tr);
/* Median of v[0..n) (sorts v). */
double cc_median(double *v, int n);
/* The median over r < n of (bytes / t[r]) / (triad_bytes / t_triad[r]): a kernel's bandwidth over
 * that of the triad run just before it, run by run (0 for a run with a time <= 0). scratch: n
 * doubles. */
double cc_median_fraction_of_triad(double bytes, const double *t, double triad_bytes,
                                   const double *t_triad, int n, double *scratch);

#endif
