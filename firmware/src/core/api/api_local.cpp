// Writes by the control plane's own controllers (workloads, garbage collection): they take
// the same write path as a client's request, so defaults, validation, managedFields and the
// deletion rules hold for them too, without an HTTP round trip.
#include "core/api/api_server.h"

namespace k32 {
namespace api {

namespace {

// The field manager and user agent kube-controller-manager's writes carry.
http::Request controller_request(const char* method) {
  http::Request rq;
  rq.method = method;
  rq.headers.push_back({"User-Agent", "kube-controller-manager/v1.34.0-kube32"});
  return rq;
}

}  // namespace

ApiError heap_room(size_t body_bytes);  // api_server.cpp

ApiError ApiServer::local_create(const ResourceInfo& r, const std::string& ns, json::Value obj, json::Value* stored) {
  RequestInfo info;
  info.res = &r;
  info.ns = ns;
  info.name = obj.path_str({"metadata", "name"});
  // Held to the heap reserve as an API client's write is (a ReplicaSet creating its pods
  // took the reserve, and the node's next allocation of its own failed).
  ApiError full = heap_room(json::dump(obj).size());
  if (!full.ok()) return full;
  std::vector<std::string> warnings;
  return write_object(info, nullptr, std::move(obj), true, controller_request("POST"), stored, &warnings);
}

ApiError ApiServer::local_update(const ResourceInfo& r, const json::Value& old, json::Value obj, const std::string& sub,
                                 json::Value* stored) {
  RequestInfo info;
  info.res = &r;
  info.ns = old.path_str({"metadata", "namespace"});
  info.name = old.path_str({"metadata", "name"});
  info.subresource = sub;
  ApiError full = heap_room(json::dump(obj).size());
  if (!full.ok()) return full;
  std::vector<std::string> warnings;
  return write_object(info, &old, std::move(obj), false, controller_request("PUT"), stored, &warnings);
}

ApiError ApiServer::local_delete(const ResourceInfo& r, const std::string& ns, const std::string& name,
                                 const std::string& propagation, const std::string& uid_precondition) {
  RequestInfo info;
  info.res = &r;
  info.ns = ns;
  info.name = name;
  json::Value obj;
  if (!store_->get(r.store_id(), ns, name, &obj)) return not_found(r.group, r.resource, name);
  if (!uid_precondition.empty() && obj.path_str({"metadata", "uid"}) != uid_precondition)
    return conflict(r.group, r.resource, name, "Precondition failed: UID in precondition: " + uid_precondition);
  json::Value out;
  // -1: the kind's own grace period (a pod's terminationGracePeriodSeconds).
  return finish_delete(info, obj, -1, propagation, &out);
}

}  // namespace api
}  // namespace k32
