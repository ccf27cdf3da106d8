// The Node object a kubelet registers, and its Lease.
#pragma once
#include <string>

#include "core/json/json.h"
#include "core/node/node_config.h"

namespace k32 {
namespace node {

// What a board offers pods: linear memory (bytes) and pod slots. The Node object advertises
// it as capacity/allocatable and the kubelet admits pods against the same figures.
struct PodCapacity {
  int64_t memory;
  int64_t pods;
};
// The board profile this node was built with (k32_board.h).
PodCapacity pod_capacity();

json::Value make_node(const NodeConfig& cfg);
// Sets the Ready condition (and heartbeat time) on a Node object.
void set_ready(json::Value* node, const char* status, const char* reason, const char* message, bool heartbeat);
json::Value make_lease(const std::string& node_name, const std::string& node_uid);

}  // namespace node
}  // namespace k32
