// Deployment (apps/v1): a replicated pod template rolled out through ReplicaSets by the
// control plane's Deployment controller (core/controllers). Defaults and validation follow
// kube-apiserver (core/api/workloads.cpp, shared with ReplicaSet); the selector is immutable;
// spec.replicas is also reachable through /scale. `kubectl get` prints
// NAME READY UP-TO-DATE AVAILABLE AGE (-o wide: CONTAINERS IMAGES SELECTOR).
#include "core/api/kinds/kind_strategy.h"
#include "core/api/workloads.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

void defaults(json::Value* obj) { workloads::apply_defaults("Deployment", obj); }
void validate(const json::Value& obj, FieldErrors* errs) { workloads::validate("Deployment", obj, errs); }
void validate_update(const json::Value& old, const json::Value& obj, FieldErrors* errs) {
  workloads::validate_update("Deployment", old, obj, errs);
}

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
    {"Containers", "string", "", 1, workloads::containers_cell},
    {"Images", "string", "", 1, workloads::images_cell},
    {"Selector", "string", "", 1, workloads::selector_cell},
};

}  // namespace

extern const KindStrategy kDeploymentKind = {
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
