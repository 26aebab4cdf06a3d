/* cc_trace.c: the OTF2 event trace of --trace (cc_trace.h). One location per rank; the timing
 * regions are OTF2 regions (ids = cc_timer_id), an iteration's end is a ParameterInt
 * "iteration", a non-blocking reduction is a NonBlockingCollectiveRequest at its post, an
 * MpiRequestTest per MPI_Test and a NonBlockingCollectiveComplete when its wait returns, the last
 * two with the attribute "completed". Definitions are written once, by rank 0, at the close.
 */
#include "cc_trace.h"

#ifdef CUBECG_HAVE_OTF2

#include <time.h>

#include <otf2/otf2.h>
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#include <otf2/OTF2_MPI_Collectives.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#define TRACE_MAX_DEPTH 32
enum { ATTR_COMPLETED = 0 };
enum { PARAM_ITERATION = 0 };
enum { COMM_SOLVE = 0 };

struct cc_trace {
  OTF2_Archive *archive;
  OTF2_EvtWriter *evt;
  OTF2_AttributeList *attrs;
  MPI_Comm comm;
  int rank, size;
  uint64_t t0, last; /* this rank's clock at the opening barrier; the last timestamp written */
  int bound;         /* iterations recorded per solve (0 = all) */
  int recording;     /* the running solve is still inside its bound */
  int traced;        /* iterations the running solve recorded */
  int depth;
  unsigned char entered[TRACE_MAX_DEPTH]; /* open regions: 1 when their Enter was written */
  uint64_t next_request;
  cc_trace_counts counts; /* this rank's */
  OTF2_ErrorCode error;   /* the first failure of a hook (they return nothing): cc_trace_close */
};

/* Nanoseconds since this rank's opening barrier, never decreasing. */
static uint64_t trace_now(cc_trace *tr)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec - tr->t0;
  if (t < tr->last) t = tr->last;
  tr->last = t;
  return t;
}

static void trace_status(cc_trace *tr, OTF2_ErrorCode rc)
{
  tr->counts.events++;
  if (rc != OTF2_SUCCESS && tr->error == OTF2_SUCCESS) tr->error = rc;
}

void cc_trace_enter(cc_trace *tr, cc_timer_id id)
{
  if (id == CC_T_SOLVE) { /* a solve starts: its iterations are counted against the bound */
    tr->recording = 1;
    tr->traced    = 0;
  }
  if (tr->depth >= TRACE_MAX_DEPTH) {
    if (tr->error == OTF2_SUCCESS) tr->error = OTF2_ERROR_INDEX_OUT_OF_BOUNDS;
    return;
  }
  tr->entered[tr->depth++] = (unsigned char)tr->recording;
  if (tr->recording) trace_status(tr, OTF2_EvtWriter_Enter(tr->evt, NULL, trace_now(tr), id));
}

void cc_trace_leave(cc_trace *tr, cc_timer_id id)
{
  if (tr->depth <= 0) return; /* its enter overflowed the stack (the error is kept) */
  if (tr->entered[--tr->depth])
    trace_status(tr, OTF2_EvtWriter_Leave(tr->evt, NULL, trace_now(tr), id));
  if (id == CC_T_SOLVE) tr->recording = 0; /* nothing between solves */
}

void cc_trace_iteration(cc_trace *tr, int iteration)
{
  if (!tr->recording) return;
  trace_status(
      tr, OTF2_EvtWriter_ParameterInt(tr->evt, NULL, trace_now(tr), PARAM_ITERATION, iteration));
  tr->counts.iterations++;
  if (tr->bound > 0 && ++tr->traced >= tr->bound) tr->recording = 0;
}

uint64_t cc_trace_reduction_post(cc_trace *tr)
{
  uint64_t id = tr->next_request++;
  if (!tr->recording) return id;
  trace_status(tr, OTF2_EvtWriter_NonBlockingCollectiveRequest(tr->evt, NULL, trace_now(tr), id));
  tr->counts.posted++;
  return id;
}

/* The attribute list of one event: completed = 0|1 (OTF2 empties the list as it writes it). */
static OTF2_AttributeList *completed_attribute(cc_trace *tr, int completed)
{
  OTF2_ErrorCode rc = OTF2_AttributeList_AddUint8(tr->attrs, ATTR_COMPLETED, completed != 0);
  if (rc != OTF2_SUCCESS && tr->error == OTF2_SUCCESS) tr->error = rc;
  return tr->attrs;
}

void cc_trace_reduction_test(cc_trace *tr, uint64_t id, int completed)
{
  if (!tr->recording) return;
  trace_status(tr, OTF2_EvtWriter_MpiRequestTest(tr->evt, completed_attribute(tr, completed),
                                                 trace_now(tr), id));
  tr->counts.tests++;
}

