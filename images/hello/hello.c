/* hello: a run-to-completion pod. Logs a greeting through k32_log and through WASI
 * stdout (both reach the container log), then exits 0 (the pod Completes). */
#include "k32_pod.h"

typedef struct {
  const uint8_t* buf;
  uint32_t len;
} ciovec;
__attribute__((import_module("wasi_snapshot_preview1"), import_name("fd_write"))) int32_t wasi_fd_write(int32_t fd,
                                                                                                        const ciovec* iov,
                                                                                                        int32_t iovcnt,
                                                                                                        uint32_t* written);

static char name[64];

K32_EXPORT(k32_main) int32_t k32_main(void) {
  k32_logs("hello from a Kube32 pod");
  int32_t n = k32_env_get("HOSTNAME", 8, name, sizeof name);
  if (n > (int32_t)sizeof name) n = sizeof name;
  static const char msg[] = "hello on stdout from ";
  ciovec iov[3] = {
      {(const uint8_t*)msg, sizeof msg - 1}, {(const uint8_t*)name, n > 0 ? (uint32_t)n : 0}, {(const uint8_t*)"\n", 1}};
  uint32_t written = 0;
  wasi_fd_write(1, iov, 3, &written);
  return 0;
}
