// The connection table over real loopback sockets: when the server is full the connection
// that has waited longest is closed (its peer reads end-of-stream) for the new one; a
// client address at its own cap gives way among its own connections; busy connections
// are never closed for room, and when every one in the way is busy the new one is refused.
// A connection gives way only after waiting long enough with nothing of a request arrived:
// one that just connected or just got an answer is about to send, and closing it under a
// request (a POST is never retried) is a request lost without an answer.
#include <string>
#include <vector>

#include "check.h"
#include "test_ports.h"
#include "core/http/conn_table.h"
#include "port.h"

using namespace k32;

namespace {
struct Pair {
  port::Socket client, server;
};

port::Socket listener = port::kNoSocket;
uint16_t lport = 0;

Pair connect_pair() {
  int err = 0;
  Pair p{port::tcp_connect("127.0.0.1", lport, 1000, &err), port::kNoSocket};
  char ip[64];
  p.server = port::tcp_accept(listener, ip, sizeof ip);
  return p;
}

// The peer of a connection the table closed reads end-of-stream.
bool closed_for_room(const Pair& p) {
  char b;
  return port::tcp_recv(p.client, &b, 1, 1000) == 0;
}
bool still_open(const Pair& p) {
  char b;
  return port::tcp_recv(p.client, &b, 1, 50) == -ETIMEDOUT;
}
}  // namespace

