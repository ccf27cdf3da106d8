// The status a kubelet reports for a pod it runs: phase, conditions, podIP/hostIP,
// startTime and containerStatuses (state, lastState, restartCount, ready, imageID).
#pragma once
#include "core/json/json.h"
#include "core/kubelet/pod_runtime.h"

namespace k32 {
namespace kubelet {

// Builds status from the runtime (caller holds p.mu); keeps transition times of the
// conditions in the listed pod's status that did not change (and its qosClass).
json::Value pod_status(const Pod& p, const std::string& node_ip, const json::Value& listed);

}  // namespace kubelet
}  // namespace k32
