/* mpi_env.c: MPI start-up and what the library provides: thread level, library and version, and
 * whether its asynchronous progress thread runs (the threads MPI_Init started, checked against
 * the library's MPI_T control variable; knobs in the registry of mpi_library.c). */
#include "cc_topology.h"
#include "mpi_env.h"

#include <ctype.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

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

/* The threads MPI_Init started: ids in after[] that are not in before[]. */
static int new_tasks(const int *before, int n_before, const int *after, int n_after, int *out,
                     int max)
{
  int n = 0;
  for (int i = 0; i < n_after; i++) {
    int seen = 0;
    for (int j = 0; j < n_before && !seen; j++) seen = after[i] == before[j];
    if (!seen && n < max) out[n++] = after[i];
  }
  return n;
}

/* Active is what the process shows, not what a knob says: the threads MPI_Init started. Runtime
 * service threads carry their own names (MPICH's "async"); a progress thread keeps the program's
 * name (MPICH and Intel MPI create it unnamed). Checked against the MPI_T cvar when there is one;
 * where the knob and the threads disagree the run believes the threads and says so. */
static void decide_active(const cc_mpi_impl *lib, cc_mpi_info *info, const int *fresh, int started)
{
  char *why = info->async_decided_by, main_name[32], name[32], named[96] = "";
  size_t size = sizeof info->async_decided_by, n;
  cc_task_name((int)getpid(), main_name, sizeof main_name);
  info->progress_threads = 0;
  for (int i = 0; i < started; i++) {
    cc_task_name(fresh[i], name, sizeof name);
    if (lib->has_progress_thread && strcmp(name, main_name) == 0)
      info->progress_tids[info->progress_threads++] = fresh[i];
    else if (strlen(named) + strlen(name) + 3 < sizeof named)
      snprintf(named + strlen(named), sizeof named - strlen(named), "%s'%s'", named[0] ? " " : "",
               name);
  }
  info->async_active = info->progress_threads > 0;
  snprintf(why, size,
           "MPI_Init started %d thread(s) (tasks %d -> %d): %d unnamed like the program (%s), "
           "runtime %s",
           started, info->tasks_before, info->tasks_after, info->progress_threads,
           lib->has_progress_thread ? "progress threads" : "no progress thread in this library",
           named[0] ? named : "none");
  if (info->cvar_found) {
    int cvar_on = info->cvar_value != 0 && info->thread_provided >= lib->thread_level;
    n           = strlen(why);
    snprintf(why + n, size - n, "; MPI_T %s=%d at %s %s", lib->cvar, info->cvar_value,
             cc_thread_level_name(info->thread_provided),
             cvar_on == info->async_active ? "agrees" : "disagrees (the threads are believed)");
  }
  if (info->async_requested != info->async_active) {
    n = strlen(why);
    snprintf(why + n, size - n, "; requested %s but %s: the observed threads are believed",
             info->async_requested ? info->knob : "by no knob",
             info->async_active ? "a progress thread runs" : "none runs");
  }
}

