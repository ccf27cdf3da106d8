// The control plane's TLS session threads: up to K32_TLS_SESSIONS threads with
// K32_TLS_SESSION_STACK_BYTES stacks, started on the first call (a TLS handshake needs more
// stack than a pod's thread can spare, so it runs here); the calling thread waits for its
// session; when every session is in use the call gets K32_ERR_BUSY at once rather than
// queueing behind handshakes that may take seconds.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "port.h"

namespace k32 {
namespace calls {

class TlsSessions {
 public:
  TlsSessions(uint32_t count, uint32_t stack_bytes, port::Region region);
  // Runs `job` on a free session thread and returns its result, or K32_ERR_BUSY.
  int32_t run(const std::function<int32_t()>& job);
  uint32_t in_use() const;
  uint32_t started() const;

 private:
  struct Slot {
    TlsSessions* owner = nullptr;
    bool started = false;
    bool busy = false;
    const std::function<int32_t()>* job = nullptr;
    bool done = false;
    int32_t result = 0;
  };
  static void thread_main(void* slot);
  const uint32_t stack_bytes_;
  const port::Region region_;
  mutable port::Mutex mu_;
  port::CondVar cv_;
  std::vector<Slot> slots_;
};

// The node's sessions, sized by the board profile.
TlsSessions& node_tls_sessions();

}  // namespace calls
}  // namespace k32
