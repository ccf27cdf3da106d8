// The accounted allocator on the bare-metal target: newlib's malloc over the fixed heap
// the linker script leaves between .bss and the main stack. One region (no PSRAM), one
// thread, so plain counters.
#include <cstdlib>
#include <new>

#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace port {
namespace {

struct alignas(8) Header {
  uint32_t size;
  uint32_t magic;
};
constexpr uint32_t kMagic = 0x6b333261;
MemStats g_stats = {0, 0, 0, 0};

}  // namespace

void* mem_alloc(size_t bytes, Region region) {
  if (bytes > UINT32_MAX - sizeof(Header)) return nullptr;
  void* raw = std::malloc(sizeof(Header) + bytes);
  if (!raw) return nullptr;
  Header* h = static_cast<Header*>(raw);
  h->size = static_cast<uint32_t>(bytes);
  h->magic = kMagic;
  g_stats.internal_in_use += bytes;
  ++g_stats.alloc_count;
  if (g_stats.internal_in_use > g_stats.peak_in_use) g_stats.peak_in_use = g_stats.internal_in_use;
  return h + 1;
}

void mem_free(void* p) {
  if (!p) return;
  Header* h = static_cast<Header*>(p) - 1;
  if (h->magic != kMagic) std::abort();  // a double free or a foreign pointer
  g_stats.internal_in_use -= h->size;
  h->magic = 0;
  std::free(h);
}

MemStats mem_stats() { return g_stats; }
bool has_psram() { return false; }

// The fixed heap is the board profile's internal RAM budget (one region).
uint64_t mem_available(Region) {
  return g_stats.internal_in_use < K32_HEAP_INTERNAL_BYTES ? K32_HEAP_INTERNAL_BYTES - g_stats.internal_in_use : 0;
}

}  // namespace port
}  // namespace k32

// Every C++ allocation goes through the accounted allocator, as on the host.
void* operator new(size_t n) {
  void* p = k32::port::mem_alloc(n ? n : 1, k32::port::Region::Any);
  if (!p) std::abort();  // -fno-exceptions: an unhandled container allocation ends the program
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return k32::port::mem_alloc(n ? n : 1, k32::port::Region::Any); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return k32::port::mem_alloc(n ? n : 1, k32::port::Region::Any); }
void operator delete(void* p) noexcept { k32::port::mem_free(p); }
void operator delete[](void* p) noexcept { k32::port::mem_free(p); }
void operator delete(void* p, size_t) noexcept { k32::port::mem_free(p); }
void operator delete[](void* p, size_t) noexcept { k32::port::mem_free(p); }
