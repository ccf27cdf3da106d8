// The port's heap budget per region: an allocation past the board's budget for its region
// fails (nullptr, as heap_caps_malloc fails on the board) without booking anything, and the
// memory booked goes back on free.
#include <cstdint>

#include "check.h"
#include "k32_board.h"
#include "port.h"

using namespace k32;

int main() {
  const port::MemStats before = port::mem_stats();
  // Larger than the whole internal budget: refused, nothing booked.
  CHECK(port::mem_alloc(size_t{K32_HEAP_INTERNAL_BYTES} + 1, port::Region::Internal) == nullptr);
  port::MemStats after = port::mem_stats();
  CHECK_EQ(after.internal_in_use, before.internal_in_use);
  CHECK_EQ(after.psram_in_use, before.psram_in_use);

  // Past both regions together: "Any" falls back from PSRAM to internal RAM and still fails.
  CHECK(port::mem_alloc(size_t{K32_HEAP_INTERNAL_BYTES} + K32_HEAP_PSRAM_BYTES + 1, port::Region::Any) == nullptr);

  // Filling the internal region to its last byte works; one more byte does not.
  const uint64_t room = K32_HEAP_INTERNAL_BYTES - port::mem_stats().internal_in_use;
  void* big = port::mem_alloc(static_cast<size_t>(room), port::Region::Internal);
  CHECK(big != nullptr);
  CHECK_EQ(port::mem_stats().internal_in_use, uint64_t{K32_HEAP_INTERNAL_BYTES});
  CHECK(port::mem_alloc(1, port::Region::Internal) == nullptr);
  port::mem_free(big);
  CHECK_EQ(port::mem_stats().internal_in_use, before.internal_in_use);

  // A PSRAM request lands in PSRAM where the board has it, in internal RAM where it has not.
  void* p = port::mem_alloc(1000, port::Region::Psram);
  CHECK(p != nullptr);
  after = port::mem_stats();
  if (K32_HEAP_PSRAM_BYTES > 0) {
    CHECK_EQ(after.psram_in_use, before.psram_in_use + 1000);
  } else {
    CHECK_EQ(after.internal_in_use, before.internal_in_use + 1000);
  }
  port::mem_free(p);
  TEST_MAIN_END();
}
