// Randomness, restart and the log sink on ESP-IDF.
#include <cstdio>

#include "esp_random.h"
#include "esp_system.h"
#include "freertos/FreeRTOS.h"
#include "freertos/semphr.h"
#include "port.h"

namespace k32 {
namespace port {

void random_fill(void* buf, size_t len) {
  // The hardware RNG is cryptographically strong once the radio (or the bootloader's
  // entropy source) runs; the node starts Wi-Fi before it creates tokens or keys.
  esp_fill_random(buf, len);
}

void system_restart() {
  std::fflush(stdout);
  std::fflush(stderr);
  esp_restart();
}

void log_line(const char* line) {
  // One lock so lines from several tasks never interleave on the UART; made on first use
  // (static, no heap) because logging may start before anything else.
  static StaticSemaphore_t storage;
  static SemaphoreHandle_t mu = xSemaphoreCreateMutexStatic(&storage);
  xSemaphoreTake(mu, portMAX_DELAY);
  std::fputs(line, stderr);
  std::fputs("\n", stderr);
  std::fflush(stderr);
  xSemaphoreGive(mu);
}

}  // namespace port
}  // namespace k32
