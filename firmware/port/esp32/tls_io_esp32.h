// What the TLS server (tls_server_esp32.cpp) and client (tls_client_esp32.cpp) share: the
// socket glue mbedTLS reads and writes through, with one deadline per operation, the loops
// that turn WANT_READ/WANT_WRITE into whole reads and writes, and the hardware RNG.
#pragma once
#include <cstddef>
#include <cstdint>

#include "mbedtls/ssl.h"
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
// mbedTLS's f_rng on the chip's hardware RNG (no DRBG state to keep per session).
int hw_random(void* ctx, unsigned char* out, size_t len);

}  // namespace tlsio
}  // namespace port
}  // namespace k32
