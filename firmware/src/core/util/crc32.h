#pragma once
#include <cstddef>
#include <cstdint>

namespace k32 {
// CRC-32 (IEEE 802.3), as zlib computes it; guards each record of the store's log.
uint32_t crc32(const void* data, size_t len, uint32_t seed = 0);
}  // namespace k32
