// One connection's byte stream: plain TCP, or TLS over it (the API port speaks both).
#pragma once
#include <cstddef>

#include "port.h"

namespace k32 {
namespace http {

class Conn {
 public:
  explicit Conn(port::Socket s, port::TlsSession* tls = nullptr) : sock_(s), tls_(tls) {}
  int recv(void* buf, size_t len, uint32_t timeout_ms) {
    return tls_ ? port::tls_recv(tls_, buf, len, timeout_ms) : port::tcp_recv(sock_, buf, len, timeout_ms);
  }
  bool send_all(const void* buf, size_t len) {
    return tls_ ? port::tls_send_all(tls_, buf, len) : port::tcp_send_all(sock_, buf, len);
  }
  port::Socket socket() const { return sock_; }
  bool is_tls() const { return tls_ != nullptr; }

 private:
  port::Socket sock_;
  port::TlsSession* tls_;
};

}  // namespace http
}  // namespace k32
