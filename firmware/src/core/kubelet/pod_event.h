// A v1 Event about a pod, as the scheduler and the kubelets report them.
#pragma once
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace kubelet {

// `component` is the source ("default-scheduler", "kubelet"); `host` may be empty.
json::Value make_pod_event(const std::string& ns, const std::string& pod, const std::string& uid, const char* type,
                           const char* reason, const std::string& message, const char* component, const std::string& host);

}  // namespace kubelet
}  // namespace k32
