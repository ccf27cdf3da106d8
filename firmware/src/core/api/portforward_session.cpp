#include "core/api/portforward_session.h"

#include <cerrno>
#include <memory>

#include "core/http/internal_headers.h"
#include "core/http/spdy_frame.h"
#include "core/http/websocket_frame.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace api {

namespace {

// The connection under the SPDY frames: raw bytes, or the payloads of WebSocket messages.
class Tunnel {
 public:
  Tunnel(http::Conn* c, TunnelKind kind) : c_(c), kind_(kind) {}
  enum class Read { Ok, Timeout, Closed, Error };
  // Appends what arrives within timeout_ms to *spdy (SPDY bytes).
  Read read(std::string* spdy, uint32_t timeout_ms, std::string* err) {
    chunk_.resize(K32_PORTFORWARD_READ_CHUNK);  // allocated once, on the first read
    const int n = c_->recv(&chunk_[0], chunk_.size(), timeout_ms);
    if (n == 0) return Read::Closed;
    if (n < 0) return n == -ETIMEDOUT || n == -EAGAIN ? Read::Timeout : Read::Closed;
    if (kind_ == TunnelKind::Spdy) {
      spdy->append(chunk_, 0, static_cast<size_t>(n));
      return Read::Ok;
    }
    ws_.append(chunk_, 0, static_cast<size_t>(n));
    for (;;) {
      http::ws::Frame f;
      size_t used = 0;
      const auto r = http::ws::parse_client_frame(reinterpret_cast<const uint8_t*>(ws_.data()), ws_.size(),
                                                  K32_PORTFORWARD_FRAME_MAX, &f, &used, err);
      if (r == http::ws::Parse::NeedMore) return Read::Ok;
      if (r == http::ws::Parse::Error) return Read::Error;
      ws_.erase(0, used);
      switch (f.opcode) {
        case http::ws::kBinary:
        case http::ws::kContinuation: spdy->append(f.payload); break;
        case http::ws::kPing:
          if (!send_raw(http::ws::encode_frame(http::ws::kPong, f.payload))) return Read::Closed;
          break;
        case http::ws::kPong: break;
        case http::ws::kClose: send_raw(http::ws::encode_frame(http::ws::kClose, f.payload.substr(0, 2))); return Read::Closed;
        default: *err = "text WebSocket message in a port-forward tunnel (it carries binary SPDY frames)"; return Read::Error;
      }
    }
  }
  bool write(const std::string& spdy) {
    return kind_ == TunnelKind::Spdy ? send_raw(spdy) : send_raw(http::ws::encode_frame(http::ws::kBinary, spdy));
  }
  bool has_partial() const { return !ws_.empty(); }

