/* cc_io.h: checkpoint I/O of cubecg: backends behind one interface, the checkpoint
 * manager (atomic commit, manifest, CRC32C, retention, restart) and the solution export
 * (HDF5+XDMF). Seeds' study of normal / accelerated / offload I/O, brought to Linux (io_uring,
 * pthreads, MPI-IO).
 *
 * Contract:
 * - io/ sees named vectors over a node layout, nothing of solvers/ or mesh/. A vector holds
 *   values_per_node doubles per local node; node i of this rank is global node global_node_id[i]
 *   (any order; each global id in [0, n_global_nodes) owned by exactly one rank). The layout's
 *   arrays must stay valid while a checkpointer or handle uses them.
 * - Backends, chosen by name (cc_io_backend_find):
 *     "posix"   one file per rank, fopen/fwrite/fflush, setvbuf(buffer_bytes), fsync when durable;
 *     "uring"   one file per rank, O_DIRECT + io_uring, queue_depth + 1 buffers registered once per
 *               owner (checkpointer or handle) (write_fixed/read_fixed), queue_depth requests in flight, file fallocate'd
 *               first, tail padded to 4096 and truncated back; with options.fallback the chain
 *               uring-fixed-direct -> uring-direct (unregistered) -> pwrite-direct ->
 *               pwrite-buffered, the path used is reported (cc_io_file_info.path_used);
 *     "offload", "offload-posix", "offload-uring"
 *               a helper pthread writes (posix or uring underneath) while the caller goes on: the
 *               caller only copies the vectors into a staging buffer (the stall); commit waits;
 *     "hdf5"    one shared file (parallel HDF5, MPI-IO collective), one dataset [n_global][vpn]
 *               per vector in global order: readable with any number of ranks;
 *     "fortran" one file per rank, unformatted sequential WRITE/READ (only when built with a
 *               Fortran compiler: CUBECG_HAVE_FORTRAN).
 *   Per-rank files are "rank.<r>.bin" (fortran: .fbin): a 4096-byte header, then the vectors back
 *   to back; the shared file is "state.h5", with "state.xmf" beside it (ParaView) when the
 *   metadata's nx*ny*nz equals n_global_nodes.
 * - Checkpoints: DIR/ckpt.<iteration>/ with manifest.json (version, mesh, ranks, partition,
 *   iteration, solver, ordering, backend, every file's size and CRC32C (Castagnoli)), and
 *   DIR/latest naming the newest complete one. Write protocol: files into DIR/ckpt.<it>.tmp/,
 *   fsync files when durable, every rank reports, MPI_Allreduce decides (cc_error_agree), rank 0
 *   writes the manifest, fsyncs it and the directory, renames tmp -> ckpt.<it>, fsyncs DIR, writes
 *   latest.tmp, fsyncs, renames it to latest, fsyncs DIR, and only then retires checkpoints beyond
 *   keep: each rank removes its own files of them, then rank 0 the rest. Every CRC is computed by
 *   the rank that wrote the file, from memory as it was written (hdf5: each rank's block of each
 *   dataset, combined in rank order with cc_io_crc32c_combine; the manifest's "crc_of": "data"),
 *   and checked at a restart by the ranks that read it. A failed or interrupted checkpoint never
 *   replaces a good one. One run per DIR: creating
 *   a checkpointer removes the DIR/ckpt.*.tmp an interrupted run left, and refuses a DIR holding
 *   checkpoints of another problem (see cc_io_checkpointer_create). The manifest is JSON read with
 *   cJSON; it records the problem's parameters (cc_io_metadata) that a restart checks.
 * - Ownership: the offload helper thread, its staging buffer and the uring ring belong to the
 *   checkpointer or handle that opened them (io_resources), created on first use and released with
 *   it; nothing is kept per process, so checkpointers and handles never share or stop each other's.
 *   Each commit lists the files it wrote (cc_io_file_info.name, side files included) and the
 *   backend name that reads them back (written_as): the manager knows no backend.
 * - Failure paths: an error on one rank is agreed on (cc_agree) before the next collective call,
 *   so every rank leaves a failed checkpoint together; the hdf5 backend reserves its file's space
 *   (each rank its slice, posix_fallocate) before the collective transfers, where MPI-IO would report an
 *   ENOSPC on one rank only and leave the others inside HDF5.
 * - io/ starts no timer of cc_common.h: the solver times its checkpoint callback (CC_T_CHECKPOINT);
 *   cc_io_checkpointer_stats reports stall, write and commit seconds of this rank.
 * - Offload commit: after the state is copied into the staging buffer the caller never
 *   waits on the file system. Phase 1, each rank's helper thread: create DIR/ckpt.<it>.tmp (no
 *   agreement first), write + fsync the rank file. Phase 2, main thread, non-blocking: once the
 *   helper is done (backend ready()), MPI_Igather of every rank's outcome (ok or the error text,
 *   size, CRC32C) to rank 0. Phase 3, rank 0's helper thread: when every rank wrote, the manifest,
 *   fsyncs, rename, latest and retention (publish), else the temporary is removed; rank 0 then
 *   MPI_Ibcasts the verdict. cc_io_checkpointer_poll (the driver calls it once per iteration)
 *   tests the requests and hands phase 3 to the helper; the next write or finish waits for the
 *   rest (its stall) and returns a failure there, agreed, naming the rank and the cause.
 *   Why non-blocking collectives and not MPI_THREAD_MULTIPLE from the helper: the driver asks for
 *   MPI_THREAD_FUNNELED unless the MPICH progress thread is on, and MULTIPLE makes MPICH lock every
 *   call of the solver too, which would change what the study measures. The non-blocking
 *   collectives run on a private MPI_Comm_dup of the layout's communicator, so that ranks may post
 *   them at different iterations without meeting the solver's reductions. A failed or killed
 *   offload never replaces the previous checkpoint (latest moves only after every rank's file is
 *   durable and the manifest and directory are); the next checkpoint waits for the previous one.
 *   The helper runs under SCHED_BATCH (not with CUBECG_OFFLOAD_SCHED_OTHER=1): waking it never
 *   preempts the solver thread, which on a busy core made a 1 ms staging copy cost 10-90 ms.
 * - HDF5 1.10 cannot close a file whose metadata cannot be written (ENOSPC): such a file is
 *   abandoned, not closed (closing twice crashes HDF5 at exit); its temporary directory is removed.
 * - Test seam: a fault-injection spec (comma-separated), handed over by cc_io_set_inject, makes io/
 *   misbehave on purpose (io/ reads no environment variable: the driver passes CUBECG_IO_INJECT
 *   once, src/test_seams.c, and the benchmarks and test programs pass theirs): "odirect-einval" = the uring backend acts as if open(O_DIRECT) failed with EINVAL;
 *   "uring-eperm" = io_uring_queue_init fails with EPERM; "register-enomem" =
 *   io_uring_register_buffers fails with ENOMEM; "uring-short" = every fresh uring request
 *   completes only half (the rest is resubmitted); "uring-eio" = uring completions fail with EIO;
 *   "kill-during-write" = a writer raises SIGKILL after writing part of its file (hdf5: after the
 *   first dataset); "kill-during-write:N" does so during the N-th checkpoint of the process;
 *   "kill-during-commit[:N]" = the committing rank raises SIGKILL inside the commit of the N-th
 *   checkpoint (default 1), after its manifest is written and its directory renamed, before latest
 *   moves (offload: on the helper thread); "enospc-in-commit[:N]" = writing the manifest of the
 *   N-th checkpoint (default 1) fails with ENOSPC (offload: on rank 0's helper, after every rank's
 *   file is durable);
 *   "enospc-after=BYTES" = once BYTES bytes of the current checkpoint are written by this process,
 *   writes fail with ENOSPC (posix/fortran: the stream's write; uring: the completion or pwrite;
 *   hdf5: this rank's block of a dataset, before the collective transfer), on every rank or, with
 *   "enospc-rank=R", on MPI_COMM_WORLD rank R only.
 * - Collective functions are marked so; they must be called by every rank of layout->comm.
 *   Errors that one rank sees are agreed on, so every rank returns the error (naming the file).
 */
