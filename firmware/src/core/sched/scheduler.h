// The control plane's scheduler: binds Pending pods to Ready nodes. Filters: nodeSelector,
// required node affinity, taints (NotReady and unschedulable nodes taint themselves)
// vs tolerations, memory and hardware.kube32.io/ipc requests vs allocatable, pod count.
// Memory also counts each image's compiled module once per node (pods of one image share
// it): the modules a node reports holding (Node status.images, sizeBytes the module's heap)
// and those of the pods bound there that it does not report yet; a pod whose image the node
// holds in neither way is charged that module too (its size from another node's report, or
// from compiling an image built into the firmware here: kubelet::image_module_bytes).
// Among the nodes that fit it picks the one running the fewest pods of the same controller
// (replicas spread over nodes), then the one with the most free memory (name breaks ties).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/json/json.h"
#include "core/store/object_store.h"

namespace k32 {
namespace sched {

constexpr const char* kIpcResource = "hardware.kube32.io/ipc";
// Node annotation: the heap each pod takes beyond its linear memory (a memory quantity),
// charged with every pod placed there (node::kPodOverheadAnnotation, which nodes set).
constexpr const char* kPodOverheadAnnotation = "kube32.io/pod-overhead";

struct Decision {
  std::string node;     // empty: unschedulable
  std::string message;  // "0/3 nodes are available: 2 node(s) didn't match ..."
};

// What a bound pod takes on its node, all the scheduler needs of it: a pass keeps this per
// pod instead of every pod parsed whole (ten pods' trees were tens of KiB of internal RAM
// held on every store change while pods started).
struct PodLoad {
  std::string node;
  std::string controller;           // uid of the managing controller, "" when none
  int64_t memory = 0;               // pod_memory_charge
  int64_t ipc = 0;                  // requests of kIpcResource
  std::vector<std::string> images;  // its containers' images as image_key names them
};

// The name an image's module is known by on every node, "wasm://<source>/<name>" (the
// kube32.io/... spelling and a pin name the same module); "" for a malformed reference.
std::string image_key(const std::string& image);

// The load of a pod bound to a node and not finished; false for any other pod.
bool pod_load(const json::Value& pod, PodLoad* out);

// Pure placement decision; `loads` are what the cluster's bound pods take.
Decision schedule(const json::Value& pod, const std::vector<json::Value>& nodes, const std::vector<PodLoad>& loads);
// The same from whole pods (every pod of the cluster; the unbound and finished ones count nothing).
Decision schedule(const json::Value& pod, const std::vector<json::Value>& nodes, const std::vector<json::Value>& pods);

// Sum of the containers' requests of `resource` (limits when a request is absent);
// false with *err when a quantity is malformed.
bool pod_request(const json::Value& pod, const char* resource, int64_t* out, std::string* err);

// The memory a pod may take on a node: per container the larger of requests.memory and
// what it can reach, its limits.memory or less when its image can never grow that far (an
// image built into the firmware, kubelet::image_memory_reach). A Wasm container's linear
// memory grows up to its limit, so a limit above the request is memory the node must have,
// unless the image cannot take it.
bool pod_memory_charge(const json::Value& pod, int64_t* out, std::string* err);

class Scheduler {
 public:
  explicit Scheduler(store::ObjectStore* st) : st_(st) {}
  // One pass over the unbound pods; returns how many were bound.
  int pass();
  // Runs passes on every store change (and at least every second), forever.
  void run();
  static void thread_main(void* self) { static_cast<Scheduler*>(self)->run(); }
  // Work that shares the scheduler's loop (the control plane's controllers): run after each
  // pass, on the same wake-ups, so it needs no thread of its own. Set before run().
  void set_after_pass(std::function<void()> f) { after_pass_ = std::move(f); }

 private:
  // Each takes the pod read for the pass and edits it in place (no second copy held).
  void bind(json::Value pod, const std::string& node);
  void mark_unschedulable(json::Value pod, const std::string& message);
  store::ObjectStore* st_;
  std::function<void()> after_pass_;
};

}  // namespace sched
}  // namespace k32
