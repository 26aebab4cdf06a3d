/* ckpt_internal.h: the checkpoint manager's state, shared by its files (io/checkpoint/):
 * ckpt_ownership.c (what in a directory is cubecg's own, and its removal), ckpt_problem.c (the
 * problem a checkpoint belongs to), ckpt_create.c (creating a checkpointer), ckpt_commit.c (the
 * commit protocol: manifest, rename, latest, retention), ckpt_async.c (what overlaps the solve:
 * the offloaded commit's phases, write, poll, finish) and ckpt_restart.c (the verified restart).
 * The protocol is described in cc_io.h. */
#ifndef CC_CKPT_INTERNAL_H
#define CC_CKPT_INTERNAL_H

#include "ckpt_names.h"
#include "io_internal.h"

/* What one rank's commit wrote (cc_io_file_info), gathered on rank 0 for the manifest; offload:
 * also whether its write failed, and why (the agreement of phase 2). */
typedef struct {
  int64_t bytes; /* of name[0] */
  uint32_t crc;
  int has_crc, n_files, crc_of_data;
  char name[CC_IO_MAX_FILES][CC_IO_FILE_NAME_LEN];
  int64_t sizes[CC_IO_MAX_FILES]; /* of each file, with its CRC32C: by the rank that wrote it */
  uint32_t crcs[CC_IO_MAX_FILES];
  int err;                          /* offload: this rank's write failed (cc_err) */
  char message[IO_MESSAGE_MAX / 2]; /* ... with this innermost message */
  double write_s;                   /* offload: the helper's write + fsync */
} rank_file;

/* The checkpoints a commit retired (retention): rank 0 decides, every rank then removes its own
 * files from them (ckpt_unlink_own), and rank 0 the rest (ckpt_remove_retired) once every rank
 * has: no rank does every rank's file work. More than CKPT_RETIRE_MAX at once (a lowered
 * --checkpoint-keep) are removed by rank 0 alone. */
#define CKPT_RETIRE_MAX 16
typedef struct {
  int32_t n;
  int32_t iteration[CKPT_RETIRE_MAX];
} ckpt_retired;

/* Offload: what rank 0 tells every rank once the commit is decided (phase 3's outcome). */
typedef struct {
  int32_t err;          /* CC_OK: committed */
  int32_t committed;    /* the new checkpoint is latest */
  int64_t total;        /* bytes of all ranks */
  double commit_s;      /* rank 0's helper: manifest, fsyncs, renames, latest, retention */
  ckpt_retired retired; /* the checkpoints retention retired */
  char message[IO_MESSAGE_MAX];
} ckpt_outcome;

/* Offload commit phases of the pending checkpoint (cc_io.h, "Offload commit"). */
typedef enum {
  PHASE_IDLE,       /* nothing pending */
  PHASE_WRITING,    /* 1: the helper writes + fsyncs this rank's file */
  PHASE_AGREEING,   /* 2: MPI_Igather of every rank's outcome to rank 0 posted */
  PHASE_COMMITTING, /* 3: rank 0's helper publishes (or discards) the checkpoint */
  PHASE_OUTCOME     /* MPI_Ibcast of rank 0's verdict posted */
} ckpt_phase;

struct cc_io_checkpointer {
  cc_io_checkpoint_params params;
  cc_io_options opt;
  const cc_io_backend_ops *ops;
  io_resources *resources; /* this checkpointer's offload helper / uring ring, nobody else's */
  cc_io_layout layout;
  cc_io_metadata meta;
  int rank, size;
  /* the checkpoint written but not yet committed */
  bool pending;
  void *ctx;
  cc_err pending_err;
  int iteration, n_vectors;
  char vector_name[CC_IO_MAX_VECTORS][CC_IO_NAME_LEN];
  char tmp[CC_IO_CKPT_DIR_MAX];
  cc_io_file_info info;
  cc_io_checkpoint_stats stats;
  int checkpoint_number; /* of this process (test seams) */
  /* per checkpoint, oldest first */
  cc_io_checkpoint_record *records;
  int n_records, records_capacity;
  /* offload (ops->asynchronous): the pending checkpoint's commit, advanced without blocking by
   * cc_io_checkpointer_poll and completed by the next write or finish */
  MPI_Comm comm; /* private duplicate of layout.comm: only these collectives, in order */
  ckpt_phase phase;
  MPI_Request request;
  rank_file mine;       /* Igather's send buffer */
  rank_file *all;       /* rank 0: every rank's (Igather's receive buffer) */
  ckpt_outcome outcome; /* Ibcast's buffer */
  int failed_rank;      /* rank 0: the lowest rank whose write failed (-1: none) */
  ckpt_retired retired; /* rank 0, offload: retired checkpoints whose rest is still to remove
                           (by the next commit's helper, or finish), every rank's files gone */
};

