/* ckpt_async.c: what of a checkpoint overlaps the solve: the offloaded commit's phases (helper
 * write, non-blocking agreement, rank 0's publish on the helper, the verdict), advanced by poll and
 * completed by the next write or finish, and the checkpointer's write, poll, finish and destroy
 * that drive both the synchronous and the asynchronous backends. */
#include "ckpt_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- offload: the commit without a stall
 * --------------------------------------------------------- Phase 1 (each rank's helper): write +
 * fsync the rank file. Phase 2 (main thread, non-blocking): MPI_Igather of every rank's outcome to
 * rank 0 on the checkpointer's own communicator. Phase 3 (rank 0's helper): manifest, fsyncs,
 * rename, latest, retention when every rank succeeded, else the temporary is removed; rank 0 then
 * MPI_Ibcasts the verdict. advance() moves through the phases as far as it can without blocking
 * (wait: to the end). */

/* Phase 3 on rank 0's helper thread: no MPI, nothing of ck changes meanwhile (the next checkpoint
 * waits for this one). */
static cc_err commit_task(void *arg)
{
  cc_io_checkpointer *ck = arg;
  double t0              = ckpt_now_s();
  /* the previous commit's retired checkpoints: every rank removed its files when it concluded, and
   * every rank has (this commit's agreement came after) */
  cc_err err = ckpt_remove_retired(ck, &ck->retired);
  if (err) { /* left for the next run's retention; this commit goes on */
    fprintf(stderr, "cubecg: warning: retention: %s\n", cc_error_message());
    cc_error_clear();
  }
  err = ck->failed_rank >= 0 ? ckpt_remove_temporary(ck->tmp)
                             : ckpt_publish(ck, ck->all, ck->info.written_as, &ck->outcome.retired);
  /* if the rename did not happen */
  if (err && ck->failed_rank < 0 && ckpt_remove_temporary(ck->tmp)) {
  }
  ck->outcome.commit_s = ckpt_now_s() - t0;
  return err;
}

/* Phase 1 is over on this rank: collect the helper's result into ck->mine (its error as text, the
 * local chain cleared: the verdict comes from rank 0 for every rank alike). */
static void collect_write(cc_io_checkpointer *ck)
{
  cc_err err = ck->pending_err;
  if (!err) err = ck->ops->commit(ck->ctx, &ck->info);
  if (ck->ctx) {
    cc_err cerr = ck->ops->close(ck->ctx);
    if (!err) err = cerr;
    ck->ctx = NULL;
  }
  rank_file *m = &ck->mine;
  memset(m, 0, sizeof *m);
  if (!err && (ck->info.n_files < 0 || ck->info.n_files > CC_IO_MAX_FILES))
    err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                        "backend %s listed %d files (at most %d)", ck->params.backend,
                        ck->info.n_files, CC_IO_MAX_FILES);
  m->err = err;
  if (err) {
    const char *inner = strstr(cc_error_message(), "(): ");
    snprintf(m->message, sizeof m->message, "%s", inner ? inner + 4 : cc_error_message());
    cc_error_clear();
  } else {
    m->bytes       = ck->info.bytes;
    m->crc         = ck->info.crc32c;
    m->has_crc     = ck->info.has_crc;
    m->crc_of_data = ck->info.crc_of_data;
    m->n_files     = ck->info.n_files;
    memcpy(m->name, ck->info.name, sizeof m->name);
    m->err = ckpt_file_crcs(ck, m); /* each rank its own files */
    if (m->err) {
      const char *inner = strstr(cc_error_message(), "(): ");
      snprintf(m->message, sizeof m->message, "%s", inner ? inner + 4 : cc_error_message());
      cc_error_clear();
    }
  }
  m->write_s                       = ck->info.write_s;
  ckpt_current_record(ck)->write_s = ck->info.write_s;
  ck->pending_err                  = CC_OK;
}

/* Test (or wait for) the posted request; *done says whether it completed. */
static cc_err request_done(cc_io_checkpointer *ck, bool wait, bool *done)
{
  int flag = 1;
  if (wait)
    CC_MPI(MPI_Wait(&ck->request, MPI_STATUS_IGNORE));
  else
    CC_MPI(MPI_Test(&ck->request, &flag, MPI_STATUS_IGNORE));
  *done = flag != 0;
  return CC_OK;
}

/* Rank 0, after the Igather: the verdict of phase 2, then phase 3 handed to the helper. */
static cc_err decide(cc_io_checkpointer *ck)
{
  memset(&ck->outcome, 0, sizeof ck->outcome);
  ck->failed_rank = -1;
  for (int r = 0; r < ck->size; r++) {
    ck->outcome.total += ck->all[r].bytes;
    if (ck->all[r].err && ck->failed_rank < 0) ck->failed_rank = r;
  }
  if (ck->failed_rank >= 0) {
    ck->outcome.err = ck->all[ck->failed_rank].err;
    snprintf(ck->outcome.message, sizeof ck->outcome.message, "rank %d: %s", ck->failed_rank,
             ck->all[ck->failed_rank].message);
  }
  CC_CALL(io_offload_task_submit(ck->resources, commit_task, ck));
  return CC_OK;
}

