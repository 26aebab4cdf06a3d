/* io_crc32c.c: CRC32C (Castagnoli polynomial 0x1EDC6F41, reflected 0x82F63B78) as used by iSCSI,
 * ext4 and Btrfs (RFC 3720 B.4). SSE4.2 `crc32` instruction when compiled in (-march=native),
 * three independent streams combined by GF(2) "append zeros" operators (M. Adler's crc32c.c,
 * zlib's crc32_combine), slicing-by-8 tables otherwise; all give crc32c("123456789") = 0xE3069283.
 */
#include "io_internal.h"

#include <pthread.h>
#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc_table[8][256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

/* The crc32 instruction has a latency of 3 cycles but a throughput of 1 per cycle: three streams
 * over adjacent blocks of CRC_LONG (then CRC_SHORT) bytes run in parallel, and are combined as
 * crc(A||B) = Z_|B|(crc(A)) ^ crc0(B), Z_n = the linear operator "append n zero bytes" on the raw
 * register, tabulated per byte of the register (4 x 256 entries per block length). */
#define CRC_LONG 8192
#define CRC_SHORT 256
static uint32_t crc_zeros_long[4][256], crc_zeros_short[4][256];

/* GF(2) 32x32 matrix (column n = image of bit n) times vector */
static uint32_t gf2_times(const uint32_t *mat, uint32_t vec)
{
  uint32_t sum = 0;
  for (; vec; vec >>= 1, mat++)
    if (vec & 1) sum ^= *mat;
  return sum;
}

static void gf2_square(uint32_t *square, const uint32_t *mat)
{
  for (int n = 0; n < 32; n++) square[n] = gf2_times(mat, mat[n]);
}

/* op = Z_len for len a power of two: start from one zero bit, square log2(8 len) times */
static void crc_zeros_op(uint32_t *op, size_t len)
{
  uint32_t odd[32], row = 1;
  odd[0] = CRC32C_POLY; /* one zero bit: shift right, fold the polynomial in when bit 0 was set */
  for (int n = 1; n < 32; n++, row <<= 1) odd[n] = row;
  gf2_square(op, odd); /* 2 bits */
  gf2_square(odd, op); /* 4 bits */
  for (;;) {
    gf2_square(op, odd); /* 8, 32, 128 ... bits */
    if ((len >>= 1) == 0) return;
    gf2_square(odd, op); /* 16, 64 ... bits */
    if ((len >>= 1) == 0) break;
  }
  memcpy(op, odd, sizeof odd);
}

static void crc_zeros_table(uint32_t zeros[4][256], size_t len)
{
  uint32_t op[32];
  crc_zeros_op(op, len);
  for (uint32_t n = 0; n < 256; n++)
    for (int k = 0; k < 4; k++) zeros[k][n] = gf2_times(op, n << (8 * k));
}

static inline uint32_t crc_shift(uint32_t zeros[4][256], uint32_t crc)
{
  return zeros[0][crc & 0xff] ^ zeros[1][(crc >> 8) & 0xff] ^ zeros[2][(crc >> 16) & 0xff] ^
         zeros[3][crc >> 24];
}

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
  crc_zeros_table(crc_zeros_long, CRC_LONG);
  crc_zeros_table(crc_zeros_short, CRC_SHORT);
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
  if (n >= 3 * CRC_SHORT) pthread_once(&crc_table_once, crc_table_init);
  /* three streams over blocks a, b, c: crc(a||b||c) = Z(Z(crc(a)) ^ crc0(b)) ^ crc0(c) */
  for (size_t block = CRC_LONG; block >= CRC_SHORT; block = block == CRC_LONG ? CRC_SHORT : 0) {
    uint32_t(*zeros)[256] = block == CRC_LONG ? crc_zeros_long : crc_zeros_short;
    while (n >= 3 * block) {
      uint64_t c1 = 0, c2 = 0, w0, w1, w2;
      for (const unsigned char *end = p + block; p < end; p += 8) {
        memcpy(&w0, p, 8);
        memcpy(&w1, p + block, 8);
        memcpy(&w2, p + 2 * block, 8);
        c  = _mm_crc32_u64(c, w0);
        c1 = _mm_crc32_u64(c1, w1);
        c2 = _mm_crc32_u64(c2, w2);
      }
      c = crc_shift(zeros, (uint32_t)c) ^ (uint32_t)c1;
      c = crc_shift(zeros, (uint32_t)c) ^ (uint32_t)c2;
      p += 2 * block;
      n -= 3 * block;
    }
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

/* dst <- src and the CRC32C of the bytes in one pass: the copy's loads feed the crc32 chain, so
 * a copy that has to be checked costs about max(copy, CRC) instead of copy + CRC (the store's
 * gets and puts through shared memory). */
uint32_t io_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t n)
{
#ifdef __SSE4_2__
  const unsigned char *p = src;
  unsigned char *q       = dst;
  uint64_t c             = (uint32_t)~crc;
  for (; n >= 64; p += 64, q += 64, n -= 64) {
    uint64_t w[8];
    memcpy(w, p, 64);
    memcpy(q, w, 64);
    for (int k = 0; k < 8; k++) c = _mm_crc32_u64(c, w[k]);
  }
  memcpy(q, p, n);
  return cc_io_crc32c_hw(~(uint32_t)c, p, n);
#else
  memcpy(dst, src, n);
  return cc_io_crc32c_sw(crc, dst, n);
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

/* crc(A||B) from crc(A), crc(B) and |B| (zlib's crc32_combine): crc(A||B) = Z_|B|(crc(A)) ^
 * crc(B), the pre- and post-inversions cancelling; Z_|B| is built from the one-zero-bit operator by
 * squaring (Z_2n = Z_n Z_n), applied for each set bit of |B|: O(32^2 log |B|) operations. */
uint32_t cc_io_crc32c_combine(uint32_t crc1, uint32_t crc2, int64_t len2)
{
  if (len2 <= 0) return crc1;
  uint32_t even[32], odd[32], row = 1;
  odd[0] = CRC32C_POLY; /* one zero bit */
  for (int n = 1; n < 32; n++, row <<= 1) odd[n] = row;
  gf2_square(even, odd); /* 2 zero bits */
  gf2_square(odd, even); /* 4 zero bits */
  uint64_t len = (uint64_t)len2;
  do { /* even, odd: 1, 2, 4 ... zero bytes; applied where len has a bit */
    gf2_square(even, odd);
    if (len & 1) crc1 = gf2_times(even, crc1);
    len >>= 1;
    if (!len) break;
    gf2_square(odd, even);
    if (len & 1) crc1 = gf2_times(odd, crc1);
    len >>= 1;
  } while (len);
  return crc1 ^ crc2;
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
