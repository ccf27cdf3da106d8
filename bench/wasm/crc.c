/* Checksums: table-driven CRC-32 (zlib's polynomial), bitwise CRC-16/CCITT and Adler-32 over a
 * 32 KiB buffer, repeated. Byte loads, shifts, table lookups. */
#include "bench.h"

static uint32_t table[256];
static uint8_t buf[32768];

static void make_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
}

static uint32_t crc32(const uint8_t* p, uint32_t n, uint32_t crc) {
  crc = ~crc;
  for (uint32_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

static uint16_t crc16(const uint8_t* p, uint32_t n) {
  uint16_t crc = 0xffff;
  for (uint32_t i = 0; i < n; i++) {
    crc ^= (uint16_t)(p[i] << 8);
    for (int k = 0; k < 8; k++) crc = crc & 0x8000 ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
  }
  return crc;
}

static uint32_t adler32(const uint8_t* p, uint32_t n) {
  uint32_t a = 1, b = 0;
  for (uint32_t i = 0; i < n; i++) {
    a = (a + p[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  return b << 16 | a;
}

static uint32_t run(void) {
  make_table();
  for (uint32_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)bench_rand();
  uint32_t h = 0;
  for (int rep = 0; rep < 64; rep++) {
    buf[rep] ^= (uint8_t)h;
    h = crc32(buf, sizeof buf, h);
    if (rep % 4 == 0) h ^= crc16(buf, sizeof buf);
    h += adler32(buf, sizeof buf);
  }
  return h;
}
BENCH_MAIN(run)
