/* cc_timers.c: the fixed set of timing regions (conventions item 6) and their reduction over ranks.
 */
#include "cc_common.h"

cc_timers cc_timer_table;
int cc_timing_enabled = 1;

const char *cc_timer_name(cc_timer_id id)
{
  static const char *names[CC_T_COUNT] = {"mesh",      "partition",    "assembly", "ordering",
                                          "setup",     "solve",        "spmv",     "halo",
                                          "precond",   "precond_halo", "axpy",     "dot",
                                          "reduction", "checkpoint",   "export",   "total"};
  return (id >= 0 && id < CC_T_COUNT) ? names[id] : "?";
}

void cc_timers_reset(void)
{
  memset(&cc_timer_table, 0, sizeof cc_timer_table);
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