void cc_trace_reduction_wait(cc_trace *tr, uint64_t id, int completed, int n)
{
  if (!tr->recording) return;
  const uint64_t bytes = (uint64_t)n * sizeof(double);
  trace_status(tr, OTF2_EvtWriter_NonBlockingCollectiveComplete(
                       tr->evt, completed_attribute(tr, completed), trace_now(tr),
                       OTF2_COLLECTIVE_OP_ALLREDUCE, COMM_SOLVE, OTF2_COLLECTIVE_ROOT_NONE, bytes,
                       bytes, id));
  tr->counts.waited++;
  tr->counts.waited_completed += completed != 0;
}

static OTF2_FlushType trace_pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                      void *callerData, bool final)
{
  (void)user, (void)type, (void)location, (void)callerData, (void) final;
  return OTF2_FLUSH; /* a full buffer goes to the file (memory stays bounded) */
}
static OTF2_TimeStamp trace_post_flush(void *user, OTF2_FileType type, OTF2_LocationRef location)
{
  (void)user, (void)type, (void)location;
  return OTF2_UNDEFINED_TIMESTAMP; /* no flush events */
}

#define OTF2_CALL(expr)                                                                            \
  do {                                                                                             \
    OTF2_ErrorCode otf2_rc_ = (expr);                                                              \
    CC_CHECK(otf2_rc_ == OTF2_SUCCESS, CC_ERR_IO, "OTF2: %s: %s (%s)", #expr,                      \
             OTF2_Error_GetName(otf2_rc_), OTF2_Error_GetDescription(otf2_rc_));                   \
  } while (0)

/* The archive of dir, its event files and this rank's writer (collective). */
static cc_err trace_archive_open(cc_trace *tr, const char *dir)
{
  static const OTF2_FlushCallbacks flush = {trace_pre_flush, trace_post_flush};
  tr->archive = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                  OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  CC_CHECK(tr->archive != NULL, CC_ERR_IO, "OTF2: cannot create the archive %s/traces.otf2", dir);
  OTF2_CALL(OTF2_Archive_SetFlushCallbacks(tr->archive, &flush, NULL));
  OTF2_CALL(OTF2_MPI_Archive_SetCollectiveCallbacks(tr->archive, tr->comm, MPI_COMM_NULL));
  OTF2_CALL(OTF2_Archive_SetCreator(tr->archive, "cubecg " CC_VERSION));
  OTF2_CALL(OTF2_Archive_OpenEvtFiles(tr->archive));
  tr->evt = OTF2_Archive_GetEvtWriter(tr->archive, (OTF2_LocationRef)tr->rank);
  CC_CHECK(tr->evt != NULL, CC_ERR_IO, "OTF2: no event writer for rank %d", tr->rank);
  tr->attrs = OTF2_AttributeList_New();
  CC_CHECK(tr->attrs != NULL, CC_ERR_MEM, "OTF2: no attribute list");
  return CC_OK;
}

cc_err cc_trace_open(MPI_Comm comm, const char *dir, int iterations, cc_trace **out)
{
  *out = NULL;
  CC_CHECK(iterations >= 0, CC_ERR_ARG, "--trace-iterations %d must be >= 0", iterations);
  cc_trace *tr = NULL;
  CC_CALL(cc_calloc(1, sizeof *tr, &tr));
  tr->comm     = comm;
  tr->bound    = iterations;
  cc_err local = CC_OK, err;
  if (MPI_Comm_rank(comm, &tr->rank) != MPI_SUCCESS ||
      MPI_Comm_size(comm, &tr->size) != MPI_SUCCESS)
    local = cc_error_push(CC_ERR_MPI, __FILE__, __LINE__, __func__, "MPI_Comm_rank/size failed");
  if (!local && tr->rank == 0) local = cc_trace_claim_dir(dir);
  err = cc_error_agree(comm, local, &local);
  if (!err) err = local;
  if (!err) err = trace_archive_open(tr, dir); /* collective inside OTF2 */
  if (err) {
    if (tr->attrs) OTF2_AttributeList_Delete(tr->attrs);
    if (tr->archive) (void)OTF2_Archive_Close(tr->archive);
    cc_free(&tr);
    CC_CHECK(0, err, "--trace %s: cannot open the trace", dir);
  }
  CC_MPI(MPI_Barrier(comm)); /* every rank's time 0 */
  tr->t0   = 0;
  tr->t0   = trace_now(tr);
  tr->last = 0;
  *out     = tr;
  return CC_OK;
}

/* Rank 0: the global definitions (strings, clock, system tree, one location per rank with its
 * event count, the regions, the attribute, the parameter, the solve's communicator). */
