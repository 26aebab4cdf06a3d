/* report.h: the run's JSON report (docs/report-schema.md; report.c). */
#ifndef CC_REPORT_H
#define CC_REPORT_H

#include "run.h"

/* Rank 0: the JSON report (a regular file through a temporary name and a rename; "-" (stdout), a
 * fifo or a device directly). */
CC_WUR cc_err cc_report_write(const cc_run *run, const char *path);
/* 1 for a regular (or not yet existing) file; 0 for "-" (stdout) and fifos/devices, which get
 * the one final report only (no partial rewrites, no rename). */
int cc_report_target_is_file(const char *path);
/* Rank 0, before the work: a FIFO target is opened now without blocking (no reader: CC_ERR_ARG, the
 * job would hang at its end) and kept for the final report; other targets are left alone. */
CC_WUR cc_err cc_report_target_open(const char *path);

#endif
