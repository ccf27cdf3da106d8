/* kicker: a request pod whose every request traps. Its container then fails, and a
 * failing container wakes its node's kubelet at once: tests use a request to it to make a
 * kubelet sync at a moment they choose instead of on its period. */
#include "k32_pod.h"

K32_EXPORT(k32_handle) int32_t k32_handle(void) { __builtin_trap(); }
