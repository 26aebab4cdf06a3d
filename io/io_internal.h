/* io_internal.h: pieces shared inside io/ only (not part of the module's contract): the per-rank
 * byte stream that posix/uring/fortran implement, the per-rank file format on top of it,
 * file-system helpers and the global-id redistribution used by the HDF5 writers. */
#ifndef CC_IO_INTERNAL_H
#define CC_IO_INTERNAL_H

#include "cc_io.h"

#include <dirent.h>
#include <pthread.h>

/* Sizes of io/ (one name each; the path sizes are in cc_io.h). */
#define IO_PATH_MAX CC_IO_PATH_MAX
#define IO_NAME_MAX 64     /* a name inside a checkpoint directory: rank.R.bin, ckpt.N, latest */
#define IO_MESSAGE_MAX 512 /* an error message handed between threads or ranks */
#define IO_QUEUE_DEPTH CC_IO_QUEUE_DEPTH

/* ------------------------------------------------------------------------------------------------
 * Byte stream of one per-rank file (backends/: io_posix.c, io_uring.c, io_fortran.c). No MPI
 * inside: streams also run on the offload helper thread.
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  const char *name;
  const char *extension; /* of the per-rank file: rank.<r>.<extension> */
  int record_marker;     /* bytes of the marker before and after each record (Fortran: 4) */
  size_t max_record;     /* largest record written at once (0 = unlimited) */
  cc_err (*open)(const char *path, cc_io_mode mode, const cc_io_options *opt, void **ctx);
  cc_err (*write)(void *ctx, const void *data, size_t n); /* one record when record_marker */
  cc_err (*read)(void *ctx, void *data, size_t n);        /* exactly n bytes (one record) */
  /* optional: the file will hold bytes bytes (uring: fallocate, so that O_DIRECT writes do not
   * extend the file one request at a time, which ext4 serialises) */
  cc_err (*reserve)(void *ctx, int64_t bytes);
  cc_err (*finish)(void *ctx, bool durable); /* write: everything in the file, fsync if durable */
  cc_err (*close)(void *ctx);                /* frees ctx */
  void (*describe)(void *ctx, char *path_used, size_t n_path, char *detail, size_t n_detail);
} io_stream_ops;

extern const io_stream_ops io_stream_posix;
extern const io_stream_ops io_stream_uring;
#ifdef CUBECG_HAVE_FORTRAN
extern const io_stream_ops io_stream_fortran;
#endif

/* Backend tables: each defined in its own file, listed once in the registry
 * (backends/io_registry.c). */

/* ------------------------------------------------------------------------------------------------
 * Per-rank file format (backends/io_rankfile.c): a 4096-byte header, then the vectors back to back.
 * rankfile_* implement a backend's open/write/commit/read/close over any stream; the layout's
 * comm is only used at open (rank, size), never afterwards (offload helper thread).
 * ---------------------------------------------------------------------------------------------- */
#define IO_RANKFILE_HEADER 4096
typedef struct io_rankfile io_rankfile;
CC_WUR cc_err io_rankfile_open(const io_stream_ops *stream, const cc_io_options *opt,
                               const cc_io_layout *layout, const char *dir, cc_io_mode mode,
                               void **ctx);
/* Same without touching MPI: rank, n_ranks and the global-id CRC given (offload helper). */
CC_WUR cc_err io_rankfile_open_as(const io_stream_ops *stream, const cc_io_options *opt, int rank,
                                  int n_ranks, int64_t n_local, int64_t n_global,
                                  int values_per_node, uint32_t gid_crc, const char *dir,
                                  cc_io_mode mode, void **ctx);
CC_WUR cc_err io_rankfile_write(void *ctx, const cc_io_state *state);
CC_WUR cc_err io_rankfile_commit(void *ctx, cc_io_file_info *info);
CC_WUR cc_err io_rankfile_read(void *ctx, cc_io_state *state, cc_io_file_info *info);
CC_WUR cc_err io_rankfile_close(void *ctx);
uint32_t io_global_id_crc(const cc_io_layout *layout);
/* A backend that is one byte stream under the per-rank file format (posix, uring, fortran): its
 * open (the rank file over io_stream_<id>) and its table io_backend_<id>, whose other entries are
 * the rank file's; release_fn frees what the stream keeps in an owner's resources (or NULL). */