 private:
  bool send_raw(const std::string& b) { return c_->send_all(b.data(), b.size()); }
  http::Conn* c_;
  TunnelKind kind_;
  std::string ws_;     // WebSocket bytes not yet a whole frame
  std::string chunk_;  // one read's bytes
};

struct Stream {
  uint32_t id = 0;
  bool data = false;  // data stream (else error stream)
  uint16_t port = 0;
  std::string request_id;
  bool client_done = false;  // the client half-closed (FIN)
  std::string in;            // data bytes not yet a whole request
};

const char* kHopHeaders[] = {"connection",     "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
                             "content-length", "host"};

bool hop_header(const std::string& name) {
  for (const char* h : kHopHeaders)
    if (text::iequals(name, h)) return true;
  return false;
}

// The pod's answer as HTTP/1.1 bytes; a HEAD answer keeps the length and drops the body.
std::string response_bytes(int status, const std::vector<http::Header>& headers, const std::string& body, bool close,
                           bool head = false) {
  std::string out = "HTTP/1.1 " + text::to_string(static_cast<int64_t>(status)) + " " + http::reason_phrase(status) + "\r\n";
  for (const auto& h : headers) {
    if (hop_header(h.name) || http::is_internal_header(h.name)) continue;
    out += h.name + ": " + h.value + "\r\n";
  }
  out += "Content-Length: " + text::to_string(static_cast<int64_t>(body.size())) + "\r\n";
  if (close) out += "Connection: close\r\n";
  out += "\r\n";
  if (!head) out += body;
  return out;
}

std::string plain_response(int status, const std::string& message) {
  return response_bytes(status, {{"Content-Type", "text/plain; charset=utf-8"}}, message + "\n", true);
}

bool port_allowed(const PortForwardTarget& t, uint16_t port) {
  if (t.ports.empty()) return true;
  for (uint16_t p : t.ports)
    if (p == port) return true;
  return false;
}

enum class Framing { Complete, Incomplete, Bad };

// Cuts one HTTP request from the front of *in. Content-Length bodies only: a chunked
// upload is answered 411, as servers that need the length do.
Framing take_request(std::string* in, http::Request* rq, std::string* why, int* status) {
  const size_t end = in->find("\r\n\r\n");
  if (end == std::string::npos) {
    if (in->size() > K32_HTTP_HEAD_MAX) {
      *status = 431;
      *why = "request head longer than " + text::to_string(static_cast<int64_t>(K32_HTTP_HEAD_MAX)) + " bytes";
      return Framing::Bad;
    }
    return Framing::Incomplete;
  }
  if (end > K32_HTTP_HEAD_MAX) {
    *status = 431;
    *why = "request head longer than " + text::to_string(static_cast<int64_t>(K32_HTTP_HEAD_MAX)) + " bytes";
    return Framing::Bad;
  }
  http::Request r;
  if (!http::parse_request_head(in->substr(0, end), &r)) {
    *status = 400;
    *why = "the forwarded bytes are not an HTTP/1.x request (the pod speaks HTTP only)";
    return Framing::Bad;
  }
  if (r.header("Transfer-Encoding")) {
    *status = 411;
    *why = "chunked request bodies are not forwarded: send Content-Length";
    return Framing::Bad;
  }
  uint64_t len = 0;
  if (const std::string* cl = r.header("Content-Length")) {
    if (!text::parse_uint(text::trim(*cl), K32_PORTFORWARD_REQUEST_MAX, &len)) {
      *status = 413;
      *why = "request body over " + text::to_string(static_cast<int64_t>(K32_PORTFORWARD_REQUEST_MAX)) +
             " bytes, or a Content-Length that is not a number";
      return Framing::Bad;
    }
  }
  if (in->size() - end - 4 < len) {
    if (end + 4 + len > K32_PORTFORWARD_REQUEST_MAX) {
      *status = 413;
      *why = "request over " + text::to_string(static_cast<int64_t>(K32_PORTFORWARD_REQUEST_MAX)) + " bytes";
      return Framing::Bad;
    }
    return Framing::Incomplete;
  }
  r.body = in->substr(end + 4, static_cast<size_t>(len));
  in->erase(0, end + 4 + static_cast<size_t>(len));
  *rq = std::move(r);
  return Framing::Complete;
}

class Session {
 public:
  Session(http::Conn* c, TunnelKind kind, const PortForwardTarget& t)
      : tunnel_(c, kind), target_(t), decoder_(K32_PORTFORWARD_HEADER_WINDOW) {}

