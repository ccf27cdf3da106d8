// WebSocket (RFC 6455) frames as the API server's port-forward tunnel reads and writes them:
// the opening handshake's accept key, one client frame parsed with every rule a server must
// check (masking, reserved bits, opcodes, control-frame limits, length encoding), and
// unmasked server frames. No extension is ever negotiated, so the reserved bits must be 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace k32 {
namespace http {
namespace ws {

enum Opcode : uint8_t { kContinuation = 0, kText = 1, kBinary = 2, kClose = 8, kPing = 9, kPong = 10 };

struct Frame {
  bool fin = false;
  uint8_t opcode = 0;
  std::string payload;  // unmasked
};

enum class Parse { Ok, NeedMore, Error };

// One frame a client sent, from the start of buf[0..len): Ok with *used bytes consumed,
// NeedMore when the frame is not complete yet, Error with *err. A payload over max_payload
// is an error as soon as its length is read.
Parse parse_client_frame(const uint8_t* buf, size_t len, size_t max_payload, Frame* out, size_t* used, std::string* err);

// A server frame (unmasked, FIN set).
std::string encode_frame(uint8_t opcode, const std::string& payload);

// Sec-WebSocket-Accept for a client's Sec-WebSocket-Key.
std::string accept_key(const std::string& client_key);

}  // namespace ws
}  // namespace http
}  // namespace k32
