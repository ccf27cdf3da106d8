// Clock on POSIX: the host clock is always set (boards wait for SNTP).
#include <ctime>
#include <time.h>

#include "port.h"

namespace k32 {
namespace port {

uint64_t monotonic_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000u + static_cast<uint64_t>(ts.tv_nsec / 1000000);
}

uint64_t monotonic_us() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000u + static_cast<uint64_t>(ts.tv_nsec / 1000);
}

int64_t wall_time_s() { return static_cast<int64_t>(time(nullptr)); }

bool wall_clock_set() { return true; }

void sleep_ms(uint32_t ms) {
  timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = static_cast<long>(ms % 1000) * 1000000L;
  while (nanosleep(&ts, &ts) != 0) {}
}

}  // namespace port
}  // namespace k32
