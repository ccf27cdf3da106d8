/* printenv: answers GET /<NAME> with the value of environment variable NAME (404 when
 * unset), so tests can see exactly what the kubelet injected. */
#include "k32_pod.h"

static char path[256];
static char value[4096];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
  int32_t p = k32_req_path(path, sizeof path);
  if (p < 1 || p > (int32_t)sizeof path) {
    k32_resp_status(400);
    return 0;
  }
  int32_t n = k32_env_get(path + 1, (uint32_t)(p - 1), value, sizeof value);
  if (n < 0) {
    k32_resp_status(404);
    k32_writes("unset\n");
    return 0;
  }
  if (n > (int32_t)sizeof value) n = sizeof value;
  k32_resp_header("Content-Type", 12, "text/plain", 10);
  k32_resp_write((const uint8_t*)value, (uint32_t)n);
  return 0;
}
