/* fuzz_options.c: libFuzzer target for the command-line parser (cc_options_parse): the input is
 * split at newlines into argv words. --options-file is skipped (its parser has its own target, and
 * a fuzzed path could name a fifo). */
#include "options.h"

#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc, (void)argv;
  unsetenv("CUBECG_OPTIONS");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > 4096 || memchr(data, '\0', size)) return 0;
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = '\0';
  if (strstr(text, "options-file")) {
    free(text);
    return 0;
  }
  char *argv[65] = {"cubecg"};
  int argc       = 1;
  for (char *save, *w = strtok_r(text, "\n", &save); w && argc < 64;
       w = strtok_r(NULL, "\n", &save))
    argv[argc++] = w;
  static cc_options opts;
  if (cc_options_parse(argc, argv, &opts)) cc_error_clear();
  free(text);
  return 0;
}
