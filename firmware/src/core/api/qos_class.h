// A pod's QoS class, as Kubernetes derives it from its containers' resources.
#pragma once
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace api {

// "BestEffort" when no container requests or limits cpu or memory; "Guaranteed" when every
// container limits both and requests (if given) equal the limits; "Burstable" otherwise.
std::string qos_class(const json::Value& pod_spec);

}  // namespace api
}  // namespace k32