  void run() {
    std::string buf;
    uint64_t idle_deadline = port::monotonic_ms() + K32_PORTFORWARD_IDLE_MS;
    uint64_t frame_deadline = 0;
    for (;;) {
      // Every whole frame buffered.
      for (;;) {
        http::spdy::Frame f;
        size_t used = 0;
        std::string err;
        const auto r = http::spdy::parse_frame(reinterpret_cast<const uint8_t*>(buf.data()), buf.size(),
                                               K32_PORTFORWARD_FRAME_MAX, &f, &used, &err);
        if (r == http::spdy::Parse::NeedMore) break;
        if (r == http::spdy::Parse::Error) return fail(err);
        buf.erase(0, used);
        bool moved = false;
        if (!handle(f, &moved, &err)) return fail(err);
        if (client_left_) return;
        if (moved) idle_deadline = port::monotonic_ms() + K32_PORTFORWARD_IDLE_MS;
      }
      const uint64_t now = port::monotonic_ms();
      const bool partial = !buf.empty() || tunnel_.has_partial();
      if (!partial) frame_deadline = 0;
      else if (!frame_deadline) frame_deadline = now + K32_PORTFORWARD_FRAME_MS;
      if (frame_deadline && now >= frame_deadline)
        return fail("a frame was not completed within " + text::to_string(static_cast<int64_t>(K32_PORTFORWARD_FRAME_MS)) +
                    " ms");
      if (now >= idle_deadline) {
        logf("[PORTFORWARD] %s: no bytes forwarded for %u ms, closing", target_.pod.c_str(),
             static_cast<unsigned>(K32_PORTFORWARD_IDLE_MS));
        tunnel_.write(http::spdy::goaway(last_stream_, 0));
        return;
      }
      std::string err;
      const auto rd = tunnel_.read(&buf, K32_PORTFORWARD_POLL_MS, &err);
      if (rd == Tunnel::Read::Closed) return;
      if (rd == Tunnel::Read::Error) return fail(err);
    }
  }

 private:
  void fail(const std::string& why) {
    logf("[PORTFORWARD] %s: %s; closing the session", target_.pod.c_str(), why.c_str());
    tunnel_.write(http::spdy::goaway(last_stream_, http::spdy::kProtocolError));
  }

  Stream* find(uint32_t id) {
    for (auto& s : streams_)
      if (s->id == id) return s.get();
    return nullptr;
  }
  Stream* pair_of(const Stream& s) {
    for (auto& o : streams_)
      if (o.get() != &s && o->request_id == s.request_id) return o.get();
    return nullptr;
  }
  void drop(uint32_t id) {
    for (size_t i = 0; i < streams_.size(); ++i)
      if (streams_[i]->id == id) {
        streams_.erase(streams_.begin() + static_cast<long>(i));
        return;
      }
  }
  // The server's half of a forwarded connection ends: FIN on the data stream and on its
  // error stream (kubectl waits for both before it closes the local connection).
  bool finish(Stream* data, const std::string& error_text) {
    bool ok = tunnel_.write(http::spdy::data_frame(data->id, http::spdy::kFlagFin, ""));
    if (Stream* e = pair_of(*data)) {
      if (!error_text.empty()) ok = tunnel_.write(http::spdy::data_frame(e->id, 0, error_text)) && ok;
      ok = tunnel_.write(http::spdy::data_frame(e->id, http::spdy::kFlagFin, "")) && ok;
      drop(e->id);
    }
    drop(data->id);
    return ok;
  }
  bool send_data(uint32_t id, const std::string& bytes) {
    for (size_t at = 0; at < bytes.size(); at += K32_PORTFORWARD_FRAME_MAX)
      if (!tunnel_.write(http::spdy::data_frame(id, 0, bytes.substr(at, K32_PORTFORWARD_FRAME_MAX)))) return false;
    return true;
  }

