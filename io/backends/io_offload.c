/* io_offload.c: the "VH offload" backend of the seeds on a Linux node: the caller copies the
 * snapshot into a staging buffer (the only stall) and a helper pthread writes and fsyncs it
 * through posix or uring while the solver iterates; commit waits for the helper, ready says
 * whether it would. The same helper runs the owner's file-system tasks (io_offload_task_*: the
 * checkpoint manager's manifest, fsyncs, renames, retention) so that they never stall the caller.
 * The helper makes no MPI call (MPI_THREAD_FUNNELED suffices): the agreement of the ranks is a
 * non-blocking collective on the main thread (see cc_io.h, "Offload commit"). */
#include "io_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

typedef enum { JOB_NONE, JOB_PENDING, JOB_RUNNING, JOB_DONE } job_state;
typedef enum { JOB_WRITE, JOB_TASK } job_kind;

/* One engine per owner (io_resources of a checkpointer or a handle): one helper thread, one staging
 * buffer kept between checkpoints so the stall is a plain memcpy into memory already mapped. */
typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  pthread_t thread;
  bool started, quit;
  job_state state;
  job_kind kind;
  io_offload_task_fn task; /* JOB_TASK: run on the helper, its cc_err is the job's outcome */
  void *task_arg;
  double *staging;
  size_t staging_bytes;
  /* the job */
  const io_stream_ops *stream;
  cc_io_options opt;
  char dir[IO_PATH_MAX];
  int rank, n_ranks, vpn;
  int64_t n_local, n_global;
  uint32_t gid_crc;
  cc_io_state snapshot;
  /* its outcome */
  cc_err err;
  char message[IO_MESSAGE_MAX];
  cc_io_file_info info;
} io_offload_engine;

extern const cc_io_backend_ops io_backend_offload; /* this file's: its slot in the owner's resources */

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static cc_err helper_write(io_offload_engine *engine, cc_io_file_info *info)
{
  void *ctx;
  double t0 = now_s();
  /* each rank's helper creates the checkpoint's temporary directory itself (no agreement on the
   * main thread first); the checkpoint manager removed stale ones when it was created */
  CC_CHECK(mkdir(engine->dir, 0755) == 0 || errno == EEXIST, CC_ERR_SYS,
           "cannot create directory %s: %s", engine->dir, strerror(errno));
  CC_CALL(io_rankfile_open_as(engine->stream, &engine->opt, engine->rank, engine->n_ranks,
                              engine->n_local, engine->n_global, engine->vpn, engine->gid_crc,
                              engine->dir, CC_IO_WRITE, &ctx));
  cc_err err = io_rankfile_write(ctx, &engine->snapshot);
  if (!err) err = io_rankfile_commit(ctx, info);
  cc_err cerr = io_rankfile_close(ctx);
  CC_CALL(err);
  CC_CALL(cerr);
  info->write_s = now_s() - t0;
  return CC_OK;
}

