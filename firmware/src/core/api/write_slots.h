// How many API writes (POST, PUT, PATCH) run at once. Each write holds its body parsed, the
// object it makes, the stored and serialised forms and its watch event for a moment (about
// WRITE_HEAP_FACTOR times its body): pods starting together (status PATCHes, Events,
// bindings) held ~20 KiB of a control plane's internal RAM at once beyond what they stored.
// A write past the board's api_writes waits for one to finish, and checks the heap (507)
// only once it runs, so the check sees what the writes before it left.
#pragma once
#include <cstdint>

#include "port.h"

namespace k32 {
namespace api {

class WriteSlots {
 public:
  explicit WriteSlots(uint32_t slots) : free_(slots ? slots : 1) {}
  // Takes a slot, waiting up to `wait_ms` for one; false when none came free in time.
  bool take(uint32_t wait_ms);
  void give();

 private:
  port::Mutex mu_;
  port::CondVar freed_;
  uint32_t free_;
};

// A slot held for a scope when `want` (a write); taken() false when none came free in time.
class WriteSlot {
 public:
  WriteSlot(WriteSlots* s, bool want, uint32_t wait_ms) : s_(s), held_(want && s->take(wait_ms)) {}
  ~WriteSlot() {
    if (held_) s_->give();
  }
  WriteSlot(const WriteSlot&) = delete;
  WriteSlot& operator=(const WriteSlot&) = delete;
  bool taken() const { return held_; }

 private:
  WriteSlots* s_;
  bool held_;
};

}  // namespace api
}  // namespace k32
