/* io_crc32c.c: CRC32C (Castagnoli polynomial 0x1EDC6F41, reflected 0x82F63B78) as used by iSCSI,
 * ext4 and Btrfs (RFC 3720 B.4). SSE4.2 `crc32` instruction when compiled in (-march=native),
 * slicing-by-8 tables otherwise; both give crc32c("123456789") = 0xE3069283. */
#include "io_internal.h"

#include <pthread.h>
#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc_table[8][256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void)
{
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
    crc_table[0][n] = c;
  }
  /* table[k][n] = CRC of byte n followed by k zero bytes: lets 8 bytes be folded per step */
  for (uint32_t n = 0; n < 256; n++)
    for (int k = 1; k < 8; k++)
      crc_table[k][n] = (crc_table[k - 1][n] >> 8) ^ crc_table[0][crc_table[k - 1][n] & 0xff];
}

uint32_t cc_io_crc32c_sw(uint32_t crc, const void *data, size_t n)
{
  pthread_once(&crc_table_once, crc_table_init);
  const unsigned char *p = data;
  uint32_t c             = ~crc;
  while (n && ((uintptr_t)p & 7)) {
    c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
    n--;
  }
  while (n >= 8) {
    uint64_t word;
    memcpy(&word, p, 8); /* little-endian host (x86-64, aarch64) */
    word ^= c;
    c = crc_table[7][word & 0xff] ^ crc_table[6][(word >> 8) & 0xff] ^
        crc_table[5][(word >> 16) & 0xff] ^ crc_table[4][(word >> 24) & 0xff] ^
        crc_table[3][(word >> 32) & 0xff] ^ crc_table[2][(word >> 40) & 0xff] ^
        crc_table[1][(word >> 48) & 0xff] ^ crc_table[0][word >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
  return ~c;
}

bool cc_io_crc32c_hw_available(void)
{
#ifdef __SSE4_2__
  return true;
#else
  return false;
#endif
}

uint32_t cc_io_crc32c_hw(uint32_t crc, const void *data, size_t n)
{
#ifdef __SSE4_2__
  const unsigned char *p = data;
  uint64_t c             = (uint32_t)~crc;
  while (n && ((uintptr_t)p & 7)) {
    c = _mm_crc32_u8((uint32_t)c, *p++);
    n--;
  }
  /* 4 words per step keeps the loop overhead off the 3-cycle crc32 dependency chain */
  while (n >= 32) {
    uint64_t w[4];
    memcpy(w, p, 32);
    c = _mm_crc32_u64(c, w[0]);
    c = _mm_crc32_u64(c, w[1]);
    c = _mm_crc32_u64(c, w[2]);
    c = _mm_crc32_u64(c, w[3]);
    p += 32;
    n -= 32;
  }
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
    p += 8;
    n -= 8;
  }
  while (n--) c = _mm_crc32_u8((uint32_t)c, *p++);
  return ~(uint32_t)c;
#else
  return cc_io_crc32c_sw(crc, data, n);
#endif
}

uint32_t cc_io_crc32c(uint32_t crc, const void *data, size_t n)
{
#ifdef __SSE4_2__
  return cc_io_crc32c_hw(crc, data, n);
#else
  return cc_io_crc32c_sw(crc, data, n);
#endif
}

cc_err cc_io_file_crc32c(const char *path, uint32_t *crc, int64_t *bytes)
{
  FILE *f = fopen(path, "rb");
  CC_CHECK(f != NULL, CC_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  enum { CHUNK = 1 << 20 };
  unsigned char *buf;
  cc_err err = cc_malloc(CHUNK, 1, &buf);
  if (err) {
    fclose(f);
    CC_CALL(err);
  }
  uint32_t c    = 0;
  int64_t total = 0;
  size_t got;
  while ((got = fread(buf, 1, CHUNK, f)) > 0) {
    c = cc_io_crc32c(c, buf, got);
    total += (int64_t)got;
  }
  int failed = ferror(f);
  fclose(f);
  cc_free(&buf);
  CC_CHECK(!failed, CC_ERR_IO, "read error on %s", path);
  *crc   = c;
  *bytes = total;
  return CC_OK;
}
