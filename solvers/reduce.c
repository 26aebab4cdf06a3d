/* reduce.c: every global reduction of the Krylov solvers (sum of <= 8 doubles): blocking
 * MPI_Allreduce (AR) or MPI_Iallreduce + MPI_Wait (IAR), optional application-driven progress
 * (MPI_Test from the kernels: "poll") and an injected latency that simulates a slow network.
 */
#include "cc_solvers.h"

#include <omp.h>

static cc_progress_mode reduce_progress = CC_PROGRESS_NONE;
static double reduce_latency_s          = 0.0;
static cc_reduction *reduce_active      = NULL;        /* the posted IAR cc_reduce_poll may test */
static int reduce_poll_error            = MPI_SUCCESS; /* first MPI_Test failure, reported by end */
static int64_t reduce_polls             = 0;

void cc_reduce_configure(cc_progress_mode progress, double inject_latency_us)
{
  reduce_progress   = progress;
  reduce_latency_s  = inject_latency_us * 1e-6;
  reduce_active     = NULL;
  reduce_poll_error = MPI_SUCCESS;
  reduce_polls      = 0;
}

int64_t cc_reduce_poll_count(void)
{
  return reduce_polls;
}

/* Simulated latency: the result may not be used before posted + latency. */
static void reduce_spin_until(double posted)
{
  if (reduce_latency_s <= 0.0) return;
  while (MPI_Wtime() < posted + reduce_latency_s) {
  }
}

cc_err cc_reduce_blocking(MPI_Comm comm, double *values, int n)
{
  CC_CHECK(n >= 1 && n <= 8, CC_ERR_ARG, "reduction of %d values (1..8 supported)", n);
  cc_timer_start(CC_T_REDUCTION);
  double posted = MPI_Wtime();
  int rc        = MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, comm);
  reduce_spin_until(posted);
  cc_timer_stop(CC_T_REDUCTION);
  CC_MPI(rc);
  return CC_OK;
}

cc_err cc_reduce_begin(MPI_Comm comm, const double *values, int n, cc_reduction *red)
{
  CC_CHECK(n >= 1 && n <= 8, CC_ERR_ARG, "reduction of %d values (1..8 supported)", n);
  CC_CHECK(red != reduce_active, CC_ERR_ARG, "cc_reduce_begin on a reduction still in flight");
  memcpy(red->buffer, values, (size_t)n * sizeof(double));
  red->comm      = comm;
  red->posted_at = MPI_Wtime();
  CC_MPI(MPI_Iallreduce(MPI_IN_PLACE, red->buffer, n, MPI_DOUBLE, MPI_SUM, comm, &red->request));
  red->active   = 1;
  reduce_active = red;
  return CC_OK;
}

cc_err cc_reduce_end(cc_reduction *red, double *values, int n)
{
  CC_CHECK(red->active, CC_ERR_ARG, "cc_reduce_end without a posted reduction");
  CC_CHECK(n >= 1 && n <= 8, CC_ERR_ARG, "reduction of %d values (1..8 supported)", n);
  /* CC_T_REDUCTION = time blocked here (the part of the reduction the overlap did not hide) */
  cc_timer_start(CC_T_REDUCTION);
  int rc = MPI_Wait(&red->request, MPI_STATUS_IGNORE);
  reduce_spin_until(red->posted_at);
  cc_timer_stop(CC_T_REDUCTION);
  red->active = 0;
  if (reduce_active == red) reduce_active = NULL;
  int poll_rc       = reduce_poll_error;
  reduce_poll_error = MPI_SUCCESS;
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

void cc_reduce_poll(void)
{
  if (reduce_progress != CC_PROGRESS_POLL || !reduce_active) return;
  if (reduce_active->request == MPI_REQUEST_NULL || !reduce_on_main_thread()) return;
  int flag = 0;
  /* MPI_Test drives MPICH's progress engine; a completed request becomes MPI_REQUEST_NULL and the
   * later MPI_Wait returns at once. Errors are kept for cc_reduce_end (this function is void). */
  int rc = MPI_Test(&reduce_active->request, &flag, MPI_STATUS_IGNORE);
  reduce_polls++;
  if (rc != MPI_SUCCESS && reduce_poll_error == MPI_SUCCESS) reduce_poll_error = rc;
}
