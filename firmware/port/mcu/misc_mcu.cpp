// Randomness, restart and the log sink of the bare-metal test target.
#include <cstdio>
#include <cstdlib>

#include "port.h"
#include "semihost.h"

namespace k32 {
namespace port {

// A test target only: xorshift seeded from the emulator's clock. Boards use their hardware
// generator; nothing here is meant to be unpredictable.
void random_fill(void* buf, size_t len) {
  static uint64_t state = 0;
  if (state == 0) {
    uint32_t t[2] = {0, 0};
    mcu::semihost(mcu::kSysElapsed, t);
    state = ((static_cast<uint64_t>(t[1]) << 32) | t[0]) ^ 0x9e3779b97f4a7c15ull;
  }
  uint8_t* out = static_cast<uint8_t*>(buf);
  for (size_t i = 0; i < len; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    out[i] = static_cast<uint8_t>(state >> 24);
  }
}

// There is no image to restart into: end the run with a distinct status.
[[noreturn]] void system_restart() {
  std::fflush(nullptr);
  std::exit(3);
}

void log_line(const char* line) {
  std::fputs(line, stderr);
  std::fputc('\n', stderr);
}

}  // namespace port
}  // namespace k32

// newlib's arc4random and libstdc++'s random_device ask the system for entropy.
extern "C" int getentropy(void* buf, size_t len) {
  k32::port::random_fill(buf, len);
  return 0;
}
