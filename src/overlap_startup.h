/* overlap_startup.h: the start-up overlap probe of a cubecg run that posts non-blocking reductions
 * (overlap_startup.c): IMB-NBC's overlap of the run's reduction with one SpMV of its mesh, under
 * the run's progress setting; the report's overlap_probe and the summary's verdict line. */
#ifndef CC_OVERLAP_STARTUP_H
#define CC_OVERLAP_STARTUP_H

#include "run.h"

/* Collective: fills run->overlap (measured, off or not run, with why). */
CC_WUR cc_err cc_overlap_startup(cc_run *run, const cc_bcrs *a, const cc_comm_table *comm);
/* The summary's verdict line (rank 0). */
void cc_overlap_summary(const cc_run *run, FILE *out);
/* The report's "overlap_probe" object. */
void cc_overlap_report(const cc_run *run, cc_json *js);

#endif
