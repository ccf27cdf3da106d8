// Threads started for work that comes and goes (a connection, a pod's container): a thread's
// stack is heap on the board, so one that would take the heap the node keeps for its own work
// (heap_reserve) is refused, as pod memory and API writes are, and the caller answers for it
// (503, a container's CreateContainerError) instead of the node running out mid-way.
#pragma once
#include <cstdint>

#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace util {

inline bool start_work_thread(const char* name, uint32_t stack_bytes, port::Region region, port::ThreadFn fn, void* arg) {
  // A task's stack is PSRAM only when asked for (and present); internal RAM otherwise.
  const port::Region stack = region == port::Region::Psram ? port::Region::Psram : port::Region::Internal;
  if (port::mem_available(stack) < uint64_t{stack_bytes} + K32_HEAP_RESERVE_BYTES) return false;
  return port::thread_start(name, stack_bytes, region, fn, arg);
}

}  // namespace util
}  // namespace k32