int main() {
  listener = k32test::listen_loopback(&lport);
  CHECK(listener != port::kNoSocket);
  if (listener == port::kNoSocket) TEST_MAIN_END();

  // Server cap 3, per-client cap 2: "a" and "b" stand for two client addresses.
  http::ConnTable t;
  t.init(3, 2, 0);
  std::vector<Pair> c;
  for (int i = 0; i < 6; i++) c.push_back(connect_pair());
  int s0 = t.admit(c[0].server, "10.0.0.1");
  port::sleep_ms(5);
  int s1 = t.admit(c[1].server, "10.0.0.2");
  port::sleep_ms(5);
  int s2 = t.admit(c[2].server, "10.0.0.2");
  CHECK(s0 >= 0 && s1 >= 0 && s2 >= 0);
  CHECK_EQ(t.live(), 3u);

  // Full: the longest-waiting connection (s0) is closed for the newcomer.
  int s3 = t.admit(c[3].server, "10.0.0.3");
  CHECK(s3 >= 0);
  CHECK(closed_for_room(c[0]));
  CHECK(still_open(c[1]) && still_open(c[2]));
  t.release(s0);  // what the connection thread does once it saw the end
  CHECK_EQ(t.live(), 3u);

  // A busy connection is not closed for room: s1 busy, so s2 (10.0.0.2's other one)
  // gives way when 10.0.0.2 connects a third time, although s3 waited less long.
  CHECK(t.to_busy(s1));
  int s4 = t.admit(c[4].server, "10.0.0.2");
  CHECK(s4 >= 0);
  CHECK(closed_for_room(c[2]));
  CHECK(!t.to_busy(s2));  // its thread learns it lost its place
  t.release(s2);
  CHECK(still_open(c[1]) && still_open(c[3]));

  // 10.0.0.2 at its cap with both busy: its next connection is refused, others untouched.
  CHECK(t.to_busy(s4));
  CHECK_EQ(t.admit(c[5].server, "10.0.0.2"), http::ConnTable::kClientBusy);
  CHECK(still_open(c[1]) && still_open(c[3]) && still_open(c[4]));

  // Back to waiting after an answer: the clock restarts, so s4 now waited less than s3.
  t.to_waiting(s1);
  port::sleep_ms(5);
  t.to_waiting(s4);
  Pair extra = connect_pair();
  int s5 = t.admit(extra.server, "10.0.0.9");
  CHECK(s5 >= 0);
  CHECK(closed_for_room(c[3]));  // s3 waited since its admission: the oldest
  t.release(s3);
  CHECK(still_open(c[1]) && still_open(c[4]));

  for (int s : {s1, s4, s5}) t.release(s);
  CHECK_EQ(t.live(), 0u);

  // Per-client cap 2, giving way after 150 ms of waiting. Two fresh connections (their
  // client has not sent yet) are not closed for a third from the same address: it is
  // refused, and both may still send their request.
  {
    const uint32_t kIdle = 150;
    http::ConnTable g;
    g.init(8, 2, kIdle);
    std::vector<Pair> p;
    for (int i = 0; i < 4; i++) p.push_back(connect_pair());
    int a = g.admit(p[0].server, "10.0.0.7");
    int b = g.admit(p[1].server, "10.0.0.7");
    CHECK(a >= 0 && b >= 0);
    CHECK_EQ(g.admit(p[2].server, "10.0.0.7"), http::ConnTable::kClientBusy);
    CHECK(still_open(p[0]) && still_open(p[1]));

    // After the wait, one whose request bytes are already there is still passed over (its
    // thread has not seen them yet); the one with nothing arrived gives way.
    port::sleep_ms(kIdle + 50);
    CHECK(port::tcp_send_all(p[0].client, "GET / HTTP/1.1\r\n", 16));
    port::sleep_ms(20);  // loopback delivery
    int c2 = g.admit(p[2].server, "10.0.0.7");
    CHECK(c2 >= 0);
    CHECK(closed_for_room(p[1]));
    CHECK(still_open(p[0]));
    CHECK(g.to_busy(a));  // its thread sees the request: served
    g.release(b);

    // Only busy or fresh ones in the way: refused again, nobody closed.
    CHECK_EQ(g.admit(p[3].server, "10.0.0.7"), http::ConnTable::kClientBusy);
    CHECK(still_open(p[2]));
    for (int s : {a, c2}) g.release(s);
    CHECK_EQ(g.live(), 0u);
    for (auto& q : p) {
      port::tcp_close(q.client);
      port::tcp_close(q.server);
    }
  }
  // Room for a new connection's thread when the heap is short (below the caps): the
  // longest-waiting idle one gives way, never the new one itself (its slot is `spare`) nor a
  // busy one, and only one at a time is shown closing until its thread has released it.
  {
    const uint32_t kIdle = 100;
    http::ConnTable h;
    h.init(8, 8, kIdle);
    std::vector<Pair> p;
    for (int i = 0; i < 3; i++) p.push_back(connect_pair());
    int busy = h.admit(p[0].server, "10.0.0.5");
    int idle = h.admit(p[1].server, "10.0.0.5");
    CHECK(busy >= 0 && idle >= 0);
    CHECK(h.to_busy(busy));
    CHECK(!h.evict_for_room(-1));  // the idle one waited less than kIdle: nobody gives way
    port::sleep_ms(kIdle + 20);
    int fresh = h.admit(p[2].server, "10.0.0.5");
    CHECK(fresh >= 0);
    port::sleep_ms(kIdle + 20);  // now the new one waited as long too, but it is spared
    CHECK(!h.closing());
    CHECK(h.evict_for_room(fresh));
    CHECK(closed_for_room(p[1]));
    CHECK(h.closing());
    CHECK(!h.to_busy(idle));
    CHECK(!h.evict_for_room(fresh));  // left: the busy one and the spared one
    CHECK(still_open(p[0]) && still_open(p[2]));
    h.release(idle);
    CHECK(!h.closing());
    for (int s : {busy, fresh}) h.release(s);
    CHECK_EQ(h.live(), 0u);
    for (auto& q : p) {
      port::tcp_close(q.client);
      port::tcp_close(q.server);
    }
  }
  for (auto& p : c) {
    port::tcp_close(p.client);
    port::tcp_close(p.server);
  }
  port::tcp_close(extra.client);
  port::tcp_close(extra.server);
  port::tcp_close(listener);
  TEST_MAIN_END();
}
