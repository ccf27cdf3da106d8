// The HTTP server over real loopback sockets: keep-alive, chunked bodies, limits, and
// garbage requests that must get an error (or a close) while the server keeps serving.
#include <cerrno>
#include <cstring>
#include <string>

#include "check.h"
#include "test_ports.h"
#include "core/http/http_client.h"
#include "core/http/http_server.h"
#include "core/util/text.h"
#include "port.h"

using namespace k32;

static std::string exchange(uint16_t port, const std::string& raw, uint32_t timeout_ms = 2000) {
  int err = 0;
  port::Socket s = port::tcp_connect("127.0.0.1", port, 1000, &err);
  if (s == port::kNoSocket) return "CONNECT-FAILED";
  port::tcp_send_all(s, raw.data(), raw.size());
  port::tcp_shutdown_write(s);  // no more input: the server answers what it got, then closes
  std::string out;
  char buf[4096];
  for (;;) {
    int n = port::tcp_recv(s, buf, sizeof buf, timeout_ms);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  port::tcp_close(s);
  return out;
}

int main() {
  // A server runs until the process exits (its threads are detached and hold it): never
  // destroyed, so it must not live on main's stack, whose end races those threads.
  http::Server& srv = *new http::Server;
  http::ServerConfig cfg;
  cfg.bind_ip = "127.0.0.1";
  cfg.port = 0;
  cfg.max_body_bytes = 1024;
  // Port 0 is not reported back by the port layer: try a few high ports.
  uint16_t port = 0;
  std::string err;
  bool started = false;
  auto handler = [](http::Request& req, http::ResponseWriter& w) {
    if (req.header("X-K32-Body-Too-Large")) {
      w.send(413, "text/plain", "too large");
      return;
    }
    w.send(200, "text/plain", req.method + " " + req.path + " q=" + req.query_param("q") + " body=" + req.body);
  };
  started = k32test::start_on_free_port(srv, &cfg, handler, &err);
  port = cfg.port;
  CHECK(started);
  if (!started) TEST_MAIN_END();

  // Two requests on one keep-alive connection, the second with a chunked body.
  std::string two = exchange(port, "GET /a?q=1%202 HTTP/1.1\r\nHost: x\r\n\r\n"
                                   "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
  CHECK(two.find("GET /a q=1 2 body=") != std::string::npos);
  CHECK(two.find("POST /b q= body=abc") != std::string::npos);
  CHECK(exchange(port, "POST /c HTTP/1.1\r\nContent-Length: 5000\r\n\r\n").find(" 413 ") != std::string::npos);
  CHECK(exchange(port, "BROKEN\r\n\r\n").find(" 400 ") != std::string::npos);
  CHECK(exchange(port, "GET /x HTTP/1.1\r\nno-colon-here\r\n\r\n").find(" 400 ") != std::string::npos);
  CHECK(exchange(port, "GET /x HTTP/1.1\r\nContent-Length: -4\r\n\r\n").find(" 400 ") != std::string::npos);
  CHECK(exchange(port, "GET /x HTTP/1.1\r\n" + std::string(20000, 'a') + "\r\n\r\n").find(" 431 ") != std::string::npos);

  // Garbage of every shape: the server may answer an error or close, never stop serving.
  uint32_t seed = 1234;
  const std::string base =
      "POST /p?q=v HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
  for (int i = 0; i < 300; ++i) {
    std::string m = base;
    for (int k = 0; k < 3; ++k) {
      seed = seed * 1103515245u + 12345u;
      m[(seed >> 8) % m.size()] = static_cast<char>(seed >> 24);
    }
    exchange(port, m, 300);
  }
  port::sleep_ms(500);
  std::string after = exchange(port, "GET /alive HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(after.find("GET /alive") != std::string::npos);

  // The client side against the same server.
  http::Endpoint ep{"127.0.0.1", port};
  http::ClientResponse resp;
  CHECK_EQ(http::request(ep, "PUT", "/d?q=z", {}, "xyz", 2000, 4096, &resp), 0);
  CHECK_EQ(resp.status, 200);
  CHECK_EQ(resp.body, std::string("PUT /d q=z body=xyz"));

  // One connection per client address. The handler goes on after its answer is sent (as a
  // thread may, or be descheduled there): the client, already done with the answer,
  // connects again at once and must be served once that connection ends, not refused.
  http::Server& one = *new http::Server;
  cfg.max_per_client = 1;
  auto lingering = [](http::Request& req, http::ResponseWriter& w) {
    if (req.path == "/hold") port::sleep_ms(3000);  // busy: the client's one connection stays taken
    w.send(200, "text/plain", req.path);
    port::sleep_ms(100);
  };
  started = k32test::start_on_free_port(one, &cfg, lingering, &err);
  CHECK(started);
  if (!started) TEST_MAIN_END();
  http::Endpoint one_ep{"127.0.0.1", cfg.port};
  for (const char* path : {"/first", "/again"}) {
    http::ClientResponse r;
    CHECK_EQ(http::request(one_ep, "GET", path, {}, "", 2000, 4096, &r), 0);
    CHECK_EQ(r.status, 200);
    CHECK_EQ(r.body, std::string(path));
  }

  // The client's one connection busy for seconds and more connections from it: the first is
  // refused after waiting for it, the rest at once (a flood must not hold the accept thread
  // for a wait per connection).
  port::sleep_ms(200);  // the connections above are gone
  int herr = 0;
  port::Socket hold = port::tcp_connect("127.0.0.1", cfg.port, 1000, &herr);
  const std::string hold_req = "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n";
  port::tcp_send_all(hold, hold_req.data(), hold_req.size());
  port::sleep_ms(100);
  uint64_t flood_start = port::monotonic_ms();
  int refused = 0;
  for (int i = 0; i < 12; ++i) {
    std::string got = exchange(cfg.port, "GET /more HTTP/1.1\r\nHost: x\r\n\r\n");
    refused += got.find(" 503 ") != std::string::npos;
  }
  uint64_t flood_ms = port::monotonic_ms() - flood_start;
  CHECK_EQ(refused, 12);
  CHECK(flood_ms < 1500);
  port::tcp_close(hold);

  // Two per client: one connection still sending its first request (connected, nothing
  // sent yet) keeps its place while another connection of the same client ends, instead
  // of being closed for the client's next one.
  http::Server& pair_srv = *new http::Server;
  cfg.max_per_client = 2;
  started = k32test::start_on_free_port(pair_srv, &cfg, lingering, &err);
  CHECK(started);
  if (!started) TEST_MAIN_END();
  http::Endpoint two_ep{"127.0.0.1", cfg.port};
  int cerr = 0;
  port::Socket slow = port::tcp_connect("127.0.0.1", cfg.port, 1000, &cerr);
  CHECK(slow != port::kNoSocket);
  port::sleep_ms(50);  // admitted before the others
  for (const char* path : {"/b", "/c"}) {
    http::ClientResponse r;
    CHECK_EQ(http::request(two_ep, "GET", path, {}, "", 2000, 4096, &r), 0);
    CHECK_EQ(r.status, 200);
  }
  const std::string head = "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  port::tcp_send_all(slow, head.data(), head.size());
  std::string got;
  char buf[512];
  for (int n; (n = port::tcp_recv(slow, buf, sizeof buf, 2000)) > 0;) got.append(buf, static_cast<size_t>(n));
  port::tcp_close(slow);
  CHECK(got.find(" 200 ") != std::string::npos && got.find("/slow") != std::string::npos);
  TEST_MAIN_END();
}
