// BSD sockets on lwIP (ESP-IDF). The lwip_* calls are used by name: they are what the POSIX
// names map to on the board, and they keep the port free of libc socket headers.
#include <cerrno>
#include <cstring>

#include "lwip/inet.h"
#include "lwip/netdb.h"
#include "lwip/sockets.h"
#include "port.h"

namespace k32 {
namespace port {

namespace {

void set_nodelay(int fd) {
  int one = 1;
  lwip_setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// lwIP applies SO_RCVTIMEO to every receive; 0 means "block".
void set_recv_timeout(int fd, uint32_t timeout_ms) {
  timeval tv{};
  tv.tv_sec = static_cast<decltype(tv.tv_sec)>(timeout_ms / 1000);
  tv.tv_usec = static_cast<decltype(tv.tv_usec)>((timeout_ms % 1000) * 1000);
  lwip_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

bool parse_ip(const char* ip, uint16_t port, sockaddr_in* a) {
  std::memset(a, 0, sizeof *a);
  a->sin_family = AF_INET;
  a->sin_port = lwip_htons(port);
  return ip && inet_aton(ip, &a->sin_addr) == 1;
}

int err_now() { return errno ? -errno : -EIO; }

}  // namespace

Socket tcp_listen(const char* bind_ip, uint16_t port, int backlog, int* err) {
  sockaddr_in a;
  if (!parse_ip(bind_ip, port, &a)) {
    if (err) *err = -EINVAL;
    return kNoSocket;
  }
  int fd = lwip_socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    if (err) *err = err_now();
    return kNoSocket;
  }
  int one = 1;
  lwip_setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (lwip_bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || lwip_listen(fd, backlog) != 0) {
    if (err) *err = err_now();
    lwip_close(fd);
    return kNoSocket;
  }
  return fd;
}

Socket tcp_accept(Socket listener, char* peer_ip, size_t peer_ip_cap) {
  for (;;) {
    sockaddr_in a{};
    socklen_t len = sizeof a;
    int fd = lwip_accept(listener, reinterpret_cast<sockaddr*>(&a), &len);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return kNoSocket;
    }
    set_nodelay(fd);
    if (peer_ip && peer_ip_cap) inet_ntoa_r(a.sin_addr, peer_ip, static_cast<int>(peer_ip_cap));
    return fd;
  }
}

Socket tcp_connect_from(const char* local_ip, const char* ip, uint16_t port, uint32_t timeout_ms, int* err) {
  sockaddr_in a;
  if (!parse_ip(ip, port, &a)) {
    if (err) *err = -EINVAL;
    return kNoSocket;
  }
  int fd = lwip_socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    if (err) *err = err_now();
    return kNoSocket;
  }
  if (local_ip && *local_ip) {
    sockaddr_in l;
    if (!parse_ip(local_ip, 0, &l) || lwip_bind(fd, reinterpret_cast<sockaddr*>(&l), sizeof l) != 0) {
      if (err) *err = -EINVAL;
      lwip_close(fd);
      return kNoSocket;
    }
  }
  // lwIP's blocking connect has no deadline: connect non-blocking and wait with select.
  int flags = lwip_fcntl(fd, F_GETFL, 0);
  lwip_fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = lwip_connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  if (rc != 0 && errno != EINPROGRESS) {
    if (err) *err = err_now();
    lwip_close(fd);
    return kNoSocket;
  }
  if (rc != 0) {
    fd_set wr;
    FD_ZERO(&wr);
    FD_SET(fd, &wr);
    timeval tv{};
    tv.tv_sec = static_cast<decltype(tv.tv_sec)>(timeout_ms / 1000);
    tv.tv_usec = static_cast<decltype(tv.tv_usec)>((timeout_ms % 1000) * 1000);
    int n = lwip_select(fd + 1, nullptr, &wr, nullptr, &tv);
    if (n <= 0) {
      if (err) *err = n == 0 ? -ETIMEDOUT : err_now();
      lwip_close(fd);
      return kNoSocket;
    }
    int soerr = 0;
    socklen_t l = sizeof soerr;
    lwip_getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
    if (soerr != 0) {
      if (err) *err = -soerr;
      lwip_close(fd);
      return kNoSocket;
    }
  }
  lwip_fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  set_nodelay(fd);
  return fd;
}

Socket tcp_connect(const char* ip, uint16_t port, uint32_t timeout_ms, int* err) {
  return tcp_connect_from(nullptr, ip, port, timeout_ms, err);
}

int tcp_recv(Socket s, void* buf, size_t len, uint32_t timeout_ms) {
  set_recv_timeout(s, timeout_ms);
  for (;;) {
    ssize_t r = lwip_recv(s, buf, len, 0);
    if (r >= 0) return static_cast<int>(r);
    if (errno == EINTR) continue;
    return (errno == EAGAIN || errno == EWOULDBLOCK) ? -ETIMEDOUT : err_now();
  }
}

bool tcp_send_all(Socket s, const void* buf, size_t len) {
  const char* p = static_cast<const char*>(buf);
  while (len > 0) {
    ssize_t w = lwip_send(s, p, len, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    len -= static_cast<size_t>(w);
  }
  return true;
}

void tcp_close(Socket s) {
  if (s >= 0) lwip_close(s);
}

void tcp_shutdown(Socket s) {
  if (s >= 0) lwip_shutdown(s, SHUT_RDWR);
}

void tcp_shutdown_write(Socket s) {
  if (s >= 0) lwip_shutdown(s, SHUT_WR);
}

bool local_ip_of(Socket s, char* ip, size_t cap) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (lwip_getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) return false;
  return inet_ntoa_r(a.sin_addr, ip, static_cast<int>(cap)) != nullptr;
}

int tcp_peek(Socket s, uint32_t timeout_ms) {
  set_recv_timeout(s, timeout_ms);
  unsigned char c;
  ssize_t r = lwip_recv(s, &c, 1, MSG_PEEK);
  if (r == 0) return 0x100;
  if (r < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? -ETIMEDOUT : err_now();
  return c;
}

bool tcp_readable(Socket s) {
  unsigned char c;
  return lwip_recv(s, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

bool tcp_peer_closed(Socket s) {
  unsigned char c;
  ssize_t r = lwip_recv(s, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

int tcp_wait_readable(const Socket* socks, bool* ready, size_t n, uint32_t timeout_ms) {
  if (n > kWaitSocketsMax) return -EINVAL;
  pollfd p[kWaitSocketsMax];
  for (size_t i = 0; i < n; ++i) {
    p[i].fd = socks[i];
    p[i].events = POLLIN;
    p[i].revents = 0;
  }
  int r;
  do { r = lwip_poll(p, static_cast<nfds_t>(n), static_cast<int>(timeout_ms)); } while (r < 0 && errno == EINTR);
  if (r < 0) return err_now();
  for (size_t i = 0; i < n; ++i) ready[i] = p[i].revents != 0;
  return r == 0 ? -ETIMEDOUT : r;
}

// A board's console is its UART; a TCP connection never comes from a local user here, so
// a TCP console (never started on boards) would refuse everyone.
bool tcp_peer_same_user(Socket s) {
  (void)s;
  return false;
}

bool resolve_ipv4(const char* host, char* ip, size_t cap, uint32_t timeout_ms) {
  (void)timeout_ms;  // lwIP's resolver has its own retry budget; callers bound the whole call
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (lwip_getaddrinfo(host, nullptr, &hints, &res) != 0 || !res) return false;
  const sockaddr_in* sin = reinterpret_cast<const sockaddr_in*>(res->ai_addr);
  bool ok = inet_ntoa_r(sin->sin_addr, ip, static_cast<int>(cap)) != nullptr;
  lwip_freeaddrinfo(res);
  return ok;
}

}  // namespace port
}  // namespace k32