  bool open_stream(const http::spdy::Frame& f, std::string* err) {
    std::vector<http::Header> hs;
    if (!decoder_.decode(f.payload, K32_PORTFORWARD_HEADER_BLOCK_MAX, &hs, err)) return false;  // context lost
    // Client streams are odd and rise (SPDY/3 2.3.2).
    if (!(f.stream_id & 1) || f.stream_id <= last_stream_) {
      tunnel_.write(http::spdy::rst_stream(f.stream_id, http::spdy::kProtocolError));
      return true;
    }
    last_stream_ = f.stream_id;
    std::string type, port, req_id;
    for (const auto& h : hs) {
      if (h.name == "streamtype") type = h.value;
      else if (h.name == "port") port = h.value;
      else if (h.name == "requestid") req_id = h.value;
    }
    uint64_t p = 0;
    if ((type != "data" && type != "error") || !text::parse_uint(port, 65535, &p) || p == 0) {
      logf("[PORTFORWARD] %s: stream %u refused: streamType must be data or error and port 1-65535", target_.pod.c_str(),
           static_cast<unsigned>(f.stream_id));
      tunnel_.write(http::spdy::rst_stream(f.stream_id, http::spdy::kProtocolError));
      return true;
    }
    if (streams_.size() >= K32_PORTFORWARD_STREAMS_MAX) {
      logf("[PORTFORWARD] %s: stream %u refused: %u streams open already", target_.pod.c_str(),
           static_cast<unsigned>(f.stream_id), static_cast<unsigned>(K32_PORTFORWARD_STREAMS_MAX));
      tunnel_.write(http::spdy::rst_stream(f.stream_id, http::spdy::kRefusedStream));
      return true;
    }
    auto s = std::make_unique<Stream>();
    s->id = f.stream_id;
    s->data = type == "data";
    s->port = static_cast<uint16_t>(p);
    // kubectl before 1.6 sent no request id: streams then pair by port.
    s->request_id = req_id.empty() ? "port:" + port : req_id;
    s->client_done = f.flags & http::spdy::kFlagFin;
    Stream* st = s.get();
    streams_.push_back(std::move(s));
    if (!tunnel_.write(http::spdy::syn_reply(st->id, 0, encoder_.encode({})))) return false;
    if (st->data && !port_allowed(target_, st->port)) {
      // As the kubelet does for a port nothing listens on: say so on the error stream.
      return finish(st, "pod " + target_.pod + " does not declare container port " + port);
    }
    return true;
  }

  // Answers every whole request buffered on a data stream; ends the stream when the client
  // is done sending or asked to close.
  bool serve(Stream* s) {
    for (;;) {
      http::Request rq;
      std::string why;
      int status = 0;
      const Framing fr = take_request(&s->in, &rq, &why, &status);
      if (fr == Framing::Bad) {
        if (!send_data(s->id, plain_response(status, why))) return false;
        return finish(s, "");
      }
      if (fr == Framing::Incomplete) break;
      const std::string* conn_hdr = rq.header("Connection");
      const bool close = (conn_hdr && text::iequals(text::trim(*conn_hdr), "close")) || rq.version == "HTTP/1.0";
      http::ClientResponse resp = target_.call(rq);
      if (!send_data(s->id, response_bytes(resp.status, resp.headers, resp.body, close, rq.method == "HEAD"))) return false;
      if (close) return finish(s, "");
    }
    if (s->client_done) return finish(s, "");
    return true;
  }

  bool handle(const http::spdy::Frame& f, bool* moved, std::string* err) {
    if (!f.control) {
      Stream* s = find(f.stream_id);
      if (!s) return tunnel_.write(http::spdy::rst_stream(f.stream_id, http::spdy::kInvalidStream));
      if (s->client_done && !f.payload.empty())
        return tunnel_.write(http::spdy::rst_stream(f.stream_id, http::spdy::kStreamAlreadyClosed));
      if (f.flags & http::spdy::kFlagFin) s->client_done = true;
      if (!s->data) {
        // kubectl writes nothing on error streams; it only closes its half.
        return true;
      }
      *moved = *moved || !f.payload.empty();
      if (s->in.size() + f.payload.size() > K32_PORTFORWARD_REQUEST_MAX + K32_HTTP_HEAD_MAX) {
        if (!send_data(s->id,
                       plain_response(
                           413, "request over " + text::to_string(static_cast<int64_t>(K32_PORTFORWARD_REQUEST_MAX)) + " bytes")))
          return false;
        return finish(s, "");
      }
      s->in += f.payload;
      return serve(s);
    }
    switch (f.type) {
      case http::spdy::kSynStream: *moved = true; return open_stream(f, err);
      case http::spdy::kRstStream: {
        Stream* s = find(f.stream_id);
        if (s && s->data) {
          // kubectl resets a data stream once its local connection is done: end the pair.
          if (Stream* e = pair_of(*s)) {
            tunnel_.write(http::spdy::data_frame(e->id, http::spdy::kFlagFin, ""));
            drop(e->id);
          }
        }
        drop(f.stream_id);
        return true;
      }
      case http::spdy::kPing: return tunnel_.write(http::spdy::ping(f.value));
      case http::spdy::kGoAway:
        client_left_ = true;  // kubectl ends its sessions so: a normal end
        return true;
      case http::spdy::kSynReply: tunnel_.write(http::spdy::rst_stream(f.stream_id, http::spdy::kProtocolError)); return true;
      default:
        // SETTINGS, WINDOW_UPDATE, HEADERS and types SPDY/3 does not know: nothing to do
        // (replies are small and kubectl's SPDY library does not enforce flow control).
        return true;
    }
  }