#ifndef CC_IO_H
#define CC_IO_H

#include "cc_common.h"

#include <stdbool.h>

#define CC_IO_MAX_VECTORS CC_STATE_MAX_VECTORS
#define CC_IO_MAX_SCALARS CC_STATE_MAX_SCALARS
#define CC_IO_NAME_LEN CC_STATE_NAME_LEN
#define CC_IO_MANIFEST_VERSION 1
/* Path sizes of io/: a checkpoint directory (params.dir) has fewer than CC_IO_DIR_MAX bytes, so
 * that every path io/ builds inside it (DIR/ckpt.<n>.tmp/rank.<r>.bin, ...) fits in CC_IO_PATH_MAX.
 */
#define CC_IO_DIR_MAX 1024
#define CC_IO_CKPT_DIR_MAX (CC_IO_DIR_MAX + 64) /* DIR/ckpt.<n>[.tmp] */
#define CC_IO_PATH_MAX 4096
#define CC_IO_QUEUE_DEPTH 4 /* uring: default requests in flight */
#define CC_IO_MAX_FILES 4   /* files one rank's commit may list (cc_io_file_info.name) */
#define CC_IO_FILE_NAME_LEN 64
#define CC_IO_SETTINGS_MAX 2048 /* cc_io_metadata.settings */

