/* test_seams.c: the one place where the driver reads the test seams' environment variables; the
 * libraries read none, they get the spec from their caller. The variables stay the interface of
 * the test scripts (tests/io_kill.sh, io_ckpt_safety.sh, ...). */
#include "test_seams.h"

#include "cc_io.h"

#include <stdlib.h>

void cc_driver_test_seams_from_env(void)
{
  cc_io_set_inject(getenv("CUBECG_IO_INJECT")); /* the environment outlives the run */
}
