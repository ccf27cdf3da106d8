// Endpoints and EndpointSlice, computed on read from Services and their pods
// (read-only, never stored: nothing to keep in sync, no watch).
#pragma once
#include <string>
#include <vector>

#include "core/json/json.h"
#include "core/store/object_store.h"

namespace k32 {
namespace api {

// The pods a Service selects: Running, non-terminating, same namespace, labels match.
std::vector<json::Value> selected_pods(store::ObjectStore* st, const json::Value& service);
// Resolves a Service port's targetPort (number or containerPort name) for one pod; 0 if none.
int32_t resolve_target_port(const json::Value& service_port, const json::Value& pod);
bool pod_ready(const json::Value& pod);

// ns empty = every namespace.
std::vector<json::Value> compute_endpoints(store::ObjectStore* st, const std::string& ns, uint64_t* rv);
std::vector<json::Value> compute_endpointslices(store::ObjectStore* st, const std::string& ns, uint64_t* rv);

}  // namespace api
}  // namespace k32
