/* cc_common.h: the contract shared by every cubecg library.
 *
 * - Errors travel up (cc_error.h, included here): cc_err, CC_CALL, CC_CHECK, the error chain.
 * - Data shared between mesh/ (producer) and solvers/, io/ (consumers): the GeoFEM-style
 *   communication table and the 3x3 block CRS matrix.
 * - Timing regions: a fixed enum around MPI_Wtime, reduced over ranks only at the end.
 * - 64-byte aligned allocation (cc_malloc / cc_free).
 */
#ifndef CC_COMMON_H
#define CC_COMMON_H

#include <errno.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cc_error.h"

#define CC_VERSION "0.1.0"
/* bumped whenever the JSON report's layout changes; jobs/analyze.py refuses other versions */
#define CC_REPORT_VERSION 2

/* The one solver-state type: what a CG variant hands its checkpoint callback, what io/
 * writes and reads back, and what a restart gives the variant. Named vectors of n_local doubles
 * (the solver's internal DOFs, its ordering) and named scalars. A variant declares its state once
 * (cc_state_decl: the names, counts taken from the arrays); solvers/ fills and restores it by loop.
 * The limits are those of the per-rank checkpoint format (8 names of 32 bytes each kind). */
#define CC_STATE_MAX_VECTORS 8
#define CC_STATE_MAX_SCALARS 8
#define CC_STATE_NAME_LEN 32
typedef struct {
  char solver[16];
  int iteration;
  int n_vectors;
  char vector_name[CC_STATE_MAX_VECTORS][CC_STATE_NAME_LEN];
  double *vector[CC_STATE_MAX_VECTORS];
  int n_scalars;
  char scalar_name[CC_STATE_MAX_SCALARS][CC_STATE_NAME_LEN];
  double scalar[CC_STATE_MAX_SCALARS];
  int64_t n_local; /* doubles per vector (solvers: 3 * n_rows) */
  /* 1: written by this very operator and preconditioner (same ranks and partition): the restart
   * continues exactly. 0 (e.g. hdf5 read on another rank count, where ASDD's M^-1 differs): only
   * x is taken, and the variant starts its recurrences afresh from it (r = b - A x, u = M^-1 r,
   * w = A u, p = u, ...), since every other saved vector or scalar holds the old M^-1 or A. */
  int same_operator;
} cc_state;

/* A variant's one declaration of its state: the names, in the order of its vector and scalar
 * arrays. CC_STATE_DECL(vector_names, scalar_names) counts them from the arrays. */
typedef struct {
  int n_vectors;
  const char *const *vector_name;
  int n_scalars;
  const char *const *scalar_name;
} cc_state_decl;
#define CC_STATE_DECL(vector_names, scalar_names)                                                  \
  {                                                                                                \
    (int)(sizeof(vector_names) / sizeof(vector_names)[0]), (vector_names),                         \
        (int)(sizeof(scalar_names) / sizeof(scalar_names)[0]), (scalar_names)                      \
  }

/* The one byte-size parser (cc_size.c): a decimal integer with an optional binary suffix k, M, G or
 * T (optionally followed by "iB" or "B"); no sign, fraction, exponent or hex; at most 2^62 bytes.
 * Errors are CC_ERR_ARG naming the text. */
CC_WUR cc_err cc_parse_bytes(const char *text, int64_t *bytes);

/* ------------------------------------------------------------------------------------------------
 * Memory: 64-byte aligned, zero-initialised where noted; size overflow checked.
 * ---------------------------------------------------------------------------------------------- */
#define CC_ALIGN 64
/* Vector loops over fewer doubles than this run on one thread (fork/join would cost more): the
 * `if (n > CC_OMP_CHUNK)` of every OpenMP vector loop. */
#define CC_OMP_CHUNK 16384
CC_WUR cc_err cc_malloc(size_t count, size_t elem_size, void *ptr_out);
CC_WUR cc_err cc_calloc(size_t count, size_t elem_size, void *ptr_out);
void cc_free(void *ptr_in); /* takes the address of the pointer, sets it to NULL */
/* cc_free of each address of a NULL-terminated list: cc_free_all((void *[]){&s->a, &s->b, NULL}) */
void cc_free_all(void *const *addresses);
/* The parent directory of path, in place: trailing slashes dropped, then the last component;
 * "name" -> ".", "/name" -> "/". */
