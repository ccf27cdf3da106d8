// A thread's stack is heap while the thread lives, as FreeRTOS takes every task's stack from
// the board's heap: starting one books its budget in the region it asked for (PSRAM only where
// the board has it), its end gives it back, and a stack the region cannot hold is refused
// without starting anything or booking a byte.
#include <atomic>
#include <cstdint>
#include <string>

#include "check.h"
#include "k32_board.h"
#include "port.h"

using namespace k32;

namespace {

constexpr uint32_t kBudget = K32_INPROC_CALL_STACK_BYTES;
// What else a thread start allocates beside its stack (the start record, the registry's row
// for a new kind): a few hundred bytes, far below any stack.
constexpr uint64_t kSlack = 1024;

std::atomic<int> g_phase{0};
std::atomic<int> g_ran{0};

void waits(void*) {
  g_ran++;
  g_phase = 1;
  while (g_phase.load() != 2) port::sleep_ms(2);
}

uint64_t booked(port::Region r) {
  const port::MemStats m = port::mem_stats();
  return r == port::Region::Psram ? m.psram_in_use : m.internal_in_use;
}

// Waits until the region's booking drops back to at most `limit` (the thread has ended).
bool falls_to(port::Region r, uint64_t limit) {
  const uint64_t deadline = port::monotonic_ms() + 5000;
  while (port::monotonic_ms() < deadline) {
    if (booked(r) <= limit) return true;
    port::sleep_ms(2);
  }
  return false;
}

uint32_t running(const char* name) {
  port::StackUse rows[64];
  size_t n = port::stack_report(rows, 64);
  for (size_t i = 0; i < n && i < 64; i++)
    if (std::string(rows[i].name) == name) return rows[i].running;
  return 0;
}

// Runs one thread in `asked`; checks its stack is booked in `lands` while it lives and gone after.
void books_while_alive(const char* name, port::Region asked, port::Region lands) {
  const uint64_t before = booked(lands);
  g_phase = 0;
  CHECK(port::thread_start(name, kBudget, asked, &waits, nullptr));
  while (g_phase.load() != 1) port::sleep_ms(2);
  const uint64_t alive = booked(lands);
  CHECK(alive >= before + kBudget);
  CHECK(alive <= before + kBudget + kSlack);
  CHECK_EQ(running(name), 1u);
  g_phase = 2;
  CHECK(falls_to(lands, before + kSlack));
  CHECK(booked(lands) < before + kBudget);
  CHECK_EQ(running(name), 0u);
}

}  // namespace

int main() {
  books_while_alive("stk-internal", port::Region::Internal, port::Region::Internal);
  // An ordinary thread's stack is internal RAM, as ESP-IDF's xTaskCreate puts it.
  books_while_alive("stk-any", port::Region::Any, port::Region::Internal);
  books_while_alive("stk-psram", port::Region::Psram, port::has_psram() ? port::Region::Psram : port::Region::Internal);

  // Internal RAM too full for one more stack: the thread is refused and never runs, nothing
  // is booked, and once the heap is back the same thread starts.
  const uint64_t room = K32_HEAP_INTERNAL_BYTES - booked(port::Region::Internal);
  void* fill = port::mem_alloc(static_cast<size_t>(room - kBudget / 2), port::Region::Internal);
  CHECK(fill != nullptr);
  const port::MemStats full = port::mem_stats();
  const int ran = g_ran.load();
  g_phase = 0;
  CHECK(!port::thread_start("stk-refused", kBudget, port::Region::Internal, &waits, nullptr));
  port::sleep_ms(20);
  CHECK_EQ(g_ran.load(), ran);
  CHECK_EQ(port::mem_stats().internal_in_use, full.internal_in_use);
  CHECK_EQ(port::mem_stats().psram_in_use, full.psram_in_use);
  port::mem_free(fill);
  books_while_alive("stk-refused", port::Region::Internal, port::Region::Internal);
  TEST_MAIN_END();
}