/* The verdict is known on this rank: statistics, or the failure kept for write/finish. */
static void conclude(cc_io_checkpointer *ck)
{
  cc_io_checkpoint_record *rec = ckpt_current_record(ck);
  rec->commit_s                = ck->rank == 0 ? ck->outcome.commit_s : 0.0;
  ck->pending                  = false;
  ck->phase                    = PHASE_IDLE;
  if (ck->outcome.err) return; /* reported by the next write or finish (take_failure) */
  ckpt_unlink_own(ck, &ck->outcome.retired); /* this rank's files of the retired checkpoints */
  if (ck->rank == 0) ck->retired = ck->outcome.retired; /* the rest: rank 0, once all have */
  rec->committed = true;
  ck->stats.count++;
  ck->stats.write_s += ck->info.write_s;
  ck->stats.bytes += ck->info.bytes;
  ck->stats.bytes_all_ranks += ck->outcome.total;
  ck->stats.last_iteration = ck->iteration;
  snprintf(ck->stats.path_used, sizeof ck->stats.path_used, "%s", ck->info.path_used);
  snprintf(ck->stats.detail, sizeof ck->stats.detail, "%s", ck->info.detail);
}

/* Move the pending offloaded checkpoint on as far as possible; wait: until it is concluded. Main
 * thread; the MPI calls are on ck->comm only, in the same order on every rank. */
static cc_err advance(cc_io_checkpointer *ck, bool wait)
{
  bool done = true;
  if (ck->phase == PHASE_WRITING) {
    if (!wait && ck->ctx && ck->ops->ready && !ck->ops->ready(ck->ctx)) return CC_OK;
    collect_write(ck);
    CC_MPI(MPI_Igather(&ck->mine, sizeof ck->mine, MPI_BYTE, ck->all, sizeof ck->mine, MPI_BYTE, 0,
                       ck->comm, &ck->request));
    ck->phase = PHASE_AGREEING;
  }
  if (ck->phase == PHASE_AGREEING) {
    CC_CALL(request_done(ck, wait, &done));
    if (!done) return CC_OK;
    if (ck->rank == 0) CC_CALL(decide(ck));
    ck->phase = PHASE_COMMITTING;
  }
  if (ck->phase == PHASE_COMMITTING) {
    if (ck->rank == 0) {
      cc_err err                   = CC_OK;
      char message[IO_MESSAGE_MAX] = "";
      if (!io_offload_task_done(ck->resources, wait, &err, message, sizeof message)) return CC_OK;
      if (err && !ck->outcome.err) {
        ck->outcome.err = err;
        /* the helper's message cut to fit beside the prefix */
        snprintf(ck->outcome.message, sizeof ck->outcome.message, "committing it: %.*s",
                 (int)(sizeof ck->outcome.message - sizeof "committing it: "), message);
      } else if (err) /* the discard failed too: the temporary stays, the next run removes it */
        fprintf(stderr, "cubecg: warning: removing %s: %s\n", ck->tmp, message);
      ck->outcome.committed = !ck->outcome.err;
    }
    CC_MPI(MPI_Ibcast(&ck->outcome, sizeof ck->outcome, MPI_BYTE, 0, ck->comm, &ck->request));
    ck->phase = PHASE_OUTCOME;
  }
  if (ck->phase == PHASE_OUTCOME) {
    CC_CALL(request_done(ck, wait, &done));
    if (!done) return CC_OK;
    conclude(ck);
  }
  return CC_OK;
}

/* A concluded offloaded checkpoint that failed: its error, on every rank (agreed, so that the job
 * ends with MPI_Finalize); CC_OK when it committed. */
static cc_err take_failure(cc_io_checkpointer *ck)
{
  if (!ck->outcome.err) return CC_OK;
  cc_err err      = (cc_err)ck->outcome.err;
  ck->outcome.err = CC_OK;
  cc_err failed   = ckpt_failed_error(ck, err, ck->outcome.message);
  CC_CALL(cc_agree(ck->layout.comm, failed)); /* the same verdict everywhere: marks it agreed */
  return CC_OK;
}

/* The pending offloaded checkpoint to its end (the next checkpoint or finish): the time waited is
 * its stall. */
static cc_err settle(cc_io_checkpointer *ck)
{
  if (ck->phase == PHASE_IDLE) return take_failure(ck);
  double t0                    = MPI_Wtime();
  cc_io_checkpoint_record *rec = ckpt_current_record(ck);
  cc_err err                   = advance(ck, true);
  double waited                = MPI_Wtime() - t0;
  rec->wait_s += waited;
  rec->stall_s += waited;
  ck->stats.stall_s += waited;
  ck->stats.commit_s += waited;
  CC_CALL(err);
  CC_CALL(take_failure(ck));
  return CC_OK;
}

