/* run.c: the run's own record: its set-up (threads, placement, topology, where the MPI library's
 * progress threads run), its list of checks with the verdict, and the baseline the report and the
 * summary compare the solves with. */
#include "run.h"

#include <math.h>

cc_err cc_run_topology(cc_run *run, MPI_Comm comm)
{
  /* this rank's reading of --placement / CUBECG_PLACEMENT: agreed before the collectives below */
  CC_CALL(cc_agree(comm, cc_placement_resolve(run->opts.placement, &run->topo)));
  CC_CALL(cc_threads_choose(comm, &run->threads, run->topo.threads_chosen_by,
                            sizeof run->topo.threads_chosen_by));
  CC_CALL(cc_topology_gather(comm, run->mpi.async_active, &run->topo));
  CC_CALL(cc_progress_placement(comm, &run->mpi, &run->progress));
  int rank;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && run->mpi.ignored_knobs[0])
    fprintf(stderr, "cubecg: warning: %s: not a knob of %s, no effect\n", run->mpi.ignored_knobs,
            run->mpi.implementation);
  return CC_OK;
}

void cc_run_add_check(cc_run *run, const char *name, double value, double bound)
{
  if (run->n_checks >= CC_MAX_CHECKS) {
    run->checks_dropped++; /* not recorded, so not vouched for: the verdict becomes FAILED */
    return;
  }
  cc_check *check = &run->checks[run->n_checks++];
  snprintf(check->name, sizeof check->name, "%s", name);
  check->value  = value;
  check->bound  = bound;
  check->passed = isfinite(value) && value <= bound;
}

int cc_run_checks_passed(const cc_run *run)
{
  if (run->checks_dropped > 0) return 0;
  for (int i = 0; i < run->n_checks; i++)
    if (!run->checks[i].passed) return 0;
  return 1;
}

double cc_run_baseline_time_per_iter(const cc_run *run)
{
  for (int s = 0; s < run->n_solves; s++) {
    const cc_solve_result *r = &run->solves[s].result;
    int iterations           = r->iterations - r->start_iteration;
    /* the baseline: the registry's first variant (Alg.1) with blocking reductions */
    if (strcmp(r->solver, cc_krylov_list[0]->name) == 0 &&
        strcmp(r->reduction, cc_reduction_list[CC_REDUCTION_AR].name) == 0 && iterations > 0)
      return r->time_s / iterations;
  }
  return 0;
}
