/* io_handle.c: the public handle over one backend (cc_io_open .. cc_io_close, for callers that
 * use a backend directly: cubecg-iobench and the backends' tests), the options'
 * defaults every caller and backend starts from, the release of a state that a read allocated,
 * and the byte-size parser of the I/O options. */
#include "io_internal.h"

void cc_io_options_default(cc_io_options *opt)
{
  memset(opt, 0, sizeof *opt);
  opt->queue_depth     = IO_QUEUE_DEPTH;
  opt->durable         = true;
  opt->writeback_bytes = CC_IO_WRITEBACK_DEFAULT;
  opt->checksum        = true;
  snprintf(opt->inner, sizeof opt->inner, "posix");
}

void cc_io_state_free(cc_io_state *state)
{
  for (int v = 0; v < CC_IO_MAX_VECTORS; v++) cc_free(&state->vector[v]);
  state->n_vectors = 0;
}

cc_err cc_io_parse_bytes(const char *text, size_t *bytes)
{
  int64_t value; /* the project's one strict parser (common/cc_size.c) */
  CC_CALL(cc_parse_bytes(text, &value));
  *bytes = (size_t)value;
  return CC_OK;
}

struct cc_io_handle {
  const cc_io_backend_ops *ops;
  void *ctx;
  io_resources *resources; /* the handle's own helper thread / ring, freed at close */
  cc_io_file_info info;
};

cc_err cc_io_open(const char *backend, const cc_io_options *opt, const cc_io_layout *layout,
                  const char *dir, cc_io_mode mode, cc_io_handle **handle)
{
  *handle = NULL;
  cc_io_options options;
  if (opt)
    options = *opt;
  else
    cc_io_options_default(&options);
  const cc_io_backend_ops *ops = cc_io_backend_find(backend, &options);
  CC_CHECK(ops != NULL, CC_ERR_ARG, "unknown I/O backend '%s' (built: %s)", backend,
           cc_io_backend_names());
  cc_io_handle *h;
  CC_CALL(cc_calloc(1, sizeof *h, &h));
  h->ops            = ops;
  cc_err err        = io_resources_create(&h->resources, false);
  options.resources = h->resources;
  if (!err) err = ops->open(&options, layout, dir, mode, &h->ctx);
  if (err) {
    io_resources_destroy(&h->resources);
    cc_free(&h);
  }
  CC_CALL(err);
  *handle = h;
  return CC_OK;
}

cc_err cc_io_write_vectors(cc_io_handle *handle, const cc_io_state *state)
{
  CC_CALL(handle->ops->write_vectors(handle->ctx, state));
  return CC_OK;
}

cc_err cc_io_commit(cc_io_handle *handle)
{
  CC_CALL(handle->ops->commit(handle->ctx, &handle->info));
  return CC_OK;
}

cc_err cc_io_read_vectors(cc_io_handle *handle, cc_io_state *state)
{
  CC_CALL(handle->ops->read_vectors(handle->ctx, state, &handle->info));
  return CC_OK;
}

cc_err cc_io_close(cc_io_handle **handle)
{
  cc_io_handle *h = *handle;
  if (!h) return CC_OK;
  cc_err err = h->ops->close(h->ctx);
  io_resources_destroy(&h->resources);
  cc_free(handle);
  CC_CALL(err);
  return CC_OK;
}

const cc_io_file_info *cc_io_handle_info(const cc_io_handle *handle)
{
  return &handle->info;
}
