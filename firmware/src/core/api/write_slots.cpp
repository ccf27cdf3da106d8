#include "core/api/write_slots.h"

namespace k32 {
namespace api {

bool WriteSlots::take(uint32_t wait_ms) {
  port::UniqueLock lock(mu_);
  if (!freed_.wait_for(lock, wait_ms, [&] { return free_ > 0; })) return false;
  --free_;
  return true;
}

void WriteSlots::give() {
  {
    port::LockGuard<port::Mutex> lock(mu_);
    ++free_;
  }
  freed_.notify_one();
}

}  // namespace api
}  // namespace k32
