// Loopback listeners for the firmware tests that talk over real sockets. The port layer
// reports no ephemeral port, so a random high port is tried, and another one while the
// chosen one is taken (several test binaries run at once).
#pragma once
#include <cstdint>
#include <string>

#include "core/http/http_server.h"
#include "port.h"

namespace k32test {

constexpr int kPortTries = 20;

inline uint16_t random_high_port() {
  uint8_t r[2];
  k32::port::random_fill(r, sizeof r);
  return static_cast<uint16_t>(20000 + ((r[0] << 8 | r[1]) % 30000));
}

// A TCP listener on 127.0.0.1 and its port (*port); kNoSocket when no try bound.
inline k32::port::Socket listen_loopback(uint16_t* port) {
  k32::port::Socket listener = k32::port::kNoSocket;
  for (int i = 0; i < kPortTries && listener == k32::port::kNoSocket; ++i) {
    *port = random_high_port();
    int err = 0;
    listener = k32::port::tcp_listen("127.0.0.1", *port, 16, &err);
  }
  return listener;
}

// Starts srv with cfg on a random high port (left in cfg->port); false when no try started.
inline bool start_on_free_port(k32::http::Server& srv, k32::http::ServerConfig* cfg, k32::http::Handler handler,
                               std::string* err) {
  for (int i = 0; i < kPortTries; ++i) {
    cfg->port = random_high_port();
    if (srv.start(*cfg, handler, err)) return true;
  }
  return false;
}

}  // namespace k32test
