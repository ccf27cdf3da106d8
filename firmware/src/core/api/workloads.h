// Deployments and ReplicaSets (apps/v1) as kube-apiserver serves them: defaults, validation,
// and the autoscaling/v1 Scale view of their replica count (the /scale subresource).
#pragma once
#include <cstdint>
#include <string>

#include "core/api/validation.h"
#include "core/json/json.h"

namespace k32 {
namespace api {
namespace workloads {

// Shared by kinds/deployment.cpp and kinds/replica_set.cpp; `kind` is "Deployment" or
// "ReplicaSet".
// apps/v1 defaults: replicas 1, the RollingUpdate strategy with 25% surge/unavailable,
// revisionHistoryLimit 10, progressDeadlineSeconds 600, and a Pod's defaults in the template.
void apply_defaults(const std::string& kind, json::Value* obj);
void validate(const std::string& kind, const json::Value& obj, FieldErrors* errs);
// What may not change on update: the selector (immutable in apps/v1).
void validate_update(const std::string& kind, const json::Value& old, const json::Value& obj, FieldErrors* errs);
// The object's autoscaling/v1 Scale.
json::Value scale_of(const json::Value& obj);
// -o wide columns both kinds print: the template's containers and images, the selector.
json::Value containers_cell(const json::Value& obj, int64_t now_s);
json::Value images_cell(const json::Value& obj, int64_t now_s);
json::Value selector_cell(const json::Value& obj, int64_t now_s);

// An IntOrString (maxSurge, maxUnavailable) against a total: "25%" of 10 is 3 rounded up,
// 2 rounded down. False when v is neither a non-negative int nor "N%".
bool int_or_percent(const json::Value& v, int64_t total, bool round_up, int64_t* out);

}  // namespace workloads
}  // namespace api
}  // namespace k32
