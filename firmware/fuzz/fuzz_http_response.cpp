// libFuzzer target: arbitrary bytes as what a server outside the cluster answers a pod's call
// -> the response reader of an outgoing call (status line, 1xx responses skipped, headers,
// chunked, Content-Length and read-to-close bodies), arriving in pieces of an input-chosen
// size, with small limits so the limit paths are reached. Checks that the result is a final
// status or an error code, that no more than the body limit reaches the pod (all of it when
// the answer is "too big"), and that no header handed on (a worker relays them) carries a
// line break or a name that is not a token.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/calls/http_exchange.h"
#include "fuzz_check.h"
#include "port.h"
#include "runtime/k32_app_abi.h"

using namespace k32;

namespace {
constexpr size_t kHeadMax = 1024;
constexpr size_t kBodyLimit = 2048;

// The server's bytes, handed out `piece` at a time, then an orderly close.
class BytesStream : public calls::CallStream {
 public:
  BytesStream(const uint8_t* d, size_t n, size_t piece) : d_(d), n_(n), piece_(piece) {}
  int recv(void* buf, size_t len, uint32_t) override {
    size_t take = n_ - at_;
    if (take > len) take = len;
    if (take > piece_) take = piece_;
    std::memcpy(buf, d_ + at_, take);
    at_ += take;
    return static_cast<int>(take);
  }
  bool send_all(const void*, size_t) override { return true; }

 private:
  const uint8_t* d_;
  size_t n_;
  size_t piece_;
  size_t at_ = 0;
};

bool is_token(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (c <= 0x20 || c >= 0x7f || std::strchr("()<>@,;:\\\"/[]?={}", c)) return false;
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t piece = 1 + data[0];
  const bool head_request = data[1] & 1;
  BytesStream s(data + 2, size - 2, piece);
  calls::ExchangeLimits lim;
  lim.deadline_ms = port::monotonic_ms() + 60000;
  lim.head_max = kHeadMax;
  lim.body_limit = kBodyLimit;
  size_t delivered = 0;
  calls::ExchangeResult r =
      calls::http_exchange(s, "GET / HTTP/1.1\r\n\r\n", nullptr, 0, head_request, lim, [&](const char*, size_t n) {
        delivered += n;
        return true;
      });
  FUZZ_CHECK(r.rc < 0 || (r.rc >= 200 && r.rc <= 599 && r.rc == r.status), "result %d with status %d", r.rc, r.status);
  FUZZ_CHECK(delivered <= kBodyLimit, "%zu body bytes passed the %zu limit", delivered, kBodyLimit);
  FUZZ_CHECK(r.rc != K32_ERR_TOOBIG || delivered == kBodyLimit, "too big after %zu bytes", delivered);
  FUZZ_CHECK(!head_request || delivered == 0, "a body for HEAD");
  for (const auto& h : r.headers) {
    FUZZ_CHECK(is_token(h.name), "header name is not a token");
    for (char c : h.value) FUZZ_CHECK(c != '\r' && c != '\n' && c != '\0', "line break in a header value");
  }
  return 0;
}
