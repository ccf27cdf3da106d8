// libFuzzer target: the frame parsers of kubectl port-forward, as bytes a client sends after
// the upgrade. The first input byte picks the layer the rest enters at:
//   0: WebSocket frames (as kubectl 1.30+ tunnels), their binary payloads then as SPDY
//   1: SPDY frames straight from the connection
//   2: a DEFLATE stream against SPDY's dictionary, fed in pieces
//   3: a header list encoded by the server's encoder must decode to the same list
// SYN_STREAM header blocks go through the session's decoder. Small limits, so the limit
// paths are reached; every result is checked against the limits it was given.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/http/spdy_frame.h"
#include "core/http/websocket_frame.h"
#include "core/util/inflate.h"
#include "fuzz_check.h"

using namespace k32;
using namespace k32::http;

namespace {
constexpr size_t kFrameMax = 2048;
constexpr size_t kBlockMax = 1024;
constexpr size_t kWindow = 4096;  // smaller than DEFLATE's, so "past the window" is reachable

void spdy_stream(const std::string& bytes, spdy::HeaderDecoder* dec) {
  size_t at = 0;
  while (at < bytes.size()) {
    spdy::Frame f;
    size_t used = 0;
    std::string err;
    auto r =
        spdy::parse_frame(reinterpret_cast<const uint8_t*>(bytes.data()) + at, bytes.size() - at, kFrameMax, &f, &used, &err);
    if (r != spdy::Parse::Ok) {
      FUZZ_CHECK(r == spdy::Parse::NeedMore || !err.empty(), "an error needs a message");
      return;
    }
    FUZZ_CHECK(used >= 8 && used <= bytes.size() - at, "used %zu of %zu", used, bytes.size() - at);
    FUZZ_CHECK(f.payload.size() <= kFrameMax, "payload %zu", f.payload.size());
    at += used;
    if (f.control && f.type == spdy::kSynStream) {
      FUZZ_CHECK(f.stream_id != 0, "SYN_STREAM on stream 0 accepted");
      std::vector<Header> hs;
      if (!dec->decode(f.payload, kBlockMax, &hs, &err)) {
        FUZZ_CHECK(!err.empty(), "a refused block needs a message");
        return;  // the compression context is gone: the session ends here too
      }
      size_t total = 0;
      for (const auto& h : hs) {
        FUZZ_CHECK(!h.name.empty(), "empty header name accepted");
        for (char c : h.name) FUZZ_CHECK(!(c >= 'A' && c <= 'Z'), "uppercase header name accepted");
        total += h.name.size() + h.value.size();
      }
      FUZZ_CHECK(total <= kBlockMax, "headers of %zu bytes from a %zu-byte block limit", total, kBlockMax);
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0] % 4;
  const std::string in(reinterpret_cast<const char*>(data + 1), size - 1);
  spdy::HeaderDecoder dec(kWindow);
  if (mode == 0) {
    std::string spdy_bytes;
    size_t at = 0;
    while (at < in.size()) {
      ws::Frame f;
      size_t used = 0;
      std::string err;
      auto r =
          ws::parse_client_frame(reinterpret_cast<const uint8_t*>(in.data()) + at, in.size() - at, kFrameMax, &f, &used, &err);
      if (r != ws::Parse::Ok) {
        FUZZ_CHECK(r == ws::Parse::NeedMore || !err.empty(), "an error needs a message");
        break;
      }
      FUZZ_CHECK(used >= 6 && used <= in.size() - at, "used %zu", used);
      FUZZ_CHECK(f.payload.size() <= kFrameMax, "payload %zu", f.payload.size());
      FUZZ_CHECK(f.opcode < 8 || (f.fin && f.payload.size() <= 125), "bad control frame accepted");
      at += used;
      if (f.opcode == ws::kBinary || f.opcode == ws::kContinuation) spdy_bytes += f.payload;
    }
    spdy_stream(spdy_bytes, &dec);
  } else if (mode == 1) {
    spdy_stream(in, &dec);
  } else if (mode == 2) {
    // The stream in three pieces, as three frames would bring it.
    Inflater inf(kWindow);
    const uint8_t dict[] = "streamtypedataerrorportrequestid";
    inf.preset(dict, sizeof dict - 1);
    const size_t cut1 = in.size() / 3, cut2 = 2 * in.size() / 3;
    size_t from = 0;
    for (size_t to : {cut1, cut2, in.size()}) {
      std::string out, err;
      const bool ok = inf.feed(reinterpret_cast<const uint8_t*>(in.data()) + from, to - from, &out, kBlockMax, &err);
      FUZZ_CHECK(out.size() <= kBlockMax, "inflated %zu over %zu", out.size(), kBlockMax);
      if (!ok) {
        FUZZ_CHECK(!err.empty(), "a failure needs a message");
        break;
      }
      from = to;
    }
  } else {
    // Name/value pairs from the input (NUL separates, names lowercased), encoded by the
    // server's encoder: the decoder must give back exactly the same list.
    std::vector<Header> hs;
    size_t at = 0;
    while (at < in.size() && hs.size() < 16) {
      size_t a = in.find('\0', at);
      if (a == std::string::npos) break;
      size_t b = in.find('\0', a + 1);
      if (b == std::string::npos) b = in.size();
      Header h{in.substr(at, a - at), in.substr(a + 1, b - a - 1)};
      std::string name;
      for (char c : h.name)
        if (static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f)
          name.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
      if (!name.empty()) hs.push_back({name, h.value});
      at = b + 1;
    }
    spdy::HeaderEncoder enc;
    for (int round = 0; round < 2; ++round) {
      std::vector<Header> back;
      std::string err;
      const bool ok = dec.decode(enc.encode(hs), 1 << 20, &back, &err);
      FUZZ_CHECK(ok, "own encoding refused: %s", err.c_str());
      FUZZ_CHECK(back.size() == hs.size(), "%zu headers back of %zu", back.size(), hs.size());
      for (size_t i = 0; i < hs.size(); ++i)
        FUZZ_CHECK(back[i].name == hs[i].name && back[i].value == hs[i].value, "header %zu changed", i);
    }
  }
  return 0;
}
