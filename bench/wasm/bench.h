/* Shared harness of the wasm benchmark workloads: each program times its own kernel with
 * the monotonic clock (WASI clock_time_get under a wasm runtime) and prints one line
 *   result <checksum> ns <elapsed>
 * so native, our interpreter, wasm3 and wasmtime are measured the same way, without
 * process start-up or module compilation. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define BENCH_MAIN(kernel)                                                        \
  int main(void) {                                                                \
    uint64_t t0 = bench_now_ns();                                                 \
    uint32_t r = kernel();                                                        \
    uint64_t t1 = bench_now_ns();                                                 \
    printf("result %u ns %llu\n", (unsigned)r, (unsigned long long)(t1 - t0));    \
    return 0;                                                                     \
  }
