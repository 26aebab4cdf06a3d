/* reduce.c: every global reduction of the Krylov solvers (sum of <= CC_REDUCE_MAX doubles):
 * blocking MPI_Allreduce (AR) or MPI_Iallreduce + MPI_Wait (IAR), optional application-driven
 * progress (MPI_Test from the kernels: "poll") and an injected latency that simulates a slow
 * network.
 */
#include "cc_solvers.h"

#include "cc_trace.h"

#include <omp.h>

cc_err cc_reducer_init(cc_reducer *rd, MPI_Comm comm, cc_progress_mode progress,
                       double inject_latency_us, cc_timers *timers)
{
  CC_CHECK(progress == CC_PROGRESS_NONE || progress == CC_PROGRESS_POLL, CC_ERR_ARG,
           "unknown progress mode %d", (int)progress);
  CC_CHECK(inject_latency_us >= 0.0 && inject_latency_us == inject_latency_us, CC_ERR_ARG,
           "injected reduction latency %g us must be >= 0", inject_latency_us);
  memset(rd, 0, sizeof *rd);
  rd->comm       = comm;
  rd->progress   = progress;
  rd->latency_s  = inject_latency_us * 1e-6;
  rd->timers     = timers;
  rd->poll_error = MPI_SUCCESS;
  return CC_OK;
}

/* Simulated latency: the result may not be used before posted + latency. */
static void reduce_spin_until(const cc_reducer *rd, double posted)
{
  if (rd->latency_s <= 0.0) return;
  while (MPI_Wtime() < posted + rd->latency_s) {
  }
}

cc_err cc_reduce_blocking(cc_reducer *rd, double *values, int n)
{
  CC_CHECK(n >= 1 && n <= CC_REDUCE_MAX, CC_ERR_ARG, "reduction of %d values (1..%d supported)", n,
           CC_REDUCE_MAX);
  cc_timer_token tok = cc_timer_start(rd->timers, CC_T_REDUCTION);
  double posted      = MPI_Wtime();
  int rc             = MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, rd->comm);
  reduce_spin_until(rd, posted);
  rd->blocking++;
  cc_timer_stop(rd->timers, tok);
  CC_MPI(rc);
  return CC_OK;
}

cc_err cc_reduce_begin(cc_reducer *rd, const double *values, int n, cc_reduction *red)
{
  CC_CHECK(n >= 1 && n <= CC_REDUCE_MAX, CC_ERR_ARG, "reduction of %d values (1..%d supported)", n,
           CC_REDUCE_MAX);
  CC_CHECK(red != rd->active, CC_ERR_ARG, "cc_reduce_begin on a reduction still in flight");
  memcpy(red->buffer, values, (size_t)n * sizeof(double));
  red->comm      = rd->comm;
  red->posted_at = MPI_Wtime();
  CC_MPI(
      MPI_Iallreduce(MPI_IN_PLACE, red->buffer, n, MPI_DOUBLE, MPI_SUM, rd->comm, &red->request));
  red->active = 1;
  rd->active  = red;
  rd->posted++;
  cc_trace *tr = cc_timers_trace(rd->timers);
  if (tr) red->trace_id = cc_trace_reduction_post(tr);
  return CC_OK;
}

cc_err cc_reduce_end(cc_reducer *rd, cc_reduction *red, double *values, int n)
{
  CC_CHECK(red->active, CC_ERR_ARG, "cc_reduce_end without a posted reduction");
  CC_CHECK(n >= 1 && n <= CC_REDUCE_MAX, CC_ERR_ARG, "reduction of %d values (1..%d supported)", n,
           CC_REDUCE_MAX);
  /* CC_T_REDUCTION = time blocked here (the part of the reduction the overlap did not hide) */
  cc_timer_token tok = cc_timer_start(rd->timers, CC_T_REDUCTION);
  const int early    = rd->latency_s > 0.0 && MPI_Wtime() < red->posted_at + rd->latency_s;
  rd->waited_early += early;
  /* traced: had it completed when the wait began? (a successful poll left no request; else one
   * MPI_Request_get_status, which frees nothing; an early wait still has latency to pay) */
  cc_trace *tr  = cc_timers_trace(rd->timers);
  int completed = red->request == MPI_REQUEST_NULL;
  if (tr && !completed &&
      MPI_Request_get_status(red->request, &completed, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    completed = 0;
  int rc = MPI_Wait(&red->request, MPI_STATUS_IGNORE);
  reduce_spin_until(rd, red->posted_at);
  if (tr) cc_trace_reduction_wait(tr, red->trace_id, completed && !early, n);
  cc_timer_stop(rd->timers, tok);
  rd->waited++;
  red->active = 0;
  if (rd->active == red) rd->active = NULL;
  int poll_rc    = rd->poll_error;
  rd->poll_error = MPI_SUCCESS;
  CC_MPI(poll_rc);
  CC_MPI(rc);
  memcpy(values, red->buffer, (size_t)n * sizeof(double));
  return CC_OK;
}

/* Only the thread that initialised MPI may call it (MPI_THREAD_FUNNELED): thread 0 of every
 * enclosing OpenMP team. */
static int reduce_on_main_thread(void)
{
  int level = omp_get_level();
  for (int l = 1; l <= level; l++)
    if (omp_get_ancestor_thread_num(l) != 0) return 0;
  return 1;
}

void cc_reduce_poll(void *reducer)
{
  cc_reducer *rd = reducer;
  if (!rd || rd->progress != CC_PROGRESS_POLL || !rd->active) return;
  if (rd->active->request == MPI_REQUEST_NULL || !reduce_on_main_thread()) return;
  int flag = 0;
  /* MPI_Test drives MPICH's progress engine; a completed request becomes MPI_REQUEST_NULL and the
   * later MPI_Wait returns at once. Errors are kept for cc_reduce_end (this function is void). */
  int rc = MPI_Test(&rd->active->request, &flag, MPI_STATUS_IGNORE);
  rd->polls++;
  cc_trace *tr = cc_timers_trace(rd->timers);
  if (tr) cc_trace_reduction_test(tr, rd->active->trace_id, flag);
  if (rc != MPI_SUCCESS && rd->poll_error == MPI_SUCCESS) rd->poll_error = rc;
}
