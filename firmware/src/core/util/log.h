// Node log lines, and the once-per-second rate limit on [NETPOL]/[EGRESS] lines (a pod that
// retries a denied call in a loop must not flood the console or starve the log sink).
#pragma once
#include <cstdint>
#include <string>
#include "port.h"

namespace k32 {

void logf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Lets one line through per interval; the ones in between are counted, not printed.
class RateLimitedLog {
 public:
  explicit RateLimitedLog(uint32_t interval_ms = 1000) : interval_ms_(interval_ms) {}
  void log(const std::string& line);
  uint32_t suppressed() const { return suppressed_; }

 private:
  port::Mutex mu_;
  uint32_t interval_ms_;
  uint64_t last_ms_ = 0;
  bool any_ = false;
  uint32_t suppressed_ = 0;
};

}  // namespace k32