/* ------------------------------------------------------------------------------------------------
 * Layout, metadata, state
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  MPI_Comm comm;
  int64_t n_local_nodes;         /* nodes owned by this rank (internal nodes) */
  const int64_t *global_node_id; /* [n_local_nodes], any order, each global id on one rank */
  int64_t n_global_nodes;
  int values_per_node; /* 3 for displacement-like vectors */
} cc_io_layout;

/* Recorded in the manifest and checked at restart (0 / "" = not checked). */
typedef struct {
  int nx, ny, nz;
  char partition[32]; /* "box 1x1x2", "metis" ... */
  char solver[16];
  char ordering[16];
  /* The parameters that define the linear system, recorded in the manifest's "problem" object when
   * has_problem. A restart refuses any difference (doubles compared bitwise-exactly, printed with
   * %.17g) naming the option; a manifest without them (older cubecg) only gets a warning that they
   * cannot be verified. */
  bool has_problem;
  double E, nu, traction;
  char precond[16];
  int colors, asdd_iters;
  /* ASDD's residual ("fused" | "full", --asdd-residual) when precond is ASDD with >= 2
   * iterations, else ""; a manifest without it was written with the full residual */
  char asdd_residual[8];
  /* The run's settings (src/options.c: the options that define the computation), one
   * "option=value" a line, as the options parser reads them; the manifest's "settings" object
   * (option: value). io/ stores and returns them without reading them: the driver compares them at
   * a restart. "" = none (a manifest written before they were recorded). */
  char settings[CC_IO_SETTINGS_MAX];
  int ranks; /* cc_io_checkpoint_describe: the rank count that wrote the checkpoint */
} cc_io_metadata;

/* Named vectors (n_local_nodes * values_per_node doubles each, the layout's node order) and named
 * scalars. For writing the caller fills names and pointers (not copied beyond the call, except by
 * offload, which stages the values). cc_io_checkpoint_read allocates the vectors (cc_malloc); free
 * them with cc_io_state_free. */
typedef cc_state cc_io_state; /* the one solver-state type (cc_common.h); n_local and
                                 same_operator are not written */
void cc_io_state_free(cc_io_state *state);

