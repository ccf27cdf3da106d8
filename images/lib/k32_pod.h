/* Small helpers shared by the shipped pod images (no libc: images build with -nostdlib). */
#ifndef K32_POD_H
#define K32_POD_H
#include "k32_app_abi.h"

static inline uint32_t k32_strlen(const char* s) {
  uint32_t n = 0;
  while (s[n]) n++;
  return n;
}
/* Logs a NUL-terminated string. */
static inline void k32_logs(const char* s) { k32_log(s, k32_strlen(s)); }
/* Appends a NUL-terminated string to the response body. */
static inline void k32_writes(const char* s) { k32_resp_write((const uint8_t*)s, k32_strlen(s)); }
#endif
