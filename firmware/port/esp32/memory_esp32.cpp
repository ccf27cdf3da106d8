// The allocator on ESP-IDF: heap_caps regions (internal RAM vs PSRAM) with the node's
// accounting. Each block carries a small header recording its size and region so mem_free
// and the statistics need no lookup table.
#include <atomic>
#include <cstring>

#include "esp_heap_caps.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace port {

namespace {

struct alignas(8) Header {
  uint32_t bytes;
  uint32_t psram;  // 1 when the block came from PSRAM, 2 when it asked for internal RAM first and spilled there
};

std::atomic<uint64_t> g_internal{0};
std::atomic<uint64_t> g_psram{0};
std::atomic<uint64_t> g_peak{0};
std::atomic<uint64_t> g_count{0};
std::atomic<uint64_t> g_spilled{0};  // bytes asked for internal-first that went to PSRAM

constexpr uint32_t kInternalCaps = MALLOC_CAP_INTERNAL | MALLOC_CAP_8BIT;
constexpr uint32_t kPsramCaps = MALLOC_CAP_SPIRAM | MALLOC_CAP_8BIT;

void note_peak() {
  uint64_t now = g_internal.load() + g_psram.load();
  uint64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {}
}

}  // namespace

bool has_psram() { return heap_caps_get_total_size(MALLOC_CAP_SPIRAM) > 0; }

uint64_t mem_available(Region region) {
  const uint64_t internal = heap_caps_get_free_size(kInternalCaps);
  const uint64_t psram = has_psram() ? heap_caps_get_free_size(kPsramCaps) : 0;
  if (region == Region::Internal) return internal;
  if (region == Region::Psram) return has_psram() ? psram : internal;
  return internal + psram;
}

void* mem_alloc(size_t bytes, Region region) {
  if (bytes > UINT32_MAX - sizeof(Header)) return nullptr;
  const size_t total = bytes + sizeof(Header);
  void* raw = nullptr;
  bool psram = false, spilled = false;
  switch (region) {
    case Region::Internal: raw = heap_caps_malloc(total, kInternalCaps); break;
    case Region::Psram:
      // A board without PSRAM places "PSRAM" budgets in internal RAM (its profile says so).
      psram = has_psram();
      raw = heap_caps_malloc(total, psram ? kPsramCaps : kInternalCaps);
      break;
    case Region::Any:
      // Internal RAM first (PSRAM is several times slower), within the node's share of it
      // (heap_internal; the rest is Wi-Fi's, lwIP's and the stacks'). On a board with PSRAM a
      // block that does not fit there takes PSRAM, counted as spilled, as the simulator does.
      if (!has_psram()) {
        raw = heap_caps_malloc(total, kInternalCaps);
        break;
      }
      if (g_internal.load() + bytes <= K32_HEAP_INTERNAL_BYTES) raw = heap_caps_malloc(total, kInternalCaps);
      if (!raw) {
        raw = heap_caps_malloc(total, kPsramCaps);
        psram = spilled = raw != nullptr;
      }
      break;
  }
  if (!raw) return nullptr;
  Header* h = static_cast<Header*>(raw);
  h->bytes = static_cast<uint32_t>(bytes);
  h->psram = spilled ? 2 : psram ? 1 : 0;
  (psram ? g_psram : g_internal).fetch_add(bytes);
  if (spilled) g_spilled.fetch_add(bytes);
  g_count.fetch_add(1);
  note_peak();
  return h + 1;
}

void mem_free(void* p) {
  if (!p) return;
  Header* h = static_cast<Header*>(p) - 1;
  (h->psram ? g_psram : g_internal).fetch_sub(h->bytes);
  if (h->psram == 2) g_spilled.fetch_sub(h->bytes);
  heap_caps_free(h);
}

MemStats mem_stats() {
  MemStats s{};
  s.internal_in_use = g_internal.load();
  s.psram_in_use = g_psram.load();
  s.peak_in_use = g_peak.load();
  s.alloc_count = g_count.load();
  s.internal_spilled = g_spilled.load();
  return s;
}

}  // namespace port
}  // namespace k32
