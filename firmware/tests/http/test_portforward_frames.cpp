// The port-forward parsers: SHA-1 and the WebSocket accept key (RFC vectors), client WebSocket
// frames and the rules a server checks, SPDY/3 frames and their per-type lengths, and header
// blocks compressed by zlib against SPDY's dictionary (as Go's and Python's zlib write them)
// plus the server's own encoding read back.
#include <string>
#include <vector>

#include "check.h"
#include "core/http/spdy_frame.h"
#include "core/http/websocket_frame.h"
#include "core/util/sha1.h"

using namespace k32;
using namespace k32::http;

static std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string o;
  for (unsigned char c : s) o += d[c >> 4], o += d[c & 15];
  return o;
}

static ws::Parse ws_parse(const std::string& b, ws::Frame* f, size_t* used, std::string* err, size_t max = 1024) {
  return ws::parse_client_frame(reinterpret_cast<const uint8_t*>(b.data()), b.size(), max, f, used, err);
}

static spdy::Parse sp_parse(const std::string& b, spdy::Frame* f, size_t* used, std::string* err, size_t max = 1024) {
  return spdy::parse_frame(reinterpret_cast<const uint8_t*>(b.data()), b.size(), max, f, used, err);
}

int main() {
  CHECK_EQ(hex(sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK_EQ(hex(sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK_EQ(ws::accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");

  // RFC 6455 5.7: a masked "Hello".
  std::string hello("\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11);
  ws::Frame f;
  size_t used = 0;
  std::string err;
  CHECK(ws_parse(hello, &f, &used, &err) == ws::Parse::Ok);
  CHECK(f.fin && f.opcode == ws::kText && f.payload == "Hello" && used == 11);
  CHECK(ws_parse(hello.substr(0, 8), &f, &used, &err) == ws::Parse::NeedMore);
  CHECK(ws_parse(std::string("\x81\x05Hello", 7), &f, &used, &err) == ws::Parse::Error);           // unmasked
  CHECK(ws_parse(std::string("\xc1\x80\0\0\0\0", 6), &f, &used, &err) == ws::Parse::Error);        // RSV1
  CHECK(ws_parse(std::string("\x83\x80\0\0\0\0", 6), &f, &used, &err) == ws::Parse::Error);        // opcode 3
  CHECK(ws_parse(std::string("\x09\x80\0\0\0\0", 6), &f, &used, &err) == ws::Parse::Error);        // fragmented ping
  CHECK(ws_parse(std::string("\x82\xfe\x00\x10", 4), &f, &used, &err) == ws::Parse::Error);        // 16 in 2 bytes
  CHECK(ws_parse(std::string("\x82\xfe\x08\x00", 4), &f, &used, &err, 1024) == ws::Parse::Error);  // over the limit
  CHECK(err.find("limit") != std::string::npos);
  CHECK_EQ(ws::encode_frame(ws::kBinary, "ab"), std::string("\x82\x02"
                                                            "ab",
                                                            4));
  CHECK_EQ(ws::encode_frame(ws::kBinary, std::string(300, 'x')).substr(0, 4), std::string("\x82\x7e\x01\x2c", 4));

  // SPDY frames: a PING, and what must be refused.
  spdy::Frame s;
  CHECK(sp_parse(spdy::ping(7), &s, &used, &err) == spdy::Parse::Ok);
  CHECK(s.control && s.type == spdy::kPing && s.value == 7 && used == 12);
  CHECK(sp_parse(spdy::ping(7).substr(0, 10), &s, &used, &err) == spdy::Parse::NeedMore);
  CHECK(sp_parse(std::string("\x80\x02\x00\x06\x00\x00\x00\x04\0\0\0\1", 12), &s, &used, &err) == spdy::Parse::Error);
  CHECK(err.find("version 2") != std::string::npos);
  CHECK(sp_parse(std::string("\x80\x03\x00\x03\x00\x00\x00\x04\0\0\0\1", 12), &s, &used, &err) == spdy::Parse::Error);
  CHECK(sp_parse(spdy::data_frame(0, 0, "x"), &s, &used, &err) == spdy::Parse::Error);
  CHECK(sp_parse(spdy::data_frame(3, 0, std::string(2000, 'x')), &s, &used, &err, 1024) == spdy::Parse::Error);
  CHECK(sp_parse(spdy::data_frame(3, spdy::kFlagFin, "abc"), &s, &used, &err) == spdy::Parse::Ok);
  CHECK(!s.control && s.stream_id == 3 && s.flags == spdy::kFlagFin && s.payload == "abc");
  CHECK(sp_parse(spdy::rst_stream(5, spdy::kCancel), &s, &used, &err) == spdy::Parse::Ok);
  CHECK(s.type == spdy::kRstStream && s.stream_id == 5 && s.value == spdy::kCancel);

  // kubectl's two SYN_STREAM header blocks of one forwarded connection, as zlib compressed
  // them (the second refers back into the first).
  const std::string b1(
      "\x78\xf9\xe3\xc6\xa7\xc2\x02\x25\x3a\x70\x3a\x2b\x29\x4a\x4d\xcc\x85\x16\x25\xac\xa9\xa0\x80\x86\x14\xcb\x45\xe0\x1c"
      "\x60\x61\x60\x61\x00\xa4\x39\x8b\x20\xd1\x98\x09\x4a\xde\x8c\x06\x00\x00\x00\x00\xff\xff",
      51);
  const std::string b2("\xc2\xaa\x19\x54\x0e\x25\x12\xd6\x0b\x00\x00\x00\xff\xff", 14);
  spdy::HeaderDecoder dec(32768);
  std::vector<Header> hs;
  CHECK(dec.decode(b1, 4096, &hs, &err));
  CHECK(hs.size() == 3 && hs[0].name == "streamtype" && hs[0].value == "error" && hs[1].value == "8080");
  CHECK(dec.decode(b2, 4096, &hs, &err));
  CHECK(hs.size() == 3 && hs[0].value == "data" && hs[2].name == "requestid" && hs[2].value == "0");
  spdy::HeaderDecoder bad(32768);
  CHECK(!bad.decode(std::string("\x78\xbb\0\0\0\0", 6), 4096, &hs, &err));  // another dictionary
  spdy::HeaderDecoder small(32768);
  CHECK(!small.decode(b1, 16, &hs, &err) && err.find("longer than") != std::string::npos);

  // The server's blocks read back, twice on one stream.
  spdy::HeaderEncoder enc;
  spdy::HeaderDecoder mine(32768);
  for (int i = 0; i < 2; ++i) {
    CHECK(mine.decode(enc.encode({{"x-a", "1"}, {"b", std::string(200, '\xfe')}}), 4096, &hs, &err));
    CHECK(hs.size() == 2 && hs[0].name == "x-a" && hs[1].value == std::string(200, '\xfe'));
  }
  CHECK(mine.decode(enc.encode({}), 4096, &hs, &err) && hs.empty());
  TEST_MAIN_END();
}
