// Request heads and bodies a relay could be fooled by, sent over real loopback sockets to the
// HTTP server every node runs: control characters in header names, values and the target,
// two framings for one body, chunk sizes that are not plain hex, and '+' in a path. Each is
// refused with 400 (or, for the path, decoded the way the client meant).
#include <string>

#include "check.h"
#include "test_ports.h"
#include "core/http/http_server.h"
#include "core/util/text.h"
#include "port.h"

using namespace k32;

static std::string exchange(uint16_t port, const std::string& raw) {
  int err = 0;
  port::Socket s = port::tcp_connect("127.0.0.1", port, 1000, &err);
  if (s == port::kNoSocket) return "CONNECT-FAILED";
  port::tcp_send_all(s, raw.data(), raw.size());
  port::tcp_shutdown_write(s);
  std::string out;
  char buf[4096];
  for (;;) {
    int n = port::tcp_recv(s, buf, sizeof buf, 2000);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  port::tcp_close(s);
  return out;
}

static bool status_is(const std::string& resp, const char* code) {
  return text::starts_with(resp, std::string("HTTP/1.1 ") + code);
}

int main() {
  // A server runs until the process exits (its threads are detached and hold it): never
  // destroyed, so it must not live on main's stack, whose end races those threads.
  http::Server& srv = *new http::Server;
  http::ServerConfig cfg;
  cfg.bind_ip = "127.0.0.1";
  // The handler shows what the server parsed: path and every header, one per line.
  auto handler = [](http::Request& req, http::ResponseWriter& w) {
    std::string out = "path=" + req.path + "\n";
    for (const auto& h : req.headers) out += h.name + "=" + h.value + "\n";
    out += "body=" + req.body;
    w.send(200, "text/plain", out);
  };
  std::string err;
  bool started = k32test::start_on_free_port(srv, &cfg, handler, &err);
  const uint16_t port = cfg.port;
  CHECK(started);
  if (!started) TEST_MAIN_END();

  // Baseline: a plain request is served.
  CHECK(status_is(exchange(port, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), "200"));

  // A bare LF inside a header value would be a header of its own to the next hop.
  std::string smuggled = exchange(port, "GET /a HTTP/1.1\r\nX-A: 1\nX-Kube32-Pod: kube-system/x\r\n\r\n");
  CHECK(status_is(smuggled, "400"));
  CHECK(smuggled.find("X-Kube32-Pod") == std::string::npos);
  CHECK(status_is(exchange(port, "GET /a HTTP/1.1\r\nX-A: 1\rX-B: 2\r\n\r\n"), "400"));
  CHECK(status_is(exchange(port, std::string("GET /a HTTP/1.1\r\nX-A: a") + '\0' + "b\r\n\r\n"), "400"));
  // Header names are tokens; a control character or a separator is not a name.
  CHECK(status_is(exchange(port, "GET /a HTTP/1.1\r\nX\tA: 1\r\n\r\n"), "400"));
  CHECK(status_is(exchange(port, "GET /a HTTP/1.1\r\nX(A): 1\r\n\r\n"), "400"));
  // The request line: a method is a token, the target has no control characters, the
  // version is HTTP/1.0 or HTTP/1.1.
  CHECK(status_is(exchange(port, "G\x01T /a HTTP/1.1\r\n\r\n"), "400"));
  CHECK(status_is(exchange(port, "GET /a\x0b HTTP/1.1\r\n\r\n"), "400"));
  CHECK(status_is(exchange(port, "GET /a HTTP/1.1x\r\n\r\n"), "400"));

  // Two framings for one body: the relay and the server behind it could pick different ones.
  CHECK(status_is(exchange(port, "POST /a HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 "0\r\n\r\n"),
                  "400"));
  CHECK(status_is(exchange(port, "POST /a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde"), "400"));
  // The same Content-Length twice is one framing (proxies do repeat it).
  CHECK(status_is(exchange(port, "POST /a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n"
                                 "Connection: close\r\n\r\nabc"),
                  "200"));

  // Chunk sizes are hex digits: strtoul's "0x", signs and spaces are not.
  CHECK(status_is(exchange(port, "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                                 "3\r\nabc\r\n0\r\n\r\n"),
                  "200"));
  CHECK(status_is(exchange(port, "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0x3\r\nabc\r\n0\r\n\r\n"), "400"));
  CHECK(status_is(exchange(port, "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n+3\r\nabc\r\n0\r\n\r\n"), "400"));
  CHECK(status_is(exchange(port, "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nabc\r\n0\r\n\r\n"), "400"));
  CHECK(status_is(exchange(port, "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n 3\r\nabc\r\n0\r\n\r\n"), "400"));

  // '+' is a space only in a query: after a %-escape a path's '+' stays '+'.
  std::string plus = exchange(port, "GET /a%20b+c/d+e HTTP/1.1\r\nConnection: close\r\n\r\n");
  CHECK(status_is(plus, "200"));
  CHECK(plus.find("path=/a b+c/d+e\n") != std::string::npos);
  TEST_MAIN_END();
}