/* ------------------------------------------------------------------------------------------------
 * Backends: one file each in backends/ (io_posix.c, io_uring.c, io_offload.c, io_hdf5.c, ...)
 * ---------------------------------------------------------------------------------------------- */
typedef enum { CC_IO_WRITE, CC_IO_READ } cc_io_mode;

/* What one owner (a checkpointer, a handle) keeps across its opens: the offload helper thread and
 * staging buffer, the uring ring and registered buffers. Internal to io/. */
typedef struct io_resources io_resources;

typedef struct {
  size_t buffer_bytes;     /* posix: setvbuf size; uring: bytes per request (rounded up to 4096);
                              0 = default (posix: 512 KiB, uring: 1 MiB) */
  int queue_depth;         /* uring: requests in flight (default 4); registered bytes =
                              queue_depth * buffer_bytes, reduced to fit RLIMIT_MEMLOCK (reported) */
  bool durable;            /* fsync files when committed */
  size_t writeback_bytes;  /* posix writes: start the kernel's writeback of the file every this
                              many bytes written (sync_file_range, not waiting), so a durable
                              commit's fsync has only the tail left; 0 = off. Default
                              CC_IO_WRITEBACK_DEFAULT (the checkpointer: 0 when not durable) */
  bool fallback;           /* uring: allow the fallback chain instead of failing */
  bool checksum;           /* compute CRC32C of each per-rank file while writing/reading */
  char inner[16];          /* offload: "posix" (default) or "uring" */
  bool read_into;          /* read_vectors fills the caller's state->vector[0..n_vectors) instead of
                              allocating (the benchmark: no allocation inside a timed read) */
  io_resources *resources; /* set by io/ only: the owner's (cc_io_open, the checkpointer) */
  const struct cc_gas_params *gas; /* gas backend: the store's geometry (NULL = defaults, pages
                                      inside the checkpoint); the caller keeps it alive */
  int keep;                        /* gas backend: the checkpointer's retention (page files) */
  int grid[3]; /* nx, ny, nz of the structured grid the nodes form (0 = unknown): shared-file
                  backends write a viewer's description beside their file when nx*ny*nz equals
                  n_global_nodes (hdf5: state.xmf, XDMF) */
} cc_io_options;
#define CC_IO_WRITEBACK_DEFAULT ((size_t)16 << 20)
/* 0, 4, durable, writeback 16 MiB, no fallback, checksum, posix */
void cc_io_options_default(cc_io_options *opt);

/* What a handle wrote on this rank (after commit) or read (after read_vectors). */
typedef struct {
  char file[CC_IO_PATH_MAX]; /* full path of this rank's file ("" on ranks > 0 for shared files) */
  /* The files this rank's commit wrote, as names inside the directory (shared-file backends: rank 0
   * lists them, the others none); name[0] is file, with bytes and crc32c below; the others (side
   * files such as state.xmf) have their size and CRC taken from the disk by the rank that wrote
   * them. */
  int n_files;
  char name[CC_IO_MAX_FILES][CC_IO_FILE_NAME_LEN];
  char written_as[24]; /* the backend name that reads these files back (manifest "backend"):
                          "posix", "offload-uring", ... */
  int64_t bytes;       /* its size */
  uint32_t crc32c;     /* over its bytes (valid when has_crc) */
  bool has_crc;
  bool crc_of_data; /* crc32c is of the data the backend wrote, in its defined order, not of the
                       file's bytes (hdf5: pieces CRC'd by the ranks that hold them, combined) */
  char path_used[48]; /* "stdio", "uring-fixed-direct", "uring-direct", "pwrite-direct",
                         "pwrite-buffered", "fortran-sequential", "mpio-collective" ... */
  char detail[160];   /* backend notes: uring buffers/limits, HDF5 actual I/O mode */
  double write_s;     /* seconds spent writing + syncing (offload: on the helper thread) */
  double stall_s;     /* offload: seconds the caller spent staging the snapshot */
} cc_io_file_info;

