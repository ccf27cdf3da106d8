#include "core/kubelet/call_watch.h"

#include <algorithm>

#include "core/kubelet/kubelet.h"

#include "port.h"

namespace k32 {
namespace kubelet {

Gate enter_call(Pod* p, Container* c, uint64_t deadline_ms) {
  port::UniqueLock lock(p->mu);
  for (;;) {
    if (p->stopping) return Gate::Stopping;
    if (!c->busy) break;
    uint64_t now = port::monotonic_ms();
    if (now >= deadline_ms) return Gate::Timeout;
    p->cv.wait_for(lock, static_cast<uint32_t>(std::min<uint64_t>(deadline_ms - now, UINT32_MAX)));
  }
  c->busy = true;
  return Gate::Ok;
}

void leave_call(Pod* p, Container* c) {
  {
    port::LockGuard<port::Mutex> lock(p->mu);
    c->busy = false;
  }
  p->cv.notify_all();
  // The node's event delivery may have passed this pod over while the call ran.
  if (p->kubelet) p->kubelet->call_ended();
}

bool arm_call(Pod* p, Container* c, uint64_t deadline_ms) {
  port::LockGuard<port::Mutex> lock(c->store_mu);
  // Checked under store_mu, which stop_pod and the watch take to interrupt: a stop that
  // comes later finds the call armed and interrupts it.
  if (p->stopping || !c->store) return false;
  c->call_deadline_ms = deadline_ms;
  c->call_overdue = false;
  return true;
}

bool disarm_call(Container* c) {
  port::LockGuard<port::Mutex> lock(c->store_mu);
  c->call_deadline_ms = 0;
  return c->call_overdue;
}

void watch_calls(const std::vector<std::shared_ptr<Pod>>& pods, uint64_t now_ms) {
  for (const auto& p : pods) {
    for (auto& cp : p->containers) {
      Container* c = cp.get();
      port::LockGuard<port::Mutex> lock(c->store_mu);
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
