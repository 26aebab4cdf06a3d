/* mpi_env.h: MPI start-up and what the library provides (mpi_env.c): thread level, whether its
 * asynchronous progress thread runs, and where the progress threads ran. */
#ifndef CC_MPI_ENV_H
#define CC_MPI_ENV_H

#include "mpi_library.h"

/* Where one rank's progress threads ran, read back after set-up. */
typedef struct {
  int n;                                  /* progress threads of the rank */
  int node_rank;                          /* rank on its node (the pin lists' index) */
  int cpu[CC_MAX_PROGRESS_THREADS];       /* CPU each last ran on */
  int expected[CC_MAX_PROGRESS_THREADS];  /* CPU its pin knob names, -1 when none */
  int shares[CC_MAX_PROGRESS_THREADS];    /* its affinity meets a compute thread's CPUs */
  char cpus[CC_MAX_PROGRESS_THREADS][64]; /* its affinity mask as a CPU list */
} cc_progress_rank;

typedef struct {
  char pin_knob[48], pin_setting[160]; /* the library's pin variable and its value ("" unset) */
  int total;                           /* progress threads over all ranks */
  int sharing;                         /* of them, those whose CPUs meet compute threads' CPUs */
  int free_cpus_min;                   /* CPUs of a node no compute thread may run on, min */
  int pin_checked, pin_mismatches;     /* threads with a pin CPU, those read back elsewhere */
  cc_progress_rank *ranks;             /* rank 0: one per rank, else NULL */
  int n_ranks;
} cc_progress_info;

/* Collective: each rank's progress threads' CPUs and masks, against the pin knob and the node's
 * compute threads (call after the OpenMP threads are placed). */
CC_WUR cc_err cc_progress_placement(MPI_Comm comm, const cc_mpi_info *mpi, cc_progress_info *out);
void cc_progress_free(cc_progress_info *info);

/* MPI_Init_thread with the level async progress needs; MPI_ERRORS_RETURN on MPI_COMM_WORLD. */
CC_WUR cc_err cc_mpi_start(int *argc, char ***argv, cc_mpi_info *info);
const char *cc_thread_level_name(int level);

#endif
