/* grower: a request pod whose linear memory grows. Each request asks for one more 64 KiB page
 * (memory.grow) and answers with the pages it now has, or 507 when its limits.memory (or the
 * node) says no. A node cannot tell how far such an image goes before it runs, so it is
 * charged its whole memory limit, unlike an image such as echo that never grows. */
#include "k32_pod.h"

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
  int32_t before = __builtin_wasm_memory_grow(0, 1);
  char line[16];
  uint32_t n = k32_utoa((uint32_t)__builtin_wasm_memory_size(0), line);
  line[n++] = '\n';
  k32_resp_status(before < 0 ? 507 : 200);
  k32_resp_write((const uint8_t*)line, n);
  return 0;
}
