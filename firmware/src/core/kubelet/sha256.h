// SHA-256 (FIPS 180-4) for image digests (@sha256:<hex> pins); portable, no port needed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace k32 {
namespace kubelet {

// Lowercase hex digest of data.
std::string sha256_hex(const uint8_t* data, size_t len);

}  // namespace kubelet
}  // namespace k32
