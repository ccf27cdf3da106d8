// Claiming, as kube-controller-manager's ControllerRefManager does on every sync of a
// ReplicaSet (its pods) and of a Deployment (its ReplicaSets): the controller adopts the
// orphans its selector matches (it becomes their controlling owner) and releases the objects
// it controls whose labels no longer match (its owner reference is removed). A controller
// being deleted does neither.
#pragma once
#include <string>
#include <vector>

#include "core/api/api_server.h"
#include "core/api/selectors.h"
#include "core/controllers/owner_index.h"

namespace k32 {
namespace controllers {

// The owner reference a controller puts on what it makes or adopts.
json::Value controller_ref_to(const json::Value& owner);

// Claims the objects of `resource` ("pods", "apps/replicasets") in the owner's namespace,
// given the owner's dependents as the index has them; true when it adopted or released any
// (the caller then reads its dependents again).
bool claim(api::ApiServer* api, OwnerIndex* index, const json::Value& owner, const std::string& resource,
           const api::LabelSelector& sel, const std::vector<Dependent>& deps);

}  // namespace controllers
}  // namespace k32
