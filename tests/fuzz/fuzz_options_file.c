/* fuzz_options_file.c: libFuzzer target for the options-file parser (cc_options_parse_text). */
#include "options.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static cc_options opts;
  char *argv[] = {"cubecg", NULL};
  unsetenv("CUBECG_OPTIONS");
  if (cc_options_parse(1, argv, &opts)) cc_error_clear(); /* defaults */
  if (cc_options_parse_text((const char *)data, size, "fuzz.opts", &opts)) cc_error_clear();
  return 0;
}
