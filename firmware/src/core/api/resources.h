// The kinds the API server serves (kinds/kinds.def), their REST coordinates and strategies.
#pragma once
#include <string>

namespace k32 {
namespace api {

struct KindStrategy;

struct ResourceInfo {
  const char* group;     // "" for core
  const char* version;   // "v1"
  const char* resource;  // plural, e.g. "pods"
  const char* kind;      // "Pod"
  const char* singular;
  bool namespaced;
  bool read_only;                // computed on read (Endpoints, EndpointSlice)
  const char* short_names;       // comma separated
  const char* categories;        // comma separated
  const char* subresources;      // comma separated: "status", "log", "binding"
  const KindStrategy* strategy;  // kinds/<kind>.cpp

  // "pods" or "networking.k8s.io/ingresses": the store's resource id.
  std::string store_id() const;
  // "v1" or "networking.k8s.io/v1".
  std::string group_version() const;
  // "v1/Pod" or "networking.k8s.io/v1/Ingress" (the schema/patch key).
  std::string kind_key() const;
  bool has_subresource(const char* sub) const;
};

// The served kinds in table order; iterate with range-for.
struct ResourceTable {
  const ResourceInfo* first;
  const ResourceInfo* last;
  const ResourceInfo* begin() const { return first; }
  const ResourceInfo* end() const { return last; }
};

ResourceTable all_resources();
const ResourceInfo* find_resource(const std::string& group, const std::string& version, const std::string& resource);
const ResourceInfo* find_by_kind(const std::string& api_version, const std::string& kind);

}  // namespace api
}  // namespace k32
