// SPDY/3.1 frames, the multiplexing layer kubectl port-forward speaks (directly after an HTTP
// upgrade, or tunnelled inside a WebSocket by kubectl 1.30 and later): one frame parsed from
// a byte buffer with its length checked against a limit and against its type's fixed layout,
// the compressed name/value header blocks of SYN_STREAM in (zlib with SPDY's dictionary) and
// SYN_REPLY out (zlib stored blocks: valid for every reader, no compressor to carry), and the
// frames the server writes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/http/http_message.h"
#include "core/util/inflate.h"

namespace k32 {
namespace http {
namespace spdy {

constexpr uint16_t kVersion = 3;
enum Type : uint16_t {
  kSynStream = 1,
  kSynReply = 2,
  kRstStream = 3,
  kSettings = 4,
  kPing = 6,
  kGoAway = 7,
  kHeaders = 8,
  kWindowUpdate = 9
};
constexpr uint8_t kFlagFin = 0x01;
// RST_STREAM status codes (SPDY/3 2.6.3).
enum Status : uint32_t {
  kProtocolError = 1,
  kInvalidStream = 2,
  kRefusedStream = 3,
  kCancel = 5,
  kInternalError = 6,
  kStreamInUse = 8,
  kStreamAlreadyClosed = 9,
  kFrameTooLarge = 11
};

struct Frame {
  bool control = false;
  uint16_t type = 0;  // control frames
  uint8_t flags = 0;
  uint32_t stream_id = 0;  // data frames; control frames that name a stream (0 otherwise)
  uint32_t value = 0;      // PING id, RST_STREAM/GOAWAY status, WINDOW_UPDATE delta
  std::string payload;     // data, or a control frame's header block (SYN_STREAM/SYN_REPLY/HEADERS)
};

enum class Parse { Ok, NeedMore, Error };

// One frame from the start of buf[0..len): Ok with *used consumed, NeedMore, or Error with
// *err (a version other than 3, a length over max_payload or wrong for its type, stream 0
// where a stream is required). Control frame types SPDY/3 does not know are returned as
// they are (type set, payload raw) so the session can ignore them as the protocol says.
Parse parse_frame(const uint8_t* buf, size_t len, size_t max_payload, Frame* out, size_t* used, std::string* err);

// The client's header blocks: one zlib stream across the session.
class HeaderDecoder {
 public:
  explicit HeaderDecoder(size_t window_bytes);
  // Decodes one block into lowercase name/value pairs; false with *err. max_bytes bounds the
  // decompressed block.
  bool decode(const std::string& block, size_t max_bytes, std::vector<Header>* out, std::string* err);

 private:
  Inflater inf_;
  bool started_ = false;  // the zlib header (first block) has been read
};

// The server's header blocks: a zlib stream of stored blocks.
class HeaderEncoder {
 public:
  std::string encode(const std::vector<Header>& headers);

 private:
  bool started_ = false;
};

std::string data_frame(uint32_t stream_id, uint8_t flags, const std::string& data);
std::string syn_reply(uint32_t stream_id, uint8_t flags, const std::string& header_block);
std::string rst_stream(uint32_t stream_id, uint32_t status);
std::string ping(uint32_t id);
std::string goaway(uint32_t last_good_stream, uint32_t status);

}  // namespace spdy
}  // namespace http
}  // namespace k32
