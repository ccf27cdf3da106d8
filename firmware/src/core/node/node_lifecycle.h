// The control plane's node lifecycle: a node whose kubelet falls silent turns NotReady
// (Ready=Unknown) and gets the unreachable taints, as kube-controller-manager does.
#pragma once
#include "core/store/object_store.h"

namespace k32 {
namespace node {

class NodeLifecycle {
 public:
  explicit NodeLifecycle(store::ObjectStore* st) : store_(st) {}
  // One pass over every Node; returns how many it marked NotReady.
  int check_once(int64_t now_ms);
  static void run(void* self);

 private:
  store::ObjectStore* store_;
};

}  // namespace node
}  // namespace k32
