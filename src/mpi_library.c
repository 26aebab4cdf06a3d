/* mpi_library.c: the registry of MPI libraries and their asynchronous-progress knobs (one row per
 * library: how its version string names it, the environment variables that start its progress
 * thread, the thread level the thread needs, its pin variable, its MPI_T control variable), and
 * what the process shows of them without trusting any knob: the threads in /proc/self/task before
 * and after MPI_Init, each new thread's CPU and affinity, the MPI libraries mapped into the process
 * and the launcher that really started it. */
#include "mpi_library.h"

#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

static const cc_mpi_impl library_table[] = {
    /* Intel MPI 2021 starts I_MPI_ASYNC_PROGRESS_THREADS (default 1) threads per rank inside
     * MPI_Init at any thread level: it needs no more than FUNNELED of the application. */
    {"intel",
     "Intel(R) MPI",
     {"I_MPI_ASYNC_PROGRESS", NULL},
     NULL,
     "I_MPI_ASYNC_PROGRESS_PIN",
     MPI_THREAD_FUNNELED,
     NULL,
     1,
     /* Intel MPI spins in its waits; on cores shared with other work it must yield */
     "I_MPI_WAIT_MODE=1"},
    /* Cray MPICH: the thread only with MPICH_MAX_THREAD_SAFETY=multiple and MULTIPLE asked. It
     * documents MPICH_ASYNC_PROGRESS; as MPICH it also reads the MPIR_CVAR_ spelling. */
    {"cray-mpich",
     "CRAY MPICH",
     {"MPICH_ASYNC_PROGRESS", "MPIR_CVAR_ASYNC_PROGRESS", NULL},
     "MPICH_MAX_THREAD_SAFETY=multiple",
     NULL, /* no pin variable documented: the thread's CPU is only read back */
     MPI_THREAD_MULTIPLE,
     "MPIR_CVAR_ASYNC_PROGRESS",
     1,
     NULL},
    /* MVAPICH2 documents MV2_ASYNC_PROGRESS; MVAPICH 3 inherits MPICH's cvar. */
    {"mvapich",
     "MVAPICH",
     {"MV2_ASYNC_PROGRESS", "MPIR_CVAR_ASYNC_PROGRESS", NULL},
     NULL,
     "MPIR_CVAR_PROGRESS_THREAD_AFFINITY",
     MPI_THREAD_MULTIPLE,
     "MPIR_CVAR_ASYNC_PROGRESS",
     1,
     NULL},
    /* MPICH starts the thread only under MPI_THREAD_MULTIPLE (it calls MPI concurrently with the
     * application) and pins it with MPIR_CVAR_PROGRESS_THREAD_AFFINITY. */
    {"mpich",
     "MPICH",
     {"MPIR_CVAR_ASYNC_PROGRESS", "MPICH_ASYNC_PROGRESS", NULL},
     NULL,
     "MPIR_CVAR_PROGRESS_THREAD_AFFINITY",
     MPI_THREAD_MULTIPLE,
     "MPIR_CVAR_ASYNC_PROGRESS",
     1,
     NULL},
    /* Open MPI 4.1 has no asynchronous progress thread (its runtime threads are not one); its
     * waits busy-poll unless told to yield (mpi_yield_when_idle) */
    {"openmpi",
     "Open MPI",
     {NULL},
     NULL,
     NULL,
     MPI_THREAD_FUNNELED,
     NULL,
     0,
     "OMPI_MCA_mpi_yield_when_idle=1"},
};
#define LIBRARY_COUNT ((int)(sizeof library_table / sizeof library_table[0]))

static const cc_mpi_impl unknown_library = {"unknown",           "",   {NULL}, NULL, NULL,
                                            MPI_THREAD_FUNNELED, NULL, 0,      NULL};

const cc_mpi_impl *cc_mpi_library_of(const char *version_text)
{
  for (int i = 0; i < LIBRARY_COUNT; i++)
    if (strstr(version_text, library_table[i].marker)) return &library_table[i];
  return &unknown_library;
}

/* on, 1, yes, true, enable (Intel MPI's spellings; MPICH takes 1) */
static int value_is_on(const char *value)
{
  static const char *const on[] = {"1", "on", "yes", "true", "enable"};
  if (!value) return 0;
  for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
    if (strcasecmp(value, on[i]) == 0) return 1;
  return 0;
}

static void append(char *out, size_t size, const char *sep, const char *name, const char *value)
{
  size_t n = strlen(out);
  if (n + 1 < size) snprintf(out + n, size - n, "%s%s=%s", n ? sep : "", name, value);
}

