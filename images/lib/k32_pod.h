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
/* Writes v in decimal at out (up to 10 characters, no NUL); returns how many it wrote. */
static inline uint32_t k32_utoa(uint32_t v, char* out) {
  char digits[10];
  uint32_t d = 0;
  do {
    digits[d++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  uint32_t n = 0;
  while (d) out[n++] = digits[--d];
  return n;
}
/* The same for a signed value (up to 11 characters with its '-'). */
static inline uint32_t k32_itoa(int32_t v, char* out) {
  if (v >= 0) return k32_utoa((uint32_t)v, out);
  out[0] = '-';
  return 1 + k32_utoa((uint32_t)(-(int64_t)v), out + 1);
}
#endif
