// Stopping the pod interrupts its call; a body past resp_cap ends the call at once
// (the node closes early instead of reading the rest). Real loopback sockets.
#include <atomic>
#include <string>
#include <thread>

#include "check.h"
#include "test_ports.h"
#include "core/calls/call_client.h"
#include "core/http/http_server.h"
#include "k32_board.h"
#include "runtime/k32_app_abi.h"

using namespace k32;

int main() {
  // A server runs until the process exits (its threads are detached and hold it): never
  // destroyed, so it must not live on main's stack, whose end races those threads.
  http::Server& srv = *new http::Server;
  http::ServerConfig cfg;
  cfg.bind_ip = "127.0.0.1";
  std::string err;
  bool started = k32test::start_on_free_port(
      srv, &cfg,
      [](http::Request& rq, http::ResponseWriter& w) {
        if (rq.path == "/slow") {
          port::sleep_ms(3000);
          w.send(200, "text/plain", "late");
          return;
        }
        // /endless: 1 KiB chunks every 10 ms for ~20 s unless the reader leaves.
        w.begin_stream(200, "text/plain");
        std::string chunk(1024, 'z');
        for (int i = 0; i < 2000 && w.write_chunk(chunk); ++i) port::sleep_ms(10);
        w.end_stream();
      },
      &err);
  CHECK(started);
  calls::CallEnv env;
  env.head_max = K32_RESP_HEAD_MAX_CP;
  calls::CallClient client(env);
  uint8_t buf[2048];
  std::atomic<bool> stopping{false};
  auto args = [&](const std::string& path, size_t cap) {
    calls::CallArgs a;
    a.caller_ns = "default";
    a.caller_name = "p";
    a.method = "GET";
    a.url = "http://127.0.0.1:" + std::to_string(cfg.port) + path;
    a.resp = buf;
    a.resp_cap = cap;
    a.timeout_ms = 10000;
    a.cancel = &stopping;
    return a;
  };

  // The pod stops 200 ms into a call that would take 3 s.
  std::thread stopper([&] {
    port::sleep_ms(200);
    stopping = true;
  });
  uint64_t t0 = port::monotonic_ms();
  calls::CallReply r = client.call(args("/slow", sizeof buf));
  uint64_t took = port::monotonic_ms() - t0;
  stopper.join();
  CHECK_EQ(r.rc, K32_ERR_IO);
  CHECK(took < 1000);
  stopping = false;

  // resp_cap 2048 of an endless body: TOOBIG after about two chunks, not after 20 s.
  t0 = port::monotonic_ms();
  r = client.call(args("/endless", sizeof buf));
  took = port::monotonic_ms() - t0;
  CHECK_EQ(r.rc, K32_ERR_TOOBIG);
  CHECK_EQ(r.status, 200);
  CHECK_EQ(r.resp_len, sizeof buf);
  CHECK(took < 2000);
  TEST_MAIN_END();
}
