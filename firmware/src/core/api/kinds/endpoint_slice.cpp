// EndpointSlice (discovery.k8s.io/v1): computed on each read like Endpoints, never stored;
// kubectl's columns.
#include "core/api/kinds/kind_strategy.h"
#include "core/api/endpoints_view.h"

namespace k32 {
namespace api {

namespace {

json::Value ports_cell(const json::Value& o, int64_t) {
  std::vector<std::string> ps;
  for (const auto& p : o["ports"].items()) ps.push_back(json::dump(p["port"]));
  return json::Value(ps.empty() ? std::string("<unset>") : join(ps, ","));
}

json::Value endpoints_cell(const json::Value& o, int64_t) {
  std::vector<std::string> as;
  for (const auto& e : o["endpoints"].items())
    for (const auto& a : e["addresses"].items()) as.push_back(a.as_string());
  return json::Value(as.empty() ? std::string("<unset>") : join(as, ","));
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"AddressType", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["addressType"].as_string()); }},
    {"Ports", "string", "", 0, ports_cell},
    {"Endpoints", "string", "", 0, endpoints_cell},
    K32_AGE_COLUMN,
};

}  // namespace

extern const KindStrategy kEndpointSliceKind = {
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
    compute_endpointslices,
    kColumns,
    column_count(kColumns),
};

}  // namespace api
}  // namespace k32