static cc_err trace_global_defs(cc_trace *tr, const uint64_t *events, uint64_t length)
{
  OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(tr->archive);
  CC_CHECK(w != NULL, CC_ERR_IO, "OTF2: no global definition writer");
  uint32_t s = 0; /* next string id */
  OTF2_CALL(OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000u, 0, length,
                                                      OTF2_UNDEFINED_TIMESTAMP));
  OTF2_CALL(OTF2_GlobalDefWriter_WriteString(w, s++, ""));
  OTF2_CALL(OTF2_GlobalDefWriter_WriteString(w, s++, "cubecg"));
  OTF2_CALL(OTF2_GlobalDefWriter_WriteString(w, s++, "run"));
  OTF2_CALL(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, 1, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
  for (int id = 0; id < CC_T_COUNT; id++) {
    OTF2_CALL(OTF2_GlobalDefWriter_WriteString(w, s, cc_timer_name((cc_timer_id)id)));
    OTF2_CALL(OTF2_GlobalDefWriter_WriteRegion(w, (OTF2_RegionRef)id, s, s, 0,
                                               OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER,
                                               OTF2_REGION_FLAG_NONE, 0, 0, 0));
    s++;
  }
  OTF2_CALL(OTF2_GlobalDefWriter_WriteString(w, s, "completed"));
  OTF2_CALL(OTF2_GlobalDefWriter_WriteString(w, s + 1,
                                             "the reduction had completed (a test's "
                                             "flag; at a wait: when the wait began)"));
  OTF2_CALL(OTF2_GlobalDefWriter_WriteAttribute(w, ATTR_COMPLETED, s, s + 1, OTF2_TYPE_UINT8));
  OTF2_CALL(OTF2_GlobalDefWriter_WriteString(w, s + 2, "iteration"));
  OTF2_CALL(
      OTF2_GlobalDefWriter_WriteParameter(w, PARAM_ITERATION, s + 2, OTF2_PARAMETER_TYPE_INT64));
  OTF2_CALL(OTF2_GlobalDefWriter_WriteString(w, s + 3, "solve communicator"));
  s += 4;
  OTF2_ErrorCode rc = OTF2_SUCCESS; /* the locations before the groups that list them */
  for (int r = 0; rc == OTF2_SUCCESS && r < tr->size; r++) {
    char name[32];
    snprintf(name, sizeof name, "rank %d", r);
    rc = OTF2_GlobalDefWriter_WriteString(w, s + (uint32_t)r, name);
    if (rc == OTF2_SUCCESS)
      rc = OTF2_GlobalDefWriter_WriteLocationGroup(w, (OTF2_LocationGroupRef)r, s + (uint32_t)r,
                                                   OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                   OTF2_UNDEFINED_LOCATION_GROUP);
    if (rc == OTF2_SUCCESS)
      rc = OTF2_GlobalDefWriter_WriteLocation(w, (OTF2_LocationRef)r, s + (uint32_t)r,
                                              OTF2_LOCATION_TYPE_CPU_THREAD, events[r],
                                              (OTF2_LocationGroupRef)r);
  }
  uint64_t *members = NULL; /* the definitions list every rank: rank 0 alone, at the close */
  cc_err err = rc == OTF2_SUCCESS ? cc_malloc((size_t)tr->size, sizeof *members, &members) : CC_OK;
  for (int r = 0; members && r < tr->size; r++) members[r] = (uint64_t)r;
  if (rc == OTF2_SUCCESS && !err)
    rc = OTF2_GlobalDefWriter_WriteGroup(w, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                         OTF2_GROUP_FLAG_NONE, (uint32_t)tr->size, members);
  if (rc == OTF2_SUCCESS && !err)
    rc = OTF2_GlobalDefWriter_WriteGroup(w, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                         OTF2_GROUP_FLAG_NONE, (uint32_t)tr->size, members);
  cc_free(&members);
  CC_CALL(err);
  if (rc == OTF2_SUCCESS)
    rc = OTF2_GlobalDefWriter_WriteComm(w, COMM_SOLVE, s - 1, 1, OTF2_UNDEFINED_COMM,
                                        OTF2_COMM_FLAG_NONE);
  if (rc != OTF2_SUCCESS)
    err = cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__, "OTF2: definitions: %s",
                        OTF2_Error_GetName(rc));
  return err;
}

/* Every rank: close the event writer and files, write the (empty) local definitions. */
static cc_err trace_close_locations(cc_trace *tr, uint64_t *events)
{
  OTF2_CALL(OTF2_EvtWriter_GetNumberOfEvents(tr->evt, events));
  OTF2_CALL(OTF2_Archive_CloseEvtWriter(tr->archive, tr->evt));
  tr->evt = NULL;
  OTF2_CALL(OTF2_Archive_CloseEvtFiles(tr->archive));
  OTF2_CALL(OTF2_Archive_OpenDefFiles(tr->archive));
  OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(tr->archive, (OTF2_LocationRef)tr->rank);
  CC_CHECK(dw != NULL, CC_ERR_IO, "OTF2: no definition writer for rank %d", tr->rank);
  OTF2_CALL(OTF2_Archive_CloseDefWriter(tr->archive, dw));
  OTF2_CALL(OTF2_Archive_CloseDefFiles(tr->archive));
  return CC_OK;
}

