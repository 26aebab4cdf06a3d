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

cc_err cc_driver_test_seams_from_env(cc_test_seams *seams)
{
  cc_io_set_inject(getenv("CUBECG_IO_INJECT")); /* the environment outlives the run */
  CC_CALL(krylov_inject_from_env(&seams->krylov));
  const char *trace        = getenv("CUBECG_PLCG_TRACE");
  seams->krylov.plcg_trace = trace && trace[0];
  return CC_OK;
}
