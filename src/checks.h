/* checks.h: the built-in checks inside every run (checks.c), recorded in the run (run.h). */
#ifndef CC_CHECKS_H
#define CC_CHECKS_H

#include "run.h"

/* HPCG style: symmetry of SpMV and of the preconditioner, positivity of the preconditioner. */
CC_WUR cc_err cc_checks_symmetry(cc_run *run, const cc_bcrs *a, const cc_comm_table *comm,
                                 cc_precond *pc);

#endif
