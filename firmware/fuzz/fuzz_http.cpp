// libFuzzer target: arbitrary bytes as what a client sends on a connection -> the HTTP/1.1
// request reader every server on a node uses (ConnReader over a real socket, request head,
// Content-Length and chunked bodies, keep-alive pipelining), with small limits so the limit
// paths are reached too. Checks that an accepted request cannot smuggle anything into what a
// relay (the ingress) writes upstream: no CR/LF/NUL in the method, target, header names or
// values, header names are tokens, one framing per body, '+' in a path stays '+', and no
// body exceeds its limit.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/http/conn_reader.h"
#include "core/http/http_message.h"
#include "core/util/text.h"
#include "fuzz_check.h"

using namespace k32;
using namespace k32::http;

namespace {
constexpr size_t kHeadMax = 2048;  // small on purpose: the fuzzer should hit "too large"
constexpr size_t kBodyMax = 4096;

bool has_ctl(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 && c != '\t') return true;
  return s.find('\x7f') != std::string::npos;
}

bool is_token(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (c <= 0x20 || c >= 0x7f || std::strchr("()<>@,;:\\\"/[]?={}", c)) return false;
  return true;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

void check_request(const Request& rq, const std::string& head) {
  FUZZ_CHECK(is_token(rq.method), "method is not a token");
  FUZZ_CHECK(!has_ctl(rq.target) && rq.target.find(' ') == std::string::npos, "control character in the target");
  FUZZ_CHECK(!rq.path.empty() && rq.path[0] == '/', "path does not start with /");
  // Spaces in the decoded path come from %20 only ('+' is a space in queries, not paths).
  size_t raw_q = rq.target.find('?');
  std::string raw_path = rq.target.substr(0, raw_q);
  size_t spaces = count(rq.path, " ");
  FUZZ_CHECK(spaces <= count(raw_path, "%20"), "path %s decoded to %s", raw_path.c_str(), rq.path.c_str());
  for (const auto& h : rq.headers) {
    FUZZ_CHECK(is_token(h.name), "header name is not a token in head %s", head.c_str());
    FUZZ_CHECK(!has_ctl(h.value), "control character in a header value in head %s", head.c_str());
  }
  // One framing per body: never Transfer-Encoding and Content-Length, never two lengths.
  const std::string* cl = rq.header("Content-Length");
  FUZZ_CHECK(!(cl && rq.header("Transfer-Encoding")), "both framings accepted in head %s", head.c_str());
  for (const auto& h : rq.headers)
    FUZZ_CHECK(!cl || !text::iequals(h.name, "Content-Length") || h.value == *cl, "two lengths in head %s", head.c_str());
  for (const auto& kv : parse_query(rq.query)) (void)kv;
  bool present = false;
  rq.query_param("watch", &present);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int sv[2];
  FUZZ_CHECK(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair: %s", std::strerror(errno));
  int sndbuf = 1 << 20;
  ::setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
  // The whole input is what the client sent before it closed its side.
  FUZZ_CHECK(port::tcp_send_all(sv[1], data, size), "cannot queue the input");
  ::shutdown(sv[1], SHUT_WR);
  Conn conn(sv[0]);
  ConnReader reader(&conn);
  for (int n = 0; n < 64; ++n) {  // pipelined requests on one keep-alive connection
    std::string head;
    ReadStatus st = reader.read_head(&head, kHeadMax, 1000);
    if (st != ReadStatus::Ok) break;
    FUZZ_CHECK(head.size() <= kHeadMax, "head of %zu bytes passed the %zu limit", head.size(), kHeadMax);
    Request rq;
    if (!parse_request_head(head, &rq)) break;
    check_request(rq, head);
    const std::string* te = rq.header("Transfer-Encoding");
    const std::string* cl = rq.header("Content-Length");
    if (te && text::iequals(*te, "chunked")) {
      st = reader.read_chunked(&rq.body, kBodyMax, 1000);
    } else if (te) {
      break;
    } else if (cl) {
      uint64_t len = 0;
      if (!text::parse_uint(*cl, UINT64_MAX, &len) || len > kBodyMax) break;
      st = reader.read_exact(static_cast<size_t>(len), &rq.body, 1000);
    }
    if (st != ReadStatus::Ok) break;
    FUZZ_CHECK(rq.body.size() <= kBodyMax, "body of %zu bytes passed the %zu limit", rq.body.size(), kBodyMax);
  }
  ::close(sv[0]);
  ::close(sv[1]);
  return 0;
}
