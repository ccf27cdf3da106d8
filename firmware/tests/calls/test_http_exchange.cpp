// The response reader of a pod's outgoing call, over a scripted stream: framing a server could
// mean differently from how a lenient reader takes it ("+5" as a length, "0x5" as a chunk
// size, chunk data longer than its size) is an I/O error, interim 1xx answers are skipped,
// no more than the body limit reaches the pod, and a response head past the board's budget
// (the control plane's or a worker's) fails the call.
#include <cstring>
#include <string>

#include "k32_board.h"

#include "check.h"
#include "core/calls/http_exchange.h"
#include "port.h"
#include "runtime/k32_app_abi.h"

using namespace k32;

namespace {

class Scripted : public calls::CallStream {
 public:
  explicit Scripted(std::string bytes) : bytes_(std::move(bytes)) {}
  int recv(void* buf, size_t len, uint32_t) override {
    size_t take = std::min(len, bytes_.size() - at_);
    std::memcpy(buf, bytes_.data() + at_, take);
    at_ += take;
    return static_cast<int>(take);
  }
  bool send_all(const void*, size_t) override { return true; }

 private:
  std::string bytes_;
  size_t at_ = 0;
};

int32_t exchange(const std::string& answer, std::string* body, size_t limit = 64, size_t head_max = 1024) {
  Scripted s(answer);
  calls::ExchangeLimits lim;
  lim.deadline_ms = port::monotonic_ms() + 5000;
  lim.body_limit = limit;
  lim.head_max = head_max;
  body->clear();
  return calls::http_exchange(s, "GET / HTTP/1.1\r\n\r\n", nullptr, 0, false, lim,
                              [&](const char* d, size_t n) {
                                body->append(d, n);
                                return true;
                              })
      .rc;
}

}  // namespace

int main() {
  std::string body;
  CHECK_EQ(exchange("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", &body), 200);
  CHECK_EQ(body, std::string("hello"));
  CHECK_EQ(exchange("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "5;x=y\r\nhello\r\n1\r\n!\r\n0\r\nT: 1\r\n\r\n",
                    &body),
           201);
  CHECK_EQ(body, std::string("hello!"));
  CHECK_EQ(exchange("HTTP/1.0 200 OK\r\n\r\nto the close", &body), 200);
  CHECK_EQ(body, std::string("to the close"));

  for (const char* len : {"+5", "-1", "0x5", "5,5", "5.0", ""}) {  // (spaces around it are trimmed, as HTTP says)
    CHECK_EQ(exchange(std::string("HTTP/1.1 200 OK\r\nContent-Length: ") + len + "\r\n\r\nhello", &body), K32_ERR_IO);
  }
  for (const char* size : {"0x5", "-1", "+5", " 5", "123456789", "g"}) {
    CHECK_EQ(
        exchange(std::string("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") + size + "\r\nhello\r\n0\r\n\r\n", &body),
        K32_ERR_IO);
  }
  // Data longer than its chunk size said.
  CHECK_EQ(exchange("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n", &body), K32_ERR_IO);

  // The limit: the first bytes are kept, then the call is "too big".
  CHECK_EQ(exchange("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", &body, 4), K32_ERR_TOOBIG);
  CHECK_EQ(body, std::string("0123"));
  CHECK_EQ(exchange("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffff\r\n0123456789", &body, 4), K32_ERR_TOOBIG);
  CHECK_EQ(body, std::string("0123"));

  // The response head's budget, status line to the blank line included: a head of exactly the
  // board's figure is read, one byte more is K32_ERR_IO (the control plane's 8 KiB, a worker's 1 KiB).
  for (size_t max : {static_cast<size_t>(K32_RESP_HEAD_MAX_CP), static_cast<size_t>(K32_RESP_HEAD_MAX_WORKER)}) {
    const std::string start = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pad: ";
    const std::string end = "\r\n\r\n";
    std::string fits = start + std::string(max - start.size() - end.size(), 'p') + end;
    CHECK_EQ(fits.size(), max);
    CHECK_EQ(exchange(fits + "ok", &body, 64, max), 200);
    CHECK_EQ(body, std::string("ok"));
    std::string over = start + std::string(max + 1 - start.size() - end.size(), 'p') + end;
    CHECK_EQ(exchange(over + "ok", &body, 64, max), K32_ERR_IO);
  }
  TEST_MAIN_END();
}