static cc_err begin(cc_io_checkpointer *ck, const cc_io_state *state)
{
  CC_CHECK(state->iteration >= 0 && state->n_vectors >= 0 && state->n_vectors <= CC_IO_MAX_VECTORS,
           CC_ERR_ARG, "checkpoint state: iteration %d, %d vectors", state->iteration,
           state->n_vectors);
  CC_CHECK(ckpt_path(ck->tmp, sizeof ck->tmp, ck->params.dir, state->iteration, true), CC_ERR_ARG,
           "checkpoint directory too long: %s", ck->params.dir);
  CC_CALL(ckpt_add_record(ck, state->iteration));
  if (!ck->ops->asynchronous) { /* offload: each rank's helper creates the directory */
    cc_err local = CC_OK;
    if (ck->rank == 0) {
      local = ckpt_remove_temporary(ck->tmp);
      if (!local && mkdir(ck->tmp, 0755) != 0)
        local = cc_error_push(CC_ERR_SYS, __FILE__, __LINE__, __func__, "cannot create %s: %s",
                              ck->tmp, strerror(errno));
    }
    CC_CALL(cc_agree(ck->layout.comm, local));
  }
  ck->pending   = true;
  ck->iteration = state->iteration;
  ck->n_vectors = state->n_vectors;
  for (int v = 0; v < state->n_vectors; v++)
    snprintf(ck->vector_name[v], CC_IO_NAME_LEN, "%s", state->vector_name[v]);
  memset(&ck->info, 0, sizeof ck->info);
  /* failures are kept for ckpt_complete() / the agreement: every rank must reach it */
  cc_err err = ck->ops->open(&ck->opt, &ck->layout, ck->tmp, CC_IO_WRITE, &ck->ctx);
  if (err) ck->ctx = NULL;
  if (!err) err = ck->ops->write_vectors(ck->ctx, state);
  if (!err && !ck->ops->asynchronous) err = ck->ops->commit(ck->ctx, &ck->info);
  ck->pending_err = err;
  if (ck->ops->asynchronous) ck->phase = PHASE_WRITING;
  return CC_OK;
}

cc_err cc_io_checkpointer_write(cc_io_checkpointer *ck, const cc_io_state *state)
{
  cc_err err = CC_OK;
  if (ck->ops->asynchronous) err = settle(ck); /* the previous checkpoint; its wait is its stall */
  double t0    = MPI_Wtime();
  int n_before = ck->n_records;
  if (!err) {
    io_inject_next_checkpoint();
    ck->checkpoint_number = io_inject_checkpoint_number();
    err                   = begin(ck, state);
  }
  if (!err && !ck->ops->asynchronous) err = ckpt_complete(ck);
  double stalled = MPI_Wtime() - t0;
  ck->stats.stall_s += stalled;
  if (ck->n_records > n_before) ckpt_current_record(ck)->stall_s += stalled; /* begin's record */
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_io_checkpointer_poll(cc_io_checkpointer *ck)
{
  if (!ck || ck->phase == PHASE_IDLE) return CC_OK;
  double t0                    = MPI_Wtime();
  cc_io_checkpoint_record *rec = ckpt_current_record(ck);
  cc_err err                   = advance(ck, false);
  double spent                 = MPI_Wtime() - t0;
  rec->stall_s += spent;
  ck->stats.stall_s += spent;
  CC_CALL(err);
  return CC_OK;
}

cc_err cc_io_checkpointer_finish(cc_io_checkpointer *ck)
{
  CC_CALL(io_resources_release_collective(ck->resources)); /* the gas store, collective */
  if (ck->ops->asynchronous) {                             /* settle counts its wait as stall */
    CC_CALL(settle(ck));
    /* the last commit's retired checkpoints, once every rank removed its files */
    CC_MPI(MPI_Barrier(ck->layout.comm));
    CC_CALL(
        cc_agree(ck->layout.comm, ck->rank == 0 ? ckpt_remove_retired(ck, &ck->retired) : CC_OK));
    return CC_OK;
  }
  if (!ck->pending) return CC_OK;
  double t0  = MPI_Wtime();
  cc_err err = ckpt_complete(ck);
  ck->stats.stall_s += MPI_Wtime() - t0;
  CC_CALL(err);
  return CC_OK;
}

void cc_io_checkpointer_stats(const cc_io_checkpointer *ck, cc_io_checkpoint_stats *stats)
{
  *stats = ck->stats;
}

void cc_io_checkpointer_records(const cc_io_checkpointer *ck, const cc_io_checkpoint_record **rec,
                                int *n)
{
  *rec = ck->records;
  *n   = ck->n_records;
}

void cc_io_checkpointer_destroy(cc_io_checkpointer **ckpt)
{
  cc_io_checkpointer *ck = *ckpt;
  if (!ck) return;
  if (ck->ctx) { /* abandoned: its temporary directory is removed by the next create */
    if (ck->ops->close(ck->ctx)) cc_error_clear();
  }
  /* an offloaded commit in phase 3 runs to its end on rank 0's helper (the checkpoint is complete
   * on every rank); requests of phase 2 still posted are abandoned with the communicator */
  io_resources_destroy(&ck->resources); /* this checkpointer's helper and ring only */
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (ck->comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&ck->comm);
  cc_free(&ck->all);
  cc_free(&ck->records);
  cc_free(ckpt);
}