void cc_mpi_knobs_read(const cc_mpi_impl *lib, cc_mpi_info *info)
{
  info->async_requested = 0;
  info->knob[0] = info->ignored_knobs[0] = '\0';
  for (int k = 0; lib->knobs[k]; k++) {
    const char *value = getenv(lib->knobs[k]);
    if (value_is_on(value)) {
      info->async_requested = 1;
      append(info->knob, sizeof info->knob, " ", lib->knobs[k], value);
    }
  }
  /* a library's extra condition (Cray: MPICH_MAX_THREAD_SAFETY=multiple) */
  if (info->async_requested && lib->extra) {
    char name[64];
    const char *eq = strchr(lib->extra, '=');
    snprintf(name, sizeof name, "%.*s", (int)(eq - lib->extra), lib->extra);
    const char *value = getenv(name);
    if (!value || strcasecmp(value, eq + 1) != 0) info->async_requested = 0;
    append(info->knob, sizeof info->knob, " ", name, value ? value : "(unset)");
  }
  /* the setting this library's waits need on shared cores, and whether it is given */
  info->wait_knob[0]  = '\0';
  info->wait_knob_set = 0;
  if (lib->wait_knob) {
    snprintf(info->wait_knob, sizeof info->wait_knob, "%s", lib->wait_knob);
    const char *eq = strchr(lib->wait_knob, '=');
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(eq - lib->wait_knob), lib->wait_knob);
    const char *value   = getenv(name);
    info->wait_knob_set = value && strcmp(value, eq + 1) == 0;
  }
  /* every other library's knob that is on: it has no effect under this library */
  for (int i = 0; i < LIBRARY_COUNT; i++) {
    for (int k = 0; library_table[i].knobs[k]; k++) {
      const char *name = library_table[i].knobs[k], *value = getenv(name);
      int own = 0;
      for (int j = 0; lib->knobs[j]; j++) own |= strcmp(lib->knobs[j], name) == 0;
      if (own || !value_is_on(value) || strstr(info->ignored_knobs, name)) continue;
      append(info->ignored_knobs, sizeof info->ignored_knobs, " ", name, value);
    }
  }
}

/* ---- what the process shows ------------------------------------------------------------- */

int cc_task_ids(int *tids, int max)
{
  DIR *dir = opendir("/proc/self/task");
  if (!dir) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    if (n < max) tids[n] = atoi(e->d_name);
    n++;
  }
  closedir(dir);
  return n < max ? n : max;
}

int cc_task_cpu(int tid)
{
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t got = fread(line, 1, sizeof line - 1, f);
  fclose(f);
  line[got]   = '\0';
  char *field = strrchr(line, ')'); /* after the command name, which may hold spaces */
  if (!field) return -1;
  /* fields after ")" start at 3 (state); "processor" is field 39 of proc(5) */
  int index = 2, cpu = -1;
  for (char *tok = strtok(field + 1, " "); tok; tok = strtok(NULL, " "))
    if (++index == 39) {
      cpu = atoi(tok);
      break;
    }
  return cpu;
}

void cc_task_name(int tid, char *out, size_t size)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
  snprintf(out, size, "?");
  FILE *f = fopen(path, "r");
  if (!f) return;
  if (fgets(out, (int)size, f)) out[strcspn(out, "\n")] = '\0';
  fclose(f);
}

void cc_mpi_libraries_mapped(char *out, size_t size, int *distinct)
{
  out[0]    = '\0';
  *distinct = 0;
  FILE *f   = fopen("/proc/self/maps", "r");
  if (!f) return;
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    char *path = strchr(line, '/');
    if (!path) continue;
    path[strcspn(path, "\n")] = '\0';
    const char *base          = strrchr(path, '/') + 1;
    /* the MPI library itself: libmpi.so.N (MPICH ABI, Open MPI, Intel) or libmpich.so.N */
    if (strncmp(base, "libmpi.so", 9) && strncmp(base, "libmpich.so", 11)) continue;
    if (strstr(out, path)) continue;
    append(out, size, " ", "", path);
    (*distinct)++;
  }
  fclose(f);
  /* append wrote "=path": drop the empty names' "=" */
  char *w = out;
  for (const char *r = out; *r; r++)
    if (*r != '=') *w++ = *r;
  *w = '\0';
}

void cc_mpi_launcher(char *out, size_t size, char *why, size_t why_size)
{
  char path[64], parent[64] = "?";
  snprintf(path, sizeof path, "/proc/%d/comm", (int)getppid());
  FILE *f = fopen(path, "r");
  if (f) {
    if (fgets(parent, sizeof parent, f)) parent[strcspn(parent, "\n")] = '\0';
    fclose(f);
  }
  const char *kind = "unknown";
  if (strcmp(parent, "slurmstepd") == 0)
    kind = "srun";
  else if (strncmp(parent, "hydra_pmi_proxy", 15) == 0 || strncmp(parent, "pmi_proxy", 9) == 0)
    kind = "hydra";
  else if (strncmp(parent, "orted", 5) == 0 || strncmp(parent, "prted", 5) == 0 ||
           strstr(parent, "mpirun") || strstr(parent, "mpiexec") || strstr(parent, "orterun") ||
           strstr(parent, "prterun"))
    kind = "mpirun";
  else if (!getenv("PMI_RANK") && !getenv("PMIX_RANK") && !getenv("OMPI_COMM_WORLD_SIZE") &&
           !getenv("PMI_FD"))
    kind = "singleton";
  snprintf(out, size, "%s", kind);
  snprintf(why, why_size, "parent process '%s'%s%s", parent,
           getenv("SLURM_JOB_ID") ? ", inside Slurm job " : "",
           getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "");
}

void cc_mpi_version_number(const char *library, const char *impl, char *out, size_t size)
{
  /* the first dotted number after the library's name: "MPICH Version: 4.0.2",
   * "Intel(R) MPI Library 2021.18 for Linux", "Open MPI v4.1.4" */
  const cc_mpi_impl *lib = cc_mpi_library_of(library);
  const char *from       = strcmp(impl, "unknown") ? strstr(library, lib->marker) : library;
  snprintf(out, size, "unknown");
  for (const char *c = from ? from : library; *c; c++) {
    if (!isdigit((unsigned char)*c) || !strchr(c, '.')) continue;
    size_t n = strspn(c, "0123456789.");
    if (n >= 3 && memchr(c, '.', n)) {
      snprintf(out, size, "%.*s", (int)n, c);
      return;
    }
    c += n - 1;
  }
}
