/* Hash table: open addressing with linear probing and tombstones over 32-bit keys -> values;
 * a mix of inserts, hits, misses and deletes, like a cache or a symbol table. */
#include "bench.h"

#define CAP 16384 /* power of two; at most 3/4 full */
#define EMPTY 0u
#define DEAD 1u
static uint32_t keys[CAP], vals[CAP];
static uint32_t live;

static uint32_t mix(uint32_t k) {
  k ^= k >> 16;
  k *= 0x7feb352du;
  k ^= k >> 15;
  k *= 0x846ca68bu;
  return k ^ (k >> 16);
}

static void put(uint32_t k, uint32_t v) {
  uint32_t i = mix(k) & (CAP - 1), tomb = CAP;
  for (;;) {
    uint32_t s = keys[i];
    if (s == k) {
      vals[i] = v;
      return;
    }
    if (s == DEAD && tomb == CAP) tomb = i;
    if (s == EMPTY) break;
    i = (i + 1) & (CAP - 1);
  }
  if (tomb != CAP) i = tomb;
  keys[i] = k;
  vals[i] = v;
  live++;
}

static int get(uint32_t k, uint32_t* v) {
  for (uint32_t i = mix(k) & (CAP - 1);; i = (i + 1) & (CAP - 1)) {
    uint32_t s = keys[i];
    if (s == k) {
      *v = vals[i];
      return 1;
    }
    if (s == EMPTY) return 0;
  }
}

static int del(uint32_t k) {
  for (uint32_t i = mix(k) & (CAP - 1);; i = (i + 1) & (CAP - 1)) {
    uint32_t s = keys[i];
    if (s == k) {
      keys[i] = DEAD;
      live--;
      return 1;
    }
    if (s == EMPTY) return 0;
  }
}

static uint32_t run(void) {
  uint32_t h = 0;
  for (int round = 0; round < 6; round++) {
    for (uint32_t i = 0; i < CAP; i++) keys[i] = EMPTY;
    live = 0;
    uint32_t base = bench_rand() | 2;
    for (uint32_t i = 0; i < CAP / 2; i++) put(base + i * 7919u, i);
    for (uint32_t n = 0; n < 120000; n++) {
      uint32_t r = bench_rand(), k = base + (r % (CAP / 2 + 2000)) * 7919u, v;
      switch (r >> 29) {
        case 0: del(k); break;
        case 1:
        case 2:
          if (live < CAP * 3 / 4) put(k, r);
          break;
        default:
          if (get(k, &v)) h += v;
          else h ^= k;
          break;
      }
    }
    h += live;
  }
  return h;
}
BENCH_MAIN(run)
