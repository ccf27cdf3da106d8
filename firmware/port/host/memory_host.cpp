// Allocator with accounting. Every heap allocation of the node (including the C++
// containers, through the global operator new below) is counted here, so the simulator
// reports the same "heap in use" a board's heap_caps accounting would.
#include <atomic>
#include <cstdlib>
#include <new>

#include "port.h"

namespace k32 {
namespace port {
namespace {

// The header keeps the size and region so free() can account without a lookup.
struct alignas(16) Header {
  uint64_t size;
  uint32_t region;
  uint32_t magic;
};
constexpr uint32_t kMagic = 0x6b333261;

std::atomic<uint64_t> g_internal{0};
std::atomic<uint64_t> g_psram{0};
std::atomic<uint64_t> g_peak{0};
std::atomic<uint64_t> g_count{0};

void account(uint64_t size, uint32_t region, bool add) {
  std::atomic<uint64_t>& ctr = region == static_cast<uint32_t>(Region::Psram) ? g_psram : g_internal;
  if (add) {
    ctr += size;
    ++g_count;
    uint64_t total = g_internal.load() + g_psram.load();
    uint64_t peak = g_peak.load();
    while (total > peak && !g_peak.compare_exchange_weak(peak, total)) {
    }
  } else {
    ctr -= size;
  }
}

}  // namespace

void* mem_alloc(size_t bytes, Region region) {
  // The simulator has no PSRAM distinction in hardware, but keeps the books per region
  // so budgets that name PSRAM can be checked.
  uint32_t r = region == Region::Psram ? 1u : 0u;
  void* raw = std::malloc(sizeof(Header) + bytes);
  if (!raw) return nullptr;
  Header* h = static_cast<Header*>(raw);
  h->size = bytes;
  h->region = r;
  h->magic = kMagic;
  account(bytes, r, true);
  return h + 1;
}

void mem_free(void* p) {
  if (!p) return;
  Header* h = static_cast<Header*>(p) - 1;
  account(h->size, h->region, false);
  h->magic = 0;
  std::free(h);
}

MemStats mem_stats() {
  MemStats s;
  s.internal_in_use = g_internal.load();
  s.psram_in_use = g_psram.load();
  s.peak_in_use = g_peak.load();
  s.alloc_count = g_count.load();
  return s;
}

bool has_psram() { return true; }

}  // namespace port
}  // namespace k32

// ---- global operator new/delete route through the accounted allocator ----
void* operator new(size_t n) {
  void* p = k32::port::mem_alloc(n ? n : 1, k32::port::Region::Any);
  if (!p) std::abort();  // -fno-exceptions: an unhandled container allocation ends the node
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  return k32::port::mem_alloc(n ? n : 1, k32::port::Region::Any);
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return k32::port::mem_alloc(n ? n : 1, k32::port::Region::Any);
}
void operator delete(void* p) noexcept { k32::port::mem_free(p); }
void operator delete[](void* p) noexcept { k32::port::mem_free(p); }
void operator delete(void* p, size_t) noexcept { k32::port::mem_free(p); }
void operator delete[](void* p, size_t) noexcept { k32::port::mem_free(p); }