/* ---- ckpt_ownership.c ---------------------------------------------------------------------- */
/* The manifest of checkpoint dir/name, read and parsed (io_manifest_free it). */
CC_WUR cc_err ckpt_read_manifest(const char *dir, const char *name, io_manifest *m);
/* Whether dir/name is one of cubecg's committed checkpoints (a real directory with a readable
 * manifest.json); *m gets the manifest (io_manifest_free it) when m is not NULL. */
bool ckpt_own_checkpoint(const char *dir, const char *name, io_manifest *m);
/* The committed checkpoints of dir that are cubecg's own, as iterations (others named on stderr
 * when report). */
CC_WUR cc_err ckpt_own_checkpoints(const char *dir, bool report, int **found, size_t *n);
/* Removes checkpoint dir/name if it is cubecg's own; anything else is left and reported. */
CC_WUR cc_err ckpt_remove_checkpoint(const char *dir, const char *name);
/* A temporary checkpoint directory: its cubecg files go; it stays, with an error, when it holds
 * anything else. */
CC_WUR cc_err ckpt_remove_temporary(const char *path);
/* The first entry of directory path (a checkpoint or its temporary) that cubecg did not write (not
 * a name its backends write nor a file m lists, m may be NULL; or not a regular file) into name;
 * "" when there is none or path does not exist. */
void ckpt_foreign_entry(const char *path, const io_manifest *m, char *name, size_t n);

/* ---- ckpt_problem.c ------------------------------------------------------------------------ */
/* The first parameter of meta that differs from manifest m, described in msg; false when every
 * recorded parameter agrees (*unverified: the manifest holds none). */
bool ckpt_problem_differs(const io_manifest *m, const cc_io_metadata *meta, char *msg, size_t n,
                          bool *unverified);
/* The problem of checkpoint dir/ckpt.<iteration> compared with meta: the first difference in
 * differs, "" when of this problem (an unverifiable one is named on stderr when report). */
void ckpt_problem_of(const char *dir, int iteration, const cc_io_metadata *meta, bool report,
                     char *differs, size_t n);

/* ---- ckpt_commit.c ------------------------------------------------------------------------- */
/* Rank 0: manifest, fsyncs, rename, latest, retention's decision (*retired), over the files the
 * ranks listed. */
CC_WUR cc_err ckpt_publish(cc_io_checkpointer *ck, const rank_file *files, const char *written_as,
                           ckpt_retired *retired);
/* Every rank: its own files (the names its backend wrote this time) removed from the retired
 * checkpoints; no MPI. */
void ckpt_unlink_own(const cc_io_checkpointer *ck, const ckpt_retired *retired);
/* Rank 0, after every rank's ckpt_unlink_own: the rest of each retired checkpoint (what other
 * backends' names left, the manifest last, the directory); r->n is 0 afterwards. */
CC_WUR cc_err ckpt_remove_retired(const cc_io_checkpointer *ck, ckpt_retired *r);
/* Every rank: the size and CRC32C of each file it wrote (m->sizes, m->crcs): name[0]'s from the
 * backend (computed as it was written), a side file's read back by this rank, its writer. */
CC_WUR cc_err ckpt_file_crcs(const cc_io_checkpointer *ck, rank_file *m);
/* Synchronous backends: every rank has written and synced its file; agree, gather, publish. */
CC_WUR cc_err ckpt_complete(cc_io_checkpointer *ck);
/* The error of a failed checkpoint, the same on every rank: the previous one stays latest. */
CC_WUR cc_err ckpt_failed_error(cc_io_checkpointer *ck, cc_err err, const char *why);
double ckpt_now_s(void);
cc_io_checkpoint_record *ckpt_current_record(cc_io_checkpointer *ck); /* appended by begin */
CC_WUR cc_err ckpt_add_record(cc_io_checkpointer *ck, int iteration);

#endif
