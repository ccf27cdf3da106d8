// The control plane's node lifecycle: a node whose kubelet falls silent turns NotReady
// (Ready=Unknown), gets the unreachable taints (next to any a user set) and its pods turn
// Ready=False; once its heartbeat makes it Ready again the taints come off. As
// kube-controller-manager's node lifecycle controller does.
#pragma once
#include <string>

#include "core/store/object_store.h"

namespace k32 {
namespace node {

class NodeLifecycle {
 public:
  explicit NodeLifecycle(store::ObjectStore* st) : store_(st) {}
  // One pass over every Node; returns how many it marked NotReady.
  int check_once(int64_t now_ms);
  // Sets Ready=False on the pods bound to `node`; returns how many changed.
  int mark_pods_not_ready(const std::string& node);
  static void run(void* self);

 private:
  store::ObjectStore* store_;
};

}  // namespace node
}  // namespace k32
