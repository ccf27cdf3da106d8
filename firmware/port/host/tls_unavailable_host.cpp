// The TLS calls of a host build without mbedTLS (the 32-bit one): they report TLS
// unavailable, so https:// calls fail with K32_ERR_TLS and the API server says why it
// cannot start TLS, instead of the build lacking the symbols.
#if !defined(K32_PORT_HAS_TLS)
#include <errno.h>

#include <cstdio>

#include "port.h"

namespace k32 {
namespace port {

namespace {
constexpr const char* kNoTls = "TLS is not available in this build (no mbedTLS)";
void say(char* out, size_t cap) {
  if (out && cap) std::snprintf(out, cap, "%s", kNoTls);
}
}  // namespace

bool tls_identity_ensure(const char*, const char*, char*, size_t, char* err, size_t errcap) {
  say(err, errcap);
  return false;
}
TlsServer* tls_server_new(const char*, char* err, size_t errcap) {
  say(err, errcap);
  return nullptr;
}
TlsSession* tls_accept(TlsServer*, Socket, uint32_t) { return nullptr; }
int tls_recv(TlsSession*, void*, size_t, uint32_t) { return -EIO; }
bool tls_send_all(TlsSession*, const void*, size_t) { return false; }
void tls_session_free(TlsSession*) {}

bool tls_client_trust(const char*, char* err, size_t errcap) {
  say(err, errcap);
  return false;
}
TlsClient* tls_client_connect(Socket, const char*, uint32_t, TlsFail* fail, char* reason, size_t cap) {
  *fail = TlsFail::Handshake;
  say(reason, cap);
  return nullptr;
}
int tls_client_recv(TlsClient*, void*, size_t, uint32_t) { return -EIO; }
bool tls_client_send_all(TlsClient*, const void*, size_t) { return false; }
void tls_client_free(TlsClient*) {}

}  // namespace port
}  // namespace k32
#endif
