/* cc_size.c: the one byte-size parser of the project (options, iobench lists, I/O backends).
 * Strict: a decimal integer with an optional binary suffix k|K, m|M, g|G, t|T (optionally followed
 * by "iB" or "B"); no sign, no fraction, no exponent, no hex, no overflow. */
#include "cc_common.h"

#include <ctype.h>

cc_err cc_parse_bytes(const char *text, int64_t *bytes)
{
  CC_CHECK(text != NULL && *text != '\0', CC_ERR_ARG, "empty byte size");
  const char *c  = text;
  uint64_t value = 0;
  CC_CHECK(isdigit((unsigned char)*c), CC_ERR_ARG,
           "'%s' is not a byte size (an integer with optional k, M, G or T, e.g. 512k)", text);
  /* no "0x1000", no "0777" octal confusion: leading zeros are decimal, 'x' is refused below */
  for (; isdigit((unsigned char)*c); c++) {
    CC_CHECK(value <= (UINT64_C(1) << 62) / 10, CC_ERR_ARG, "byte size '%s' is too large", text);
    value = 10 * value + (uint64_t)(*c - '0');
  }
  int shift = 0;
  switch (*c) {
  case 'k':
  case 'K':
    shift = 10;
    break;
  case 'm':
  case 'M':
    shift = 20;
    break;
  case 'g':
  case 'G':
    shift = 30;
    break;
  case 't':
  case 'T':
    shift = 40;
    break;
  default:
    break;
  }
  if (shift) {
    c++;
    if (c[0] == 'i' && c[1] == 'B')
      c += 2;
    else if (c[0] == 'B')
      c++;
  } else if (c[0] == 'B' && c[1] == '\0') {
    c++;
  }
  CC_CHECK(*c == '\0', CC_ERR_ARG,
           "'%s' is not a byte size (an integer with optional k, M, G or T, e.g. 512k; no "
           "fractions, no hex)",
           text);
  CC_CHECK(value <= (UINT64_C(1) << 62) >> shift, CC_ERR_ARG, "byte size '%s' is too large", text);
  *bytes = (int64_t)(value << shift);
  return CC_OK;
}
