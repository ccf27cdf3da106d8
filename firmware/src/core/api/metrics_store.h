// What kubectl top reads: the last two usage reports of each node and pod (kubelet/usage_report.h),
// kept as metrics-server keeps them, in at most K32_METRICS_*_MAX records, with CPU in nanocores
// computed from the difference over the window between them. A report is validated whole before
// anything of it is kept: a bad one changes nothing. The routes that serve it: metrics_api.h.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/json/json.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace api {

class MetricsStore {
 public:
  // Kubernetes' limit on object names (a DNS subdomain) and the length of a UID: protocol
  // sizes, not budgets.
  static constexpr size_t kNameMax = 253;
  static constexpr size_t kUidMax = 36;

  struct Sample {
    uint64_t t_us = 0;    // the node's monotonic clock at the reading
    uint64_t cpu_us = 0;  // cumulative interpreter time
  };
  struct NodeRecord {
    bool used = false;
    std::string name;
    Sample cur, prev;
    bool has_prev = false;
    uint64_t heap_internal = 0, heap_psram = 0;
    int64_t wall_s = 0;        // the control plane's clock when the report came
    uint64_t received_ms = 0;  // port::monotonic_ms() then (stale records are not served)
  };
  struct ContainerRecord {
    Sample cur, prev;
    uint64_t memory = 0;
  };
  // Most pods have one container: it is kept in the record, any others in a block of their own
  // (four in every record were 160 of its 204 bytes on a 32-bit board).
  struct PodRecord {
    bool used = false;
    char uid[kUidMax + 1] = {0};
    uint16_t node = 0;  // index into nodes_
    uint8_t containers = 0;
    ContainerRecord first;
    std::unique_ptr<ContainerRecord[]> more;  // containers - 1 of them
    ContainerRecord& c(size_t i) { return i == 0 ? first : more[i - 1]; }
    const ContainerRecord& c(size_t i) const { return i == 0 ? first : more[i - 1]; }
  };

  // Takes one node's report (validated here); false with *err (a 400's message).
  bool take_report(const std::string& node, const json::Value& report, std::string* err);

  // Readings of one node / pod; false when there is none (fresh enough).
  struct NodeUsage {
    uint64_t cpu_nanocores = 0, memory = 0, heap_internal = 0, heap_psram = 0, window_ms = 0;
    int64_t wall_s = 0;
  };
  struct ContainerUsage {
    uint64_t cpu_nanocores = 0, memory = 0;
  };
  struct PodUsage {
    uint64_t window_ms = 0;
    int64_t wall_s = 0;
    uint8_t containers = 0;
    ContainerUsage c[K32_METRICS_CONTAINERS_MAX];
  };
  bool node_usage(const std::string& node, NodeUsage* out);
  bool pod_usage(const std::string& uid, PodUsage* out);
  // The Node was deleted: its record and its pods' are freed for the next node that reports
  // (a node removed from the cluster would otherwise keep its slots for good).
  void forget_node(const std::string& node);

 private:
  port::Mutex mu_;
  // Grown as nodes and pods report, a record at a time (and given back from the end as they
  // leave), up to K32_METRICS_NODES_MAX / K32_METRICS_PODS_MAX records, and reused
  // when freed: a full table up front is 18 KiB an idle control plane would hold.
  std::vector<NodeRecord> nodes_;
  std::vector<PodRecord> pods_;
};

}  // namespace api
}  // namespace k32
