// The bare-metal test target has no network: every socket and TLS call fails the way a
// board's does when the interface is down, so callers take their error paths.
#include <cerrno>
#include <cstdio>

#include "port.h"

namespace k32 {
namespace port {
namespace {
void no_network(int* err) {
  if (err) *err = -ENETDOWN;
}
void say(char* buf, size_t cap, const char* msg) {
  if (buf && cap) std::snprintf(buf, cap, "%s", msg);
}
}  // namespace

Socket tcp_listen(const char*, uint16_t, int, int* err) {
  no_network(err);
  return kNoSocket;
}
Socket tcp_accept(Socket, char*, size_t) { return kNoSocket; }
Socket tcp_connect(const char*, uint16_t, uint32_t, int* err) {
  no_network(err);
  return kNoSocket;
}
Socket tcp_connect_from(const char*, const char*, uint16_t, uint32_t, int* err) {
  no_network(err);
  return kNoSocket;
}
int tcp_recv(Socket, void*, size_t, uint32_t) { return -ENETDOWN; }
bool tcp_send_all(Socket, const void*, size_t) { return false; }
void tcp_close(Socket) {}
void tcp_shutdown(Socket) {}
void tcp_shutdown_write(Socket) {}
bool local_ip_of(Socket, char*, size_t) { return false; }
int tcp_peek(Socket, uint32_t) { return -ENETDOWN; }
bool tcp_peer_closed(Socket) { return true; }
bool tcp_readable(Socket) { return false; }
int tcp_wait_readable(const Socket*, bool*, size_t, uint32_t) { return -ENETDOWN; }
bool resolve_ipv4(const char*, char*, size_t, uint32_t) { return false; }

bool tls_identity_ensure(const char*, const char*, char*, size_t, char* err, size_t errcap) {
  say(err, errcap, "no TLS on this platform");
  return false;
}
TlsServer* tls_server_new(const char*, char* err, size_t errcap) {
  say(err, errcap, "no TLS on this platform");
  return nullptr;
}
TlsSession* tls_accept(TlsServer*, Socket, uint32_t) { return nullptr; }
int tls_recv(TlsSession*, void*, size_t, uint32_t) { return -ENETDOWN; }
bool tls_send_all(TlsSession*, const void*, size_t) { return false; }
void tls_session_free(TlsSession*) {}

bool tls_client_trust(const char*, char* err, size_t errcap) {
  say(err, errcap, "no TLS on this platform");
  return false;
}
TlsClient* tls_client_connect(Socket, const char*, uint32_t, TlsFail* fail, char* reason, size_t reason_cap) {
  if (fail) *fail = TlsFail::Io;
  say(reason, reason_cap, "no TLS on this platform");
  return nullptr;
}
int tls_client_recv(TlsClient*, void*, size_t, uint32_t) { return -ENETDOWN; }
bool tls_client_send_all(TlsClient*, const void*, size_t) { return false; }
void tls_client_free(TlsClient*) {}

}  // namespace port
}  // namespace k32
