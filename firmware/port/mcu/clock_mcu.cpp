// Time on the bare-metal target: the emulator's elapsed-time counter (semihosting), the
// host's wall clock for Unix time, and busy waiting (there is nothing else to run).
#include <ctime>

#include "port.h"
#include "semihost.h"

namespace k32 {
namespace port {

uint64_t monotonic_ms() {
  static uint32_t freq = 0;
  if (freq == 0) freq = mcu::semihost(mcu::kSysTickFreq, nullptr);
  uint32_t ticks[2] = {0, 0};
  if (freq == 0 || freq == 0xffffffffu || mcu::semihost(mcu::kSysElapsed, ticks) != 0) return 0;
  const uint64_t t = (static_cast<uint64_t>(ticks[1]) << 32) | ticks[0];
  return t / (freq / 1000u ? freq / 1000u : 1u);
}

uint64_t monotonic_us() {
  static uint32_t freq = 0;
  if (freq == 0) freq = mcu::semihost(mcu::kSysTickFreq, nullptr);
  uint32_t ticks[2] = {0, 0};
  if (freq == 0 || freq == 0xffffffffu || mcu::semihost(mcu::kSysElapsed, ticks) != 0) return 0;
  const uint64_t t = (static_cast<uint64_t>(ticks[1]) << 32) | ticks[0];
  return freq >= 1000000u ? t / (freq / 1000000u) : t * (1000000u / freq);
}

int64_t wall_time_s() { return static_cast<int64_t>(std::time(nullptr)); }
bool wall_clock_set() { return wall_time_s() > 0; }

void sleep_ms(uint32_t ms) {
  const uint64_t until = monotonic_ms() + ms;
  while (monotonic_ms() < until) {}
}

}  // namespace port
}  // namespace k32
