#include "core/util/log.h"

#include <cstdarg>
#include <cstdio>

#include "k32_board.h"
#include "port.h"

namespace k32 {

void logf(const char* fmt, ...) {
  char buf[K32_LOG_LINE_MAX];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  port::log_line(buf);
}

void RateLimitedLog::log(const std::string& line) {
  uint64_t now = port::monotonic_ms();
  port::LockGuard<port::Mutex> lock(mu_);
  if (any_ && now - last_ms_ < interval_ms_) {
    ++suppressed_;
    return;
  }
  any_ = true;
  last_ms_ = now;
  port::log_line(line.c_str());
}

}  // namespace k32
