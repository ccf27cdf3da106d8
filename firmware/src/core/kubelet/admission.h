// The kubelet's admission: a pod bound to this node starts only if the node can carry it,
// whoever bound it (the scheduler, or a user who set spec.nodeName and so skipped the
// scheduler). Memory is charged as the scheduler charges it (sched::pod_memory_charge:
// the larger of request and limit per container, since linear memory grows to the limit).
// Each pod is also charged the node's per-pod overhead (the heap it takes beyond its linear
// memory), as the scheduler charges it from the Node's kube32.io/pod-overhead annotation.
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

// `used_memory` / `used_pods`: what the pods this kubelet already runs take.
AdmitResult admit_pod(const json::Value& pod, const NodeBudget& budget, int64_t used_memory, int64_t used_pods);

}  // namespace kubelet
}  // namespace k32