  Tunnel tunnel_;
  const PortForwardTarget& target_;
  http::spdy::HeaderDecoder decoder_;
  http::spdy::HeaderEncoder encoder_;
  std::vector<std::unique_ptr<Stream>> streams_;
  uint32_t last_stream_ = 0;
  bool client_left_ = false;
};

// One port of a channel session: the bytes of its data channel not yet a whole request.
struct ChannelPort {
  uint16_t port = 0;
  std::string in;
};

class ChannelSession {
 public:
  ChannelSession(http::Conn* c, const std::vector<uint16_t>& ports, const PortForwardTarget& t) : c_(c), target_(t) {
    for (uint16_t p : ports) {
      ChannelPort cp;
      cp.port = p;
      ports_.push_back(std::move(cp));
    }
  }

  void run() {
    // Each channel opens with its port number, little-endian.
    for (size_t i = 0; i < ports_.size(); ++i) {
      const uint16_t p = ports_[i].port;
      const std::string num{static_cast<char>(p & 0xff), static_cast<char>(p >> 8)};
      if (!send(static_cast<uint8_t>(2 * i), num) || !send(static_cast<uint8_t>(2 * i + 1), num)) return;
      if (!port_allowed(target_, p) &&
          !send(static_cast<uint8_t>(2 * i + 1),
                "pod " + target_.pod + " does not declare container port " + text::to_string(static_cast<int64_t>(p))))
        return;
    }
    std::string buf, chunk;
    uint64_t idle_deadline = port::monotonic_ms() + K32_PORTFORWARD_IDLE_MS;
    uint64_t frame_deadline = 0;
    for (;;) {
      for (;;) {
        http::ws::Frame f;
        size_t used = 0;
        std::string err;
        const auto r = http::ws::parse_client_frame(reinterpret_cast<const uint8_t*>(buf.data()), buf.size(),
                                                    K32_PORTFORWARD_FRAME_MAX, &f, &used, &err);
        if (r == http::ws::Parse::NeedMore) break;
        if (r == http::ws::Parse::Error) return fail(err);
        buf.erase(0, used);
        if (f.opcode == http::ws::kPing) {
          if (!raw(http::ws::encode_frame(http::ws::kPong, f.payload))) return;
          continue;
        }
        if (f.opcode == http::ws::kPong) continue;
        if (f.opcode == http::ws::kClose) {
          raw(http::ws::encode_frame(http::ws::kClose, f.payload.substr(0, 2)));
          return;
        }
        if (f.opcode != http::ws::kBinary && f.opcode != http::ws::kContinuation)
          return fail("text message on a v4.channel.k8s.io port-forward (its messages are binary)");
        if (f.payload.empty()) continue;  // a continuation with nothing in it
        const uint8_t ch = static_cast<uint8_t>(f.payload[0]);
        if (ch % 2 || ch / 2u >= ports_.size())
          return fail("message on channel " + text::to_string(static_cast<int64_t>(ch)) + ", not a data channel of this session");
        ChannelPort& cp = ports_[ch / 2u];
        if (!port_allowed(target_, cp.port)) continue;  // refused on its error channel already
        idle_deadline = port::monotonic_ms() + K32_PORTFORWARD_IDLE_MS;
        if (cp.in.size() + f.payload.size() - 1 > K32_PORTFORWARD_REQUEST_MAX + K32_HTTP_HEAD_MAX) {
          send(ch, plain_response(
                       413, "request over " + text::to_string(static_cast<int64_t>(K32_PORTFORWARD_REQUEST_MAX)) + " bytes"));
          return close_normally();
        }
        cp.in.append(f.payload, 1, std::string::npos);
        bool done = false;
        if (!serve(ch, &cp, &done)) return;
        if (done) return close_normally();
      }
      const uint64_t now = port::monotonic_ms();
      if (buf.empty()) frame_deadline = 0;
      else if (!frame_deadline) frame_deadline = now + K32_PORTFORWARD_FRAME_MS;
      if (frame_deadline && now >= frame_deadline) return fail("a frame was not completed in time");
      if (now >= idle_deadline) return close_normally();
      chunk.resize(K32_PORTFORWARD_READ_CHUNK);
      const int n = c_->recv(&chunk[0], chunk.size(), K32_PORTFORWARD_POLL_MS);
      if (n == 0 || (n < 0 && n != -ETIMEDOUT && n != -EAGAIN)) return;
      if (n > 0) buf.append(chunk, 0, static_cast<size_t>(n));
    }
  }