static void *helper_main(void *arg)
{
  io_offload_engine *engine = arg;
  /* background work: SCHED_BATCH threads do not preempt the thread that wakes them, so handing a
   * job over (a cond broadcast) no longer costs the solver a time slice on a busy core; best
   * effort (the policy is only a hint to the scheduler, a refusal changes nothing else) */
  struct sched_param sp = {0};
  if (getenv("CUBECG_OFFLOAD_SCHED_OTHER") == NULL)
    (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
  pthread_mutex_lock(&engine->lock);
  for (;;) {
    while (engine->state != JOB_PENDING && !engine->quit)
      pthread_cond_wait(&engine->changed, &engine->lock);
    if (engine->quit) break;
    engine->state = JOB_RUNNING;
    pthread_mutex_unlock(&engine->lock);

    cc_io_file_info info;
    memset(&info, 0, sizeof info);
    cc_err err =
        engine->kind == JOB_TASK ? engine->task(engine->task_arg) : helper_write(engine, &info);
    char message[IO_MESSAGE_MAX] = "";
    if (err) { /* the error chain is per thread: hand its innermost message to the main thread */
      const char *m     = cc_error_message();
      const char *inner = strstr(m, "(): ");
      snprintf(message, sizeof message, "%s", inner ? inner + 4 : m);
      cc_error_clear();
    }

    pthread_mutex_lock(&engine->lock);
    engine->err = err;
    if (engine->kind == JOB_WRITE) engine->info = info;
    memcpy(engine->message, message, sizeof message);
    engine->state = JOB_DONE;
    pthread_cond_broadcast(&engine->changed);
  }
  pthread_mutex_unlock(&engine->lock);
  return NULL;
}

/* The owner's engine, created (helper thread started) on first use. */
static cc_err engine_get(io_resources *res, io_offload_engine **out)
{
  CC_CHECK(
      res != NULL, CC_ERR_ARG,
      "offload: no owner for the helper thread (open it through cc_io_open or a checkpointer)");
  void **slot = io_resources_slot(res, &io_backend_offload);
  CC_CHECK(slot != NULL, CC_ERR_ARG, "offload: no slot left in the owner's resources");
  if (!*slot) {
    io_offload_engine *e;
    CC_CALL(cc_calloc(1, sizeof *e, &e));
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->changed, NULL);
    int rc = pthread_create(&e->thread, NULL, helper_main, e);
    if (rc != 0) {
      pthread_cond_destroy(&e->changed);
      pthread_mutex_destroy(&e->lock);
      cc_free(&e);
    }
    CC_CHECK(rc == 0, CC_ERR_SYS, "pthread_create of the offload helper failed: %s", strerror(rc));
    e->started   = true;
    *slot        = e;
  }
  *out = *slot;
  return CC_OK;
}

/* Wait until the helper is idle or done with the current job (main thread). */
static void engine_wait(io_offload_engine *engine)
{
  pthread_mutex_lock(&engine->lock);
  while (engine->state == JOB_PENDING || engine->state == JOB_RUNNING)
    pthread_cond_wait(&engine->changed, &engine->lock);
  pthread_mutex_unlock(&engine->lock);
}

static cc_err engine_reserve(io_offload_engine *engine, size_t bytes)
{
  engine_wait(engine);
  if (bytes <= engine->staging_bytes) return CC_OK;
  cc_free(&engine->staging);
  engine->staging_bytes = 0;
  CC_CALL(cc_malloc(bytes, 1, &engine->staging));
  memset(engine->staging, 0, bytes); /* fault the pages in now, not during a stall */
  engine->staging_bytes = bytes;
  return CC_OK;
}

cc_err io_offload_reserve(io_resources *res, size_t bytes)
{
  io_offload_engine *engine = NULL;
  CC_CALL(engine_get(res, &engine));
  CC_CALL(engine_reserve(engine, bytes));
  return CC_OK;
}

/* ---- tasks on the helper (the checkpoint manager's commit) ----------------------------------- */
cc_err io_offload_task_submit(io_resources *res, io_offload_task_fn fn, void *arg)
{
  io_offload_engine *engine = NULL;
  CC_CALL(engine_get(res, &engine));
  pthread_mutex_lock(&engine->lock);
  bool idle = engine->state == JOB_NONE;
  if (idle) {
    engine->kind     = JOB_TASK;
    engine->task     = fn;
    engine->task_arg = arg;
    engine->state    = JOB_PENDING;
    pthread_cond_broadcast(&engine->changed);
  }
  pthread_mutex_unlock(&engine->lock);
  CC_CHECK(idle, CC_ERR_ARG, "offload: a task submitted while the helper holds another job");
  return CC_OK;
}

