/* test_seams.h: the driver's one reader of the test seams' environment variables. */
#ifndef CC_TEST_SEAMS_H
#define CC_TEST_SEAMS_H

/* Called once, before any I/O or solve is set up: hands each library its fault-injection spec from
 * the environment (CUBECG_IO_INJECT -> io/, cc_io_set_inject). */
void cc_driver_test_seams_from_env(void);

#endif
