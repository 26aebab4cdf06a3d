/* summary.h: the run's human summary (summary.c); its file name beside the report is
 * cc_summary_path (options.h). */
#ifndef CC_SUMMARY_H
#define CC_SUMMARY_H

#include "run.h"

/* The summary to out (rank 0: stdout, or stderr when the report goes to stdout). */
void cc_summary_print(const cc_run *run, FILE *out);
/* Rank 0: the summary (cc_summary_print) plus the names of the report and of itself, written to a
 * temporary name and renamed, as the report is. */
CC_WUR cc_err cc_summary_write(const cc_run *run, const char *path);

#endif
