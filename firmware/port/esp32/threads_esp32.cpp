// Threads on ESP-IDF: FreeRTOS tasks whose stack comes from the region the board profile
// names (PSRAM stacks through the WithCaps API). On dual-core chips the node's tasks run on
// core 1 so Wi-Fi and lwIP keep core 0 to themselves (K32_CPU_CORES from the profile).
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "esp_heap_caps.h"
#include "freertos/FreeRTOS.h"
#include "freertos/idf_additions.h"
#include "freertos/task.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace port {

namespace {

// Below the lwIP/Wi-Fi tasks (18-23), above idle: the node's work never starves networking.
constexpr UBaseType_t kTaskPriority = 5;

struct Start {
  ThreadFn fn;
  void* arg;
  uint32_t budget;
  char name[16];
};

struct Totals {
  uint32_t peak = 0;
  uint32_t threads = 0;
};

// (name, budget) -> deepest use of an ended task of that kind, from FreeRTOS' high-water mark.
struct Registry {
  Mutex lock;
  std::map<std::pair<std::string, uint32_t>, Totals> kinds;
};

Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

void trampoline(void* p) {
  Start s = *static_cast<Start*>(p);
  heap_caps_free(p);
  Registry& r = registry();
  {
    LockGuard<Mutex> g(r.lock);
    r.kinds[{s.name, s.budget}].threads++;
  }
  s.fn(s.arg);
  // ESP-IDF's FreeRTOS reports the minimum free stack in bytes.
  const uint32_t low = static_cast<uint32_t>(uxTaskGetStackHighWaterMark(nullptr));
  const uint32_t peak = low < s.budget ? s.budget - low : 0;
  {
    LockGuard<Mutex> g(r.lock);
    Totals& t = r.kinds[{s.name, s.budget}];
    if (peak > t.peak) t.peak = peak;
  }
  // A WithCaps task frees its own TCB and stack through a short helper task.
  vTaskDeleteWithCaps(nullptr);
}

BaseType_t core_for_tasks() { return K32_CPU_CORES > 1 ? 1 : tskNO_AFFINITY; }

}  // namespace

bool thread_start(const char* name, uint32_t stack_bytes, Region region, ThreadFn fn, void* arg) {
  Start* s = static_cast<Start*>(heap_caps_malloc(sizeof(Start), MALLOC_CAP_INTERNAL | MALLOC_CAP_8BIT));
  if (!s) return false;
  s->fn = fn;
  s->arg = arg;
  s->budget = stack_bytes;
  std::memset(s->name, 0, sizeof s->name);
  std::strncpy(s->name, name, sizeof s->name - 1);
  const bool psram = region == Region::Psram && has_psram();
  // Stacks in PSRAM must not be used while the flash cache is off; the node's tasks never
  // run from IRAM with the cache disabled, so this is safe for them (not for ISRs).
  const UBaseType_t caps = psram ? (MALLOC_CAP_SPIRAM | MALLOC_CAP_8BIT) : (MALLOC_CAP_INTERNAL | MALLOC_CAP_8BIT);
  TaskHandle_t handle = nullptr;
  // ESP-IDF's FreeRTOS counts stack depth in bytes.
  BaseType_t ok =
      xTaskCreatePinnedToCoreWithCaps(trampoline, name, stack_bytes, s, kTaskPriority, &handle, core_for_tasks(), caps);
  if (ok != pdPASS) {
    heap_caps_free(s);
    return false;
  }
  return true;
}

size_t stack_report(StackUse* out, size_t max) {
  Registry& r = registry();
  LockGuard<Mutex> g(r.lock);
  size_t i = 0;
  for (const auto& kv : r.kinds) {
    if (i < max) {
      StackUse& u = out[i];
      u = StackUse{};  // not memset: the default member initializer makes it non-trivial
      std::strncpy(u.name, kv.first.first.c_str(), sizeof u.name - 1);
      u.budget = kv.first.second;
      u.peak = kv.second.peak;
      u.threads = kv.second.threads;
    }
    ++i;
  }
  return i;
}

uint32_t stack_free_bytes() {
  // The stack grows down from its end towards pxTaskGetStackStart(); what lies between the
  // current frame and the start is what a deeper call may still use.
  const uint8_t* start = pxTaskGetStackStart(nullptr);
  const uint8_t* here = static_cast<const uint8_t*>(__builtin_frame_address(0));
  if (!start || here <= start) return 0;
  return static_cast<uint32_t>(here - start);
}

}  // namespace port
}  // namespace k32
