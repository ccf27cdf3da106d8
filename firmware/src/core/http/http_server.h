// A small threaded HTTP/1.1 server: one accept thread, one thread per connection (bounded),
// keep-alive, Content-Length and chunked request bodies, Expect: 100-continue.
// Against connection exhaustion: a TLS handshake and a request head each have a deadline,
// kept-alive connections an idle timeout, and when the server (or one client address) is
// at its cap the connection that has waited longest for a request (long enough, with
// nothing of one arrived) is closed for the new one (ConnTable), and so it is when the heap
// cannot hold the new one's thread; when none can give way, the new one is refused with 503
// and Retry-After. A request that arrived is answered.
#pragma once
#include <atomic>
#include <functional>
#include <string>

#include "core/http/conn_table.h"
#include "core/http/http_message.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace http {

using Handler = std::function<void(Request&, ResponseWriter&)>;

struct ServerConfig {
  std::string name = "http";
  std::string bind_ip = "0.0.0.0";
  uint16_t port = 0;
  // One connection thread's stack (board profile); servers that call pods in-process add
  // K32_INPROC_CHAIN_STACK_BYTES (control plane) or K32_INPROC_CALL_STACK_BYTES to their own.
  uint32_t conn_stack_bytes = K32_API_CONN_STACK_BYTES;
  port::Region stack_region = static_cast<port::Region>(K32_API_CONN_STACK_REGION);
  size_t max_head_bytes = K32_HTTP_HEAD_MAX;
  size_t max_body_bytes = K32_POD_BODY_MAX;  // the pod server's; the API and ingress set theirs
  uint32_t max_connections = K32_POD_CONNECTIONS;
  uint32_t max_per_client = K32_CLIENT_CONNECTIONS;       // connections from one address
  uint32_t handshake_ms = K32_HTTP_HANDSHAKE_MS;          // TLS: connect to handshake done
  uint32_t head_ms = K32_HTTP_HEAD_MS;                    // first head: from connect (after TLS)
  uint32_t idle_timeout_ms = K32_HTTP_KEEPALIVE_IDLE_MS;  // kept alive, waiting for a request
  uint32_t evict_idle_ms = K32_HTTP_EVICT_IDLE_MS;        // waiting this long: may be closed for room
  uint32_t body_timeout_ms = K32_HTTP_BODY_IDLE_MS;       // a body's stall
  uint32_t body_total_ms = K32_HTTP_BODY_MS;              // a whole body, from its head
  // When set, connections that open with a TLS handshake get TLS; others stay plain.
  port::TlsServer* tls = nullptr;
};

// A Server serves until the process exits: there is no stop, and its accept and connection
// threads are detached and use it, so it must never be destroyed (allocate it once).
class Server {
 public:
  // Binds and starts serving; false with *err on failure (e.g. port in use).
  bool start(const ServerConfig& cfg, Handler handler, std::string* err);
  uint16_t port() const { return cfg_.port; }
  const ServerConfig& config() const { return cfg_; }
  uint32_t live_connections() const { return conns_.live(); }

 private:
  static void accept_main(void* self);
  // conns_.admit, waiting up to the refusal's wait while only the client's own cap is full.
  int admit_soon(port::Socket s, const char* peer);
  // Starts conn_main(arg) for the connection in `slot`, closing idle connections for its
  // stack when the heap is short; false when no room was made in time.
  bool start_conn_thread(int slot, void* arg);
  static void conn_main(void* arg);
  void serve(Conn* c, const std::string& peer, int slot, uint64_t head_deadline);
  void refuse(port::Socket s, int status, const char* why);
  ServerConfig cfg_;
  Handler handler_;
  port::Socket listener_ = port::kNoSocket;
  ConnTable conns_;
  // Accept thread only: the client last refused after waiting for its own connections, and
  // until when it is refused without waiting again (admit_soon).
  char waited_in_vain_for_[48] = {0};
  uint64_t waited_in_vain_until_ = 0;
  // Accept thread only: until when a connection the heap cannot hold is refused without
  // waiting for room (start_conn_thread).
  uint64_t heap_waited_in_vain_until_ = 0;
};

// Writes a small error response for failures detected before a handler runs.
void send_plain_error(Conn* c, int status, const std::string& message);

}  // namespace http
}  // namespace k32
