// The port's heap budget per region: an allocation past the board's budget for its region
// fails (nullptr, as heap_caps_malloc fails on the board) without booking anything, and the
// memory booked goes back on free. "Any" is internal RAM first, PSRAM past it (spilled).
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

  // Past both regions together: "Any" falls back from internal RAM to PSRAM and still fails.
  CHECK(port::mem_alloc(size_t{K32_HEAP_INTERNAL_BYTES} + K32_HEAP_PSRAM_BYTES + 1, port::Region::Any) == nullptr);

  // "Any" is internal RAM first, and what the node's guarded paths measure their reserve in.
  void* any = port::mem_alloc(1000, port::Region::Any);
  CHECK(any != nullptr);
  after = port::mem_stats();
  CHECK_EQ(after.internal_in_use, before.internal_in_use + 1000);
  CHECK_EQ(after.psram_in_use, before.psram_in_use);
  CHECK_EQ(after.internal_spilled, uint64_t{0});
  // What an "Any" allocation can still take: internal RAM and, where it spills, PSRAM.
  CHECK_EQ(port::mem_available(port::Region::Any), port::mem_available(port::Region::Internal) +
                                                       (K32_HEAP_PSRAM_BYTES > 0 ? port::mem_available(port::Region::Psram) : 0));
  port::mem_free(any);

  // Filling the internal region to its last byte works; one more byte does not.
  const uint64_t room = K32_HEAP_INTERNAL_BYTES - port::mem_stats().internal_in_use;
  void* big = port::mem_alloc(static_cast<size_t>(room), port::Region::Internal);
  CHECK(big != nullptr);
  CHECK_EQ(port::mem_stats().internal_in_use, uint64_t{K32_HEAP_INTERNAL_BYTES});
  CHECK(port::mem_alloc(1, port::Region::Internal) == nullptr);
  // With internal RAM full, "Any" (every C++ allocation of the node, guarded or not) takes
  // PSRAM where the board has it, counted as spilled, instead of failing and ending the
  // node, as ESP-IDF's malloc falls back. Without PSRAM it fails.
  void* spill = port::mem_alloc(1000, port::Region::Any);
  if (K32_HEAP_PSRAM_BYTES > 0) {
    CHECK(spill != nullptr);
    after = port::mem_stats();
    CHECK_EQ(after.psram_in_use, before.psram_in_use + 1000);
    CHECK_EQ(after.internal_spilled, uint64_t{1000});
    CHECK_EQ(port::mem_available(port::Region::Internal), uint64_t{0});
    CHECK_EQ(port::mem_available(port::Region::Any), port::mem_available(port::Region::Psram));
    port::mem_free(spill);
    CHECK_EQ(port::mem_stats().internal_spilled, uint64_t{0});
    CHECK_EQ(port::mem_stats().psram_in_use, before.psram_in_use);
  } else {
    CHECK(spill == nullptr);
  }
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
