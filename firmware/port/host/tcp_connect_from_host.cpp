// tcp_connect from a chosen local address (POSIX): bind to local_ip:0, then connect.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "port.h"

namespace k32 {
namespace port {

Socket tcp_connect_from(const char* local_ip, const char* ip, uint16_t port, uint32_t timeout_ms, int* err) {
  if (!local_ip || !*local_ip) return tcp_connect(ip, port, timeout_ms, err);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_port = 0;
  if (inet_pton(AF_INET, local_ip, &local.sin_addr) != 1) {
    if (err) *err = -EINVAL;
    return kNoSocket;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
    if (err) *err = -EINVAL;
    return kNoSocket;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (err) *err = -errno;
    return kNoSocket;
  }
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    if (err) *err = -errno;
    ::close(fd);
    return kNoSocket;
  }
  // A blocking connect bounded by SO_SNDTIMEO (Linux applies it to connect).
  timeval tv{static_cast<time_t>(timeout_ms / 1000), static_cast<suseconds_t>((timeout_ms % 1000) * 1000)};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    int e = errno;
    if (err) *err = (e == EINPROGRESS || e == EAGAIN || e == EWOULDBLOCK) ? -ETIMEDOUT : -e;
    ::close(fd);
    return kNoSocket;
  }
  timeval none{0, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace port
}  // namespace k32
