/* mpi_library.h: the registry of MPI libraries and their asynchronous-progress knobs, what a
 * run learns of the library it loaded (cc_mpi_info), and what the process shows of it without
 * trusting any knob: threads, CPUs, mapped libraries, the launcher (mpi_library.c). */
#ifndef CC_MPI_LIBRARY_H
#define CC_MPI_LIBRARY_H

#include "cc_common.h"

/* One MPI library's asynchronous-progress knobs (registry in mpi_library.c). */
typedef struct {
  const char *name;        /* mpich | openmpi | intel | cray-mpich | mvapich */
  const char *marker;      /* in MPI_Get_library_version's text */
  const char *knobs[3];    /* environment variables that start its progress thread, NULL-ended */
  const char *extra;       /* "NAME=value" also needed (Cray), NULL if none */
  const char *pin_knob;    /* the variable placing the thread, NULL if none */
  int thread_level;        /* the MPI thread level the thread needs */
  const char *cvar;        /* MPI_T control variable to read back, NULL if none */
  int has_progress_thread; /* 0: Open MPI 4.1 (refused; --progress poll instead) */
  const char *wait_knob;   /* "NAME=value" that stops busy-polling waits on shared cores, or NULL */
} cc_mpi_impl;

#define CC_MAX_PROGRESS_THREADS 8 /* progress threads of one rank recorded */
/* What the MPI library provides and whether its asynchronous progress thread is on. */
typedef struct {
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  char implementation[16]; /* the registry's name, or "unknown" */
  char version[32];        /* "4.0.2", "2021.18", "4.1.4" */
  char launcher[16];       /* srun | hydra | mpirun | singleton | unknown: how it really started */
  char launcher_why[128];
  char mapped[512]; /* MPI libraries mapped into the process (/proc/self/maps) */
  int thread_requested, thread_provided;
  int async_requested;     /* the loaded library's own knob is on */
  char knob[160];          /* the knob(s) read, "NAME=value ..." */
  char ignored_knobs[160]; /* other libraries' knobs that are on: no effect here */
  int async_active;        /* what the run believes (async_decided_by says why) */
  char async_decided_by[320];
  int tasks_before, tasks_after; /* threads of the process around MPI_Init */
  int progress_threads;          /* new threads of MPI_Init taken for progress threads */
  int progress_tids[CC_MAX_PROGRESS_THREADS];
  int cvar_found, cvar_value; /* the library's MPI_T cvar, when it has one */
  char wait_knob[64];         /* the registry's wait setting for this library, "" if none */
  int wait_knob_set;          /* it is set in the environment to its value */
} cc_mpi_info;

/* The registry row whose marker the version text holds; a row named "unknown" otherwise. */
const cc_mpi_impl *cc_mpi_library_of(const char *version_text);
/* Requested from the library's own knobs; other libraries' knobs that are on go to ignored_knobs.
 */
void cc_mpi_knobs_read(const cc_mpi_impl *lib, cc_mpi_info *info);
int cc_task_ids(int *tids, int max); /* thread ids of this process, -1 when /proc is unreadable */
int cc_task_cpu(int tid);            /* the CPU a thread of this process last ran on, -1 unknown */
void cc_task_name(int tid, char *out, size_t size);
void cc_mpi_libraries_mapped(char *out, size_t size, int *distinct);
void cc_mpi_launcher(char *out, size_t size, char *why, size_t why_size);
void cc_mpi_version_number(const char *library, const char *impl, char *out, size_t size);

#endif
