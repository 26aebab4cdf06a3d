/* test_seams.c: the test seams, read from the environment in this one place (tests only); the
 * libraries read none, they get the spec from their caller. The variables stay the interface of
 * the test scripts (tests/io/io_kill.sh, io_ckpt_safety.sh, ...). */
#include "test_seams.h"

#include "cc_io.h"

#include <math.h>
#include <stdlib.h>

/* CUBECG_KRYLOV_INJECT=nan@N or inf@N sets r[0] of rank 0 to NaN / Inf at the end of iteration N,
 * so the driver's breakdown path can be tested on a valid problem; nan@N:SOLVER only in that
 * variant's solves (--solver all: the others go on). Anything else in the variable is refused. */
static cc_err krylov_inject_from_env(cc_krylov_inject *inject)
{
  memset(inject, 0, sizeof *inject);
  const char *env = getenv("CUBECG_KRYLOV_INJECT");
  if (!env || !env[0]) return CC_OK;
  char kind[4] = "";
  int it = -1, used = 0;
  int ok = sscanf(env, "%3[a-z]@%d%n", kind, &it, &used) == 2 && it >= 1 &&
           (env[used] == '\0' || (env[used] == ':' && env[used + 1])) &&
           (strcmp(kind, "nan") == 0 || strcmp(kind, "inf") == 0);
  CC_CHECK(ok, CC_ERR_ARG,
           "CUBECG_KRYLOV_INJECT='%s': expected nan@N or inf@N with N >= 1, optionally :SOLVER",
           env);
  inject->iteration = it;
  inject->value     = strcmp(kind, "nan") == 0 ? NAN : INFINITY;
  /* a name longer than the field matches no variant, cut or not */
  if (env[used] == ':') snprintf(inject->solver, sizeof inject->solver, "%s", env + used + 1);
  return CC_OK;
}

/* One item of CUBECG_IO_INJECT (the contract in io/cc_io.h): a fault, a fault at checkpoint N
 * (WHAT:N), or KEY=N; whether item[0..n) is one of them. */
static int io_inject_item_ok(const char *item, size_t n)
{
  static const char *const faults[] = {"odirect-einval", "uring-eperm", "register-enomem",
                                       "uring-short",    "uring-eio",   "gas-corrupt"};
  static const char *const at_nth[] = {"kill-during-write", "kill-during-commit",
                                       "enospc-in-commit",  "kill-at-manifest",
                                       "kill-at-latest",    "kill-at-retention"};
  static const char *const valued[] = {"enospc-after", "enospc-rank"};
  char text[64];
  if (n == 0 || n >= sizeof text) return 0;
  snprintf(text, sizeof text, "%.*s", (int)n, item);
  char *mark = strpbrk(text, ":=");
  char sign  = mark ? *mark : '\0';
  if (mark) *mark++ = '\0';
  if (mark) { /* a non-negative integer after ':' or '=' */
    char *end;
    long v = strtol(mark, &end, 10);
    if (end == mark || *end || v < 0) return 0;
  }
  for (size_t i = 0; !sign && i < sizeof faults / sizeof faults[0]; i++)
    if (!strcmp(text, faults[i])) return 1;
  for (size_t i = 0; sign != '=' && i < sizeof at_nth / sizeof at_nth[0]; i++)
    if (!strcmp(text, at_nth[i])) return 1;
  for (size_t i = 0; sign == '=' && i < sizeof valued / sizeof valued[0]; i++)
    if (!strcmp(text, valued[i])) return 1;
  return 0;
}

/* CUBECG_IO_INJECT: a comma-separated list of io/'s faults; anything else is refused (a typo would
 * make a fault-injection test pass without injecting anything). */
static cc_err io_inject_check(const char *env)
{
  if (!env || !env[0]) return CC_OK;
  for (const char *p = env;;) {
    const char *comma = strchr(p, ',');
    size_t n          = comma ? (size_t)(comma - p) : strlen(p);
    CC_CHECK(io_inject_item_ok(p, n), CC_ERR_ARG,
             "CUBECG_IO_INJECT='%s': '%.*s' is not one of io/'s faults (odirect-einval, "
             "uring-eperm, register-enomem, uring-short, uring-eio, gas-corrupt, "
             "kill-during-write[:N], kill-during-commit[:N], enospc-in-commit[:N], "
             "kill-at-{manifest,latest,retention}[:N], enospc-after=BYTES, enospc-rank=R)",
             env, (int)(n < 64 ? n : 64), p);
    if (!comma) break;
    p = comma + 1;
  }
  return CC_OK;
}

cc_err cc_driver_test_seams_from_env(cc_test_seams *seams)
{
  CC_CALL(io_inject_check(getenv("CUBECG_IO_INJECT")));
  cc_io_set_inject(getenv("CUBECG_IO_INJECT")); /* the environment outlives the run */
  CC_CALL(krylov_inject_from_env(&seams->krylov));
  const char *trace        = getenv("CUBECG_PLCG_TRACE");
  seams->krylov.plcg_trace = trace && trace[0];
  return CC_OK;
}
