// BSD sockets on POSIX; lwIP offers the same calls on boards.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "port.h"

namespace k32 {
namespace port {

namespace {

bool parse_ip(const char* ip, uint16_t port, sockaddr_in* a) {
  *a = sockaddr_in{};
  a->sin_family = AF_INET;
  a->sin_port = htons(port);
  return ip && inet_pton(AF_INET, ip, &a->sin_addr) == 1;
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

Socket tcp_listen(const char* bind_ip, uint16_t port, int backlog, int* err) {
  sockaddr_in a;
  if (!parse_ip(bind_ip, port, &a)) {
    if (err) *err = -EINVAL;
    return kNoSocket;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (err) *err = -errno;
    return kNoSocket;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, backlog) != 0) {
    if (err) *err = -errno;
    ::close(fd);
    return kNoSocket;
  }
  return fd;
}

Socket tcp_accept(Socket listener, char* peer_ip, size_t peer_ip_cap) {
  for (;;) {
    sockaddr_in a{};
    socklen_t len = sizeof a;
    int fd = ::accept4(listener, reinterpret_cast<sockaddr*>(&a), &len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return kNoSocket;
    }
    set_nodelay(fd);
    if (peer_ip && peer_ip_cap) inet_ntop(AF_INET, &a.sin_addr, peer_ip, static_cast<socklen_t>(peer_ip_cap));
    return fd;
  }
}

Socket tcp_connect_from(const char* local_ip, const char* ip, uint16_t port, uint32_t timeout_ms, int* err) {
  sockaddr_in a;
  if (!parse_ip(ip, port, &a)) {
    if (err) *err = -EINVAL;
    return kNoSocket;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    if (err) *err = -errno;
    return kNoSocket;
  }
  if (local_ip && *local_ip) {  // bound to local_ip:0 first, so the peer sees that address
    sockaddr_in l;
    const bool parsed = parse_ip(local_ip, 0, &l);
    if (!parsed || ::bind(fd, reinterpret_cast<sockaddr*>(&l), sizeof l) != 0) {
      if (err) *err = parsed ? -errno : -EINVAL;
      ::close(fd);
      return kNoSocket;
    }
  }
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  if (rc != 0 && errno != EINPROGRESS) {
    if (err) *err = -errno;
    ::close(fd);
    return kNoSocket;
  }
  if (rc != 0) {
    pollfd p{fd, POLLOUT, 0};
    int n = ::poll(&p, 1, static_cast<int>(timeout_ms));
    if (n <= 0) {
      if (err) *err = n == 0 ? -ETIMEDOUT : -errno;
      ::close(fd);
      return kNoSocket;
    }
    int soerr = 0;
    socklen_t l = sizeof soerr;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
    if (soerr != 0) {
      if (err) *err = -soerr;
      ::close(fd);
      return kNoSocket;
    }
  }
  int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  set_nodelay(fd);
  return fd;
}

Socket tcp_connect(const char* ip, uint16_t port, uint32_t timeout_ms, int* err) {
  return tcp_connect_from(nullptr, ip, port, timeout_ms, err);
}

int tcp_recv(Socket s, void* buf, size_t len, uint32_t timeout_ms) {
  pollfd p{s, POLLIN, 0};
  for (;;) {
    int n = ::poll(&p, 1, timeout_ms == 0 ? -1 : static_cast<int>(timeout_ms));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    if (n == 0) return -ETIMEDOUT;
    break;
  }
  for (;;) {
    ssize_t r = ::recv(s, buf, len, 0);
    if (r < 0 && errno == EINTR) continue;
    return r < 0 ? -errno : static_cast<int>(r);
  }
}

bool tcp_send_all(Socket s, const void* buf, size_t len) {
  const char* p = static_cast<const char*>(buf);
  while (len > 0) {
    ssize_t w = ::send(s, p, len, MSG_NOSIGNAL);
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
  if (s >= 0) ::close(s);
}

void tcp_shutdown(Socket s) {
  if (s >= 0) ::shutdown(s, SHUT_RDWR);
}

void tcp_shutdown_write(Socket s) {
  if (s >= 0) ::shutdown(s, SHUT_WR);
}

bool local_ip_of(Socket s, char* ip, size_t cap) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) return false;
  return inet_ntop(AF_INET, &a.sin_addr, ip, static_cast<socklen_t>(cap)) != nullptr;
}

bool resolve_ipv4(const char* host, char* ip, size_t cap, uint32_t timeout_ms) {
  (void)timeout_ms;  // getaddrinfo has no deadline; callers bound the whole call instead
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host, nullptr, &hints, &res) != 0 || !res) return false;
  bool ok = inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr, ip, static_cast<socklen_t>(cap)) !=
            nullptr;
  freeaddrinfo(res);
  return ok;
}

}  // namespace port
}  // namespace k32

namespace k32 {
namespace port {

int tcp_peek(Socket s, uint32_t timeout_ms) {
  pollfd p{s, POLLIN, 0};
  int n;
  do { n = ::poll(&p, 1, static_cast<int>(timeout_ms)); } while (n < 0 && errno == EINTR);
  if (n == 0) return -ETIMEDOUT;
  if (n < 0) return -errno;
  unsigned char c;
  ssize_t r = ::recv(s, &c, 1, MSG_PEEK);
  if (r == 0) return 0x100;
  if (r < 0) return -errno;
  return c;
}

bool tcp_readable(Socket s) {
  unsigned char c;
  ssize_t r;
  do { r = ::recv(s, &c, 1, MSG_PEEK | MSG_DONTWAIT); } while (r < 0 && errno == EINTR);
  return r > 0;
}

bool tcp_peer_closed(Socket s) {
  unsigned char c;
  ssize_t r = ::recv(s, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

int tcp_wait_readable(const Socket* socks, bool* ready, size_t n, uint32_t timeout_ms) {
  if (n > kWaitSocketsMax) return -EINVAL;
  pollfd p[kWaitSocketsMax];
  for (size_t i = 0; i < n; ++i) p[i] = pollfd{socks[i], POLLIN, 0};
  int r;
  do { r = ::poll(p, static_cast<nfds_t>(n), static_cast<int>(timeout_ms)); } while (r < 0 && errno == EINTR);
  if (r < 0) return -errno;
  // POLLHUP and POLLERR count as ready: the next recv reports the end or the error.
  for (size_t i = 0; i < n; ++i) ready[i] = p[i].revents != 0;
  return r == 0 ? -ETIMEDOUT : r;
}

}  // namespace port
}  // namespace k32
