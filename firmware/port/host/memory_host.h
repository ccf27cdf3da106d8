// What the simulator's allocator (memory_host.cpp) offers the rest of port/host beyond port.h.
#pragma once
#include <cstdint>

#include "port.h"

namespace k32 {
namespace port {

// A thread's stack booked as heap: on a board FreeRTOS takes every task's stack from the heap
// (the region the profile names), so the simulator books the same bytes while the thread lives.
struct StackHeap {
  uint64_t bytes = 0;
  uint32_t region = 0;  // 0 internal, 1 PSRAM
  uint32_t site = 0;    // heap_sites_host.cpp's call site (0 when the profile is off)
};
// Books `bytes` in the region a board's task stack would take (PSRAM only when asked for and
// present, as port/esp32 places it), or refuses without booking anything.
bool stack_heap_take(uint64_t bytes, Region region, StackHeap* out);
void stack_heap_give(const StackHeap& booked);

}  // namespace port
}  // namespace k32
