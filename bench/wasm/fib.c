/* Call-heavy: naive recursive Fibonacci. */
#include "bench.h"

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* volatile keeps the compiler from folding the whole computation */
static volatile uint32_t kN = 32;
static uint32_t run(void) { return fib(kN); }
BENCH_MAIN(run)