#define IO_STREAM_BACKEND(id, release_fn)                                                          \
  static cc_err id##_open(const cc_io_options *opt, const cc_io_layout *layout, const char *dir,   \
                          cc_io_mode mode, void **ctx)                                             \
  {                                                                                                \
    CC_CALL(io_rankfile_open(&io_stream_##id, opt, layout, dir, mode, ctx));                       \
    return CC_OK;                                                                                  \
  }                                                                                                \
  const cc_io_backend_ops io_backend_##id = {.name          = #id,                                 \
                                             .open          = id##_open,                           \
                                             .write_vectors = io_rankfile_write,                   \
                                             .commit        = io_rankfile_commit,                  \
                                             .read_vectors  = io_rankfile_read,                    \
                                             .close         = io_rankfile_close,                   \
                                             .release       = release_fn}
/* memcpy(dst, src, n) and crc = CRC32C chained over those bytes, in one pass (util/io_crc32c.c) */
uint32_t io_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t n);

/* ------------------------------------------------------------------------------------------------
 * File system (util/io_fs.c) and the fault-injection test seam (util/io_inject.c)
 * ---------------------------------------------------------------------------------------------- */
CC_WUR cc_err io_fsync_path(const char *path); /* open + fsync (files and directories) */
CC_WUR cc_err io_mkdir_p(const char *path);
CC_WUR cc_err io_read_text(const char *path, char **text, size_t *n);
/* opendir, "cannot open directory PATH: why" when it fails (closedir it) */
CC_WUR cc_err io_dir_open(const char *path, DIR **d);
struct dirent *io_dir_next(DIR *d); /* readdir without "." and ".."; NULL at the end */
/* Inject a kill: raises SIGKILL when "kill-during-write[:N]" matches checkpoint number count. */
void io_inject_kill_point(void);
/* "kill-during-commit[:N]": raises SIGKILL inside the commit of checkpoint N (default 1) of this
 * process, after the manifest is written and the directory renamed, before latest is replaced. */
void io_inject_kill_commit_point(int checkpoint_number);
int io_inject_checkpoint_number(void); /* checkpoints begun by this process so far */
/* "kill-at-STEP[:N]": raises SIGKILL at one step of the commit of checkpoint N (default 1): STEP
 * manifest (written and synced, not renamed), latest (latest moved, retention not run), retention
 * (inside the removal of an old checkpoint, its manifest still there; N counts the new one). */
void io_inject_kill_step(const char *step, int checkpoint_number);
/* "enospc-in-commit[:N]": the manifest of checkpoint N (default 1) cannot be written (ENOSPC). */
bool io_inject_commit_enospc(int checkpoint_number);
/* Called once per checkpoint write (main thread): numbers the checkpoints for
 * "kill-during-write:N", restarts the byte count of "enospc-after", notes the rank. */
void io_inject_next_checkpoint(void);
void io_inject_note_rank(void); /* main thread: the MPI_COMM_WORLD rank "enospc-rank" compares */
/* "enospc-after=BYTES[,enospc-rank=R]": whether a write of n more bytes of the current checkpoint
 * must fail with ENOSPC on this process (then the writer reports strerror(ENOSPC)). Thread-safe. */
bool io_inject_enospc(size_t n);

/* ------------------------------------------------------------------------------------------------
 * Global-id redistribution (util/io_redistribute.c): rank r owns the contiguous global block
 * [block_start[r], block_start[r+1]); forward moves this rank's values (layout order) into the
 * block (global order), backward the other way. Collective; MPI_Alltoallv of node-sized items.
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  MPI_Comm comm;
  bool identity; /* every rank already holds its block in order: no exchange */
  int size, vpn;
  int64_t n_local, n_block;
  int64_t *block_start;                                   /* [size + 1] */
  int *send_count, *send_displ, *recv_count, *recv_displ; /* in nodes */
  int64_t *send_order;                                    /* local node index of each sent item */
  int64_t *recv_position;                                 /* block position of each received item */
  double *send_buf, *recv_buf;
  MPI_Datatype node_type; /* vpn doubles */
} io_redist;
/* block_start NULL: blocks of n_local nodes in rank order (offset from MPI_Exscan). Verifies the
 * global ids cover [0, n_global) exactly once (agreed error otherwise). When every rank's ids are
 * already its block in order, rd->identity is set and forward/backward are plain copies (callers
 * may then use the layout's vectors directly). */
