/* cc_timers.c: the fixed set of timing regions and their reduction over ranks.
 */
#include "cc_common.h"

const char *cc_timer_name(cc_timer_id id)
{
  static const char *names[CC_T_COUNT] = {
      "mesh",   "partition", "assembly",          "ordering", "setup", "solve",     "spmv",
      "halo",   "precond",   "precond_halo",      "axpy",     "dot",   "reduction", "checkpoint",
      "export", "halo_wait", "precond_halo_wait", "total"};
  return (id >= 0 && id < CC_T_COUNT) ? names[id] : "?";
}

void cc_timers_init(cc_timers *t, int count_only)
{
  memset(t, 0, sizeof *t);
  t->count_only = count_only;
}

void cc_timers_record(cc_timers *t, cc_timer_id id, double seconds)
{
  t->count[id]++;
  if (!t->count_only) t->seconds[id] += seconds;
}

void cc_timers_add(cc_timers *t, const cc_timers *u)
{
  for (int id = 0; id < CC_T_COUNT; id++) {
    t->seconds[id] += u->seconds[id];
    t->count[id] += u->count[id];
  }
}

cc_err cc_stat_reduce(MPI_Comm comm, double local, cc_stat *out)
{
  int size;
  CC_MPI(MPI_Comm_size(comm, &size));
  double sum;
  CC_MPI(MPI_Allreduce(&local, &out->min, 1, MPI_DOUBLE, MPI_MIN, comm));
  CC_MPI(MPI_Allreduce(&local, &out->max, 1, MPI_DOUBLE, MPI_MAX, comm));
  CC_MPI(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, comm));
  out->mean = sum / size;
  return CC_OK;
}
