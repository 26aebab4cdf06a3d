/* pipeline.h: the run's stages (pipeline.c): mesh, partition, assembly, ordering,
 * preconditioner, the built-in checks (checks.h), the solves, the exports. */
#ifndef CC_PIPELINE_H
#define CC_PIPELINE_H

#include "run.h"

/* The solves --solver / --reduction ask for, in registry order (pcg-ar first, the baseline);
 * an error naming CC_MAX_SOLVES when there would be more. */
typedef struct {
  const cc_krylov *variant;
  cc_reduction_mode reduction;
} cc_solve_plan;
CC_WUR cc_err cc_plan_solves(const cc_options *opts, cc_solve_plan plan[CC_MAX_SOLVES], int *n);

/* The pipeline: mesh, partition, assembly, ordering, preconditioner, solves, exports (collective).
 */
CC_WUR cc_err cc_run_pipeline(cc_run *run);

#endif
