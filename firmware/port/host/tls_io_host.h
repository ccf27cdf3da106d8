// What the TLS server (tls_host.cpp) and client (tls_client_host.cpp) share: the socket
// glue mbedTLS reads and writes through, with one deadline per operation, and the loops
// that turn mbedTLS's WANT_READ/WANT_WRITE into whole reads and writes.
#pragma once
#if defined(K32_PORT_HAS_TLS)
#include <mbedtls/ssl.h>

#include <cstddef>
#include <cstdint>

#include "port.h"

namespace k32 {
namespace port {
namespace tlsio {

struct Bio {
  Socket s;
  uint64_t deadline_ms;  // monotonic_ms() after which a read times out
};

int bio_send(void* ctx, const unsigned char* buf, size_t len);
int bio_recv(void* ctx, unsigned char* buf, size_t len);
// As tcp_recv: >0 bytes, 0 when the peer closed, -ETIMEDOUT, -EIO.
int read_some(mbedtls_ssl_context* ssl, void* buf, size_t len);
bool write_all(mbedtls_ssl_context* ssl, const void* buf, size_t len);
bool parse_ipv4(const char* ip, unsigned char out[4]);

}  // namespace tlsio
}  // namespace port
}  // namespace k32
#endif
