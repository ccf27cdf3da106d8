// NetworkPolicy (networking.k8s.io/v1): peers, CIDRs and ports validated as kube-apiserver
// does, policyTypes defaulted from which rule lists are present, and kubectl's columns.
#include "core/api/kinds/kind_strategy.h"
#include "core/api/selectors.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

bool parse_cidr(const std::string& s, uint32_t* net, int* bits) {
  size_t slash = s.find('/');
  if (slash == std::string::npos) return false;
  auto octets = text::split(s.substr(0, slash), '.');
  if (octets.size() != 4) return false;
  uint32_t v = 0;
  for (const auto& o : octets) {
    uint64_t x;
    if (!text::parse_uint(o, 255, &x)) return false;
    v = (v << 8) | static_cast<uint32_t>(x);
  }
  uint64_t b;
  if (!text::parse_uint(s.substr(slash + 1), 32, &b)) return false;
  *net = v;
  *bits = static_cast<int>(b);
  return true;
}

void validate_netpol_ports(const json::Value& ports, const std::string& base, FieldErrors* errs) {
  for (size_t k = 0; k < ports.items().size(); ++k) {
    const json::Value& p = ports.items()[k];
    std::string pp = base + "[" + text::to_string(static_cast<int64_t>(k)) + "]";
    validate_protocol(p["protocol"], pp + ".protocol", errs);
    validate_int_or_port_name(p["port"], pp + ".port", errs);
    if (!p["endPort"].is_null()) {
      if (!p["port"].is_int())
        errs->push_back({pp + ".endPort", "Required value: may not be specified when `port` is non-numeric"});
      else if (!port_number(p["endPort"]) || p["endPort"].as_int() < p["port"].as_int())
        errs->push_back(
            {pp + ".endPort", "Invalid value: " + json::dump(p["endPort"]) + ": must be greater than or equal to `port`"});
    }
  }
}

void validate_netpol_peers(const json::Value& peers, const std::string& base, FieldErrors* errs) {
  for (size_t k = 0; k < peers.items().size(); ++k) {
    const json::Value& p = peers.items()[k];
    std::string pp = base + "[" + text::to_string(static_cast<int64_t>(k)) + "]";
    int set = !p["podSelector"].is_null() + !p["namespaceSelector"].is_null();
    validate_label_selector(p["podSelector"], pp + ".podSelector", errs);
    validate_label_selector(p["namespaceSelector"], pp + ".namespaceSelector", errs);
    const json::Value& ipb = p["ipBlock"];
    if (!ipb.is_null()) {
      if (set) errs->push_back({pp, "Forbidden: may not specify more than 1 peer type when ipBlock is specified"});
      uint32_t net;
      int bits;
      std::string cidr = ipb["cidr"].as_string();
      if (!parse_cidr(cidr, &net, &bits)) {
        errs->push_back(
            {pp + ".ipBlock.cidr", invalid_value(cidr) + "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"});
      } else {
        uint32_t mask = bits ? ~0u << (32 - bits) : 0;
        for (size_t e = 0; e < ipb["except"].items().size(); ++e) {
          std::string ex = ipb["except"].items()[e].as_string();
          uint32_t en;
          int eb;
          std::string ep = pp + ".ipBlock.except[" + text::to_string(static_cast<int64_t>(e)) + "]";
          if (!parse_cidr(ex, &en, &eb)) errs->push_back({ep, invalid_value(ex) + "must be a valid CIDR value"});
          else if (eb <= bits || (en & mask) != (net & mask))
            errs->push_back({ep, invalid_value(ex) + "must be a strict subset of `cidr`"});
        }
      }
    } else if (!set) {
      errs->push_back({pp, "Required value: must specify a peer"});
    }
  }
}

void validate(const json::Value& obj, FieldErrors* errs) {
  const json::Value& spec = obj["spec"];
  if (spec.find("podSelector") == nullptr) errs->push_back({"spec.podSelector", "Required value"});
  validate_label_selector(spec["podSelector"], "spec.podSelector", errs);
  for (const auto& t : spec["policyTypes"].items()) {
    if (t.as_string() != "Ingress" && t.as_string() != "Egress")
      errs->push_back(
          {"spec.policyTypes", "Unsupported value: \"" + t.as_string() + "\": supported values: \"Egress\", \"Ingress\""});
  }
  const json::Value& eg = spec["egress"];
  for (size_t i = 0; i < eg.items().size(); ++i) {
    std::string b = "spec.egress[" + text::to_string(static_cast<int64_t>(i)) + "]";
    validate_netpol_ports(eg.items()[i]["ports"], b + ".ports", errs);
    validate_netpol_peers(eg.items()[i]["to"], b + ".to", errs);
  }
  const json::Value& in = spec["ingress"];
  for (size_t i = 0; i < in.items().size(); ++i) {
    std::string b = "spec.ingress[" + text::to_string(static_cast<int64_t>(i)) + "]";
    validate_netpol_ports(in.items()[i]["ports"], b + ".ports", errs);
    validate_netpol_peers(in.items()[i]["from"], b + ".from", errs);
  }
}

void defaults(json::Value* obj) {
  json::Value& spec = obj->at_or_insert("spec");
  if (!spec.find("policyTypes") || spec["policyTypes"].items().empty()) {
    json::Value types = json::Value::array();
    types.push("Ingress");
    if (spec.find("egress")) types.push("Egress");
    spec.set("policyTypes", types);
  }
  for (const char* dir : {"egress", "ingress"}) {
    if (json::Value* rules = spec.find(dir))
      for (auto& rule : rules->items())
        if (json::Value* ports = rule.find("ports"))
          for (auto& p : ports->items())
            if (!p.find("protocol")) p.set("protocol", "TCP");
  }
}

const TableColumn kColumns[] = {
    K32_NAME_COLUMN,
    {"Pod-Selector", "string", "", 0,
     [](const json::Value& o, int64_t) { return json::Value(format_label_selector(o["spec"]["podSelector"])); }},
    K32_AGE_COLUMN,
};

}  // namespace

extern const KindStrategy kNetworkPolicyKind = {
    NameRule::Subdomain,
    /*tracks_generation=*/true,
    /*resets_status_on_create=*/false,
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
