// The Node object a kubelet registers, and its Lease.
#pragma once
#include <string>

#include "core/json/json.h"
#include "core/node/node_config.h"

namespace k32 {
namespace node {

// What a board offers pods: linear memory (bytes), pod slots, and the heap a pod costs
// beyond its linear memory. The Node object advertises it (capacity, allocatable and the
// sched::kPodOverheadAnnotation annotation, which the scheduler charges with every pod it
// places there) and the kubelet admits pods against the same figures.
struct PodCapacity {
  int64_t memory;       // capacity: the profile's pod_memory
  int64_t pods;         // pods_max
  int64_t overhead;     // pod_overhead
  int64_t allocatable;  // what the heap can really give pods (pod_allocatable_memory)
};
// The board profile this node was built with (k32_board.h).
PodCapacity pod_capacity();
// The pod memory this node can really give: the profile's pod_memory, or less when the heap
// left beside what the node itself holds at start, minus its heap_reserve, is smaller.
// Worked out at the first call (at start, before any pod) and the same afterwards.
int64_t pod_allocatable_memory();
// A byte count as a Kubernetes memory quantity ("96Ki", "4Mi", "1000").
std::string memory_quantity(int64_t bytes);

json::Value make_node(const NodeConfig& cfg);
// The conditions a healthy node reports now (make_node's status.conditions).
json::Value node_conditions();
// Sets the Ready condition (and heartbeat time) on a Node object.
void set_ready(json::Value* node, const char* status, const char* reason, const char* message, bool heartbeat);
json::Value make_lease(const std::string& node_name, const std::string& node_uid);

}  // namespace node
}  // namespace k32
