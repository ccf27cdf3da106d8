#include "core/calls/tls_sessions.h"

#include "k32_board.h"
#include "runtime/k32_app_abi.h"
#include "port.h"

namespace k32 {
namespace calls {

TlsSessions::TlsSessions(uint32_t count, uint32_t stack_bytes, port::Region region)
    : stack_bytes_(stack_bytes), region_(region), slots_(count) {
  for (auto& s : slots_) s.owner = this;
}

void TlsSessions::thread_main(void* arg) {
  Slot* slot = static_cast<Slot*>(arg);
  TlsSessions* self = slot->owner;
  port::UniqueLock lk(self->mu_);
  for (;;) {
    self->cv_.wait(lk, [&] { return slot->job != nullptr; });
    const std::function<int32_t()>* job = slot->job;
    lk.unlock();
    int32_t rc = (*job)();
    lk.lock();
    slot->job = nullptr;
    slot->result = rc;
    slot->done = true;
    self->cv_.notify_all();
  }
}

int32_t TlsSessions::run(const std::function<int32_t()>& job) {
  port::UniqueLock lk(mu_);
  Slot* slot = nullptr;
  for (auto& s : slots_)
    if (!s.busy) {
      slot = &s;
      break;
    }
  if (!slot) return K32_ERR_BUSY;
  slot->busy = true;
  if (!slot->started) {
    slot->started = port::thread_start("k32_tls", stack_bytes_, region_, &TlsSessions::thread_main, slot);
    if (!slot->started) {
      slot->busy = false;
      return K32_ERR_BUSY;  // no memory for the session thread now; the caller may retry
    }
  }
  slot->done = false;
  slot->job = &job;
  cv_.notify_all();
  cv_.wait(lk, [&] { return slot->done; });
  slot->busy = false;
  return slot->result;
}

uint32_t TlsSessions::in_use() const {
  port::LockGuard<port::Mutex> lk(mu_);
  uint32_t n = 0;
  for (const auto& s : slots_) n += s.busy ? 1 : 0;
  return n;
}

uint32_t TlsSessions::started() const {
  port::LockGuard<port::Mutex> lk(mu_);
  uint32_t n = 0;
  for (const auto& s : slots_) n += s.started ? 1 : 0;
  return n;
}

TlsSessions& node_tls_sessions() {
  static TlsSessions* s =
      new TlsSessions(K32_TLS_SESSIONS, K32_TLS_SESSION_STACK_BYTES, static_cast<port::Region>(K32_TLS_SESSION_STACK_REGION));
  return *s;
}

}  // namespace calls
}  // namespace k32