typedef struct {
  const char *name;
  bool shared_file;    /* one file for all ranks; every call is collective */
  bool any_rank_count; /* a restart may use another number of ranks */
  bool asynchronous;   /* write_vectors may return before the data is written */
  /* open a file set in dir: per-rank backends open dir/rank.<r>.bin; shared ones dir/state.h5 */
  cc_err (*open)(const cc_io_options *opt, const cc_io_layout *layout, const char *dir,
                 cc_io_mode mode, void **ctx);
  cc_err (*write_vectors)(void *ctx, const cc_io_state *state);
  /* flush (and fsync when durable): after it the data is in the file; fills info */
  cc_err (*commit)(void *ctx, cc_io_file_info *info);
  /* allocates state->vector[] (n_local_nodes * values_per_node doubles each); with
   * opt->read_into the caller passes state->n_vectors buffers in state->vector[] instead, and the
   * file must hold exactly that many vectors */
  cc_err (*read_vectors)(void *ctx, cc_io_state *state, cc_io_file_info *info);
  cc_err (*close)(void *ctx); /* frees ctx; removes nothing */
  /* asynchronous backends: whether commit would return at once (the data is written and synced,
   * or the write failed); never blocks. NULL: commit never waits. */
  bool (*ready)(void *ctx);
  /* What the backend keeps across the opens of one owner (its slot in cc_io_options.resources,
   * *slot NULL when nothing is kept; both entries leave it NULL). release frees it, not
   * collectively: what needs every rank to be freed (a window, a communicator) is left to
   * MPI_Finalize. release_collective (called on every rank of the owner together, before release:
   * a checkpointer's finish) frees that too. NULL: nothing to free that way. */
  void (*release)(void **slot);
  cc_err (*release_collective)(void **slot);
} cc_io_backend_ops;

/* "posix", "uring", "offload[-posix|-uring]", "hdf5", "fortran"; NULL if unknown or not built.
 * For "offload-X", opt (may be NULL) gets inner = X. */
const cc_io_backend_ops *cc_io_backend_find(const char *name, cc_io_options *opt);
/* comma-separated list of the backends built in, e.g. "posix,uring,offload,hdf5,fortran" */
const char *cc_io_backend_names(void);
/* The i-th name of the backend registry (only backends built in), NULL past the end. */
const char *cc_io_backend_name(int i);

/* A convenience handle over one backend (used by the checkpointer and the I/O benchmark). */
typedef struct cc_io_handle cc_io_handle;
CC_WUR cc_err cc_io_open(const char *backend, const cc_io_options *opt, const cc_io_layout *layout,
                         const char *dir, cc_io_mode mode, cc_io_handle **handle);
CC_WUR cc_err cc_io_write_vectors(cc_io_handle *handle, const cc_io_state *state);
CC_WUR cc_err cc_io_commit(cc_io_handle *handle);
CC_WUR cc_err cc_io_read_vectors(cc_io_handle *handle, cc_io_state *state);
CC_WUR cc_err cc_io_close(cc_io_handle **handle);
const cc_io_file_info *cc_io_handle_info(const cc_io_handle *handle);

/* ------------------------------------------------------------------------------------------------
 * Checkpoints
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  char backend[24];        /* default "posix" */
  char dir[CC_IO_DIR_MAX]; /* checkpoint directory (created if missing) */
  int every;               /* the driver's period (recorded only) */
  int keep;                /* committed checkpoints kept (default 2, >= 1) */
  bool durable;            /* default true */
  size_t io_buffer_bytes;  /* 0 = backend default */
  size_t io_writeback_bytes; /* posix: cc_io_options.writeback_bytes (default
                                CC_IO_WRITEBACK_DEFAULT, 0 = off) */
  int queue_depth;         /* uring; default 4 */
  bool fallback;           /* uring fallback chain allowed (default false) */
  int n_vectors_hint;      /* offload: allocate + touch staging for this many vectors at create */
  bool overwrite; /* dir may hold checkpoints of another problem, or newer ones of this problem:
                     remove them (cubecg's own only, recognised by their manifests) at create */
  int start_iteration; /* the iteration this run starts from (a restart's; 0 for a fresh run):
                          checkpoints of the same problem newer than it are refused at create;
                          default -1: not known, not looked for (library users) */
  const struct cc_gas_params *gas; /* gas backend's store geometry (NULL = defaults); kept alive by
                                      the caller while the checkpointer lives */
} cc_io_checkpoint_params;
void cc_io_checkpoint_params_default(cc_io_checkpoint_params *params);