CC_WUR cc_err io_redist_create(const cc_io_layout *layout, const int64_t *block_start,
                               io_redist *rd);
CC_WUR cc_err io_redist_forward(io_redist *rd, const double *local, double *block);
CC_WUR cc_err io_redist_backward(io_redist *rd, const double *block, double *local);
void io_redist_free(io_redist *rd);

/* ------------------------------------------------------------------------------------------------
 * Resources kept across the opens of one owner (util/io_resources.c): a checkpointer or a
 * cc_io_handle creates one, passes it to its backend in cc_io_options.resources and destroys it
 * with itself. Each backend keeps what it caches (helper thread, ring, redistribution, store)
 * behind its own opaque slot, found by its ops table, and frees it in its own file through the
 * table's release entries, which backends/io_registry.c calls over the registry. Nothing is kept
 * per process: two owners never share a helper thread, a staging buffer or a ring.
 * ---------------------------------------------------------------------------------------------- */
#define IO_RESOURCE_SLOTS 8 /* backends of the registry that keep something (checked there) */
struct io_resources {
  pthread_mutex_t lock;      /* for a backend's slot content that a helper thread reaches too
                                (the uring ring, opened by the offload helper) */
  pthread_mutex_t slot_lock; /* guards the slot table below (io_resources_slot) */
  const cc_io_backend_ops *slot_ops[IO_RESOURCE_SLOTS];
  void *slot[IO_RESOURCE_SLOTS];
  bool collective_owner; /* its owner calls io_resources_release_collective before destroying it
                            (a checkpointer's finish): a backend may keep objects whose freeing
                            needs every rank (the gas store's window) across the owner's opens */
};
CC_WUR cc_err io_resources_create(io_resources **res, bool collective_owner);
/* The backend's slot in res (created empty, NULL inside, at the first call; thread-safe): the
 * backend casts *slot to its own type. res NULL or no slot left: NULL. */
void **io_resources_slot(io_resources *res, const cc_io_backend_ops *backend);
/* The slot if the backend has taken one, else NULL (no slot is created). */
void **io_resources_find(io_resources *res, const cc_io_backend_ops *backend);
void io_resources_free(io_resources **res); /* the table itself: after every release */
/* Over the registry (backends/io_registry.c): release_collective entries (collective: every rank of
 * the owner together), then at destroy the release entries, in reverse registry order (a backend
 * built over another, offload over uring, comes after it and is released first). */
CC_WUR cc_err io_resources_release_collective(io_resources *res);
void io_resources_destroy(io_resources **res); /* joins the helper, frees staging, exits the ring */
/* Offload (backends/io_offload.c): allocate and touch the owner's staging buffer now. */
CC_WUR cc_err io_offload_reserve(io_resources *res, size_t bytes);
/* Offload: run fn(arg) on the owner's helper thread (created if needed), which must be idle (its
 * write collected by commit). No MPI inside fn. io_offload_task_done says whether it finished
 * (wait: blocks until it has); when it has, *err and message (its innermost error text) get the
 * outcome and the helper is idle again. Main thread only. */
typedef cc_err (*io_offload_task_fn)(void *arg);
CC_WUR cc_err io_offload_task_submit(io_resources *res, io_offload_task_fn fn, void *arg);
bool io_offload_task_done(io_resources *res, bool wait, cc_err *err, char *message, size_t n);

/* Checkpoint manifest (checkpoint/ckpt_manifest.c): JSON written by rank 0, parsed by every rank.
 */
