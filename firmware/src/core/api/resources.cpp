#include "core/api/resources.h"

namespace k32 {
namespace api {

std::string ResourceInfo::store_id() const {
  return group[0] ? std::string(group) + "/" + resource : std::string(resource);
}
std::string ResourceInfo::group_version() const {
  return group[0] ? std::string(group) + "/" + version : std::string(version);
}
std::string ResourceInfo::kind_key() const { return group_version() + "/" + kind; }

const std::vector<ResourceInfo>& all_resources() {
  static const std::vector<ResourceInfo> kAll = {
      {"", "v1", "namespaces", "Namespace", "namespace", false, false, "ns", "", "status"},
      {"", "v1", "nodes", "Node", "node", false, false, "no", "", "status"},
      {"", "v1", "pods", "Pod", "pod", true, false, "po", "all", "status,log,binding"},
      {"", "v1", "services", "Service", "service", true, false, "svc", "all", "status"},
      {"", "v1", "endpoints", "Endpoints", "endpoints", true, true, "ep", "", ""},
      {"", "v1", "configmaps", "ConfigMap", "configmap", true, false, "cm", "", ""},
      {"", "v1", "secrets", "Secret", "secret", true, false, "", "", ""},
      {"", "v1", "events", "Event", "event", true, false, "ev", "", ""},
      {"discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", "endpointslice", true, true, "", "", ""},
      {"coordination.k8s.io", "v1", "leases", "Lease", "lease", true, false, "", "", ""},
      {"networking.k8s.io", "v1", "ingresses", "Ingress", "ingress", true, false, "ing", "", "status"},
      {"networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", "networkpolicy", true, false, "netpol", "", ""},
  };
  return kAll;
}

const ResourceInfo* find_resource(const std::string& group, const std::string& version, const std::string& resource) {
  for (const auto& r : all_resources())
    if (group == r.group && version == r.version && resource == r.resource) return &r;
  return nullptr;
}

const ResourceInfo* find_by_kind(const std::string& api_version, const std::string& kind) {
  for (const auto& r : all_resources())
    if (api_version == r.group_version() && kind == r.kind) return &r;
  return nullptr;
}

}  // namespace api
}  // namespace k32
