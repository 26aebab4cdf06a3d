/* io_state.c: the values every io/ caller and backend shares: the options' defaults and the
 * release of a state that a read allocated. Depends on nothing else of io/. */
#include "io_internal.h"

void cc_io_options_default(cc_io_options *opt)
{
  memset(opt, 0, sizeof *opt);
  opt->queue_depth = IO_QUEUE_DEPTH;
  opt->durable     = true;
  opt->writeback_bytes = CC_IO_WRITEBACK_DEFAULT;
  opt->checksum    = true;
  snprintf(opt->inner, sizeof opt->inner, "posix");
}

void cc_io_state_free(cc_io_state *state)
{
  for (int v = 0; v < CC_IO_MAX_VECTORS; v++) cc_free(&state->vector[v]);
  state->n_vectors = 0;
}
