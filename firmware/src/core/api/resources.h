// The kinds the API server serves, and their REST coordinates.
#pragma once
#include <string>
#include <vector>

namespace k32 {
namespace api {

struct ResourceInfo {
  const char* group;     // "" for core
  const char* version;   // "v1"
  const char* resource;  // plural, e.g. "pods"
  const char* kind;      // "Pod"
  const char* singular;
  bool namespaced;
  bool read_only;        // computed on read (Endpoints, EndpointSlice)
  const char* short_names;  // comma separated
  const char* categories;   // comma separated
  const char* subresources; // comma separated: "status", "log", "binding"

  // "pods" or "networking.k8s.io/ingresses": the store's resource id.
  std::string store_id() const;
  // "v1" or "networking.k8s.io/v1".
  std::string group_version() const;
  // "v1/Pod" or "networking.k8s.io/v1/Ingress" (the schema/patch key).
  std::string kind_key() const;
};

const std::vector<ResourceInfo>& all_resources();
const ResourceInfo* find_resource(const std::string& group, const std::string& version, const std::string& resource);
const ResourceInfo* find_by_kind(const std::string& api_version, const std::string& kind);

}  // namespace api
}  // namespace k32
