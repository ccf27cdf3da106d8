// The Events the workload controllers record, as kube-controller-manager's do:
// ScalingReplicaSet on a Deployment for each scaling step, FailedCreate on a ReplicaSet when
// a pod cannot be made. Not one Event per pod created or deleted (SuccessfulCreate/Delete):
// on a board's small store those would cost as much room as the pods themselves. Events
// expire like every other (EVENT_TTL_S).
#pragma once
#include <string>

#include "core/json/json.h"
#include "core/store/object_store.h"

namespace k32 {
namespace controllers {

// Records an Event about `obj` (a Deployment or ReplicaSet as stored); a failed write is
// dropped: an Event is a report, never what a controller waits on.
void record_event(store::ObjectStore* st, const json::Value& obj, const char* type, const char* reason,
                  const std::string& message, const char* component);

}  // namespace controllers
}  // namespace k32