void cc_path_to_parent(char *path, size_t size);
/* An output file, before the work: its directory exists and is writable, it is no directory, and
 * its name with longest_suffix appended (a temporary, a companion file) fits NAME_MAX / PATH_MAX.
 * CC_ERR_ARG naming --option and the path otherwise. */
CC_WUR cc_err cc_check_output_file(const char *option, const char *path, size_t longest_suffix);
/* The directory an output file goes into exists and is writable (exit-2 wording: --OPTION PATH). */
CC_WUR cc_err cc_check_output_dir(const char *option, const char *path);
/* Peak resident set size of this process in bytes (from getrusage), 0 if unknown. */
int64_t cc_peak_rss_bytes(void);

/* ------------------------------------------------------------------------------------------------
 * Communication table (GeoFEM style). Local nodes: internal [0, n_internal), external (halo)
 * [n_internal, n_total). Each neighbour i sends us the values of import_item[import_index[i] ..
 * import_index[i+1]) (local external ids) and we send it export_item[export_index[i] ..
 * export_index[i+1]) (local internal ids). The import list of a neighbour matches, in order, its
 * export list to us.
 * ---------------------------------------------------------------------------------------------- */
/* Scratch of the halo exchange, owned by its table: created by cc_comm_table_buffers once the
 * items are final, freed by cc_comm_table_free (so an exchange allocates nothing). */
typedef struct {
  int n_neighbors, n_import, n_export; /* the sizes they were made for (checked per exchange) */
  int *direct;         /* [n_neighbors] imports contiguous: receive straight into x's halo */
  double *send, *recv; /* [3 n_export], [3 n_import] */
  MPI_Request *req;    /* [2 n_neighbors] */
  MPI_Status *status;  /* [2 n_neighbors] (GCC warns on MPI_STATUSES_IGNORE) */
} cc_halo_buffers;

typedef struct {
  MPI_Comm comm;
  int rank, size;
  int n_neighbors;
  int *neighbor_rank;   /* [n_neighbors] */
  int *import_index;    /* [n_neighbors + 1] */
  int *import_item;     /* [import_index[n_neighbors]] */
  int *export_index;    /* [n_neighbors + 1] */
  int *export_item;     /* [export_index[n_neighbors]] */
  cc_halo_buffers halo; /* halo-exchange scratch (cc_comm_table_buffers) */
} cc_comm_table;
/* (Re)create the table's halo-exchange buffers for its current sizes (frees the old ones: a
 * struct copy of a table shares them, so zero the copy's .halo before calling this on it). */
CC_WUR cc_err cc_comm_table_buffers(cc_comm_table *table);
void cc_comm_table_free(cc_comm_table *table); /* items and buffers */

/* ------------------------------------------------------------------------------------------------
 * 3x3 block CRS matrix over local nodes: rows are the internal nodes, columns are local node ids
 * (internal and external). A block is 9 contiguous doubles, row-major: a[3*r + c]. Column indices
 * of a row are sorted ascending; diag_pos[i] is the position of the diagonal block of row i.
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  int n_rows;        /* internal nodes */
  int n_cols;        /* internal + external nodes */
  int64_t n_blocks;  /* nonzero blocks in row_ptr/col_idx/val (the lower part not included) */
  int64_t *row_ptr;  /* [n_rows + 1] */
  int32_t *col_idx;  /* [n_blocks] */
  double *val;       /* [9 * n_blocks] */
  int64_t *diag_pos; /* [n_rows] */
  /* Optional split storage (GeoFEM's AL apart from D, AU): when l_ptr is not NULL, the strictly
   * lower blocks of row i (columns < i, all internal) are l_col/l_val[l_ptr[i] .. l_ptr[i+1]) and
   * row i of row_ptr/col_idx/val starts with its diagonal block, then the upper internal blocks,
   * then the external ones. A forward Gauss-Seidel sweep then streams L contiguously instead of
   * skipping the upper half of every row (which halves its bandwidth). */
  int64_t *l_ptr; /* [n_rows + 1] or NULL */
  int32_t *l_col;
  double *l_val;
  /* Optional row classes for hiding the halo exchange behind rows that need no halo value
   * (cc_bcrs_classify_rows in solvers/, after the last reordering): NULL, or the interior rows
   * (every column internal) in row_class[0, n_interior), then the boundary rows (touching a halo
   * column) in row_class[n_interior, n_rows), each class in ascending row order. */
  int32_t *row_class; /* [n_rows] or NULL */
  int n_interior;
} cc_bcrs;
void cc_bcrs_free(cc_bcrs *a);

