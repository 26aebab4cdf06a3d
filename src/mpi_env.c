/* mpi_env.c: MPI start-up and what the library provides: thread level, library version, and whether
 * MPICH's asynchronous progress thread is on (read back through the MPI_T control variable). */
#include "cc_driver.h"

#include <stdlib.h>

const char *cc_thread_level_name(int level)
{
  switch (level) {
  case MPI_THREAD_SINGLE:
    return "MPI_THREAD_SINGLE";
  case MPI_THREAD_FUNNELED:
    return "MPI_THREAD_FUNNELED";
  case MPI_THREAD_SERIALIZED:
    return "MPI_THREAD_SERIALIZED";
  case MPI_THREAD_MULTIPLE:
    return "MPI_THREAD_MULTIPLE";
  default:
    return "unknown";
  }
}

static int env_is_true(const char *name)
{
  const char *value = getenv(name);
  return value &&
         (strcmp(value, "1") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "true") == 0);
}

/* Read an integer control variable through MPI_T; returns 0 and sets *found = 0 when absent. */
static cc_err read_int_cvar(const char *name, int *value, int *found)
{
  int index;
  *found = 0;
  if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) return CC_OK;
  MPI_T_cvar_handle handle;
  int count;
  CC_MPI(MPI_T_cvar_handle_alloc(index, NULL, &handle, &count));
  int rc = count == 1 ? MPI_T_cvar_read(handle, value) : MPI_ERR_COUNT;
  CC_MPI(MPI_T_cvar_handle_free(&handle));
  CC_MPI(rc);
  *found = 1;
  return CC_OK;
}

cc_err cc_mpi_start(int *argc, char ***argv, cc_mpi_info *info)
{
  memset(info, 0, sizeof *info);
  /* MPICH's progress thread calls into MPI concurrently with the application, so it is only
   * started under MPI_THREAD_MULTIPLE; otherwise only the main thread calls MPI (FUNNELED). */
  info->async_requested =
      env_is_true("MPIR_CVAR_ASYNC_PROGRESS") || env_is_true("MPICH_ASYNC_PROGRESS");
  info->thread_requested = info->async_requested ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
  int rc = MPI_Init_thread(argc, argv, info->thread_requested, &info->thread_provided);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "cubecg: error: MPI_Init_thread failed (code %d)\n", rc);
    exit(1);
  }
  CC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int length;
  CC_MPI(MPI_Get_library_version(info->library, &length));
  for (char *c = info->library; *c; c++)
    if (*c == '\n' || *c == '\t') *c = ' ';
  int queried;
  CC_MPI(MPI_Query_thread(&queried));
  info->thread_provided = queried;

  int t_provided, value = 0, found = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &t_provided) == MPI_SUCCESS) {
    CC_CALL(read_int_cvar("MPIR_CVAR_ASYNC_PROGRESS", &value, &found));
    MPI_T_finalize();
  }
  if (found) {
    /* MPICH only starts the thread when the cvar is set AND the thread level is MULTIPLE. */
    info->async_active = value != 0 && info->thread_provided == MPI_THREAD_MULTIPLE;
    snprintf(info->async_decided_by, sizeof info->async_decided_by,
             "MPI_T cvar MPIR_CVAR_ASYNC_PROGRESS=%d and thread level %s", value,
             cc_thread_level_name(info->thread_provided));
  } else {
    info->async_active = info->async_requested && info->thread_provided == MPI_THREAD_MULTIPLE;
    snprintf(info->async_decided_by, sizeof info->async_decided_by,
             "no MPI_T cvar MPIR_CVAR_ASYNC_PROGRESS: environment and thread level %s",
             cc_thread_level_name(info->thread_provided));
  }
  return CC_OK;
}

cc_err cc_run_topology(cc_run *run, MPI_Comm comm)
{
  CC_CALL(cc_placement_resolve(run->opts.placement, &run->topo));
  CC_CALL(cc_threads_choose(comm, &run->threads, run->topo.threads_chosen_by,
                            sizeof run->topo.threads_chosen_by));
  CC_CALL(cc_topology_gather(comm, run->mpi.async_active, &run->topo));
  return CC_OK;
}
