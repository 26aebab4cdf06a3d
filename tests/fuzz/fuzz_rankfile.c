/* fuzz_rankfile.c: libFuzzer target for the per-rank checkpoint file reader (io_rankfile_read): the
 * input is the file, served by an in-memory stream. When the first byte is odd the harness writes
 * the right magic and header CRC32C first, so the checks behind the checksum are reached too. */
#include "io_rankfile.c" /* the reader and its private header layout */

#include <stdlib.h>

static struct {
  const uint8_t *data;
  size_t size, at;
} input;

static cc_err mem_open(const char *path, cc_io_mode mode, const cc_io_options *opt, void **ctx)
{
  (void)path, (void)mode, (void)opt;
  input.at = 0;
  *ctx     = &input;
  return CC_OK;
}
static cc_err mem_read(void *ctx, void *data, size_t n)
{
  (void)ctx;
  CC_CHECK(n <= input.size - input.at, CC_ERR_IO, "short file: %zu bytes wanted, %zu left", n,
           input.size - input.at);
  memcpy(data, input.data + input.at, n);
  input.at += n;
  return CC_OK;
}
static cc_err mem_close(void *ctx)
{
  (void)ctx;
  return CC_OK;
}
/* describe is not optional (io_internal.h): a read that passes every check calls it, which the
 * fuzzer first reached in CI; before, this table left it NULL */
static void mem_describe(void *ctx, char *path_used, size_t n_path, char *detail, size_t n_detail)
{
  (void)ctx;
  snprintf(path_used, n_path, "memory");
  snprintf(detail, n_detail, "%zu bytes", input.size);
}
static const io_stream_ops mem_stream = {.name      = "fuzz",
                                         .extension = "fuzz",
                                         .open      = mem_open,
                                         .read      = mem_read,
                                         .close     = mem_close,
                                         .describe  = mem_describe};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  uint8_t *copy = malloc(size ? size : 1);
  memcpy(copy, data, size);
  if (size >= IO_RANKFILE_HEADER && (copy[0] & 1)) {
    rank_header h;
    memcpy(&h, copy, sizeof h);
    memcpy(h.magic, RANKFILE_MAGIC, 8);
    h.header_bytes = IO_RANKFILE_HEADER;
    h.header_crc   = cc_io_crc32c(0, &h, offsetof(rank_header, header_crc));
    memcpy(copy, &h, sizeof h);
  }
  input.data = copy, input.size = size;
  cc_io_options opt;
  cc_io_options_default(&opt);
  void *ctx;
  /* this run: rank 0 of 1, 5 local nodes x 3 values, global id CRC 0 */
  if (io_rankfile_open_as(&mem_stream, &opt, 0, 1, 5, 5, 3, 0, "fuzz", CC_IO_READ, &ctx) == CC_OK) {
    cc_io_state state;
    memset(&state, 0, sizeof state);
    cc_io_file_info info;
    if (io_rankfile_read(ctx, &state, &info) == CC_OK)
      cc_io_state_free(&state);
    else
      cc_error_clear();
    if (io_rankfile_close(ctx)) cc_error_clear();
  } else {
    cc_error_clear();
  }
  free(copy);
  return 0;
}
