/* fuzz_manifest.c: libFuzzer target for the checkpoint manifest reader (io_manifest_parse). Thin on
 * purpose: only the reader's entry point, so a rewritten reader keeps this harness. */
#include "io_internal.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0'; /* the reader gets the manifest as a string (read whole, then broadcast) */
  io_manifest m;
  if (io_manifest_parse(text, "fuzz/manifest.json", &m) == CC_OK)
    io_manifest_free(&m);
  else
    cc_error_clear();
  free(text);
  return 0;
}