/* Collective, after every rank closed its location (local: how that went): the event counts to
 * rank 0, which writes the definitions; the recorded counts summed on rank 0. */
static cc_err trace_finish(cc_trace *tr, uint64_t mine, cc_err local, cc_trace_counts *counts)
{
  CC_CALL(cc_agree(tr->comm, local));
  uint64_t length = 0, *events = NULL;
  if (tr->rank == 0) local = cc_malloc((size_t)tr->size, sizeof *events, &events);
  CC_CALL(cc_agree(tr->comm, local));
  int rc = MPI_Gather(&mine, 1, MPI_UINT64_T, events, 1, MPI_UINT64_T, 0, tr->comm);
  if (rc == MPI_SUCCESS) rc = MPI_Reduce(&tr->last, &length, 1, MPI_UINT64_T, MPI_MAX, 0, tr->comm);
  if (rc == MPI_SUCCESS && tr->rank == 0) local = trace_global_defs(tr, events, length);
  cc_free(&events);
  CC_MPI(rc);
  CC_CALL(cc_agree(tr->comm, local));
  const cc_trace_counts *c = &tr->counts;
  int64_t mine_counts[6]   = {c->events, c->iterations, c->posted,
                              c->tests,  c->waited,     c->waited_completed};
  int64_t sums[6]          = {0};
  CC_MPI(MPI_Reduce(mine_counts, sums, 6, MPI_INT64_T, MPI_SUM, 0, tr->comm));
  if (counts) *counts = (cc_trace_counts){sums[0], sums[1], sums[2], sums[3], sums[4], sums[5]};
  return CC_OK;
}

cc_err cc_trace_close(cc_trace **trp, cc_trace_counts *counts)
{
  cc_trace *tr = *trp;
  if (counts) memset(counts, 0, sizeof *counts);
  if (!tr) return CC_OK;
  *trp          = NULL;
  uint64_t mine = 0;
  cc_err local =
      tr->error != OTF2_SUCCESS
          ? cc_error_push(CC_ERR_IO, __FILE__, __LINE__, __func__,
                          "OTF2: an event could not be written: %s", OTF2_Error_GetName(tr->error))
          : trace_close_locations(tr, &mine);
  cc_err err        = trace_finish(tr, mine, local, counts);
  OTF2_ErrorCode rc = OTF2_Archive_Close(tr->archive); /* collective */
  OTF2_AttributeList_Delete(tr->attrs);
  cc_free(&tr);
  CC_CALL(err);
  CC_CHECK(rc == OTF2_SUCCESS, CC_ERR_IO, "OTF2: closing the archive: %s", OTF2_Error_GetName(rc));
  return CC_OK;
}

void cc_trace_discard(cc_trace **trp)
{
  cc_trace *tr = *trp;
  if (!tr) return;
  *trp = NULL;
  OTF2_AttributeList_Delete(tr->attrs);
  cc_free(&tr);
}

#else /* built without OTF2: nothing opens a trace, so the hooks are never reached */

void cc_trace_enter(cc_trace *tr, cc_timer_id id)
{
  (void)tr, (void)id;
}
void cc_trace_leave(cc_trace *tr, cc_timer_id id)
{
  (void)tr, (void)id;
}
void cc_trace_iteration(cc_trace *tr, int iteration)
{
  (void)tr, (void)iteration;
}
uint64_t cc_trace_reduction_post(cc_trace *tr)
{
  return (void)tr, 0;
}
void cc_trace_reduction_test(cc_trace *tr, uint64_t id, int completed)
{
  (void)tr, (void)id, (void)completed;
}
void cc_trace_reduction_wait(cc_trace *tr, uint64_t id, int completed, int n)
{
  (void)tr, (void)id, (void)completed, (void)n;
}

cc_err cc_trace_open(MPI_Comm comm, const char *dir, int iterations, cc_trace **out)
{
  (void)comm, (void)iterations;
  *out = NULL;
  CC_FAIL(CC_ERR_ARG, "--trace %s: this build has no OTF2 tracing (%s)", dir, cc_trace_library);
}

void cc_trace_discard(cc_trace **tr)
{
  *tr = NULL;
}

cc_err cc_trace_close(cc_trace **tr, cc_trace_counts *counts)
{
  (void)tr;
  if (counts) memset(counts, 0, sizeof *counts);
  return CC_OK;
}

#endif