 private:
  bool raw(const std::string& b) { return c_->send_all(b.data(), b.size()); }
  bool send(uint8_t ch, const std::string& bytes) {
    for (size_t at = 0; at == 0 || at < bytes.size(); at += K32_PORTFORWARD_FRAME_MAX - 1) {
      std::string m(1, static_cast<char>(ch));
      m.append(bytes, at, K32_PORTFORWARD_FRAME_MAX - 1);
      if (!raw(http::ws::encode_frame(http::ws::kBinary, m))) return false;
    }
    return true;
  }
  void fail(const std::string& why) {
    logf("[PORTFORWARD] %s: %s; closing the session", target_.pod.c_str(), why.c_str());
    raw(http::ws::encode_frame(http::ws::kClose, std::string("\x03\xea", 2) + why.substr(0, 120)));  // 1002
  }
  void close_normally() { raw(http::ws::encode_frame(http::ws::kClose, std::string("\x03\xe8", 2))); }  // 1000

  // Answers the whole requests buffered for one port; *done when one asked to close (the
  // channel protocol has no half-close: the connection ends as the kubelet's does).
  bool serve(uint8_t ch, ChannelPort* cp, bool* done) {
    for (;;) {
      http::Request rq;
      std::string why;
      int status = 0;
      const Framing fr = take_request(&cp->in, &rq, &why, &status);
      if (fr == Framing::Incomplete) return true;
      if (fr == Framing::Bad) {
        *done = true;
        return send(ch, plain_response(status, why));
      }
      const std::string* conn_hdr = rq.header("Connection");
      const bool close = (conn_hdr && text::iequals(text::trim(*conn_hdr), "close")) || rq.version == "HTTP/1.0";
      http::ClientResponse resp = target_.call(rq);
      if (!send(ch, response_bytes(resp.status, resp.headers, resp.body, close, rq.method == "HEAD"))) return false;
      if (close) {
        *done = true;
        return true;
      }
    }
  }

  http::Conn* c_;
  const PortForwardTarget& target_;
  std::vector<ChannelPort> ports_;
};

}  // namespace

void run_channel_port_forward(http::Conn* conn, const std::vector<uint16_t>& ports, const PortForwardTarget& target) {
  ChannelSession s(conn, ports, target);
  s.run();
}

void run_port_forward(http::Conn* conn, TunnelKind kind, const PortForwardTarget& target) {
  auto s = std::make_unique<Session>(conn, kind, target);
  s->run();
}

}  // namespace api
}  // namespace k32
