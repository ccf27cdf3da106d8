// The kubelet's admission: a pod bound to this node starts only if the node can carry it,
// whoever bound it (the scheduler, or a user who set spec.nodeName and so skipped the
// scheduler). Memory is charged as the scheduler charges it (sched::pod_memory_charge:
// the larger of request and limit per container, since linear memory grows to the limit).
// Each pod is also charged the node's per-pod overhead (the heap it takes beyond its linear
// memory), as the scheduler charges it from the Node's kube32.io/pod-overhead annotation.
// Each image's compiled module is charged once per node beside the pods (ModuleLoad, which
// kubelet/module_load.h counts as the scheduler does): a pod bound by hand whose image's
// module would not fit is refused here, not left to fail at its start for want of heap.
// A rejected pod is Failed with the kubelet's reason words (OutOfmemory, OutOfpods).
#pragma once
#include <cstdint>
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace kubelet {

struct NodeBudget {
  int64_t memory = 0;    // bytes of pod memory the node offers (its allocatable)
  int64_t pods = 0;      // pod slots
  int64_t overhead = 0;  // heap a pod takes beyond its linear memory, charged with each pod
};

struct AdmitResult {
  bool admitted = true;
  int64_t charge = 0;   // the pod's memory charge when admitted (its overhead included)
  std::string reason;   // OutOfmemory | OutOfpods
  std::string message;  // "Pod was rejected: ..."
};

// The compiled modules beside the pods: those the node carries (each image's once) and those
// the pod's images add.
struct ModuleLoad {
  int64_t held = 0;   // heap of the modules the node's pods need
  int64_t added = 0;  // what the pod's images the node does not carry add
  std::string named;  // those, for the message ("wasm://sd/big: 14 KiB")
};

// `used_memory` / `used_pods`: what the pods this kubelet already runs take. The message's
// requested counts the modules the pod adds, its used the modules held.
AdmitResult admit_pod(const json::Value& pod, const NodeBudget& budget, int64_t used_memory, int64_t used_pods,
                      const ModuleLoad& modules = ModuleLoad());

}  // namespace kubelet
}  // namespace k32