typedef struct {
  int count;               /* checkpoints committed */
  double stall_s;          /* time the caller was blocked in write + finish (this rank) */
  double write_s;          /* time writing + syncing the files (this rank; offload: helper) */
  double commit_s;         /* time the caller spent in the commit (part of stall_s; offload: the
                              wait for the previous checkpoint at the next write or finish) */
  int64_t bytes;           /* bytes written by this rank (all checkpoints) */
  int64_t bytes_all_ranks; /* bytes of all ranks (all checkpoints) */
  char path_used[48];      /* see cc_io_file_info */
  char detail[160];
  int last_iteration; /* of the newest committed checkpoint, -1 if none */
} cc_io_checkpoint_stats;

typedef struct cc_io_checkpointer cc_io_checkpointer;

/* One checkpoint, as this rank saw it (cc_io_checkpointer_records). */
typedef struct {
  int iteration;
  bool committed;  /* false: failed and discarded, or not concluded yet */
  double stall_s;  /* the caller blocked because of it: write (offload: the staging copy), polls,
                      and the wait for its commit at the next write or finish */
  double wait_s;   /* offload: the part of stall_s waiting for its helper or the agreement */
  double write_s;  /* writing + syncing this rank's file (offload: on the helper) */
  double commit_s; /* rank 0: manifest, fsyncs, rename, latest, retention (offload: on its
                      helper); 0 on the other ranks */
} cc_io_checkpoint_record;

/* One job per checkpoint directory (checkpoint/ckpt_lock.c). Collective: rank 0 creates dir (mkdir -p) and takes
 * dir/cubecg.lock (flock, naming its host and PID); a lock another live process holds is refused
 * with CC_ERR_ARG naming that holder; a lock file whose holder died (killed) is reported on stderr
 * and taken over; a file under that name that holds no lock text (a user's, or not a regular file)
 * is refused with CC_ERR_ARG and left alone. Held until cc_io_dir_lock_release (which removes the
 * file it locked). */
typedef struct cc_io_dir_lock cc_io_dir_lock;
CC_WUR cc_err cc_io_dir_lock_acquire(const char *dir, MPI_Comm comm, cc_io_dir_lock **lock);
void cc_io_dir_lock_release(cc_io_dir_lock **lock);

/* The name of iteration's checkpoint inside its directory ("ckpt.<iteration>"), for messages,
 * reports and tests: every checkpoint name is spelled by io/ckpt_names.c. Returns out. */
const char *cc_io_checkpoint_name(int iteration, char *out, size_t n);

/* What a checkpoint directory (dir/latest, else dir itself) holds, from its manifest, read by rank 0
 * and broadcast: a restart takes the options the user left at their default from it. Collective. */
CC_WUR cc_err cc_io_checkpoint_describe(const char *dir, MPI_Comm comm, cc_io_metadata *meta);

/* The iteration of the checkpoint a restart from dir would load (dir/latest, else dir itself),
 * read by rank 0 and broadcast. Collective. */
CC_WUR cc_err cc_io_checkpoint_iteration(const char *dir, MPI_Comm comm, int *iteration);

/* Collective, with dir's lock held, before any work: whether a checkpointer created with params
 * and meta would be refused (CC_ERR_ARG naming why: newer progress of this problem, another
 * problem without params->overwrite, a user's file under a name this run would write or replace).
 * Changes nothing; cc_io_checkpointer_create checks the same again. */
