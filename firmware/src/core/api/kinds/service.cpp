// Service: port and type validation, the defaults kube-apiserver fills (protocol,
// targetPort = port) and kubectl's columns. Cluster IPs and node ports are assigned by the
// node's service controller, not here.
#include "core/api/kinds/kind_strategy.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

void validate(const json::Value& obj, FieldErrors* errs) {
  const json::Value& spec = obj["spec"];
  std::string type = spec["type"].as_string("ClusterIP");
  if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer" && type != "ExternalName")
    errs->push_back({"spec.type", "Unsupported value: \"" + type +
                                      "\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\""});
  const json::Value& ports = spec["ports"];
  if (type != "ExternalName" && (!ports.is_array() || ports.items().empty()) && spec["clusterIP"].as_string() != "None")
    errs->push_back({"spec.ports", "Required value"});
  for (size_t i = 0; i < ports.items().size(); ++i) {
    const json::Value& p = ports.items()[i];
    std::string pp = "spec.ports[" + text::to_string(static_cast<int64_t>(i)) + "]";
    if (!port_number(p["port"]))
      errs->push_back({pp + ".port", "Invalid value: " + json::dump(p["port"]) + ": must be between 1 and 65535, inclusive"});
    if (ports.items().size() > 1 && p["name"].as_string().empty()) errs->push_back({pp + ".name", "Required value"});
    // Port names key the Endpoints/EndpointSlice ports and a pod's named targetPorts.
    for (size_t j = 0; j < i && !p["name"].as_string().empty(); ++j)
      if (ports.items()[j]["name"].as_string() == p["name"].as_string()) {
        errs->push_back({pp + ".name", "Duplicate value: \"" + p["name"].as_string() + "\""});
        break;
      }
    if (!p["name"].is_null() && !p["name"].as_string().empty() && !is_dns1123_label(p["name"].as_string()))
      errs->push_back({pp + ".name", invalid_value(p["name"].as_string()) + kLabelMsg});
    validate_protocol(p["protocol"], pp + ".protocol", errs);
    validate_int_or_port_name(p["targetPort"], pp + ".targetPort", errs);
  }
  if (!spec["selector"].is_null()) validate_string_map(spec["selector"], "spec.selector", true, errs);
}

void defaults(json::Value* obj) {
  json::Value& spec = obj->at_or_insert("spec");
  if (!spec.find("type")) spec.set("type", "ClusterIP");
  if (!spec.find("sessionAffinity")) spec.set("sessionAffinity", "None");
  if (json::Value* ports = spec.find("ports")) {
    for (auto& p : ports->items()) {
      if (!p.find("protocol")) p.set("protocol", "TCP");
      if (!p.find("targetPort")) p.set("targetPort", p["port"]);
    }
  }
  if (!obj->find("status")) obj->set("status", json::Value::object()).set("loadBalancer", json::Value::object());
}

std::string svc_ports(const json::Value& s) {
  std::vector<std::string> out;
  for (const auto& p : s["spec"]["ports"].items()) {
    std::string e = json::dump(p["port"]);
    if (!p["nodePort"].is_null()) e += ":" + json::dump(p["nodePort"]);
    out.push_back(e + "/" + p["protocol"].as_string("TCP"));
  }
  return out.empty() ? "<none>" : join(out, ",");
}

std::string map_selector(const json::Value& sel) {
  std::vector<std::string> out;
  for (const auto& m : sel.members()) out.push_back(m.first + "=" + m.second.as_string());
  return out.empty() ? "<none>" : join(out, ",");
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Type", "string", "", 0,
     [](const json::Value& o, int64_t) { return json::Value(o["spec"]["type"].as_string("ClusterIP")); }},
    {"Cluster-IP", "string", "", 0,
     [](const json::Value& o, int64_t) { return json::Value(o["spec"]["clusterIP"].as_string("<none>")); }},
    {"External-IP", "string", "", 0, [](const json::Value&, int64_t) { return json::Value("<none>"); }},
    {"Port(s)", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(svc_ports(o)); }},
    K32_AGE_COLUMN,
    {"Selector", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(map_selector(o["spec"]["selector"])); }},
};

}  // namespace

extern const KindStrategy kServiceKind = {
    NameRule::Dns1035Label,  // a Service name is a DNS label that starts with a letter
    /*tracks_generation=*/true,
    /*resets_status_on_create=*/true,
    /*deletes_contents=*/false,
    /*prepare=*/nullptr,
    defaults,
    validate,
    /*validate_update=*/nullptr,
    /*grace_period=*/nullptr,
    /*mark_terminating=*/nullptr,
    /*compute=*/nullptr,
    kColumns,
    column_count(kColumns),
};

}  // namespace api
}  // namespace k32
