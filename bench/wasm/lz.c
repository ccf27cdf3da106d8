/* Compression: an LZ77 codec in the style of LZ4 (greedy matching through a hash of the next four
 * bytes, literal runs and back-references with varint lengths), compressing and decompressing a
 * generated text-like buffer; the round trip is checked. */
#include <string.h>

#include "bench.h"

#define SIZE 49152
#define HBITS 12
static uint8_t src[SIZE], comp[SIZE + SIZE / 8 + 64], out[SIZE];
static uint32_t head[1 << HBITS];

static uint32_t read32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint32_t hash4(uint32_t v) { return (v * 2654435761u) >> (32 - HBITS); }

static uint8_t* put_len(uint8_t* o, uint32_t n) {
  while (n >= 255) {
    *o++ = 255;
    n -= 255;
  }
  *o++ = (uint8_t)n;
  return o;
}

static uint32_t compress(const uint8_t* in, uint32_t n, uint8_t* o0) {
  uint8_t* o = o0;
  memset(head, 0, sizeof head);
  uint32_t i = 0, lit = 0;
  while (i + 4 <= n) {
    uint32_t v = read32(in + i), h = hash4(v), cand = head[h];
    head[h] = i + 1;
    if (cand && i - (cand - 1) < 65536 && read32(in + cand - 1) == v) {
      uint32_t m = cand - 1, len = 4;
      while (i + len < n && in[m + len] == in[i + len]) len++;
      uint32_t nl = i - lit;
      *o++ = (uint8_t)((nl < 15 ? nl : 15) << 4 | (len - 4 < 15 ? len - 4 : 15));
      if (nl >= 15) o = put_len(o, nl - 15);
      memcpy(o, in + lit, nl);
      o += nl;
      uint32_t off = i - m;
      *o++ = (uint8_t)off;
      *o++ = (uint8_t)(off >> 8);
      if (len - 4 >= 15) o = put_len(o, len - 4 - 15);
      for (uint32_t k = 1; k < len && i + k + 4 <= n; k += 3) head[hash4(read32(in + i + k))] = i + k + 1;
      i += len;
      lit = i;
    } else {
      i++;
    }
  }
  uint32_t nl = n - lit;
  *o++ = (uint8_t)((nl < 15 ? nl : 15) << 4);
  if (nl >= 15) o = put_len(o, nl - 15);
  memcpy(o, in + lit, nl);
  return (uint32_t)(o + nl - o0);
}

static uint32_t get_len(const uint8_t** p) {
  uint32_t n = 0, b;
  do {
    b = *(*p)++;
    n += b;
  } while (b == 255);
  return n;
}

static uint32_t decompress(const uint8_t* p, uint32_t clen, uint8_t* o0) {
  const uint8_t* end = p + clen;
  uint8_t* o = o0;
  for (;;) {
    uint32_t tok = *p++, nl = tok >> 4;
    if (nl == 15) nl += get_len(&p);
    memcpy(o, p, nl);
    o += nl;
    p += nl;
    if (p >= end) break;
    uint32_t off = p[0] | (uint32_t)p[1] << 8;
    p += 2;
    uint32_t len = (tok & 15) + 4;
    if (len == 19) len += get_len(&p);
    const uint8_t* m = o - off;
    while (len--) *o++ = *m++; /* overlapping copies repeat a pattern */
  }
  return (uint32_t)(o - o0);
}

static const char* const words[] = {"pod",       "node",    "kube",  "let",    "wasm", "image", "the", "of",
                                    "container", "running", "ready", "status", " ",    "\n",    ": ",  "{"};

static uint32_t run(void) {
  uint32_t at = 0;
  while (at < SIZE) {
    uint32_t r = bench_rand();
    const char* w = words[r & 15];
    if ((r >> 8 & 7) == 0) {
      src[at++] = (uint8_t)(r >> 16);
      continue;
    }
    while (*w && at < SIZE) src[at++] = (uint8_t)*w++;
  }
  uint32_t h = 0;
  for (int rep = 0; rep < 24; rep++) {
    src[rep * 97] ^= (uint8_t)rep;
    uint32_t c = compress(src, SIZE, comp);
    uint32_t d = decompress(comp, c, out);
    if (d != SIZE || memcmp(src, out, SIZE) != 0) return 0xdead;
    h = h * 31 + c;
  }
  return h;
}
BENCH_MAIN(run)
