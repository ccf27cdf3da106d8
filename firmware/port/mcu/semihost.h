// ARM semihosting calls (the debugger/emulator services the bare-metal port runs on).
#pragma once
#include <cstdint>

namespace k32 {
namespace port {
namespace mcu {

enum : uint32_t { kSysRename = 0x0f, kSysSystem = 0x12, kSysElapsed = 0x30, kSysTickFreq = 0x31 };

inline uint32_t semihost(uint32_t op, const void* arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace mcu
}  // namespace port
}  // namespace k32
