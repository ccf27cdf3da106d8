/* spinner: a handler that never returns, for tests of the per-request deadline, the stop of
 * a pod with calls in progress and the per-pod request cap. A request whose path starts
 * with /spin loops forever (burning CPU until the node interrupts it); any other request
 * gets "ok". */
#include "k32_pod.h"

static char path[64];
static volatile uint32_t spins;

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
  int32_t p = k32_req_path(path, sizeof path);
  if (p >= 5 && path[0] == '/' && path[1] == 's' && path[2] == 'p' && path[3] == 'i' && path[4] == 'n') {
    for (;;) spins++;
  }
  k32_resp_status(200);
  k32_writes("ok\n");
  return 0;
}
