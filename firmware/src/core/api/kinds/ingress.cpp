// Ingress (networking.k8s.io/v1): rules and backends validated as kube-apiserver does, and
// kubectl's columns. The node's ingress controller writes status.loadBalancer.
#include "core/api/kinds/kind_strategy.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

void validate_ingress_backend(const json::Value& b, const std::string& path, FieldErrors* errs) {
  const json::Value& svc = b["service"];
  const json::Value& res = b["resource"];
  if (svc.is_null() && res.is_null()) {
    errs->push_back({path, "Invalid value: \"\": one backend (service or resource) must be specified"});
    return;
  }
  if (!svc.is_null() && !res.is_null()) {
    errs->push_back({path, "Invalid value: cannot set both service and resource backends"});
    return;
  }
  if (!svc.is_null()) {
    if (svc["name"].as_string().empty()) errs->push_back({path + ".service.name", "Required value"});
    const json::Value& port = svc["port"];
    bool has_num = !port["number"].is_null(), has_name = !port["name"].is_null();
    if (has_num == has_name)
      errs->push_back({path + ".service.port", "Invalid value: exactly one of port.number or port.name must be set"});
    if (has_num && !port_number(port["number"]))
      errs->push_back({path + ".service.port.number",
                       "Invalid value: " + json::dump(port["number"]) + ": must be between 1 and 65535, inclusive"});
  } else {
    if (res["kind"].as_string().empty()) errs->push_back({path + ".resource.kind", "Required value"});
    if (res["name"].as_string().empty()) errs->push_back({path + ".resource.name", "Required value"});
  }
}

void validate(const json::Value& obj, FieldErrors* errs) {
  const json::Value& spec = obj["spec"];
  if (!spec["defaultBackend"].is_null()) validate_ingress_backend(spec["defaultBackend"], "spec.defaultBackend", errs);
  const json::Value& rules = spec["rules"];
  if (rules.is_null() && spec["defaultBackend"].is_null())
    errs->push_back({"spec", "Invalid value: either `defaultBackend` or `rules` must be specified"});
  for (size_t i = 0; i < rules.items().size(); ++i) {
    const json::Value& rule = rules.items()[i];
    std::string rp = "spec.rules[" + text::to_string(static_cast<int64_t>(i)) + "]";
    std::string host = rule["host"].as_string();
    if (!host.empty()) {
      std::string h = text::starts_with(host, "*.") ? host.substr(2) : host;
      if (!is_dns1123_subdomain(h)) errs->push_back({rp + ".host", invalid_value(host) + kSubdomainMsg});
    }
    const json::Value& paths = rule.path({"http", "paths"}) ? *rule.path({"http", "paths"}) : json::Value();
    for (size_t j = 0; j < paths.items().size(); ++j) {
      const json::Value& p = paths.items()[j];
      std::string pp = rp + ".http.paths[" + text::to_string(static_cast<int64_t>(j)) + "]";
      std::string type = p["pathType"].as_string();
      if (type.empty()) errs->push_back({pp + ".pathType", "Required value: pathType must be specified"});
      else if (type != "Exact" && type != "Prefix" && type != "ImplementationSpecific")
        errs->push_back({pp + ".pathType", "Unsupported value: \"" + type +
                                               "\": supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\""});
      std::string path = p["path"].as_string();
      if ((type == "Exact" || type == "Prefix") && (path.empty() || path[0] != '/'))
        errs->push_back({pp + ".path", invalid_value(path) + "must be an absolute path"});
      validate_ingress_backend(p["backend"], pp + ".backend", errs);
    }
  }
}

std::string ingress_hosts(const json::Value& i) {
  std::vector<std::string> hosts;
  for (const auto& r : i["spec"]["rules"].items()) hosts.push_back(r["host"].as_string().empty() ? "*" : r["host"].str());
  if (hosts.empty()) return "*";
  return join(hosts, ",");
}

std::string ingress_address(const json::Value& i) {
  std::vector<std::string> out;
  for (const auto& l : i["status"]["loadBalancer"]["ingress"].items())
    out.push_back(l["ip"].as_string().empty() ? l["hostname"].as_string() : l["ip"].str());
  return join(out, ",");
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Class", "string", "", 0,
     [](const json::Value& o, int64_t) { return json::Value(o["spec"]["ingressClassName"].as_string("<none>")); }},
    {"Hosts", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(ingress_hosts(o)); }},
    {"Address", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(ingress_address(o)); }},
    {"Ports", "string", "", 0,
     [](const json::Value& o, int64_t) { return json::Value(o["spec"]["tls"].items().empty() ? "80" : "80, 443"); }},
    K32_AGE_COLUMN,
};

}  // namespace

extern const KindStrategy kIngressKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/true,
    /*resets_status_on_create=*/true,
    /*deletes_contents=*/false,
    /*prepare=*/nullptr,
    /*defaults=*/nullptr,
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