CC_WUR cc_err cc_io_checkpoint_dir_check(const cc_io_checkpoint_params *params,
                                         const cc_io_metadata *meta, MPI_Comm comm);

/* Collective. Validates params, creates dir. Nothing is removed before the problem is checked.
 * cubecg's own entries only are ever removed: a committed checkpoint is dir/ckpt.<n>, a directory
 * with a readable manifest.json, and only the files that manifest lists (and the manifest) go; a
 * directory that still holds other files is kept and reported; a stale dir/ckpt.<n>.tmp of an
 * interrupted run loses the files cubecg names (rank.*, state.*, gas.*, manifest.json) only.
 * A newest checkpoint of the same problem beyond params->start_iteration is refused with CC_ERR_ARG
 * naming --restart dir, unless params->overwrite (then those newer ones are removed).
 * Retention after each commit removes only the series' checkpoints older than the newest keep.
 * When dir already holds checkpoints (dir/latest, else the newest ckpt.<n>), their manifest is
 * compared with meta: a checkpoint of another problem (mesh, solver, ordering or, when
 * meta->has_problem, E, nu, traction, precond, colors, ASDD iterations) is refused with CC_ERR_ARG
 * naming dir and the differing value, unless params->overwrite, which removes dir's checkpoints
 * and latest first. The same problem continues: a new checkpoint of an iteration that already
 * exists replaces it atomically (renameat2 RENAME_EXCHANGE when it is latest). */
CC_WUR cc_err cc_io_checkpointer_create(const cc_io_checkpoint_params *params,
                                        const cc_io_layout *layout, const cc_io_metadata *meta,
                                        cc_io_checkpointer **ckpt);
/* Collective. Writes state as checkpoint state->iteration (offload: stages it and commits the
 * previous one). On failure the previous checkpoint stays latest and the error is returned. */
CC_WUR cc_err cc_io_checkpointer_write(cc_io_checkpointer *ckpt, const cc_io_state *state);
/* Collective. Waits for an offloaded checkpoint and commits it. */
CC_WUR cc_err cc_io_checkpointer_finish(cc_io_checkpointer *ckpt);
/* Never blocks; main thread. Moves an offloaded checkpoint's commit on (tests its non-blocking
 * agreement, hands the commit to rank 0's helper). Every rank should call it now and then (the
 * driver: once per iteration), not necessarily at the same iterations; no-op for other backends
 * and when nothing is pending. Returns only MPI errors; failures of the checkpoint itself come
 * from the next write or finish. */
CC_WUR cc_err cc_io_checkpointer_poll(cc_io_checkpointer *ckpt);
void cc_io_checkpointer_stats(const cc_io_checkpointer *ckpt, cc_io_checkpoint_stats *stats);
/* This rank's record of every checkpoint written so far, oldest first; valid until the next write
 * or destroy. */
void cc_io_checkpointer_records(const cc_io_checkpointer *ckpt,
                                const cc_io_checkpoint_record **records, int *n);
/* Not collective: joins the helper thread; an uncommitted offloaded checkpoint is abandoned. */
void cc_io_checkpointer_destroy(cc_io_checkpointer **ckpt);

/* Collective. Loads the newest complete checkpoint of dir (dir/latest; or dir itself when it holds
 * a manifest.json). Verifies version, mesh (expect's nonzero fields), rank count (unless the
 * backend is hdf5), the layout's global ids, file sizes and CRC32C; refuses with an error naming
 * the file. params may be NULL (defaults; the backend is the manifest's). Fills state (free it with
 * cc_io_state_free); *info_out (may be NULL) gets the manifest's backend and path. */
