/* slow: a request pod whose handler works for SLOW_MS milliseconds (default 3000) before it
 * answers "done", busy the whole time as a compute-bound handler is. For tests of what a
 * caller's timeout does to a handler that outlives it. */
#include "k32_pod.h"

static char digits[12];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
  uint64_t ms = 3000;
  int32_t n = k32_env_get("SLOW_MS", 7, digits, sizeof digits);
  if (n > 0 && n <= (int32_t)sizeof digits) {
    ms = 0;
    for (int32_t i = 0; i < n && digits[i] >= '0' && digits[i] <= '9'; i++) ms = ms * 10 + (uint64_t)(digits[i] - '0');
  }
  uint64_t start = k32_uptime_ms();
  while (k32_uptime_ms() - start < ms) {}
  k32_writes("done\n");
  return 0;
}
