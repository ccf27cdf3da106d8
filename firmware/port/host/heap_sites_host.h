// Heap profile by call site (simulator diagnostic, K32_HEAP_SITES=<file>; see the .cpp).
#pragma once
#include <cstdint>

namespace k32 {
namespace port {

// Books `bytes` to the caller's call stack; returns the site to hand back on free (0: not booked).
uint32_t heap_site_take(uint64_t bytes, uint32_t region);
void heap_site_drop(uint32_t site, uint64_t bytes);
// `region` now holds `total` bytes: past its highest so far, every site's share is noted.
void heap_site_high(uint32_t region, uint64_t total);
// The node is about to stop out of heap: the sites go to <file> (the profile's own path).
void heap_site_final();

}  // namespace port
}  // namespace k32
