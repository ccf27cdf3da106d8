#include "core/kubelet/usage_report.h"

#include <vector>

#include "core/kubelet/pod_usage.h"
#include "port.h"

namespace k32 {
namespace kubelet {

json::Value usage_report(Kubelet* k) {
  std::vector<PodUsage> pods;
  read_usage(k, &pods);
  json::Value r = json::Value::object();
  r.set("timeUs", static_cast<int64_t>(port::monotonic_us()));
  const port::MemStats m = port::mem_stats();
  r.set("heapInternal", static_cast<int64_t>(m.internal_in_use));
  r.set("heapPsram", static_cast<int64_t>(m.psram_in_use));
  r.set("cpuUs", static_cast<int64_t>(node_cpu_us(pods)));
  json::Value& items = r.set("pods", json::Value::array());
  for (const auto& p : pods) {
    json::Value e = json::Value::object();
    e.set("uid", p.uid);
    json::Value& cs = e.set("containers", json::Value::array());
    for (const auto& c : p.containers) {
      json::Value ce = json::Value::object();
      ce.set("cpuUs", static_cast<int64_t>(c.cpu_us));
      ce.set("memory", static_cast<int64_t>(c.memory_bytes));
      ce.set("startedUs", static_cast<int64_t>(c.started_us));
      cs.push(std::move(ce));
    }
    items.push(std::move(e));
  }
  return r;
}

}  // namespace kubelet
}  // namespace k32
