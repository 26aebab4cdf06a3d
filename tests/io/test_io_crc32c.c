/* test_io_crc32c.c: CRC32C against published check values (RFC 3720 B.4, "123456789" ->
 * 0xE3069283), the SSE4.2 and table versions against each other on random data at every
 * alignment and length (also past the three-stream blocks of 3 x 256 and 3 x 8192 bytes), and
 * chaining crc(a||b) = crc(crc(a), b), and the one-pass copy + CRC (io_crc32c_copy) against a
 * copy and a CRC; pieces combined (cc_io_crc32c_combine) against the one-pass CRC of the whole. */
#include "io_internal.h"
#include "test_io_util.h"

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  const char *check = "123456789";
  TIO_CHECK(cc_io_crc32c_sw(0, check, 9) == 0xE3069283u, "sw: %08x", cc_io_crc32c_sw(0, check, 9));
  TIO_CHECK(cc_io_crc32c_hw(0, check, 9) == 0xE3069283u, "hw: %08x", cc_io_crc32c_hw(0, check, 9));
  TIO_CHECK(cc_io_crc32c(0, check, 9) == 0xE3069283u, "default: %08x", cc_io_crc32c(0, check, 9));
  /* RFC 3720 B.4: 32 bytes of zeros -> 0x8A9136AA, of 0xFF -> 0x62A8AB43, 0..31 -> 0x46DD794E */
  unsigned char buf[32];
  memset(buf, 0, 32);
  TIO_CHECK(cc_io_crc32c_sw(0, buf, 32) == 0x8A9136AAu, "zeros sw %08x",
            cc_io_crc32c_sw(0, buf, 32));
  TIO_CHECK(cc_io_crc32c_hw(0, buf, 32) == 0x8A9136AAu, "zeros hw %08x",
            cc_io_crc32c_hw(0, buf, 32));
  memset(buf, 0xff, 32);
  TIO_CHECK(cc_io_crc32c_sw(0, buf, 32) == 0x62A8AB43u, "ones sw %08x",
            cc_io_crc32c_sw(0, buf, 32));
  TIO_CHECK(cc_io_crc32c_hw(0, buf, 32) == 0x62A8AB43u, "ones hw %08x",
            cc_io_crc32c_hw(0, buf, 32));
  for (int i = 0; i < 32; i++) buf[i] = (unsigned char)i;
  TIO_CHECK(cc_io_crc32c_sw(0, buf, 32) == 0x46DD794Eu, "incr sw %08x",
            cc_io_crc32c_sw(0, buf, 32));
  TIO_CHECK(cc_io_crc32c_hw(0, buf, 32) == 0x46DD794Eu, "incr hw %08x",
            cc_io_crc32c_hw(0, buf, 32));
  TIO_CHECK(cc_io_crc32c(0, "", 0) == 0, "empty");

  enum { N = 4096 };
  unsigned char data[N + 16];
  uint64_t seed = 1;
  for (int i = 0; i < N + 16; i++) data[i] = (unsigned char)tio_rand(&seed);
  for (int off = 0; off < 9; off++)
    for (int len = 0; len < 200; len++) {
      uint32_t sw = cc_io_crc32c_sw(0, data + off, (size_t)len);
      uint32_t hw = cc_io_crc32c_hw(0, data + off, (size_t)len);
      TIO_CHECK(sw == hw, "off %d len %d: sw %08x hw %08x", off, len, sw, hw);
    }
  enum { BIG = 3 * 8192 * 2 + 3 * 256 * 3 + 77 };
  static unsigned char big[BIG + 8];
  for (int i = 0; i < BIG + 8; i++) big[i] = (unsigned char)tio_rand(&seed);
  const int lens[] = {767, 768, 769, 1535, 1536, 24575, 24576, 24577, 25343, 49152, 50000, BIG};
  for (int off = 0; off < 8; off += 3)
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
      uint32_t sw = cc_io_crc32c_sw(0x1234u, big + off, (size_t)lens[k]);
      uint32_t hw = cc_io_crc32c_hw(0x1234u, big + off, (size_t)lens[k]);
      TIO_CHECK(sw == hw, "off %d len %d: sw %08x hw %08x", off, lens[k], sw, hw);
    }
  static unsigned char copy[BIG + 8];
  for (int off = 0; off < 8; off += 5)
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
      memset(copy, 0xee, sizeof copy);
      uint32_t fused = io_crc32c_copy(0x77u, copy + off, big + 8 - off, (size_t)lens[k]);
      uint32_t plain = cc_io_crc32c_sw(0x77u, big + 8 - off, (size_t)lens[k]);
      TIO_CHECK(fused == plain, "copy off %d len %d: %08x != %08x", off, lens[k], fused, plain);
      TIO_CHECK(!memcmp(copy + off, big + 8 - off, (size_t)lens[k]) &&
                    copy[off + lens[k]] == 0xee && (off == 0 || copy[off - 1] == 0xee),
                "copy off %d len %d: bytes differ or overrun", off, lens[k]);
    }
  uint32_t whole = cc_io_crc32c_sw(0, data, N);
  for (int cut = 0; cut <= N; cut += 371) {
    uint32_t chained =
        cc_io_crc32c(cc_io_crc32c(0, data, (size_t)cut), data + cut, (size_t)(N - cut));
    TIO_CHECK(chained == whole, "chaining at %d: %08x != %08x", cut, chained, whole);
  }
  /* crc(a||b) from crc(a), crc(b), |b|: every cut, three pieces, empty pieces, 9 MB of zeros */
  for (int cut = 0; cut <= N; cut += 97) {
    uint32_t a = cc_io_crc32c(0, data, (size_t)cut), b = cc_io_crc32c(0, data + cut, N - cut);
    uint32_t combined = cc_io_crc32c_combine(a, b, N - cut);
    TIO_CHECK(combined == whole, "combine at %d: %08x != %08x", cut, combined, whole);
    int mid     = cut + (N - cut) / 3;
    uint32_t c1 = cc_io_crc32c(0, data + cut, (size_t)(mid - cut));
    uint32_t c2 = cc_io_crc32c(0, data + mid, (size_t)(N - mid));
    combined    = cc_io_crc32c_combine(cc_io_crc32c_combine(a, c1, mid - cut), c2, N - mid);
    TIO_CHECK(combined == whole, "combine of three at %d, %d: %08x != %08x", cut, mid, combined,
              whole);
  }
  TIO_CHECK(cc_io_crc32c_combine(whole, 0, 0) == whole, "combine with an empty piece");
  static unsigned char zeros[9000000 + 1];
  zeros[9000000] = 0x5a;
  uint32_t z1 = cc_io_crc32c(0, zeros, 1), z2 = cc_io_crc32c(0, zeros + 1, 9000000);
  TIO_CHECK(cc_io_crc32c_combine(z1, z2, 9000000) == cc_io_crc32c(0, zeros, 9000001),
            "combine over 9 MB");
  printf("crc32c: known vectors and sw == hw (SSE4.2 %s)\n",
         cc_io_crc32c_hw_available() ? "compiled in" : "not available: hw = sw");
  MPI_Finalize();
  return 0;
}
