// Heap profile by call site, for finding where the node's heap goes (simulator only, off
// unless K32_HEAP_SITES=<file> is set): every live allocation is booked to the call stack
// that made it and the region it was booked in. Writing a path into <file>.req makes the node
// dump its live sites to that path (one line per site: live bytes, live allocations,
// allocations ever, the region "internal" or "psram", the most bytes it ever held live at
// once (what a short-lived peak took), the bytes it held when its region's total was at its
// highest (who made up the node's peak: short-lived uses of several sites add up there
// although each site's own peak falls at another moment), then the return addresses) and
// delete the request; `addr2line -f -C -i -e k32-node` names the addresses. A diagnostic beside the
// accounting in memory_host.cpp: it never changes what is booked.
#include "heap_sites_host.h"

#include <execinfo.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace k32 {
namespace port {
namespace {

constexpr int kSkip = 1;     // heap_site_take itself (mem_alloc may be inlined, so it stays)
constexpr int kFrames = 32;  // call-stack depth kept per site (JSON copies nest deep)
constexpr uint32_t kSlots = 1u << 15;
constexpr int kPollMs = 200;
// The region's high-water picture is taken again once the total passes the last by this much
// (a copy of every site per byte of growth would stall the node while its heap first fills).
constexpr uint64_t kHighStep = 1024;

struct Site {
  uint32_t hash;
  uint32_t region;  // as memory_host.cpp books it: 0 internal, 1 PSRAM
  uint32_t depth;
  void* frames[kFrames];
  int64_t live_bytes;
  int64_t live_count;
  uint64_t total;
  int64_t peak_bytes;  // the most live_bytes ever was
  int64_t at_high;     // live_bytes when the region's total was last at its highest
};

Site* g_sites = nullptr;  // kSlots entries from the OS allocator; slot 0 means "no site"
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;
std::atomic<int> g_state{-1};  // -1 not looked at yet, 0 off, 1 on
const char* g_path = nullptr;
uint32_t* g_used = nullptr;  // the slots in use, so a high-water picture visits only those
uint32_t g_used_count = 0;
uint64_t g_high[2] = {0, 0};         // each region's total at its last picture
thread_local bool t_inside = false;  // backtrace() may allocate; never book that

struct SpinGuard {
  SpinGuard() {
    while (g_lock.test_and_set(std::memory_order_acquire)) {}
  }
  ~SpinGuard() { g_lock.clear(std::memory_order_release); }
};

void dump(const char* out_path) {
  FILE* f = std::fopen(out_path, "w");
  if (!f) return;
  SpinGuard g;
  for (uint32_t i = 1; i < kSlots; ++i) {
    const Site& s = g_sites[i];
    // Sites with nothing live stay in: their peak is what a short-lived use took.
    if (!s.hash) continue;
    std::fprintf(f, "%lld %lld %llu %s %lld %lld", static_cast<long long>(s.live_bytes), static_cast<long long>(s.live_count),
                 static_cast<unsigned long long>(s.total), s.region ? "psram" : "internal", static_cast<long long>(s.peak_bytes),
                 static_cast<long long>(s.at_high));
    for (uint32_t k = 0; k < s.depth; ++k) std::fprintf(f, " %p", s.frames[k]);
    std::fputc('\n', f);
  }
  std::fclose(f);
}

// Polls for <file>.req: a plain pthread, as this is the host's diagnostic and no node thread.
void* poller(void*) {
  char req[4096];
  std::snprintf(req, sizeof req, "%s.req", g_path);
  for (;;) {
    usleep(kPollMs * 1000);
    FILE* f = std::fopen(req, "r");
    if (!f) continue;
    char out[4096] = {0};
    size_t n = std::fread(out, 1, sizeof out - 1, f);
    std::fclose(f);
    while (n && (out[n - 1] == '\n' || out[n - 1] == ' ')) out[--n] = 0;
    dump(n ? out : g_path);
    std::remove(req);
  }
  return nullptr;
}

bool enabled() {
  int s = g_state.load(std::memory_order_relaxed);
  if (s >= 0) return s == 1;
  static std::atomic_flag once = ATOMIC_FLAG_INIT;
  if (once.test_and_set()) return false;  // another thread is switching it on right now
  const char* p = std::getenv("K32_HEAP_SITES");
  if (p && *p) {
    g_sites = static_cast<Site*>(std::calloc(kSlots, sizeof(Site)));
    g_used = static_cast<uint32_t*>(std::calloc(kSlots, sizeof(uint32_t)));
    g_path = p;
    pthread_t t;
    if (g_sites && g_used && pthread_create(&t, nullptr, poller, nullptr) == 0) {
      pthread_detach(t);
      g_state.store(1);
      return true;
    }
  }
  g_state.store(0);
  return false;
}

}  // namespace

uint32_t heap_site_take(uint64_t bytes, uint32_t region) {
  if (t_inside || !enabled()) return 0;
  t_inside = true;
  void* raw[kFrames + kSkip];
  int n = backtrace(raw, kFrames + kSkip);
  t_inside = false;
  int depth = n > kSkip ? n - kSkip : 0;
  uint32_t h = (2166136261u ^ region) * 16777619u;
  for (int k = 0; k < depth; ++k) {
    uintptr_t a = reinterpret_cast<uintptr_t>(raw[kSkip + k]);
    h = (h ^ static_cast<uint32_t>(a)) * 16777619u;
  }
  if (h == 0) h = 1;
  SpinGuard g;
  for (uint32_t probe = 0; probe < kSlots; ++probe) {
    uint32_t i = ((h + probe) & (kSlots - 1)) | 1u;  // never slot 0
    Site& s = g_sites[i];
    if (s.hash == 0) {
      s.hash = h;
      s.region = region;
      s.depth = static_cast<uint32_t>(depth);
      std::memcpy(s.frames, raw + kSkip, sizeof(void*) * depth);
      g_used[g_used_count++] = i;
    } else if (s.hash != h || s.region != region || s.depth != static_cast<uint32_t>(depth) ||
               std::memcmp(s.frames, raw + kSkip, sizeof(void*) * depth) != 0) {
      continue;
    }
    s.live_bytes += static_cast<int64_t>(bytes);
    if (s.live_bytes > s.peak_bytes) s.peak_bytes = s.live_bytes;
    s.live_count += 1;
    s.total += 1;
    return i;
  }
  return 0;  // table full: this allocation goes unbooked
}

void heap_site_high(uint32_t region, uint64_t total) {
  if (!g_sites || region > 1) return;
  SpinGuard g;
  if (total < g_high[region] + kHighStep) return;
  g_high[region] = total;
  for (uint32_t k = 0; k < g_used_count; ++k) {
    Site& s = g_sites[g_used[k]];
    if (s.region == region) s.at_high = s.live_bytes;
  }
}

void heap_site_final() {
  if (g_sites && g_path) dump(g_path);
}

void heap_site_drop(uint32_t site, uint64_t bytes) {
  if (!site || !g_sites) return;
  SpinGuard g;
  g_sites[site].live_bytes -= static_cast<int64_t>(bytes);
  g_sites[site].live_count -= 1;
}

}  // namespace port
}  // namespace k32
