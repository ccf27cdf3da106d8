// What an update may change in a pod's spec: Kubernetes lets a running pod's spec change
// only in container images, activeDeadlineSeconds, added tolerations, a negative
// terminationGracePeriodSeconds set to 1, and removed schedulingGates.
#pragma once
#include "core/api/validation.h"
#include "core/json/json.h"

namespace k32 {
namespace api {

// Appends a "spec: Forbidden" error when `updated` changes anything else of `old`'s spec.
void validate_pod_update(const json::Value& old, const json::Value& updated, FieldErrors* errs);

}  // namespace api
}  // namespace k32
