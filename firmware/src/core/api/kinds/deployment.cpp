// Deployment (apps/v1): a replicated pod template rolled out through ReplicaSets by the
// control plane's Deployment controller (core/controllers). Defaults and validation follow
// kube-apiserver (core/api/workloads.cpp, shared with ReplicaSet); the selector is immutable;
// spec.replicas is also reachable through /scale. `kubectl get` prints
// NAME READY UP-TO-DATE AVAILABLE AGE (-o wide: CONTAINERS IMAGES SELECTOR).
#include "core/api/kinds/workload_strategy.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

constexpr char kKind[] = "Deployment";

json::Value ready_cell(const json::Value& o, int64_t) {
  return json::Value(text::to_string(o["status"]["readyReplicas"].as_int()) + "/" +
                     text::to_string(o["spec"]["replicas"].as_int()));
}
json::Value updated_cell(const json::Value& o, int64_t) { return json::Value(o["status"]["updatedReplicas"].as_int()); }
json::Value available_cell(const json::Value& o, int64_t) { return json::Value(o["status"]["availableReplicas"].as_int()); }

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Ready", "string", "", 0, ready_cell},
    {"Up-to-date", "integer", "", 0, updated_cell},
    {"Available", "integer", "", 0, available_cell},
    K32_AGE_COLUMN,
    K32_WORKLOAD_WIDE_COLUMNS,
};

}  // namespace

extern const KindStrategy kDeploymentKind = workloads::Strategy<kKind>::with_columns(kColumns);

}  // namespace api
}  // namespace k32
