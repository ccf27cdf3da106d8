#include "core/http/http_server.h"

#include <cstring>
#include <memory>
#include <new>

#include "core/http/conn_reader.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "core/util/work_thread.h"
#include "k32_board.h"

namespace k32 {
namespace http {

namespace {
struct ConnArg {
  Server* server;
  port::Socket sock;
  std::string peer;
  int slot;
  uint64_t accepted_ms;
};

// A fatal TLS alert (internal_error) as a plaintext record: what a TLS client that cannot be
// served must see, instead of HTTP text it would take for a broken handshake.
const unsigned char kTlsRefusal[] = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x50};
// How often a connection that found no room looks again while it may wait (admit_soon).
constexpr uint32_t kAdmitRetryMs = 5;

// Closing a socket with unread bytes resets the connection, and a reset can reach the
// client before it read the answer already sent (it then sees "connection reset" instead
// of the status). So the sending side is closed first and what the client still sends is
// read and dropped, until it closes too or the refusal wait is over.
void close_after_answer(port::Socket s) {
  port::tcp_shutdown_write(s);
  uint64_t deadline = port::monotonic_ms() + K32_HTTP_REFUSAL_WAIT_MS;
  std::unique_ptr<char[]> buf(new (std::nothrow) char[K32_HTTP_DRAIN_CHUNK]);
  if (!buf) return;
  for (uint64_t now = port::monotonic_ms(); now < deadline; now = port::monotonic_ms()) {
    if (port::tcp_recv(s, buf.get(), K32_HTTP_DRAIN_CHUNK, static_cast<uint32_t>(deadline - now)) <= 0) return;
  }
}
}  // namespace

void send_plain_error(Conn* c, int status, const std::string& message) {
  ResponseWriter w(c, false, false);
  // A client told to come back (busy, not ready) is told when: Kubernetes clients retry a
  // 503 only when it carries Retry-After.
  if (status == 503) w.add_header("Retry-After", "1");
  w.send(status, "text/plain; charset=utf-8", message + "\n");
}

bool Server::start(const ServerConfig& cfg, Handler handler, std::string* err) {
  cfg_ = cfg;
  handler_ = std::move(handler);
  int e = 0;
  conns_.init(cfg.max_connections, cfg.max_per_client, cfg.evict_idle_ms);
  listener_ = port::tcp_listen(cfg.bind_ip.c_str(), cfg.port, static_cast<int>(cfg.max_connections), &e);
  if (listener_ == port::kNoSocket) {
    if (err) *err = cfg.name + ": cannot listen on " + cfg.bind_ip + ":" + text::to_string(cfg.port) + ": " + std::strerror(-e);
    return false;
  }
  if (!port::thread_start(cfg.name.c_str(), K32_HTTP_ACCEPT_STACK_BYTES, static_cast<port::Region>(K32_HTTP_ACCEPT_STACK_REGION),
                          &Server::accept_main, this)) {
    if (err) *err = cfg.name + ": cannot start the accept thread";
    return false;
  }
  return true;
}

void Server::refuse(port::Socket s, int status, const char* why) {
  // A TLS client that already sent its ClientHello gets an alert; a plain client an HTTP
  // answer; one that sent nothing yet just a close (either kind could be waiting).
  int first = port::tcp_peek(s, K32_HTTP_REFUSAL_WAIT_MS);
  if (first == 0x16 && cfg_.tls) {
    port::tcp_send_all(s, kTlsRefusal, sizeof kTlsRefusal);
  } else if (first >= 0 && first < 0x100) {
    Conn c(s);
    send_plain_error(&c, status, why);
    close_after_answer(s);
  }
  port::tcp_close(s);
}

int Server::admit_soon(port::Socket s, const char* peer) {
  // A client that reads an answer, closes and connects again can be faster than the thread
  // that sent the answer: for a moment that connection still counts (busy) against the
  // client's own cap, though the client holds no more connections than before. Its busy
  // connections get the refusal's wait to end or go idle (and its waiting ones to pass
  // HTTP_EVICT_IDLE_MS) before the new one is refused. A server full of other clients'
  // busy connections refuses at once, and so does a client refused moments ago: one that
  // floods past its cap must not hold the accept thread (every client's) for a wait per
  // connection.
  uint64_t now = port::monotonic_ms();
  bool may_wait = now >= waited_in_vain_until_ || std::strcmp(peer, waited_in_vain_for_) != 0;
  uint64_t until = now + (may_wait ? K32_HTTP_REFUSAL_WAIT_MS : 0);
  for (;;) {
    now = port::monotonic_ms();
    int slot = conns_.admit(s, peer);
    if (slot != ConnTable::kClientBusy) return slot;
    if (now >= until) {
      // Each refusal of the client starts the quiet time again: a steady flood never waits.
      std::strncpy(waited_in_vain_for_, peer, sizeof waited_in_vain_for_ - 1);
      waited_in_vain_until_ = now + K32_HTTP_REFUSAL_WAIT_MS;
      return slot;
    }
    port::sleep_ms(kAdmitRetryMs);
  }
}

bool Server::start_conn_thread(int slot, void* arg) {
  // A connection's thread takes its stack from the heap (with the heap the node keeps, see
  // start_work_thread). Connections kept alive between requests hold theirs while they wait,
  // so when the heap is short the one that has waited longest is closed (as admit closes one
  // for the connection cap) and the new one takes its stack once its thread has ended. A
  // connection answered moments ago may give way only after HTTP_EVICT_IDLE_MS, and a busy
  // one's stack may come back when its answer is done, so the new connection waits that long
  // and the refusal's wait before it is refused. A wait in vain makes the next ones refused
  // at once for the refusal's wait: a flood of connections must not hold the accept thread.
  uint64_t now = port::monotonic_ms();
  const uint64_t until = now + (now >= heap_waited_in_vain_until_ ? K32_HTTP_EVICT_IDLE_MS + K32_HTTP_REFUSAL_WAIT_MS : 0);
  for (;;) {
    if (util::start_work_thread(cfg_.name.c_str(), cfg_.conn_stack_bytes, cfg_.stack_region, &Server::conn_main, arg))
      return true;
    now = port::monotonic_ms();
    if (now >= until) {
      heap_waited_in_vain_until_ = now + K32_HTTP_REFUSAL_WAIT_MS;
      return false;
    }
    // One closed at a time: its stack comes back only once its thread has noticed and ended.
    if (!conns_.closing()) conns_.evict_for_room(slot);
    port::sleep_ms(kAdmitRetryMs);
  }
}

void Server::accept_main(void* self) {
  Server* srv = static_cast<Server*>(self);
  for (;;) {
    char peer[48] = {0};
    port::Socket s = port::tcp_accept(srv->listener_, peer, sizeof peer);
    if (s == port::kNoSocket) {
      port::sleep_ms(50);
      continue;
    }
    int slot = srv->admit_soon(s, peer);
    if (slot < 0) {
      srv->refuse(s, 503, "too many connections");
      continue;
    }
    ConnArg* arg = new ConnArg{srv, s, peer, slot, port::monotonic_ms()};
    if (!srv->start_conn_thread(slot, arg)) {
      srv->conns_.release(slot);
      srv->refuse(s, 503, "cannot start a connection thread");
      delete arg;
    }
  }
}

void Server::conn_main(void* p) {
  ConnArg* arg = static_cast<ConnArg*>(p);
  Server* srv = arg->server;
  port::TlsSession* tls = nullptr;
  bool refuse = false;
  uint64_t ready_ms = arg->accepted_ms;
  if (srv->cfg_.tls) {
    // A TLS ClientHello starts with record type 22; anything else is plain HTTP. Waiting
    // for it and the whole handshake share one deadline.
    uint64_t deadline = arg->accepted_ms + srv->cfg_.handshake_ms;
    int first = port::tcp_peek(arg->sock, srv->cfg_.handshake_ms);
    if (first == 0x16) {
      // A handshake under way is a request arriving (a board computes its part for longer
      // than a connection may wait): not closed for room; waiting again once it is done.
      uint64_t now = port::monotonic_ms();
      bool mine = srv->conns_.to_busy(arg->slot);
      tls = mine && now < deadline ? port::tls_accept(srv->cfg_.tls, arg->sock, static_cast<uint32_t>(deadline - now)) : nullptr;
      refuse = tls == nullptr;
      if (mine) srv->conns_.to_waiting(arg->slot);
      ready_ms = port::monotonic_ms();
    } else if (first < 0 || first == 0x100) {
      refuse = true;
    }
  }
  if (!refuse) {
    Conn c(arg->sock, tls);
    srv->serve(&c, arg->peer, arg->slot, ready_ms + srv->cfg_.head_ms);
  }
  port::tls_session_free(tls);
  // The connection may end with an error answer before its request was read in full.
  if (!refuse) close_after_answer(arg->sock);
  srv->conns_.release(arg->slot);
  port::tcp_close(arg->sock);
  delete arg;
}

void Server::serve(Conn* s, const std::string& peer, int slot, uint64_t head_deadline) {
  ConnReader reader(s);
  char local[48] = {0};
  port::local_ip_of(s->socket(), local, sizeof local);
  for (bool first = true;; first = false) {
    std::string head;
    ReadStatus st;
    if (first) {
      uint64_t now = port::monotonic_ms();
      st = now < head_deadline ? reader.wait_data(static_cast<uint32_t>(head_deadline - now)) : ReadStatus::Timeout;
    } else {
      // Kept alive: the next request may come within the idle timeout; once it starts,
      // its head has the head deadline.
      st = reader.wait_data(cfg_.idle_timeout_ms);
      head_deadline = port::monotonic_ms() + cfg_.head_ms;
    }
    if (st != ReadStatus::Ok) return;  // nothing of a request came (or room was made by closing it)
    // A request is arriving: from here on the connection is not closed to make room (a
    // client whose request is cut off without an answer cannot tell whether it ran). False
    // only when it was closed for room in the instant before its first bytes arrived.
    if (!conns_.to_busy(slot)) return;
    st = reader.read_head_by(&head, cfg_.max_head_bytes, head_deadline);
    if (st == ReadStatus::TooLarge) {
      send_plain_error(s, 431, "request head larger than " + text::to_string(cfg_.max_head_bytes) + " bytes");
      return;
    }
    if (st != ReadStatus::Ok) return;
    Request req;
    req.peer_ip = peer;
    req.local_ip = local;
    if (!parse_request_head(head, &req)) {
      send_plain_error(s, 400, "malformed HTTP request head");
      return;
    }
    bool keep_alive = req.version == "HTTP/1.1";
    if (const std::string* c = req.header("Connection")) {
      if (text::iequals(*c, "close")) keep_alive = false;
      if (text::iequals(*c, "keep-alive")) keep_alive = true;
    }
    const std::string* te = req.header("Transfer-Encoding");
    const std::string* cl = req.header("Content-Length");
    if ((te || cl) && req.header("Expect") && text::iequals(*req.header("Expect"), "100-continue")) {
      static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
      s->send_all(kContinue, sizeof kContinue - 1);
    }
    reader.set_deadline(port::monotonic_ms() + cfg_.body_total_ms);
    if (te && text::iequals(*te, "chunked")) {
      st = reader.read_chunked(&req.body, cfg_.max_body_bytes, cfg_.body_timeout_ms);
    } else if (te) {
      send_plain_error(s, 501, "unsupported Transfer-Encoding");
      return;
    } else if (cl) {
      uint64_t n = 0;
      if (!text::parse_uint(*cl, UINT64_MAX, &n)) {
        send_plain_error(s, 400, "invalid Content-Length");
        return;
      }
      if (n > cfg_.max_body_bytes) st = ReadStatus::TooLarge;
      else st = reader.read_exact(static_cast<size_t>(n), &req.body, cfg_.body_timeout_ms);
    }
    reader.clear_deadline();
    if (st == ReadStatus::TooLarge) {
      // The handler formats the refusal (the API server answers with a Status).
      req.body.clear();
      ResponseWriter w(s, false, false);
      req.headers.push_back({"X-K32-Body-Too-Large", text::to_string(static_cast<int64_t>(cfg_.max_body_bytes))});
      handler_(req, w);
      if (!w.started()) send_plain_error(s, 413, "request body too large");
      return;
    }
    if (st != ReadStatus::Ok) {
      if (st == ReadStatus::Malformed) send_plain_error(s, 400, "malformed request body");
      if (st == ReadStatus::Timeout) send_plain_error(s, 408, "request body not received in time");
      if (st == ReadStatus::NoMemory) send_plain_error(s, 503, "not enough memory for the request body");
      return;
    }
    ResponseWriter w(s, req.method == "HEAD", keep_alive);
    handler_(req, w);
    if (!w.started()) w.send(500, "text/plain", "handler sent no response\n");
    if (!w.keep_alive()) return;
    conns_.to_waiting(slot);
  }
}

}  // namespace http
}  // namespace k32
