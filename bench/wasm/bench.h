/* Shared harness of the wasm benchmark workloads: each program times its own kernel with the
 * process CPU-time clock (WASI clock_time_get, clock 2, under a wasm runtime) and prints one line
 *   result <checksum> ns <cpu-time>
 * so native, our interpreter, wasm3 and wasmtime are measured the same way, without process
 * start-up or module compilation, and time other processes take from a shared machine does not
 * count. The checksum must be equal under every runtime (`k32 bench wasm` checks it). */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A deterministic generator shared by the workloads (inputs must not be known to the compiler,
 * so every program starts from a volatile seed). */
static uint32_t bench_rand_state;
static inline uint32_t bench_rand(void) {
  uint32_t x = bench_rand_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return bench_rand_state = x;
}
static volatile uint32_t bench_seed = 0x9e3779b9u;

#define BENCH_MAIN(kernel) \
  int main(void) { \
    bench_rand_state = bench_seed; \
    uint64_t t0 = bench_now_ns(); \
    uint32_t r = kernel(); \
    uint64_t t1 = bench_now_ns(); \
    printf("result %u ns %llu\n", (unsigned)r, (unsigned long long)(t1 - t0)); \
    return 0; \
  }