bool io_offload_task_done(io_resources *res, bool wait, cc_err *err, char *message, size_t n)
{
  void **slot               = io_resources_find(res, &io_backend_offload);
  io_offload_engine *engine = slot ? *slot : NULL;
  if (!engine) return true;
  pthread_mutex_lock(&engine->lock);
  if (wait)
    while (engine->state == JOB_PENDING || engine->state == JOB_RUNNING)
      pthread_cond_wait(&engine->changed, &engine->lock);
  bool done = engine->state == JOB_DONE && engine->kind == JOB_TASK;
  if (done) {
    *err = engine->err;
    snprintf(message, n, "%s", engine->message);
    engine->state = JOB_NONE; /* the helper is free for the next checkpoint */
  }
  pthread_mutex_unlock(&engine->lock);
  return done;
}

/* The backend's release entry: the owner's engine (helper joined once its job is done, staging
 * freed). */
static void offload_release(void **slot)
{
  io_offload_engine *engine = *slot;
  if (!engine) return;
  if (engine->started) {
    pthread_mutex_lock(&engine->lock);
    while (engine->state == JOB_PENDING || engine->state == JOB_RUNNING)
      pthread_cond_wait(&engine->changed, &engine->lock);
    engine->quit = true;
    pthread_cond_broadcast(&engine->changed);
    pthread_mutex_unlock(&engine->lock);
    pthread_join(engine->thread, NULL);
  }
  cc_free(&engine->staging);
  pthread_cond_destroy(&engine->changed);
  pthread_mutex_destroy(&engine->lock);
  cc_free(&engine);
  *slot = NULL;
}

/* ---- backend -------------------------------------------------------------------------------- */
typedef struct {
  cc_io_mode mode;
  io_offload_engine *engine; /* the owner's (write mode) */
  bool submitted;
  double stall_s;
  void *reader; /* reading is synchronous through the inner backend */
} offload_ctx;

static const io_stream_ops *inner_stream(const cc_io_options *opt)
{
  if (!strcmp(opt->inner, "uring")) return &io_stream_uring;
  if (!strcmp(opt->inner, "posix") || !opt->inner[0]) return &io_stream_posix;
  return NULL;
}

static cc_err offload_open(const cc_io_options *opt, const cc_io_layout *layout, const char *dir,
                           cc_io_mode mode, void **ctx)
{
  const io_stream_ops *stream = inner_stream(opt);
  CC_CHECK(stream != NULL, CC_ERR_ARG, "offload: inner backend '%s' is not posix or uring",
           opt->inner);
  int rank, size;
  CC_MPI(MPI_Comm_rank(layout->comm, &rank));
  CC_MPI(MPI_Comm_size(layout->comm, &size));
  offload_ctx *o;
  CC_CALL(cc_calloc(1, sizeof *o, &o));
  o->mode = mode;
  if (mode == CC_IO_READ) {
    cc_err err = io_rankfile_open(stream, opt, layout, dir, mode, &o->reader);
    if (err) cc_free(&o);
    CC_CALL(err);
    *ctx = o;
    return CC_OK;
  }
  io_offload_engine *engine = NULL;
  cc_err err                = engine_get(opt->resources, &engine);
  /* the previous snapshot must be on disk before its staging is reused; one vector is staged
   * (allocated and touched) now, so that a single-vector write's stall is the copy alone */
  if (!err)
    err = engine_reserve(engine, (size_t)layout->n_local_nodes * (size_t)layout->values_per_node *
                                     sizeof(double));
  if (!err) {
    o->engine        = engine;
    engine->rank     = rank;
    engine->n_ranks  = size;
    engine->stream   = stream;
    engine->opt      = *opt;
    engine->n_local  = layout->n_local_nodes;
    engine->n_global = layout->n_global_nodes;
    engine->vpn      = layout->values_per_node;
    engine->gid_crc  = io_global_id_crc(layout);
    snprintf(engine->dir, sizeof engine->dir, "%s", dir);
    engine->state = JOB_NONE;
  }
  if (err) cc_free(&o);
  CC_CALL(err);
  *ctx = o;
  return CC_OK;
}

