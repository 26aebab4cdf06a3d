/* cc_trace.h: the OTF2 event trace of --trace DIR (cc_trace.c; its directory in cc_trace_dir.c).
 * Every rank writes one location of one archive, DIR/traces.otf2: the timing regions of the solves
 * (entered and left through cc_timer_start / cc_timer_stop, cc_common.h), an "iteration"
 * parameter at the end of each iteration, and each non-blocking reduction's post, its tests and
 * its wait, the test and the wait with whether the reduction had completed. A solve records its
 * first `iterations` iterations (0 = all). Built without OTF2 (CUBECG_OTF2=OFF or the library not
 * found), cc_trace_available is 0 and opening a trace is refused.
 */
#ifndef CC_TRACE_H
#define CC_TRACE_H

#include "cc_common.h"

/* 1 when this build writes OTF2 (cc_trace_library then names it), 0 when not (it says why). */
extern const int cc_trace_available;
extern const char cc_trace_library[];

/* What a trace recorded, summed over ranks by cc_trace_close (rank 0 holds the sums). */
typedef struct {
  int64_t events;           /* OTF2 events written */
  int64_t iterations;       /* iteration markers (per rank: the iterations traced) */
  int64_t posted;           /* non-blocking reductions posted (NonBlockingCollectiveRequest) */
  int64_t tests;            /* MPI_Test calls on them (MpiRequestTest, attribute "completed") */
  int64_t waited;           /* waits (NonBlockingCollectiveComplete) */
  int64_t waited_completed; /* ... of which found the reduction already complete */
} cc_trace_counts;

/* The file in DIR that makes it cubecg's own trace directory. */
#define CC_TRACE_MARKER "cubecg-trace.txt"

/* Rank 0, with the options: DIR may be traced into (a missing directory is created when the trace
 * opens, an empty one or one holding CC_TRACE_MARKER is taken); another directory or a file is
 * refused with CC_ERR_ARG, and so is any DIR when the build has no OTF2. */
CC_WUR cc_err cc_trace_check_dir(const char *dir);
/* Rank 0 when the trace opens: create DIR if missing, write the marker, and remove the archive a
 * previous trace left (traces.otf2, traces.def, traces/: only what OTF2 writes). */
CC_WUR cc_err cc_trace_claim_dir(const char *dir);

/* Collective over comm: open DIR's archive (rank 0 claims DIR first); every rank's clock starts
 * at the barrier inside. iterations >= 0 (0 = every iteration of every solve). */
CC_WUR cc_err cc_trace_open(MPI_Comm comm, const char *dir, int iterations, cc_trace **out);
/* Collective: write the definitions and close the archive; *counts (may be NULL) gets the sums
 * over ranks on rank 0. *tr becomes NULL. An error of a hook (they cannot return one) is
 * returned here. */
CC_WUR cc_err cc_trace_close(cc_trace **tr, cc_trace_counts *counts);
/* On an error path: free this rank's side without writing (no MPI; the archive stays
 * incomplete, its definitions unwritten). *tr becomes NULL. */
void cc_trace_discard(cc_trace **tr);

/* The end of iteration `iteration` of the running solve (the iteration parameter); after the
 * bound the solve records nothing more but the ends of the regions it is in. */
void cc_trace_iteration(cc_trace *tr, int iteration);
/* A non-blocking reduction just posted: returns its request id for the events that follow. */
uint64_t cc_trace_reduction_post(cc_trace *tr);
/* An MPI_Test of request id (completed: the test's flag). */
void cc_trace_reduction_test(cc_trace *tr, uint64_t id, int completed);
/* The wait of request id returned (completed: it had completed when the wait began), n doubles. */
void cc_trace_reduction_wait(cc_trace *tr, uint64_t id, int completed, int n);

#endif
