// Clocks on ESP-IDF: esp_timer (microseconds since boot, never set back) for deadlines, the
// system time (set by SNTP once the uplink is up) for wall-clock dates.
#include <sys/time.h>

#include "esp_timer.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#include "port.h"

namespace k32 {
namespace port {

namespace {
// Before SNTP the RTC counts from 1970; anything earlier than this is "not set yet".
constexpr int64_t kClockSetAfter = 1704067200;  // 2024-01-01T00:00:00Z
}  // namespace

uint64_t monotonic_ms() { return static_cast<uint64_t>(esp_timer_get_time() / 1000); }
uint64_t monotonic_us() { return static_cast<uint64_t>(esp_timer_get_time()); }

int64_t wall_time_s() {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  return tv.tv_sec >= kClockSetAfter ? static_cast<int64_t>(tv.tv_sec) : 0;
}

bool wall_clock_set() { return wall_time_s() != 0; }

void sleep_ms(uint32_t ms) {
  // Round up so a short sleep still yields at least one tick instead of spinning.
  TickType_t ticks = pdMS_TO_TICKS(ms);
  vTaskDelay(ticks == 0 && ms > 0 ? 1 : ticks);
}

}  // namespace port
}  // namespace k32
