// The port's stack accounting: a thread's measured peak covers what it really used, stays
// within the stack it was given, and is visible both while it runs and after it ends.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"
#include "k32_board.h"
#include "port.h"

using namespace k32;

namespace {

// A stack the test threads run on: the board's in-process call budget (the largest one the
// node's threads take), and a quarter of it actually touched.
constexpr uint32_t kBudget = K32_INPROC_CALL_STACK_BYTES;
constexpr uint32_t kTouch = kBudget / 4;

std::atomic<int> g_phase{0};

__attribute__((noinline)) void use_stack(uint32_t bytes) {
  std::vector<char> dummy;  // keeps the compiler from folding the frame away
  volatile char* buf = static_cast<volatile char*>(__builtin_alloca(bytes));
  for (uint32_t i = 0; i < bytes; i += 64) buf[i] = static_cast<char>(i);
  buf[0] = 1;
}

void ends_at_once(void*) { use_stack(kTouch); }

void waits(void*) {
  use_stack(kTouch);
  g_phase = 1;
  while (g_phase.load() != 2) port::sleep_ms(5);
}

bool row(const char* name, port::StackUse* out) {
  std::vector<port::StackUse> rows(port::stack_report(nullptr, 0));
  size_t n = port::stack_report(rows.data(), rows.size());
  for (size_t i = 0; i < n && i < rows.size(); i++) {
    if (std::strcmp(rows[i].name, name) == 0) {
      *out = rows[i];
      return true;
    }
  }
  return false;
}

// Polls until the row shows at least `min_peak` (a thread records its last figure as it ends).
bool wait_peak(const char* name, uint32_t min_peak, port::StackUse* out) {
  const uint64_t deadline = port::monotonic_ms() + 5000;
  while (port::monotonic_ms() < deadline) {
    if (row(name, out) && out->peak >= min_peak) return true;
    port::sleep_ms(5);
  }
  return false;
}

}  // namespace

int main() {
  port::StackUse u{};
#if !defined(__SANITIZE_ADDRESS__)
  CHECK(port::thread_start("stk-ended", kBudget, port::Region::Any, &ends_at_once, nullptr));
  CHECK(wait_peak("stk-ended", kTouch, &u));
  CHECK_EQ(u.budget, kBudget);
  CHECK_EQ(u.threads, 1u);
  CHECK(u.peak >= kTouch);
  CHECK(u.peak <= kBudget);

  // A running thread's use is measured without waiting for it to end.
  CHECK(port::thread_start("stk-live", kBudget, port::Region::Any, &waits, nullptr));
  while (g_phase.load() != 1) port::sleep_ms(5);
  CHECK(row("stk-live", &u));
  CHECK(u.peak >= kTouch);
  CHECK(u.peak <= kBudget);
  g_phase = 2;
#else
  CHECK(port::thread_start("stk-ended", kBudget, port::Region::Any, &ends_at_once, nullptr));
  CHECK(wait_peak("stk-ended", 0, &u));  // counted, not measured under AddressSanitizer
  CHECK_EQ(u.threads, 1u);
#endif
  TEST_MAIN_END();
}