/* Row i's strictly lower blocks, split or not: positions [*begin, *end) of (*col, *val). */
static inline void cc_bcrs_lower(const cc_bcrs *a, int64_t i, int64_t *begin, int64_t *end,
                                 const int32_t **col, const double **val)
{
  if (a->l_ptr) {
    *begin = a->l_ptr[i], *end = a->l_ptr[i + 1], *col = a->l_col, *val = a->l_val;
  } else {
    *begin = a->row_ptr[i], *end = a->diag_pos[i], *col = a->col_idx, *val = a->val;
  }
}
/* Total blocks including the split-off lower part. */
static inline int64_t cc_bcrs_blocks(const cc_bcrs *a)
{
  return a->n_blocks + (a->l_ptr ? a->l_ptr[a->n_rows] : 0);
}

/* ------------------------------------------------------------------------------------------------
 * Timing regions and operation counters. A cc_timers is a plain value owned by whoever measures:
 * the run has one for its stages, each Krylov solve one of its own (nothing is process-wide, so
 * two solves in one process never see each other's counts). Regions nest: cc_timer_start returns
 * a token that its cc_timer_stop consumes (the preconditioner's halo exchange is inside the
 * preconditioner). Count = number of times a region was entered, which doubles as the operation
 * counter (SpMV, preconditioner, dot, AXPY-type update...). A NULL cc_timers * is allowed
 * everywhere and measures nothing (built-in checks, tests).
 * ---------------------------------------------------------------------------------------------- */
typedef enum {
  CC_T_MESH,
  CC_T_PARTITION,
  CC_T_ASSEMBLY,
  CC_T_ORDERING,
  CC_T_SETUP,        /* preconditioner set-up (diagonal inverses, ...) */
  CC_T_SOLVE,        /* whole Krylov solve */
  CC_T_SPMV,         /* SpMV including its halo exchange */
  CC_T_HALO,         /* halo exchange of SpMV: its begin and end halves (rows overlapped excluded) */
  CC_T_PRECOND,      /* preconditioner application including ASDD halo exchange */
  CC_T_PRECOND_HALO, /* halo exchange inside ASDD (as CC_T_HALO) */
  CC_T_AXPY,         /* vector updates (one count per AXPY-type vector update) */
  CC_T_DOT,          /* local dot products (one count per dot product) */
  CC_T_REDUCTION, /* AR: inside MPI_Allreduce; IAR: blocked in MPI_Wait (one count per reduction) */
  CC_T_CHECKPOINT, /* checkpoint time seen by the solver (stall) */
  CC_T_EXPORT,
  CC_T_HALO_WAIT,         /* inside CC_T_HALO: blocked in MPI_Waitall for the halo messages */
  CC_T_PRECOND_HALO_WAIT, /* inside CC_T_PRECOND_HALO: the same for ASDD's exchanges */
  CC_T_TOTAL,
  CC_T_COUNT
} cc_timer_id;

/* The OTF2 event trace of --trace (cc_trace.h): the timers' region hooks write to it. */
typedef struct cc_trace cc_trace;
void cc_trace_enter(cc_trace *tr, cc_timer_id id);
void cc_trace_leave(cc_trace *tr, cc_timer_id id);

