// The keep-alive pool over real loopback sockets: reuse of a live connection, a
// connection the peer closed is never handed out, and a destination keeps a bounded
// number of idle sockets (the rest are closed, not leaked).
#include <string>
#include <vector>

#include "check.h"
#include "test_ports.h"
#include "core/http/keepalive_pool.h"
#include "port.h"

using namespace k32;

int main() {
  // a listener on some free high port (the port layer does not report ephemeral ones)
  uint16_t lport = 0;
  port::Socket listener = k32test::listen_loopback(&lport);
  CHECK(listener != port::kNoSocket);
  if (listener == port::kNoSocket) TEST_MAIN_END();
  const std::string dest = "127.0.0.1:" + std::to_string(lport);

  // six client connections and their accepted server ends
  std::vector<port::Socket> clients, servers;
  for (int i = 0; i < 6; i++) {
    int err = 0;
    port::Socket c = port::tcp_connect("127.0.0.1", lport, 1000, &err);
    CHECK(c != port::kNoSocket);
    char ip[64];
    port::Socket s = port::tcp_accept(listener, ip, sizeof ip);
    CHECK(s != port::kNoSocket);
    clients.push_back(c);
    servers.push_back(s);
  }

  http::KeepAlivePool pool;
  CHECK(pool.take(dest) == port::kNoSocket);  // nothing idle yet
  for (port::Socket c : clients) pool.give(dest, c);
  CHECK_EQ(pool.idle_count(dest), http::KeepAlivePool::kIdlePerDestination);
  CHECK_EQ(pool.idle_count("127.0.0.1:1"), 0u);

  // the two beyond the cap were closed by the pool: their server ends read end-of-stream
  char b;
  CHECK_EQ(port::tcp_recv(servers[4], &b, 1, 2000), 0);
  CHECK_EQ(port::tcp_recv(servers[5], &b, 1, 2000), 0);

  // the most recently given live connection comes back, and it works
  port::Socket got = pool.take(dest);
  CHECK(got == clients[3]);
  CHECK(port::tcp_send_all(got, "x", 1));
  CHECK_EQ(port::tcp_recv(servers[3], &b, 1, 2000), 1);
  pool.give(dest, got);

  // a connection whose peer has closed is dropped, not handed out
  port::tcp_close(servers[3]);
  port::tcp_close(servers[2]);
  for (int i = 0; i < 50 && !port::tcp_peer_closed(clients[3]); i++) port::sleep_ms(10);
  for (int i = 0; i < 50 && !port::tcp_peer_closed(clients[2]); i++) port::sleep_ms(10);
  got = pool.take(dest);
  CHECK(got == clients[1]);
  CHECK_EQ(pool.idle_count(dest), 1u);  // clients[0] is left
  port::tcp_close(got);

  for (int i = 0; i < 2; i++) port::tcp_close(servers[i]);
  for (int i = 4; i < 6; i++) port::tcp_close(servers[i]);
  port::tcp_close(listener);
  TEST_MAIN_END();
}
