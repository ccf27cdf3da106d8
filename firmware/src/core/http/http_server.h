// A small threaded HTTP/1.1 server: one accept thread, one thread per connection (bounded),
// keep-alive, Content-Length and chunked request bodies, Expect: 100-continue.
#pragma once
#include <atomic>
#include <functional>
#include <string>

#include "core/http/http_message.h"
#include "port.h"

namespace k32 {
namespace http {

using Handler = std::function<void(Request&, ResponseWriter&)>;

struct ServerConfig {
  std::string name = "http";
  std::string bind_ip = "0.0.0.0";
  uint16_t port = 0;
  uint32_t conn_stack_bytes = 64 * 1024;
  port::Region stack_region = port::Region::Any;
  size_t max_head_bytes = 16 * 1024;
  size_t max_body_bytes = 3 * 1024 * 1024;
  uint32_t max_connections = 32;
  uint32_t idle_timeout_ms = 60000;
  uint32_t body_timeout_ms = 10000;
  // When set, connections that open with a TLS handshake get TLS; others stay plain.
  port::TlsServer* tls = nullptr;
};

class Server {
 public:
  // Binds and starts serving; false with *err on failure (e.g. port in use).
  bool start(const ServerConfig& cfg, Handler handler, std::string* err);
  uint16_t port() const { return cfg_.port; }
  const ServerConfig& config() const { return cfg_; }

 private:
  static void accept_main(void* self);
  static void conn_main(void* arg);
  void serve(Conn* c, const std::string& peer);
  ServerConfig cfg_;
  Handler handler_;
  port::Socket listener_ = port::kNoSocket;
  std::atomic<uint32_t> active_{0};
};

// Writes a small error response for failures detected before a handler runs.
void send_plain_error(Conn* c, int status, const std::string& message);

}  // namespace http
}  // namespace k32
