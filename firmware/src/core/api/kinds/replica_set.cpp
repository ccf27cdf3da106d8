// ReplicaSet (apps/v1): keeps spec.replicas pods of its template, through the control
// plane's ReplicaSet controller (core/controllers). Defaults and validation follow
// kube-apiserver (core/api/workloads.cpp, shared with Deployment); the selector is
// immutable; spec.replicas is also reachable through /scale. `kubectl get` prints
// NAME DESIRED CURRENT READY AGE (-o wide: CONTAINERS IMAGES SELECTOR).
#include "core/api/kinds/kind_strategy.h"
#include "core/api/workloads.h"

namespace k32 {
namespace api {

namespace {

void defaults(json::Value* obj) { workloads::apply_defaults("ReplicaSet", obj); }
void validate(const json::Value& obj, FieldErrors* errs) { workloads::validate("ReplicaSet", obj, errs); }
void validate_update(const json::Value& old, const json::Value& obj, FieldErrors* errs) {
  workloads::validate_update("ReplicaSet", old, obj, errs);
}

json::Value desired_cell(const json::Value& o, int64_t) { return json::Value(o["spec"]["replicas"].as_int()); }
json::Value current_cell(const json::Value& o, int64_t) { return json::Value(o["status"]["replicas"].as_int()); }
json::Value ready_cell(const json::Value& o, int64_t) { return json::Value(o["status"]["readyReplicas"].as_int()); }

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Desired", "integer", "", 0, desired_cell},
    {"Current", "integer", "", 0, current_cell},
    {"Ready", "integer", "", 0, ready_cell},
    K32_AGE_COLUMN,
    {"Containers", "string", "", 1, workloads::containers_cell},
    {"Images", "string", "", 1, workloads::images_cell},
    {"Selector", "string", "", 1, workloads::selector_cell},
};

}  // namespace

extern const KindStrategy kReplicaSetKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/true,
    /*resets_status_on_create=*/true,
    /*deletes_contents=*/false,
    /*prepare=*/nullptr,
    defaults,
    validate,
    validate_update,
    /*grace_period=*/nullptr,
    /*mark_terminating=*/nullptr,
    /*compute=*/nullptr,
    kColumns,
    column_count(kColumns),
};

}  // namespace api
}  // namespace k32
