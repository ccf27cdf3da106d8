// What each pod running on this node uses, for the metrics API (kubectl top): the interpreter
// time its containers have taken (cumulative, like a cgroup's cpuacct counter; the control
// plane turns two readings into a rate) and the linear memory their instances hold now.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/kubelet/pod_runtime.h"

namespace k32 {
namespace kubelet {

class Kubelet;

// Times one entry into a container's interpreter (k32_handle, k32_event, k32_main): the time
// goes to the container's CPU counter when the call returns; a reading taken meanwhile counts
// the call so far. Constructed and destroyed under the container's call_mu.
class CpuClock {
 public:
  explicit CpuClock(Container* c);
  ~CpuClock();
  CpuClock(const CpuClock&) = delete;
  CpuClock& operator=(const CpuClock&) = delete;

 private:
  Container* c_;
};

// Records the linear memory the container's instance holds (its exported or only memory);
// called with the instance stable: after instantiation and after each call (only a call can
// grow it).
void note_memory(Container* c);

struct ContainerUsage {
  std::string name;
  uint64_t cpu_us = 0;        // interpreter time since the container was created
  uint64_t memory_bytes = 0;  // linear memory now
  uint64_t running_us = 0;    // of cpu_us: the call in progress so far
  uint64_t started_us = 0;    // port::monotonic_us() when its pod started here
};

struct PodUsage {
  std::string ns, name, uid;
  std::vector<ContainerUsage> containers;
};

// The interpreter memory of every pod on this node, for the node's STATUS: linear memory apart
// from the rest of each store (instances, tables, value stacks), so a report of the node's heap
// can leave the pods' linear memory out by subtraction instead of by assumption.
struct PodHeap {
  uint64_t linear_bytes = 0;  // linear memories' data
  uint64_t bulk_bytes = 0;    // linear memories and value stacks: what the kubelet places in PSRAM
  uint64_t store_bytes = 0;   // whole stores, linear memory included
  uint32_t containers = 0;    // containers with a live store
};
PodHeap pod_heap(Kubelet* k);

// One reading of every pod the kubelet runs, taken now.
void read_usage(Kubelet* k, std::vector<PodUsage>* out);
// The node's interpreter time since boot: every call that returned, on any pod (gone ones
// too, so the counter never goes back), plus the calls running in `now`.
uint64_t node_cpu_us(const std::vector<PodUsage>& now);

}  // namespace kubelet
}  // namespace k32