cc_err cc_mpi_start(int *argc, char ***argv, cc_mpi_info *info)
{
  memset(info, 0, sizeof *info);
  /* MPI_Get_library_version may be called before MPI_Init (MPI-3): the knobs and the thread level
   * to ask for depend on the library. */
  int length;
  MPI_Get_library_version(info->library, &length);
  for (char *c = info->library; *c; c++)
    if (*c == '\n' || *c == '\t') *c = ' ';
  const cc_mpi_impl *lib = cc_mpi_library_of(info->library);
  snprintf(info->implementation, sizeof info->implementation, "%s", lib->name);
  cc_mpi_version_number(info->library, lib->name, info->version, sizeof info->version);
  cc_mpi_knobs_read(lib, info);
  /* the thread level follows the library's need: MPICH's thread calls MPI concurrently with the
   * application (MULTIPLE); otherwise only the main thread calls MPI (FUNNELED) */
  int unknown_asked = !strcmp(lib->name, "unknown") && info->ignored_knobs[0];
  info->thread_requested =
      (info->async_requested || unknown_asked) ? lib->thread_level : MPI_THREAD_FUNNELED;
  if (unknown_asked) info->thread_requested = MPI_THREAD_MULTIPLE;

  int before[64], after[64], fresh[CC_MAX_PROGRESS_THREADS];
  info->tasks_before = cc_task_ids(before, 64);
  int rc             = MPI_Init_thread(argc, argv, info->thread_requested, &info->thread_provided);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "cubecg: error: MPI_Init_thread failed (code %d)\n", rc);
    exit(1);
  }
  info->tasks_after = cc_task_ids(after, 64);
  int started       = new_tasks(before, info->tasks_before, after, info->tasks_after, fresh,
                                CC_MAX_PROGRESS_THREADS);
  CC_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int queried;
  CC_MPI(MPI_Query_thread(&queried));
  info->thread_provided = queried;
  cc_mpi_launcher(info->launcher, sizeof info->launcher, info->launcher_why,
                  sizeof info->launcher_why);
  int distinct;
  cc_mpi_libraries_mapped(info->mapped, sizeof info->mapped, &distinct);

  int t_provided;
  if (lib->cvar && MPI_T_init_thread(MPI_THREAD_SINGLE, &t_provided) == MPI_SUCCESS) {
    CC_CALL(read_int_cvar(lib->cvar, &info->cvar_value, &info->cvar_found));
    MPI_T_finalize();
  }
  decide_active(lib, info, fresh, started);

  /* never two MPI libraries in one process (an HDF5 of another MPI pulls its libmpi in) */
  CC_CHECK(distinct <= 1, CC_ERR_ARG,
           "this process loaded %d MPI libraries (%s): rebuild with the HDF5 of %s or without it "
           "(-DCUBECG_HDF5=OFF)",
           distinct, info->mapped, lib->name);
  /* a library without a progress thread refuses a run that asks for one */
  CC_CHECK(lib->has_progress_thread || !info->ignored_knobs[0], CC_ERR_ARG,
           "%s: %s has no asynchronous progress thread; use --progress poll (the kernels test the "
           "pending reduction) instead",
           info->ignored_knobs, lib->name);
  return CC_OK;
}

/* The CPU entry `index` of a comma list of CPU numbers (wrapping around), -1 when not a list. */
static int list_entry(const char *list, int index)
{
  int n = 1;
  for (const char *c = list; *c; c++) {
    if (*c == ',')
      n++;
    else if (!isdigit((unsigned char)*c))
      return -1;
  }
  const char *entry = list;
  for (int i = 0; i < index % n; i++) entry = strchr(entry, ',') + 1;
  return atoi(entry);
}

/* The CPU the pin knob names for thread k of the rank with node rank r: MPICH's
 * MPIR_CVAR_PROGRESS_THREAD_AFFINITY takes entry r of its list ("auto": cpus - 1 - r); Intel MPI's
 * I_MPI_ASYNC_PROGRESS_PIN hands its list out in rank order, threads of a rank in a row. */
static int pin_expected(const char *knob, const char *setting, int node_rank, int per_rank, int k)
{
  if (!setting[0]) return -1;
  if (strcmp(setting, "auto") == 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return (int)(cpus - 1 - node_rank % cpus);
  }
  if (strcmp(knob, "I_MPI_ASYNC_PROGRESS_PIN") == 0)
    return list_entry(setting, node_rank * per_rank + k);
  return list_entry(setting, node_rank);
}