typedef struct {
  char backend[24];
  char checkpoint_dir[CC_IO_CKPT_DIR_MAX];
  int ranks_written;
  char partition[32]; /* the manifest's partition, e.g. "box 1x1x2" (same operator test) */
  int iteration;
} cc_io_restart_info;
CC_WUR cc_err cc_io_checkpoint_read(const char *dir, const cc_io_checkpoint_params *params,
                                    const cc_io_layout *layout, const cc_io_metadata *expect,
                                    cc_io_state *state, cc_io_restart_info *info_out);

/* ------------------------------------------------------------------------------------------------
 * Solution export, read by ParaView/VTK (vtkXdmfReader) and meshio alike. --export-solution FILE
 * writes FILE.h5 and FILE.xmf (a FILE ending in .h5 loses that suffix first):
 *   FILE.h5   /coordinates, /displacement [N][3] (N = nx ny nz, global node g = i + nx (j + ny k)
 *             at (i, j, k)), /cells [C][8] int64 hexahedra in VTK order (C = (nx-1)(ny-1)(nz-1)),
 *             with deformed: /deformed_coordinates = coordinates + displacement; root attributes
 *             cubecg_version, description, nx, ny, nz, E, nu, traction;
 *   FILE.xmf  XDMF 2, one uniform grid: Hexahedron topology, XYZ geometry, node-centred vectors
 *             displacement (and deformed_coordinates);
 *   FILE-deformed.xmf  (deformed only) the same grid on the deformed coordinates.
 * Collective; the mesh needs nx, ny, nz >= 2.
 * ---------------------------------------------------------------------------------------------- */
typedef struct {
  int nx, ny, nz;
  double E, nu, traction; /* recorded as attributes */
  bool deformed;          /* also the deformed coordinates */
} cc_io_export_params;
CC_WUR cc_err cc_io_export_solution(const cc_io_layout *layout, const cc_io_export_params *params,
                                    const double *u, const char *file);
/* The names cc_io_export_solution writes for FILE (each buffer of size bytes). */
CC_WUR cc_err cc_io_export_paths(const char *file, char *h5, char *xmf, char *deformed_xmf,
                                 size_t size);

/* ------------------------------------------------------------------------------------------------
 * Utilities shared with the benchmark and tests
 * ---------------------------------------------------------------------------------------------- */
/* CRC32C (Castagnoli, reflected 0x82F63B78), zlib-style chaining: crc = cc_io_crc32c(crc, p, n),
 * starting from 0; cc_io_crc32c(0, "123456789", 9) = 0xE3069283. SSE4.2 when compiled in. */
uint32_t cc_io_crc32c(uint32_t crc, const void *data, size_t n);
uint32_t cc_io_crc32c_sw(uint32_t crc, const void *data, size_t n); /* table-driven */
uint32_t cc_io_crc32c_hw(uint32_t crc, const void *data, size_t n); /* = _sw if no SSE4.2 */
bool cc_io_crc32c_hw_available(void);
/* The CRC32C of A||B from crc1 = CRC32C(A), crc2 = CRC32C(B) and len2 = |B| bytes: pieces computed
 * by different ranks combine into the CRC of the whole (in order; not commutative). */
uint32_t cc_io_crc32c_combine(uint32_t crc1, uint32_t crc2, int64_t len2);
/* CRC32C and size of a whole file (buffered reads). */
CC_WUR cc_err cc_io_file_crc32c(const char *path, uint32_t *crc, int64_t *bytes);
/* "8k", "512K", "1M", "1G", "4096" -> bytes (powers of 1024). */
CC_WUR cc_err cc_io_parse_bytes(const char *text, size_t *bytes);
/* Test seam: the fault-injection spec io/ follows from now on (the syntax of the contract above;
 * NULL or "" = none). The caller keeps spec alive and sets it before the I/O it is meant for (the
 * driver once, before any; a test between its phases), not while an offload helper writes. */
void cc_io_set_inject(const char *spec);
/* Whether the spec set by cc_io_set_inject contains what (see the contract above). */
bool cc_io_inject(const char *what);

#endif
