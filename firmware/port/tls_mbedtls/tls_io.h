// What the TLS server (tls_server_mbedtls.cpp) and client (tls_client_mbedtls.cpp) share: the
// socket glue mbedTLS reads and writes through, with one deadline per operation, the loops
// that turn WANT_READ/WANT_WRITE into whole reads and writes, and the RNG they draw from.
#pragma once
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
// mbedTLS's f_rng on port::random_fill (the chip's RNG on boards, the kernel's on the host):
// no DRBG state to keep or lock per session.
int rng(void* ctx, unsigned char* out, size_t len);
// "what" or "what: <mbedTLS's words for rc>" into out (rc 0: no reason to add).
void describe(char* out, size_t cap, const char* what, int rc);

}  // namespace tlsio
}  // namespace port
}  // namespace k32
