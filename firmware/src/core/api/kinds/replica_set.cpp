// ReplicaSet (apps/v1): keeps spec.replicas pods of its template, through the control
// plane's ReplicaSet controller (core/controllers). Defaults and validation follow
// kube-apiserver (core/api/workloads.cpp, shared with Deployment); the selector is
// immutable; spec.replicas is also reachable through /scale. `kubectl get` prints
// NAME DESIRED CURRENT READY AGE (-o wide: CONTAINERS IMAGES SELECTOR).
#include "core/api/kinds/workload_strategy.h"

namespace k32 {
namespace api {

namespace {

constexpr char kKind[] = "ReplicaSet";

json::Value desired_cell(const json::Value& o, int64_t) { return json::Value(o["spec"]["replicas"].as_int()); }
json::Value current_cell(const json::Value& o, int64_t) { return json::Value(o["status"]["replicas"].as_int()); }
json::Value ready_cell(const json::Value& o, int64_t) { return json::Value(o["status"]["readyReplicas"].as_int()); }

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Desired", "integer", "", 0, desired_cell},
    {"Current", "integer", "", 0, current_cell},
    {"Ready", "integer", "", 0, ready_cell},
    K32_AGE_COLUMN,
    K32_WORKLOAD_WIDE_COLUMNS,
};

}  // namespace

extern const KindStrategy kReplicaSetKind = workloads::Strategy<kKind>::with_columns(kColumns);

}  // namespace api
}  // namespace k32
