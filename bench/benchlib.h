/* benchlib.h: what the benchmark programs share (benchlib.c): the command line's key/value split,
 * lists of sizes and strict integers, and the first and last keys of their JSON reports. */
#ifndef CC_BENCHLIB_H
#define CC_BENCHLIB_H

#include "cc_common.h"

#include <stdbool.h>

/* argv[*i] as --key=value or --key value (then *i moves past the value): key (at most 63
 * characters) and value (NULL for a key listed in flags, a NULL-terminated list). */
CC_WUR cc_err bench_option(int argc, char **argv, int *i, const char *const *flags, char key[64],
                           char **value);
/* A comma-separated list of sizes (cc_io_parse_bytes: 4k, 1M, ...), 1..max entries. */
CC_WUR cc_err bench_parse_sizes(const char *text, size_t *out, int *n, int max);
/* A strict decimal int (no "2x", no "1e3", no overflow: atoi would read "2x" as 2): false if not.
 */
bool bench_strict_int(const char *text, int *out);

/* Begins the report's top-level object with the keys every benchmark's report starts with. */
void bench_json_begin(cc_json *js, FILE *f, const char *kind);
/* Ends the top-level object and closes f (a failed write or close: CC_ERR_IO naming path). */
CC_WUR cc_err bench_json_end(cc_json *js, FILE *f, const char *path);

#endif
