// mbedTLS's allocations (record buffers, handshake contexts, certificates) through the node's
// accounted allocator, placed in PSRAM where the board has it and in internal RAM where it
// does not: CONFIG_MBEDTLS_CUSTOM_MEM_ALLOC (sdkconfig.defaults) makes ESP-IDF's mbedTLS call
// these two instead of its own, so the TLS heap shows in STATUS and counts against the
// board's budget like every other block.
#include <cstring>

#include "port.h"

extern "C" void* esp_mbedtls_mem_calloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return nullptr;
  const size_t bytes = n * size;
  void* p = k32::port::mem_alloc(bytes ? bytes : 1, k32::port::Region::Psram);
  if (p) std::memset(p, 0, bytes);
  return p;
}

extern "C" void esp_mbedtls_mem_free(void* p) { k32::port::mem_free(p); }
