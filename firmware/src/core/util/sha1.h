// SHA-1, for the one place a protocol still requires it: the WebSocket handshake's
// Sec-WebSocket-Accept (RFC 6455). Not for anything that needs collision resistance.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace k32 {
// The 20-byte digest of `data`, as raw bytes.
std::string sha1(const std::string& data);
}  // namespace k32