static cc_err offload_write(void *ctx, const cc_io_state *state)
{
  offload_ctx *o = ctx;
  CC_CHECK(o->mode == CC_IO_WRITE && !o->submitted, CC_ERR_ARG,
           "offload: write_vectors once per open, in write mode");
  CC_CHECK(state->n_vectors >= 0 && state->n_vectors <= CC_IO_MAX_VECTORS, CC_ERR_ARG,
           "state has %d vectors (at most %d)", state->n_vectors, CC_IO_MAX_VECTORS);
  io_offload_engine *engine = o->engine;
  double t0                 = now_s();
  size_t count              = (size_t)engine->n_local * (size_t)engine->vpn;
  size_t need               = count * sizeof(double) * (size_t)state->n_vectors;
  CC_CALL(engine_reserve(engine, need)); /* no-op once the staging buffer is large enough */
  engine->snapshot = *state;
  engine->kind     = JOB_WRITE;
  for (int v = 0; v < state->n_vectors; v++) { /* the stall: one copy per vector */
    engine->snapshot.vector[v] = engine->staging + (size_t)v * count;
    if (count) memcpy(engine->snapshot.vector[v], state->vector[v], count * sizeof(double));
  }
  pthread_mutex_lock(&engine->lock);
  engine->state = JOB_PENDING;
  pthread_cond_broadcast(&engine->changed);
  pthread_mutex_unlock(&engine->lock);
  o->submitted = true;
  o->stall_s   = now_s() - t0;
  return CC_OK;
}

static cc_err offload_commit(void *ctx, cc_io_file_info *info)
{
  offload_ctx *o = ctx;
  CC_CHECK(o->submitted, CC_ERR_ARG, "offload: commit without write_vectors");
  io_offload_engine *engine = o->engine;
  engine_wait(engine);
  o->submitted  = false;
  engine->state = JOB_NONE;
  *info         = engine->info;
  info->stall_s = o->stall_s;
  snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
           "; offload over %s", engine->opt.inner);
  snprintf(info->written_as, sizeof info->written_as, "offload-%s", engine->opt.inner);
  CC_CHECK(engine->err == CC_OK, engine->err, "offload helper: %s", engine->message);
  return CC_OK;
}

/* Whether commit would return without waiting: the helper finished this handle's write. */
static bool offload_ready(void *ctx)
{
  offload_ctx *o = ctx;
  if (!o->submitted) return true;
  pthread_mutex_lock(&o->engine->lock);
  bool done = o->engine->state == JOB_DONE;
  pthread_mutex_unlock(&o->engine->lock);
  return done;
}

static cc_err offload_read(void *ctx, cc_io_state *state, cc_io_file_info *info)
{
  offload_ctx *o = ctx;
  CC_CHECK(o->mode == CC_IO_READ, CC_ERR_ARG, "offload: read on a handle opened for writing");
  CC_CALL(io_rankfile_read(o->reader, state, info));
  return CC_OK;
}

static cc_err offload_close(void *ctx)
{
  offload_ctx *o = ctx;
  if (!o) return CC_OK;
  cc_err err = CC_OK;
  if (o->mode == CC_IO_READ)
    err = io_rankfile_close(o->reader);
  else if (o->submitted) { /* closed without commit: the helper still reads the staging buffer */
    engine_wait(o->engine);
    o->engine->state = JOB_NONE;
  }
  cc_free(&o);
  CC_CALL(err);
  return CC_OK;
}

const cc_io_backend_ops io_backend_offload = {
    .name          = "offload",
    .asynchronous  = true,
    .open          = offload_open,
    .write_vectors = offload_write,
    .commit        = offload_commit,
    .read_vectors  = offload_read,
    .close         = offload_close,
    .ready         = offload_ready,
    .release       = offload_release,
};
