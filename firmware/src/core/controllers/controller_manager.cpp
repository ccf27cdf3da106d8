#include "core/controllers/controller_manager.h"

#include "port.h"

namespace k32 {
namespace controllers {

void ControllerManager::pass() {
  int64_t now = port::wall_time_s();
  bool due = wake_s_ != 0 && now >= wake_s_;
  if (index_.take_dirty() || due) {
    int64_t wake = 0;
    // Deployments first: the ReplicaSets they scale are synced in the same pass.
    deployments_.pass(now, &wake);
    replicasets_.pass(now, &wake);
    wake_s_ = wake;
  }
  gc_.pass();
}

}  // namespace controllers
}  // namespace k32
