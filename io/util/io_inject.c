/* io_inject.c: the fault-injection test seam (the spec the caller hands to cc_io_set_inject; io/
 * reads no environment): kills at the steps of a write and of a commit, and ENOSPC after a byte
 * count, on one rank or all, counted per checkpoint of this process. */
#include "io_internal.h"

#include <stdatomic.h>

#include <signal.h>
#include <stdlib.h>

static int inject_checkpoint_number; /* checkpoints written by this process so far */
/* the fault-injection spec the caller handed over (cc_io_set_inject); io/ reads no environment */
static const char *_Atomic inject_spec;

void cc_io_set_inject(const char *spec)
{
  inject_spec = spec && *spec ? spec : NULL;
}

bool cc_io_inject(const char *what)
{
  const char *env = inject_spec;
  if (!env || !*env) return false;
  size_t len = strlen(what);
  for (const char *p = env; *p;) {
    const char *end = strchr(p, ',');
    size_t n        = end ? (size_t)(end - p) : strlen(p);
    if (n >= len && !strncmp(p, what, len) && (n == len || p[len] == ':')) return true;
    p += n + (end ? 1 : 0);
  }
  return false;
}

/* enospc-after: bytes of the current checkpoint written by this process (the offload helper adds
 * to it too); enospc-rank compares with the MPI_COMM_WORLD rank noted on the main thread */
static _Atomic int64_t inject_checkpoint_bytes;
static int inject_world_rank = -1;

void io_inject_note_rank(void)
{
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized && MPI_Comm_rank(MPI_COMM_WORLD, &inject_world_rank) != MPI_SUCCESS)
    inject_world_rank = -1;
}

void io_inject_next_checkpoint(void)
{
  inject_checkpoint_number++;
  inject_checkpoint_bytes = 0;
  io_inject_note_rank();
}

/* "KEY=VALUE" in the spec: the value text (up to ',' or the end), NULL if absent */
static const char *inject_value(const char *key)
{
  const char *env = inject_spec;
  if (!env) return NULL;
  size_t len = strlen(key);
  for (const char *p = env; *p;) {
    const char *end = strchr(p, ',');
    size_t n        = end ? (size_t)(end - p) : strlen(p);
    if (n > len && !strncmp(p, key, len) && p[len] == '=') return p + len + 1;
    p += n + (end ? 1 : 0);
  }
  return NULL;
}

bool io_inject_enospc(size_t n)
{
  const char *after = inject_value("enospc-after");
  if (!after) return false;
  const char *rank = inject_value("enospc-rank");
  if (rank && atoi(rank) != inject_world_rank) return false;
  long long limit = strtoll(after, NULL, 10);
  int64_t before  = atomic_fetch_add(&inject_checkpoint_bytes, (int64_t)n);
  return before + (int64_t)n > limit;
}

static bool inject_at(const char *what, int checkpoint_number);

void io_inject_kill_point(void)
{
  /* outside a checkpoint (benchmark, direct backend use) counts as the first */
  int current = inject_checkpoint_number > 0 ? inject_checkpoint_number : 1;
  if (!inject_at("kill-during-write", current)) return;
  fprintf(stderr, "cubecg: CUBECG_IO_INJECT=kill-during-write: raising SIGKILL (checkpoint %d)\n",
          current);
  fflush(stderr);
  raise(SIGKILL);
}

int io_inject_checkpoint_number(void)
{
  return inject_checkpoint_number;
}

/* "WHAT[:N]" in the spec and checkpoint_number is N (default 1) */
static bool inject_at(const char *what, int checkpoint_number)
{
  if (!cc_io_inject(what)) return false;
  const char *env = strstr(inject_spec, what);
  int nth         = 1;
  if (env[strlen(what)] == ':') nth = atoi(env + strlen(what) + 1);
  return checkpoint_number == nth;
}

bool io_inject_commit_enospc(int checkpoint_number)
{
  return inject_at("enospc-in-commit", checkpoint_number);
}

void io_inject_kill_commit_point(int checkpoint_number)
{
  if (!inject_at("kill-during-commit", checkpoint_number)) return;
  fprintf(stderr, "cubecg: CUBECG_IO_INJECT=kill-during-commit: raising SIGKILL (checkpoint %d)\n",
          checkpoint_number);
  fflush(stderr);
  raise(SIGKILL);
}

/* "kill-at-STEP[:N]": checkpoint N (default 1) of this process; checkpoint_number 0 (retention,
 * which runs inside the commit of the checkpoint being numbered) takes the current number. */
void io_inject_kill_step(const char *step, int checkpoint_number)
{
  char what[48];
  snprintf(what, sizeof what, "kill-at-%s", step);
  if (!inject_at(what, checkpoint_number ? checkpoint_number : inject_checkpoint_number)) return;
  fprintf(stderr, "cubecg: CUBECG_IO_INJECT=%s: raising SIGKILL (checkpoint %d)\n", what,
          checkpoint_number ? checkpoint_number : inject_checkpoint_number);
  fflush(stderr);
  raise(SIGKILL);
}