cc_err cc_progress_placement(MPI_Comm comm, const cc_mpi_info *mpi, cc_progress_info *out)
{
  memset(out, 0, sizeof *out);
  const cc_mpi_impl *lib = cc_mpi_library_of(mpi->library);
  if (lib->pin_knob) {
    snprintf(out->pin_knob, sizeof out->pin_knob, "%s", lib->pin_knob);
    const char *value = getenv(lib->pin_knob);
    snprintf(out->pin_setting, sizeof out->pin_setting, "%s", value ? value : "");
  }
  MPI_Comm node;
  CC_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  cc_progress_rank mine = {.n = mpi->progress_threads};
  int node_size;
  cc_err err = CC_OK;
  if (MPI_Comm_rank(node, &mine.node_rank) != MPI_SUCCESS ||
      MPI_Comm_size(node, &node_size) != MPI_SUCCESS)
    err = CC_ERR_MPI;
  /* the CPUs any compute thread of the node may run on: each OpenMP thread's mask, OR over the
   * node's ranks */
  cpu_set_t compute;
  CPU_ZERO(&compute);
#pragma omp parallel
  {
    cpu_set_t own;
    if (sched_getaffinity(0, sizeof own, &own) == 0) {
#pragma omp critical(cc_progress_compute_mask)
      CPU_OR(&compute, &compute, &own);
    }
  }
  cpu_set_t node_compute;
  if (!err && MPI_Allreduce(&compute, &node_compute, (int)sizeof compute, MPI_BYTE, MPI_BOR,
                            node) != MPI_SUCCESS)
    err = CC_ERR_MPI;
  MPI_Comm_free(&node);
  CC_CHECK(!err, CC_ERR_MPI, "progress threads: node communicator failed");
  int mismatches = 0; /* threads with a pin CPU whose mask is not exactly that CPU */
  for (int k = 0; k < mine.n; k++) {
    int tid     = mpi->progress_tids[k];
    mine.cpu[k] = cc_task_cpu(tid);
    cpu_set_t mask, both;
    CPU_ZERO(&mask);
    if (sched_getaffinity(tid, sizeof mask, &mask) == 0) {
      cc_cpu_list(&mask, mine.cpus[k], sizeof mine.cpus[k]);
      CPU_AND(&both, &mask, &node_compute);
      mine.shares[k] = CPU_COUNT(&both) > 0;
    } else {
      snprintf(mine.cpus[k], sizeof mine.cpus[k], "?");
      mine.shares[k] = 1;
    }
    mine.expected[k] = pin_expected(out->pin_knob, out->pin_setting, mine.node_rank, mine.n, k);
    if (mine.expected[k] >= 0)
      mismatches += !(CPU_COUNT(&mask) == 1 && mine.expected[k] < CPU_SETSIZE &&
                      CPU_ISSET(mine.expected[k], &mask));
  }
  long online  = sysconf(_SC_NPROCESSORS_ONLN);
  int facts[4] = {mine.n, 0, 0, mismatches}, sums[4];
  for (int k = 0; k < mine.n; k++) {
    facts[1] += mine.shares[k];
    facts[2] += mine.expected[k] >= 0;
  }
  CC_MPI(MPI_Allreduce(facts, sums, 4, MPI_INT, MPI_SUM, comm));
  out->total = sums[0], out->sharing = sums[1], out->pin_checked = sums[2];
  out->pin_mismatches = sums[3];
  int free_cpus       = (int)online - CPU_COUNT(&node_compute);
  CC_MPI(MPI_Allreduce(&free_cpus, &out->free_cpus_min, 1, MPI_INT, MPI_MIN, comm));
  int rank, size;
  CC_MPI(MPI_Comm_rank(comm, &rank));
  CC_MPI(MPI_Comm_size(comm, &size));
  if (rank == 0) {
    CC_CALL(cc_malloc((size_t)size, sizeof *out->ranks, &out->ranks));
    out->n_ranks = size;
  }
  CC_MPI(MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, out->ranks, (int)sizeof mine, MPI_BYTE, 0,
                    comm));
  return CC_OK;
}

void cc_progress_free(cc_progress_info *info)
{
  cc_free(&info->ranks);
  info->n_ranks = 0;
}
