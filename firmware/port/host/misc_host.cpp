// Randomness and the log sink on POSIX.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>

#include "port.h"

namespace k32 {
namespace port {

void random_fill(void* buf, size_t len) {
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  size_t got = 0;
  if (fd >= 0) {
    while (got < len) {
      ssize_t r = ::read(fd, static_cast<char*>(buf) + got, len - got);
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    ::close(fd);
  }
  // /dev/urandom failing is not survivable for tokens/uids; refuse to continue silently.
  if (got < len) std::abort();
}

void log_line(const char* line) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::fprintf(stderr, "%s\n", line);
  std::fflush(stderr);
}

}  // namespace port
}  // namespace k32
