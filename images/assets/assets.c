/* assets: serves GET /<file> from its own image bundle with k32_resp_asset (an SD image's
 * <card>/kube32/images/<name>/ directory); a missing file gets the pod's own 404. */
#include "k32_pod.h"

static char path[256];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
  int32_t p = k32_req_path(path, sizeof path);
  if (p < 2 || p > (int32_t)sizeof path) p = 1;
  k32_resp_header("X-Served-By", 11, "assets", 6);
  if (p > 1 && k32_resp_asset(path + 1, (uint32_t)(p - 1), 0) == 0) return 0;
  k32_resp_status(404);
  k32_writes("no such asset\n");
  return 0;
}
