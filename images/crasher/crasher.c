/* crasher: fails on purpose, for tests of restarts, back-off and --previous logs.
 * k32_main logs a line and traps (unreachable); k32_handle traps as well, so a request
 * gets a 500. CRASH_MODE=exit makes k32_main return 3 instead of trapping. */
#include "k32_pod.h"

static char mode[16];

K32_EXPORT(k32_main) int32_t k32_main(void) {
  k32_logs("crasher starting; about to fail");
  int32_t n = k32_env_get("CRASH_MODE", 10, mode, sizeof mode);
  if (n == 4 && mode[0] == 'e' && mode[1] == 'x' && mode[2] == 'i' && mode[3] == 't') return 3;
  __builtin_trap();
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) { __builtin_trap(); }
