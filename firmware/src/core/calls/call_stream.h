// The byte stream of one outgoing call: plain TCP or the TLS client over it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "port.h"

namespace k32 {
namespace calls {

class CallStream {
 public:
  virtual ~CallStream() = default;
  virtual int recv(void* buf, size_t len, uint32_t timeout_ms) = 0;  // as port::tcp_recv
  virtual bool send_all(const void* buf, size_t len) = 0;
};

class TcpStream : public CallStream {
 public:
  explicit TcpStream(port::Socket s) : s_(s) {}
  int recv(void* buf, size_t len, uint32_t timeout_ms) override { return port::tcp_recv(s_, buf, len, timeout_ms); }
  bool send_all(const void* buf, size_t len) override { return port::tcp_send_all(s_, buf, len); }

 private:
  port::Socket s_;
};

class TlsStream : public CallStream {
 public:
  explicit TlsStream(port::TlsClient* t) : t_(t) {}
  int recv(void* buf, size_t len, uint32_t timeout_ms) override { return port::tls_client_recv(t_, buf, len, timeout_ms); }
  bool send_all(const void* buf, size_t len) override { return port::tls_client_send_all(t_, buf, len); }

 private:
  port::TlsClient* t_;
};

}  // namespace calls
}  // namespace k32
