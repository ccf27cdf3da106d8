// Allocator with accounting. Every heap allocation of the node (including the C++
// containers, through the global operator new below) is counted here, so the simulator
// reports the same "heap in use" a board's heap_caps accounting would.
#include <execinfo.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "heap_sites_host.h"
#include "k32_board.h"
#include "memory_host.h"
#include "port.h"

namespace k32 {
namespace port {
namespace {

// The header keeps the size and region so free() can account without a lookup.
struct alignas(16) Header {
  uint64_t size;
  uint32_t region;
  uint32_t magic;
  uint32_t site;     // heap_sites_host.cpp's call site (0 when the profile is off)
  uint32_t spilled;  // 1: asked for internal RAM first (Any), placed in PSRAM because internal was full
};
constexpr uint32_t kMagic = 0x6b333261;

std::atomic<uint64_t> g_internal{0};
std::atomic<uint64_t> g_psram{0};
std::atomic<uint64_t> g_peak{0};
std::atomic<uint64_t> g_count{0};
std::atomic<uint64_t> g_spilled{0};  // bytes asked for internal-first that went to PSRAM

// The board's heap per region (boards/<board>.yaml): past it an allocation fails here as
// heap_caps_malloc fails on the board.
constexpr uint64_t kBudget[2] = {K32_HEAP_INTERNAL_BYTES, K32_HEAP_PSRAM_BYTES};

std::atomic<uint64_t>& counter(uint32_t region) { return region == 1u ? g_psram : g_internal; }

// Takes `size` bytes of the region's budget, or refuses without taking any.
bool reserve(uint64_t size, uint32_t region) {
  std::atomic<uint64_t>& ctr = counter(region);
  uint64_t cur = ctr.load();
  do {
    if (size > kBudget[region] || cur > kBudget[region] - size) return false;
  } while (!ctr.compare_exchange_weak(cur, cur + size));
  ++g_count;
  uint64_t total = g_internal.load() + g_psram.load();
  uint64_t peak = g_peak.load();
  while (total > peak && !g_peak.compare_exchange_weak(peak, total)) {}
  return true;
}

}  // namespace

void* mem_alloc(size_t bytes, Region region) {
  // Internal first, as ESP-IDF's malloc places a small block on a board with PSRAM: PSRAM
  // only where asked (linear memory, value stacks, TLS buffers, the stacks the profile puts
  // there; internal RAM on a board without it); everything else internal. "Any" past the
  // internal budget takes PSRAM where the board has it (malloc's fallback), counted as
  // spilled, instead of failing: an allocation no path guards no longer ends the node when
  // internal RAM runs short for a moment; only both regions full does.
  const bool psram = K32_HEAP_PSRAM_BYTES > 0;
  uint32_t r = 0;
  bool ok = false, spilled = false;
  if (region == Region::Internal) {
    ok = reserve(bytes, r = 0);
  } else if (region == Region::Psram) {
    ok = reserve(bytes, r = psram ? 1u : 0u);
  } else {
    ok = reserve(bytes, r = 0) || (psram && (spilled = reserve(bytes, r = 1)));
  }
  if (!ok) return nullptr;
  void* raw = std::malloc(sizeof(Header) + bytes);
  if (!raw) {
    counter(r) -= bytes;
    return nullptr;
  }
  Header* h = static_cast<Header*>(raw);
  h->size = bytes;
  h->region = r;
  h->magic = kMagic;
  h->spilled = spilled ? 1u : 0u;
  if (spilled) g_spilled += bytes;
  h->site = heap_site_take(bytes, r);
  if (h->site) heap_site_high(r, counter(r).load());
  return h + 1;
}

void mem_free(void* p) {
  if (!p) return;
  Header* h = static_cast<Header*>(p) - 1;
  counter(h->region) -= h->size;
  if (h->spilled) g_spilled -= h->size;
  heap_site_drop(h->site, h->size);
  h->magic = 0;
  std::free(h);
}

MemStats mem_stats() {
  MemStats s;
  s.internal_in_use = g_internal.load();
  s.psram_in_use = g_psram.load();
  s.peak_in_use = g_peak.load();
  s.alloc_count = g_count.load();
  s.internal_spilled = g_spilled.load();
  return s;
}

bool has_psram() { return K32_HEAP_PSRAM_BYTES > 0; }

bool stack_heap_take(uint64_t bytes, Region region, StackHeap* out) {
  // xTaskCreatePinnedToCoreWithCaps takes the stack from PSRAM only when the thread asks for
  // it and the board has it; every other task stack is internal RAM.
  const uint32_t r = region == Region::Psram && K32_HEAP_PSRAM_BYTES > 0 ? 1u : 0u;
  if (!reserve(bytes, r)) return false;
  out->bytes = bytes;
  out->region = r;
  out->site = heap_site_take(bytes, r);
  return true;
}

void stack_heap_give(const StackHeap& booked) {
  if (!booked.bytes) return;
  counter(booked.region) -= booked.bytes;
  heap_site_drop(booked.site, booked.bytes);
}

uint64_t mem_available(Region region) {
  auto left = [](uint32_t r) {
    uint64_t used = counter(r).load();
    return used < kBudget[r] ? kBudget[r] - used : 0;
  };
  if (region == Region::Internal) return left(0);
  if (region == Region::Psram) return K32_HEAP_PSRAM_BYTES > 0 ? left(1) : left(0);
  // Any: internal RAM, then PSRAM where it spills (mem_alloc), so both regions together.
  return left(0) + (K32_HEAP_PSRAM_BYTES > 0 ? left(1) : 0);
}

}  // namespace port
}  // namespace k32

// ---- global operator new/delete route through the accounted allocator ----
void* operator new(size_t n) {
  void* p = k32::port::mem_alloc(n ? n : 1, k32::port::Region::Any);
  if (!p) {
    // -fno-exceptions: a container that cannot grow ends the node, as on the board; say why.
    // Internal RAM full spills to PSRAM first (mem_alloc), so this is both regions full, or
    // internal RAM full on a board without PSRAM.
    k32::port::MemStats m = k32::port::mem_stats();
    std::fprintf(stderr, "[PORT] out of heap: %zu bytes refused (internal %llu of %llu B, PSRAM %llu of %llu B in use)\n", n,
                 static_cast<unsigned long long>(m.internal_in_use), static_cast<unsigned long long>(K32_HEAP_INTERNAL_BYTES),
                 static_cast<unsigned long long>(m.psram_in_use), static_cast<unsigned long long>(K32_HEAP_PSRAM_BYTES));
    // Who asked: return addresses for `addr2line -f -C -e k32-node` (backtrace_symbols_fd
    // writes without allocating).
    void* frames[24];
    backtrace_symbols_fd(frames, backtrace(frames, 24), 2);
    k32::port::heap_site_final();  // with K32_HEAP_SITES: who held the heap when it ran out
    std::abort();
  }
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return k32::port::mem_alloc(n ? n : 1, k32::port::Region::Any); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return k32::port::mem_alloc(n ? n : 1, k32::port::Region::Any); }
void operator delete(void* p) noexcept { k32::port::mem_free(p); }
void operator delete[](void* p) noexcept { k32::port::mem_free(p); }
void operator delete(void* p, size_t) noexcept { k32::port::mem_free(p); }
void operator delete[](void* p, size_t) noexcept { k32::port::mem_free(p); }
