#include "tls_io_esp32.h"

#include <cerrno>
#include <cstdio>

#include "esp_random.h"
#include "lwip/sockets.h"
#include "mbedtls/net_sockets.h"

namespace k32 {
namespace port {
namespace tlsio {

int bio_send(void* ctx, const unsigned char* buf, size_t len) {
  Bio* b = static_cast<Bio*>(ctx);
  ssize_t w = lwip_send(b->s, buf, len, MSG_NOSIGNAL);
  if (w < 0) return (errno == EINTR || errno == EAGAIN) ? MBEDTLS_ERR_SSL_WANT_WRITE : MBEDTLS_ERR_NET_SEND_FAILED;
  return static_cast<int>(w);
}

int bio_recv(void* ctx, unsigned char* buf, size_t len) {
  Bio* b = static_cast<Bio*>(ctx);
  uint64_t now = monotonic_ms();
  if (now >= b->deadline_ms) return MBEDTLS_ERR_SSL_TIMEOUT;
  int n = tcp_recv(b->s, buf, len, static_cast<uint32_t>(b->deadline_ms - now));
  if (n == -ETIMEDOUT) return MBEDTLS_ERR_SSL_TIMEOUT;
  if (n < 0) return MBEDTLS_ERR_NET_RECV_FAILED;
  if (n == 0) return MBEDTLS_ERR_NET_CONN_RESET;
  return n;
}

int read_some(mbedtls_ssl_context* ssl, void* buf, size_t len) {
  for (;;) {
    int rc = mbedtls_ssl_read(ssl, static_cast<unsigned char*>(buf), len);
    if (rc > 0) return rc;
    if (rc == 0 || rc == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || rc == MBEDTLS_ERR_NET_CONN_RESET) return 0;
    // TLS 1.3 tickets and renegotiation arrive as "no data yet": keep reading.
    if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE ||
        rc == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET)
      continue;
    if (rc == MBEDTLS_ERR_SSL_TIMEOUT) return -ETIMEDOUT;
    return -EIO;
  }
}

bool write_all(mbedtls_ssl_context* ssl, const void* buf, size_t len) {
  const unsigned char* p = static_cast<const unsigned char*>(buf);
  while (len > 0) {
    int rc = mbedtls_ssl_write(ssl, p, len);
    if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE) continue;
    if (rc <= 0) return false;
    p += rc;
    len -= static_cast<size_t>(rc);
  }
  return true;
}

bool parse_ipv4(const char* ip, unsigned char out[4]) {
  in_addr a;
  if (!ip || inet_aton(ip, &a) != 1) return false;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(&a.s_addr);
  for (int i = 0; i < 4; ++i) out[i] = b[i];
  return true;
}

int hw_random(void*, unsigned char* out, size_t len) {
  esp_fill_random(out, len);
  return 0;
}

}  // namespace tlsio
}  // namespace port
}  // namespace k32
