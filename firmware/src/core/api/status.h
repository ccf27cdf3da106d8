// Kubernetes Status objects for every error the API server returns.
#pragma once
#include <string>

#include "core/json/json.h"

namespace k32 {
namespace api {

struct ApiError {
  int code = 0;        // HTTP status
  std::string reason;  // StatusReason: NotFound, AlreadyExists, Conflict, Invalid, BadRequest ...
  std::string message;
  json::Value details;  // optional {name, group, kind, causes[]}
  bool ok() const { return code == 0; }
};

json::Value status_object(const ApiError& e);
json::Value status_success();

ApiError not_found(const std::string& group, const std::string& resource, const std::string& name);
ApiError already_exists(const std::string& group, const std::string& resource, const std::string& name);
ApiError conflict(const std::string& group, const std::string& resource, const std::string& name, const std::string& why);
ApiError bad_request(const std::string& message);
// 422 Invalid with one cause per field error ("spec.ports[0].port: Invalid value: ...").
ApiError invalid(const std::string& kind, const std::string& name,
                 const std::vector<std::pair<std::string, std::string>>& field_errors);
ApiError method_not_allowed(const std::string& message);
ApiError unsupported_media(const std::string& content_type);
ApiError unauthorized();
ApiError gone(const std::string& message);
// 504 Timeout for a watch or list from a resourceVersion newer than the store's.
ApiError too_large_resource_version(uint64_t requested, uint64_t current);
ApiError too_large(size_t limit);
// A body or object nesting deeper than the API's limit (400 for a body, 422 for a result).
ApiError too_deep(int code, int limit);
// The store's per-object limit (413, as kube-apiserver answers an object etcd finds too large).
ApiError object_too_large(const std::string& resource, const std::string& name, uint64_t limit);
// The store's total budget is used up (507 Insufficient Storage).
ApiError store_full(uint64_t budget, uint64_t used, uint64_t create_cap);
ApiError internal(const std::string& message);
// The node's heap cannot take the write and still keep its reserve (507, like a full store).
ApiError heap_full(uint64_t available, uint64_t needed);

}  // namespace api
}  // namespace k32
