// Node: registered and kept current by each node's kubelet; kubectl's columns.
#include "core/api/kinds/kind_strategy.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

std::string node_status(const json::Value& n) {
  std::string s = "Unknown";
  for (const auto& c : n["status"]["conditions"].items())
    if (c["type"].str() == "Ready") s = c["status"].str() == "True" ? "Ready" : "NotReady";
  if (n["spec"]["unschedulable"].as_bool()) s += ",SchedulingDisabled";
  return s;
}

std::string node_roles(const json::Value& n) {
  std::vector<std::string> roles;
  for (const auto& l : n["metadata"]["labels"].members())
    if (text::starts_with(l.first, "node-role.kubernetes.io/")) roles.push_back(l.first.substr(24));
  return roles.empty() ? "<none>" : join(roles, ",");
}

std::string node_address(const json::Value& n, const char* type) {
  for (const auto& a : n["status"]["addresses"].items())
    if (a["type"].str() == type) return a["address"].str();
  return "<none>";
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Status", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(node_status(o)); }},
    {"Roles", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(node_roles(o)); }},
    K32_AGE_COLUMN,
    {"Version", "string", "", 0,
     [](const json::Value& o, int64_t) { return json::Value(o["status"]["nodeInfo"]["kubeletVersion"].as_string()); }},
    {"Internal-IP", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(node_address(o, "InternalIP")); }},
    {"External-IP", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(node_address(o, "ExternalIP")); }},
    {"OS-Image", "string", "", 1,
     [](const json::Value& o, int64_t) { return json::Value(o["status"]["nodeInfo"]["osImage"].as_string("<unknown>")); }},
    {"Kernel-Version", "string", "", 1,
     [](const json::Value& o, int64_t) { return json::Value(o["status"]["nodeInfo"]["kernelVersion"].as_string("<unknown>")); }},
    {"Container-Runtime", "string", "", 1,
     [](const json::Value& o, int64_t) {
       return json::Value(o["status"]["nodeInfo"]["containerRuntimeVersion"].as_string("<unknown>"));
     }},
};

}  // namespace

extern const KindStrategy kNodeKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/false,
    /*resets_status_on_create=*/false,
    /*deletes_contents=*/false,
    /*prepare=*/nullptr,
    /*defaults=*/nullptr,
    /*validate=*/nullptr,
    /*validate_update=*/nullptr,
    /*grace_period=*/nullptr,
    /*mark_terminating=*/nullptr,
    /*compute=*/nullptr,
    kColumns,
    column_count(kColumns),
};

}  // namespace api
}  // namespace k32