typedef struct cc_timers {
  double seconds[CC_T_COUNT];
  int64_t count[CC_T_COUNT];
  int count_only; /* 1: count regions but never read the clock (--timing off) */
  /* where the regions are also traced (set after cc_timers_init; NULL = not traced: the hooks
   * cost one predictable branch) */
  cc_trace *trace;
} cc_timers;

/* What cc_timer_start hands to the matching cc_timer_stop. */
typedef struct {
  cc_timer_id id;
  double started;
} cc_timer_token;

const char *cc_timer_name(cc_timer_id id);
/* Zero all regions; count_only as above. */
void cc_timers_init(cc_timers *t, int count_only);
/* One entry of region id that took `seconds` measured elsewhere (counted; seconds dropped when
 * count_only). */
void cc_timers_record(cc_timers *t, cc_timer_id id, double seconds);
/* t += u, region by region (seconds and counts). */
void cc_timers_add(cc_timers *t, const cc_timers *u);

/* Enter region id, counting n operations (n = 1 for one entry; 0 when the kernels inside count
 * their own operations; k for a fused update of k vectors). */
static inline cc_timer_token cc_timer_start_n(cc_timers *t, cc_timer_id id, int64_t n)
{
  cc_timer_token tok = {id, 0.0};
  if (!t) return tok;
  t->count[id] += n;
  if (t->trace) cc_trace_enter(t->trace, id); /* before the clock: not inside the region's time */
  if (!t->count_only) tok.started = MPI_Wtime();
  return tok;
}
static inline cc_timer_token cc_timer_start(cc_timers *t, cc_timer_id id)
{
  return cc_timer_start_n(t, id, 1);
}
static inline void cc_timer_stop(cc_timers *t, cc_timer_token tok)
{
  if (!t) return;
  if (!t->count_only) t->seconds[tok.id] += MPI_Wtime() - tok.started;
  if (t->trace) cc_trace_leave(t->trace, tok.id);
}
/* The trace the regions of t go to (NULL: none, or t is NULL). */
static inline cc_trace *cc_timers_trace(const cc_timers *t)
{
  return t ? t->trace : NULL;
}
/* Count an operation without timing it (e.g. each AXPY inside one timed fused update). */
static inline void cc_count_op(cc_timers *t, cc_timer_id id, int64_t n)
{
  if (t) t->count[id] += n;
}

/* splitmix64 (Steele, Lea, Flood 2014): the output function of state z. Deterministic
 * pseudo-random values are cc_splitmix64(seed-dependent state); one generator for the project. */
static inline uint64_t cc_splitmix64(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
#define CC_SPLITMIX64_GAMMA 0x9E3779B97F4A7C15ULL /* the state increment (golden ratio) */
/* A uniform double in [-1, 1) from 53 bits of z's splitmix64 output. */
static inline double cc_splitmix64_unit(uint64_t z)
{
  return (double)(cc_splitmix64(z) >> 11) * 0x1.0p-52 - 1.0;
}

/* min / mean / max over ranks of a local value. */
typedef struct {
  double min, mean, max;
} cc_stat;
CC_WUR cc_err cc_stat_reduce(MPI_Comm comm, double local, cc_stat *out);

/* ------------------------------------------------------------------------------------------------
 * Small JSON writer (rank-0 reports): keeps nesting state so commas are placed automatically.
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  FILE *out;
  int depth;
  int need_comma[32];
} cc_json;
void cc_json_begin_object(cc_json *js, const char *key); /* key NULL inside arrays / at top */
void cc_json_end_object(cc_json *js);
void cc_json_begin_array(cc_json *js, const char *key);
void cc_json_end_array(cc_json *js);
void cc_json_string(cc_json *js, const char *key, const char *value);
void cc_json_double(cc_json *js, const char *key, double value); /* non-finite -> null */
void cc_json_int(cc_json *js, const char *key, int64_t value);
void cc_json_bool(cc_json *js, const char *key, int value);
/* %.17g (round-trips a double: residual histories compared across runs); non-finite -> null */
void cc_json_double_exact(cc_json *js, const char *key, double value);

#endif
