// No scheduler on the bare-metal test target: starting a thread fails (callers handle that
// as they would an out-of-memory task creation on a board), and the one stack is the main
// stack the linker script reserves.
#include "port.h"

extern "C" char __StackLimit;  // linker script: lowest address of the main stack

namespace k32 {
namespace port {

bool thread_start(const char*, uint32_t, Region, ThreadFn, void*) { return false; }

uint32_t stack_free_bytes() {
  char probe;
  const uintptr_t here = reinterpret_cast<uintptr_t>(&probe);
  const uintptr_t limit = reinterpret_cast<uintptr_t>(&__StackLimit);
  return here > limit ? static_cast<uint32_t>(here - limit) : 0u;
}

}  // namespace port
}  // namespace k32
