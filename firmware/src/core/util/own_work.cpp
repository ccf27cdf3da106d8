#include "core/util/own_work.h"

namespace k32 {
namespace util {

port::RecursiveMutex& own_work_gate() {
  // Never destroyed: threads may still take it while the process exits.
  static port::RecursiveMutex* gate = new port::RecursiveMutex();
  return *gate;
}

}  // namespace util
}  // namespace k32
