/* Integer kernels: a sieve of Eratosthenes, gcd, integer square root, modular exponentiation with
 * 64-bit products, popcount and bit reversal: divisions, multiplies and 64-bit arithmetic. */
#include "bench.h"

static uint8_t sieve[131072];

static uint32_t gcd(uint32_t a, uint32_t b) {
  while (b) {
    uint32_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static uint32_t isqrt(uint32_t x) {
  uint32_t r = 0, bit = 1u << 30;
  while (bit > x) bit >>= 2;
  while (bit) {
    if (x >= r + bit) {
      x -= r + bit;
      r = (r >> 1) + bit;
    } else r >>= 1;
    bit >>= 2;
  }
  return r;
}

static uint32_t modpow(uint64_t b, uint32_t e, uint32_t m) {
  uint64_t r = 1;
  b %= m;
  while (e) {
    if (e & 1) r = r * b % m;
    b = b * b % m;
    e >>= 1;
  }
  return (uint32_t)r;
}

static uint32_t popcount(uint32_t x) {
  uint32_t n = 0;
  while (x) {
    x &= x - 1;
    n++;
  }
  return n;
}

static uint32_t bitrev(uint32_t x) {
  x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
  x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
  x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
  x = (x >> 8 & 0x00ff00ffu) | (x & 0x00ff00ffu) << 8;
  return x >> 16 | x << 16;
}

static uint32_t run(void) {
  uint32_t n = sizeof sieve, h = 0;
  for (int rep = 0; rep < 6; rep++) {
    for (uint32_t i = 0; i < n; i++) sieve[i] = 1;
    for (uint32_t i = 2; i * i < n; i++)
      if (sieve[i])
        for (uint32_t j = i * i; j < n; j += i) sieve[j] = 0;
    for (uint32_t i = 2; i < n; i++) h += sieve[i];
  }
  for (int i = 0; i < 80000; i++) {
    uint32_t a = bench_rand(), b = bench_rand();
    h += gcd(a, b | 1) + isqrt(a) + popcount(a ^ b) + bitrev(b);
    if ((i & 7) == 0) h ^= modpow(a, b, 1000000007u);
  }
  return h;
}
BENCH_MAIN(run)
