/* test_seams.h: the libraries' test seams, set from the environment in one place (test_seams.c)
 * and handed to the libraries (through their options, or io/'s cc_io_set_inject); the libraries
 * never read the environment for them. */
#ifndef CC_TEST_SEAMS_H
#define CC_TEST_SEAMS_H

#include "cc_solvers.h"

typedef struct {
  cc_krylov_inject krylov; /* CUBECG_KRYLOV_INJECT: cc_krylov_opts.inject */
} cc_test_seams;

/* Every seam from its variable (zero when unset): CUBECG_IO_INJECT to io/ (cc_io_set_inject),
 * CUBECG_KRYLOV_INJECT parsed into seams; a malformed value is CC_ERR_ARG naming it. Called once
 * by the driver, before the options' disk probes, any checkpoint and any large allocation. */
CC_WUR cc_err cc_driver_test_seams_from_env(cc_test_seams *seams);

#endif
