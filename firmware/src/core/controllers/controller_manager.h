// The control plane's controllers, as kube-controller-manager runs them: Deployments,
// ReplicaSets and the garbage collector, over one index of owned objects. They own no
// thread: the scheduler's loop calls pass() after each of its own passes (on every store
// change, and at least once a second).
#pragma once
#include <cstdint>

#include "core/api/api_server.h"
#include "core/controllers/deployment_controller.h"
#include "core/controllers/garbage_collector.h"
#include "core/controllers/owner_index.h"
#include "core/controllers/replicaset_controller.h"

namespace k32 {
namespace controllers {

class ControllerManager {
 public:
  explicit ControllerManager(api::ApiServer* api)
      : api_(api), deployments_(api, &index_), replicasets_(api, &index_), gc_(api, &index_) {}
  // Starts following the store; call once, before the first pass.
  void attach() { index_.attach(api_->store()); }
  // Syncs the workloads when something they depend on changed (or a wait they set is over),
  // then lets the garbage collector work.
  void pass();

 private:
  api::ApiServer* api_;
  OwnerIndex index_;
  DeploymentController deployments_;
  ReplicaSetController replicasets_;
  GarbageCollector gc_;
  int64_t wake_s_ = 0;  // a pod turns available / a progress deadline passes then
};

}  // namespace controllers
}  // namespace k32
