#include "core/kubelet/call_watch.h"

#include <chrono>

#include "port.h"

namespace k32 {
namespace kubelet {

Gate enter_call(Pod* p, Container* c, uint64_t deadline_ms) {
  std::unique_lock<std::mutex> lock(p->mu);
  for (;;) {
    if (p->stopping) return Gate::Stopping;
    if (!c->busy) break;
    uint64_t now = port::monotonic_ms();
    if (now >= deadline_ms) return Gate::Timeout;
    p->cv.wait_for(lock, std::chrono::milliseconds(deadline_ms - now));
  }
  c->busy = true;
  return Gate::Ok;
}

void leave_call(Pod* p, Container* c) {
  {
    std::lock_guard<std::mutex> lock(p->mu);
    c->busy = false;
  }
  p->cv.notify_all();
}

bool arm_call(Pod* p, Container* c, uint64_t deadline_ms) {
  std::lock_guard<std::mutex> lock(c->store_mu);
  // Checked under store_mu, which stop_pod and the watch take to interrupt: a stop that
  // comes later finds the call armed and interrupts it.
  if (p->stopping || !c->store) return false;
  c->call_deadline_ms = deadline_ms;
  c->call_overdue = false;
  return true;
}

bool disarm_call(Container* c) {
  std::lock_guard<std::mutex> lock(c->store_mu);
  c->call_deadline_ms = 0;
  return c->call_overdue;
}

void watch_calls(const std::vector<std::shared_ptr<Pod>>& pods, uint64_t now_ms) {
  for (const auto& p : pods) {
    for (auto& cp : p->containers) {
      Container* c = cp.get();
      std::lock_guard<std::mutex> lock(c->store_mu);
      if (!c->call_deadline_ms || !c->store) continue;
      bool overdue = now_ms >= c->call_deadline_ms;
      if (!overdue && !p->stopping) continue;
      if (overdue) c->call_overdue = true;
      wasm::store_interrupt(c->store);
    }
  }
}

}  // namespace kubelet
}  // namespace k32
