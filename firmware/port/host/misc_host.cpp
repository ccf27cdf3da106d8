// Randomness and the log sink on POSIX.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>
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

namespace {
std::vector<char*>& saved_argv() {
  static std::vector<char*> v;
  return v;
}
}  // namespace

void host_save_argv(int argc, char** argv) {
  saved_argv().assign(argv, argv + argc);
  saved_argv().push_back(nullptr);
}

void system_restart() {
  std::fflush(stdout);
  std::fflush(stderr);
  if (!saved_argv().empty()) ::execv("/proc/self/exe", saved_argv().data());
  std::_Exit(0);  // nothing to re-execute: at least stop, as a watchdog reset would
}

// fputs, not fprintf: glibc formats into an 8 KiB buffer on the caller's stack when the stream
// is unbuffered (stderr), so every thread that logged needed 8 KiB more than on a board and
// went past its budget in board mode. Writing the finished line takes a few hundred bytes.
void log_line(const char* line) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::fputs(line, stderr);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace port
}  // namespace k32
