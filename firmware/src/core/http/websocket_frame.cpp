#include "core/http/websocket_frame.h"

#include "core/util/base64.h"
#include "core/util/sha1.h"

namespace k32 {
namespace http {
namespace ws {

namespace {
// RFC 6455's fixed GUID and its control-frame payload limit: protocol constants.
constexpr const char* kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
constexpr size_t kControlPayloadMax = 125;
}  // namespace

Parse parse_client_frame(const uint8_t* buf, size_t len, size_t max_payload, Frame* out, size_t* used, std::string* err) {
  if (len < 2) return Parse::NeedMore;
  const uint8_t b0 = buf[0], b1 = buf[1];
  if (b0 & 0x70) {
    *err = "websocket frame with reserved bits set (no extension was negotiated)";
    return Parse::Error;
  }
  const uint8_t op = b0 & 0x0f;
  const bool control = op & 0x08;
  if (op != kContinuation && op != kText && op != kBinary && op != kClose && op != kPing && op != kPong) {
    *err = "websocket frame with unknown opcode " + std::to_string(op);
    return Parse::Error;
  }
  if (!(b1 & 0x80)) {
    *err = "websocket frame from the client is not masked";
    return Parse::Error;
  }
  uint64_t n = b1 & 0x7f;
  size_t pos = 2;
  if (n == 126) {
    if (len < 4) return Parse::NeedMore;
    n = (uint64_t{buf[2]} << 8) | buf[3];
    if (n < 126) {
      *err = "websocket frame length not in its shortest form";
      return Parse::Error;
    }
    pos = 4;
  } else if (n == 127) {
    if (len < 10) return Parse::NeedMore;
    n = 0;
    for (int i = 0; i < 8; ++i) n = (n << 8) | buf[2 + i];
    if (n >> 63) {
      *err = "websocket frame length has its most significant bit set";
      return Parse::Error;
    }
    if (n <= 0xffff) {
      *err = "websocket frame length not in its shortest form";
      return Parse::Error;
    }
    pos = 10;
  }
  if (control && (!(b0 & 0x80) || n > kControlPayloadMax)) {
    *err = "websocket control frame fragmented or longer than 125 bytes";
    return Parse::Error;
  }
  if (n > max_payload) {
    *err = "websocket frame of " + std::to_string(n) + " bytes is over the " + std::to_string(max_payload) + "-byte limit";
    return Parse::Error;
  }
  if (len - pos < 4) return Parse::NeedMore;
  const uint8_t* mask = buf + pos;
  pos += 4;
  if (len - pos < n) return Parse::NeedMore;
  out->fin = b0 & 0x80;
  out->opcode = op;
  out->payload.resize(static_cast<size_t>(n));
  for (size_t i = 0; i < n; ++i) out->payload[i] = static_cast<char>(buf[pos + i] ^ mask[i & 3]);
  *used = pos + static_cast<size_t>(n);
  return Parse::Ok;
}

std::string encode_frame(uint8_t opcode, const std::string& payload) {
  std::string f;
  f.push_back(static_cast<char>(0x80 | (opcode & 0x0f)));
  const uint64_t n = payload.size();
  if (n < 126) {
    f.push_back(static_cast<char>(n));
  } else if (n <= 0xffff) {
    f.push_back(static_cast<char>(126));
    f.push_back(static_cast<char>(n >> 8));
    f.push_back(static_cast<char>(n & 0xff));
  } else {
    f.push_back(static_cast<char>(127));
    for (int i = 7; i >= 0; --i) f.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  }
  f += payload;
  return f;
}

std::string accept_key(const std::string& client_key) { return base64_encode(sha1(client_key + kGuid)); }

}  // namespace ws
}  // namespace http
}  // namespace k32
