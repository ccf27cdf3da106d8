// The API server's write slots (api_writes in the board profile): a write past the board's
// count waits for one to be given back and is turned away (503) when none comes in time; a
// slot given back lets the next write run. One write thread holds a slot while another waits.
#include <atomic>

#include "check.h"
#include "core/api/write_slots.h"
#include "k32_board.h"
#include "port.h"

using namespace k32;

namespace {

struct Holder {
  api::WriteSlots* slots;
  std::atomic<bool> taken{false};
  std::atomic<bool> release{false};
  std::atomic<bool> done{false};
};

void hold_main(void* arg) {
  Holder* h = static_cast<Holder*>(arg);
  h->taken = h->slots->take(30000);
  while (!h->release) port::sleep_ms(1);
  h->slots->give();
  h->done = true;
}

}  // namespace

int main() {
  api::WriteSlots slots(1);
  {
    api::WriteSlot first(&slots, true, 0);
    CHECK(first.taken());
    // The only slot is held: a second write is turned away once its wait runs out.
    api::WriteSlot second(&slots, true, 20);
    CHECK(!second.taken());
    // A read takes no slot and never waits.
    api::WriteSlot read(&slots, false, 0);
    CHECK(!read.taken());
  }
  // Given back at the end of the scope: the next write runs.
  CHECK(slots.take(0));
  slots.give();

  // Another thread's write holds the slot; this one waits until it is given back.
  Holder h;
  h.slots = &slots;
  CHECK(port::thread_start("holder", K32_API_CONN_STACK_BYTES, port::Region::Any, &hold_main, &h));
  for (int i = 0; i < 30000 && !h.taken; ++i) port::sleep_ms(1);  // a loaded machine may be slow
  CHECK(h.taken.load());
  CHECK(!slots.take(0));
  h.release = true;
  CHECK(slots.take(30000));
  slots.give();
  for (int i = 0; i < 30000 && !h.done; ++i) port::sleep_ms(1);
  CHECK(h.done.load());
  TEST_MAIN_END();
}