typedef struct {
  char file[IO_NAME_MAX]; /* name inside the checkpoint directory */
  int rank;               /* writer rank (-1: shared) */
  int64_t bytes;
  uint32_t crc32c;
  bool crc_of_data; /* "crc_of": "data": crc32c is the backend's data CRC (cc_io_file_info), checked
                       by the ranks as they read; otherwise of the file's bytes */
} io_manifest_file;
typedef struct {
  int version;
  char backend[24];
  int iteration;
  char solver[16];
  int nx, ny, nz, ranks, values_per_node;
  int64_t n_global_nodes;
  char partition[32], ordering[16];
  /* the system's parameters (cc_io_metadata.has_problem); has_problem false in a manifest written
   * before they were recorded: a restart cannot verify them */
  bool has_problem;
  double E, nu, traction;
  char precond[16];
  int colors, asdd_iters;
  char asdd_residual[8];             /* as cc_io_metadata's */
  char settings[CC_IO_SETTINGS_MAX]; /* as cc_io_metadata's: "settings" */
  bool durable;
  int n_vectors;
  char vector_name[CC_IO_MAX_VECTORS][CC_IO_NAME_LEN];
  int n_files;
  io_manifest_file *files;
} io_manifest;
CC_WUR cc_err io_manifest_write(const char *path, const io_manifest *m, bool durable);
/* Parses manifest text (NUL-terminated, any bytes: bounded, never crashes) with cJSON. Unknown keys
 * are tolerated; a missing or mistyped required key is refused naming the key and path. The
 * "problem" object is optional (older manifests): m->has_problem says whether it was complete. */
CC_WUR cc_err io_manifest_parse(const char *text, const char *path, io_manifest *m);
void io_manifest_free(io_manifest *m);

/* Parallel HDF5 helpers (backends/io_hdf5.c), hid_t as int64_t (HDF5 >= 1.10) to keep hdf5.h out of
 * here. Collective. write/read select [start, start+count) of an n-dimensional double dataset
 * (created by write, no fill, contiguous) and transfer it with H5FD_MPIO_COLLECTIVE; *io_mode
 * receives the actual I/O mode (H5Pget_mpio_actual_io_mode) as text. */
CC_WUR cc_err io_h5_open(const char *path, MPI_Comm comm, cc_io_mode mode, int64_t *file);
CC_WUR cc_err io_h5_close(int64_t *file);
/* io_h5_write agrees on comm (the file's communicator) before each collective it enters, so a
 * failure on one rank never leaves the others inside HDF5; the error is returned on every rank. */
CC_WUR cc_err io_h5_write(MPI_Comm comm, int64_t file, const char *name, int ndims,
                          const uint64_t *dims, const uint64_t *start, const uint64_t *count,
                          const double *data, char *io_mode, size_t n_io_mode);
/* Collective: each rank reserves its slice of bytes for the open file at path (rank r: bytes
 * [r B / P, (r + 1) B / P), posix_fallocate), agreed. */
CC_WUR cc_err io_h5_reserve(const char *path, MPI_Comm comm, int64_t bytes);
int64_t io_h5_estimate(int n_datasets, int64_t bytes_each); /* upper bound of the file's size */
CC_WUR cc_err io_h5_read(int64_t file, const char *name, int ndims, const uint64_t *dims,
                         const uint64_t *start, const uint64_t *count, double *data);

/* XDMF descriptions (export/io_xdmf.c): of an HDF5 file holding datasets [n_global][vpn] (the hdf5
 * backend's state.h5), and of the solution export's file (geometry: the dataset of the node
 * coordinates, "coordinates" or "deformed_coordinates"). */
CC_WUR cc_err io_write_xdmf_state(const char *xmf_path, const char *h5_name, int nx, int ny, int nz,
                                  int vpn, int n_vectors, const char (*names)[CC_IO_NAME_LEN]);
CC_WUR cc_err io_write_xdmf_solution(const char *xmf_path, const char *h5_name,
                                     const cc_io_export_params *p, const char *geometry);

/* The uring backend's explicit path chain (backends/io_uring.c), shared with the gas store's SSD
 * file (backends/gas/gas_ssd.c): fixed+direct -> unregistered+direct -> pwrite+direct -> buffered.
 */
typedef enum {
  PATH_FIXED_DIRECT,
  PATH_URING_DIRECT,
  PATH_PWRITE_DIRECT,
  PATH_BUFFERED
} io_uring_path;
extern const char *const io_uring_path_names[4]; /* as reported in path_used */

#endif
