#if defined(K32_PORT_HAS_TLS)
#include "tls_io.h"

#include <errno.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <sys/socket.h>  // lwIP's socket calls on ESP-IDF, the kernel's on the host

#include <cstdio>

namespace k32 {
namespace port {
namespace tlsio {

int bio_send(void* ctx, const unsigned char* buf, size_t len) {
  Bio* b = static_cast<Bio*>(ctx);
  ssize_t w = send(b->s, buf, len, MSG_NOSIGNAL);
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

namespace {
bool no_data_yet(int rc) {
  if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE) return true;
#if defined(MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET)
  // TLS 1.3 tickets arrive as "no application data yet" (mbedTLS 3.x): keep reading.
  if (rc == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET) return true;
#endif
  return false;
}
}  // namespace

int read_some(mbedtls_ssl_context* ssl, void* buf, size_t len) {
  for (;;) {
    int rc = mbedtls_ssl_read(ssl, static_cast<unsigned char*>(buf), len);
    if (rc > 0) return rc;
    if (rc == 0 || rc == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || rc == MBEDTLS_ERR_NET_CONN_RESET) return 0;
    if (no_data_yet(rc)) continue;
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
  unsigned a, b, c, d;
  char extra;
  if (!ip || std::sscanf(ip, "%3u.%3u.%3u.%3u%c", &a, &b, &c, &d, &extra) != 4 || a > 255 || b > 255 || c > 255 || d > 255)
    return false;
  out[0] = static_cast<unsigned char>(a);
  out[1] = static_cast<unsigned char>(b);
  out[2] = static_cast<unsigned char>(c);
  out[3] = static_cast<unsigned char>(d);
  return true;
}

int rng(void*, unsigned char* out, size_t len) {
  random_fill(out, len);
  return 0;
}

void describe(char* out, size_t cap, const char* what, int rc) {
  if (!out || !cap) return;
  char buf[160] = {0};
  if (rc) mbedtls_strerror(rc, buf, sizeof buf);
  std::snprintf(out, cap, "%s%s%s", what, rc ? ": " : "", buf);
}

}  // namespace tlsio
}  // namespace port
}  // namespace k32
#endif
