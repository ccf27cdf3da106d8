// One thread serves the TCP console: it waits on the listener and every open session at once
// (port::tcp_wait_readable), reads what arrived, answers each line that ended and closes a
// session whose line has not ended CONSOLE_IDLE_MS after its last one (or after it connected).
// A session that sends half a line and stalls holds its slot until that deadline, never the
// thread: the other session is answered meanwhile. The node so holds what a board's console
// holds, one `console_stack` whoever is connected, where a thread per session and an accept
// loop held up to three stacks.
#include "core/console/console_sessions.h"

#include <cerrno>
#include <string>

#include "core/util/text.h"
#include "k32_board.h"

namespace k32 {
namespace console {

namespace {

constexpr size_t kMaxLine = K32_CONSOLE_LINE_MAX;
constexpr size_t kMaxSessions = K32_CONSOLE_CONN_MAX;
static_assert(1 + kMaxSessions <= port::kWaitSocketsMax, "the listener and every session wait together");
// A line that grew past this keeps no room once answered (tool lines are a few hundred bytes).
constexpr size_t kLineKept = 512;

struct Session {
  port::Socket sock = port::kNoSocket;
  std::string line;  // the line so far, up to CONSOLE_LINE_MAX bytes (the rest is dropped)
  uint64_t deadline_ms = 0;
  // What one read took in. Here, not on the thread's stack: the commands run below the read,
  // and the deepest (a setting's write) leaves the stack no room for it.
  char in[K32_CONSOLE_READ_CHUNK];
};

struct Console {
  Dispatcher* d;
  port::Socket listener;
  size_t max_sessions;
  Session sessions[kMaxSessions];
};

class SocketSink : public json::ByteSink {
 public:
  explicit SocketSink(port::Socket s) : s_(s) {}
  bool write(const char* data, size_t len) override {
    if (ok_) ok_ = port::tcp_send_all(s_, data, len);
    return ok_;
  }
  bool ok() const { return ok_; }

 private:
  port::Socket s_;
  bool ok_ = true;
};

// One answer line, then the connection is closed (the client learns why).
void refuse(port::Socket s, const std::string& why) {
  std::string line = "K32_RESP:? ERR " + why + "\r\n";
  port::tcp_send_all(s, line.data(), line.size());
  port::tcp_close(s);
}

void close_session(Session* s) {
  port::tcp_close(s->sock);
  s->sock = port::kNoSocket;
  std::string().swap(s->line);
}

void accept_one(Console* c) {
  port::Socket s = port::tcp_accept(c->listener, nullptr, 0);
  if (s == port::kNoSocket) return;
  // The console sets the token and Wi-Fi and reboots the node: on a board that takes
  // the UART (physical access); here only the user running the node may connect.
  if (!port::tcp_peer_same_user(s)) {
    refuse(s, "the console serves the user who started this node only");
    return;
  }
  for (size_t i = 0; i < c->max_sessions; ++i) {
    Session& slot = c->sessions[i];
    if (slot.sock != port::kNoSocket) continue;
    slot.sock = s;
    slot.deadline_ms = port::monotonic_ms() + K32_CONSOLE_IDLE_MS;
    return;
  }
  refuse(s, "console busy: " + text::to_string(static_cast<int64_t>(c->max_sessions)) + " connections are open");
}

// Answers the session's line that just ended; false when the answer could not be sent.
bool answer_line(Console* c, Session* s) {
  SocketSink out(s->sock);
  if (c->d->answer(s->line, &out)) out.write("\r\n", 2);
  if (s->line.capacity() > kLineKept) std::string().swap(s->line);
  else s->line.clear();
  s->deadline_ms = port::monotonic_ms() + K32_CONSOLE_IDLE_MS;
  return out.ok();
}

// Reads what arrived on a session and answers the lines it ended; false when the session is
// over (the peer closed, an error, an answer it did not take).
bool read_session(Console* c, Session* s) {
  const int n = port::tcp_recv(s->sock, s->in, sizeof s->in, 1);
  if (n == -ETIMEDOUT) return true;  // woken without bytes to read
  if (n <= 0) return false;
  for (int i = 0; i < n; ++i) {
    // Serial consoles end lines with \n or \r\n; the parser drops the \r.
    if (s->in[i] != '\n') {
      if (s->line.size() < kMaxLine) s->line.push_back(s->in[i]);
      continue;
    }
    if (!answer_line(c, s)) return false;
  }
  return true;
}

void sessions_main(void* p) {
  Console* c = static_cast<Console*>(p);
  for (;;) {
    port::Socket socks[1 + kMaxSessions];
    Session* of[1 + kMaxSessions];
    bool ready[1 + kMaxSessions];
    size_t n = 0;
    socks[n] = c->listener;
    of[n++] = nullptr;
    uint64_t now = port::monotonic_ms();
    uint64_t wake = now + K32_CONSOLE_IDLE_MS;  // with no session open: a look now and then
    for (size_t i = 0; i < c->max_sessions; ++i) {
      Session& s = c->sessions[i];
      if (s.sock == port::kNoSocket) continue;
      socks[n] = s.sock;
      of[n++] = &s;
      if (s.deadline_ms < wake) wake = s.deadline_ms;
    }
    const int r = port::tcp_wait_readable(socks, ready, n, wake > now ? static_cast<uint32_t>(wake - now) : 0);
    if (r > 0) {
      for (size_t i = 1; i < n; ++i)
        if (ready[i] && !read_session(c, of[i])) close_session(of[i]);
      if (ready[0]) accept_one(c);
    } else if (r != -ETIMEDOUT) {
      port::sleep_ms(50);  // the wait itself failed: not a loop that spins
    }
    // A session whose line did not end in time gives its slot back.
    now = port::monotonic_ms();
    for (size_t i = 0; i < c->max_sessions; ++i) {
      Session& s = c->sessions[i];
      if (s.sock != port::kNoSocket && now >= s.deadline_ms) close_session(&s);
    }
  }
}

}  // namespace

bool serve_sessions(Dispatcher* d, port::Socket listener, uint32_t max_conns) {
  Console* c = new Console{d, listener, max_conns < kMaxSessions ? max_conns : kMaxSessions, {}};
  if (port::thread_start("console", K32_CONSOLE_STACK_BYTES, static_cast<port::Region>(K32_CONSOLE_STACK_REGION), sessions_main,
                         c))
    return true;
  delete c;
  return false;
}

}  // namespace console
}  // namespace k32
