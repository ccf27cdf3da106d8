#include "core/api/validation.h"

#include <cctype>
#include <cstdlib>

#include "core/api/qos_class.h"
#include "core/util/text.h"
#include "k32_board.h"

namespace k32 {
namespace api {

namespace {

const char kSubdomainMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char kLabelMsg[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const char kDns1035Msg[] =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, "
    "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

std::string quoted(const std::string& s) { return "Invalid value: \"" + s + "\": "; }

bool is_qualified_name_part(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  if (!std::isalnum(static_cast<unsigned char>(s.front())) || !std::isalnum(static_cast<unsigned char>(s.back())))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

bool is_label_key(const std::string& k) {
  size_t slash = k.find('/');
  if (slash == std::string::npos) return is_qualified_name_part(k);
  std::string prefix = k.substr(0, slash);
  return is_dns1123_subdomain(prefix) && is_qualified_name_part(k.substr(slash + 1));
}

bool is_label_value(const std::string& v) { return v.empty() || is_qualified_name_part(v); }

void validate_string_map(const json::Value& m, const std::string& path, bool values_are_labels, FieldErrors* errs) {
  if (m.is_null()) return;
  if (!m.is_object()) {
    errs->push_back({path, "Invalid value: must be a map of strings"});
    return;
  }
  size_t total = 0;
  for (const auto& kv : m.members()) {
    if (!kv.second.is_string()) {
      errs->push_back({path + "[" + kv.first + "]", "Invalid value: must be a string"});
      continue;
    }
    total += kv.first.size() + kv.second.str().size();
    if (!is_label_key(kv.first))
      errs->push_back({path, quoted(kv.first) + "name part must consist of alphanumeric characters, '-', '_' or '.', "
                                                "and must start and end with an alphanumeric character"});
    if (values_are_labels && !is_label_value(kv.second.str()))
      errs->push_back({path, quoted(kv.second.str()) + "a valid label must be an empty string or consist of "
                                                       "alphanumeric characters, '-', '_' or '.', and must start and "
                                                       "end with an alphanumeric character"});
  }
  if (!values_are_labels && total > K32_ANNOTATIONS_TOTAL_MAX)
    errs->push_back({path, "Too long: must have at most " + text::to_string(static_cast<int64_t>(K32_ANNOTATIONS_TOTAL_MAX)) +
                               " bytes"});
}

bool port_number(const json::Value& v) { return v.is_int() && v.as_int() >= 1 && v.as_int() <= 65535; }

void validate_int_or_port_name(const json::Value& v, const std::string& path, FieldErrors* errs) {
  if (v.is_null()) return;
  if (v.is_int()) {
    if (!port_number(v)) errs->push_back({path, "Invalid value: " + json::dump(v) + ": must be between 1 and 65535, inclusive"});
  } else if (v.is_string()) {
    if (!is_port_name(v.str())) errs->push_back({path, quoted(v.str()) + "must be an IANA_SVC_NAME (at most 15 characters, matching regex [a-z0-9]([a-z0-9-]*[a-z0-9])*,it must contain at least one letter [a-z], and hyphens cannot be adjacent to other hyphens)"});
  } else {
    errs->push_back({path, "Invalid value: must be an integer or a port name"});
  }
}

void validate_protocol(const json::Value& v, const std::string& path, FieldErrors* errs) {
  if (v.is_null()) return;
  std::string p = v.as_string();
  if (p != "TCP" && p != "UDP" && p != "SCTP")
    errs->push_back({path, "Unsupported value: \"" + p + "\": supported values: \"SCTP\", \"TCP\", \"UDP\""});
}

void validate_pod_spec(const json::Value& spec, const std::string& base, FieldErrors* errs) {
  const json::Value& cs = spec["containers"];
  if (!cs.is_array() || cs.items().empty()) {
    errs->push_back({base + ".containers", "Required value"});
    return;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < cs.items().size(); ++i) {
    const json::Value& c = cs.items()[i];
    std::string p = base + ".containers[" + text::to_string(static_cast<int64_t>(i)) + "]";
    std::string name = c["name"].as_string();
    if (name.empty()) errs->push_back({p + ".name", "Required value"});
    else if (!is_dns1123_label(name)) errs->push_back({p + ".name", quoted(name) + kLabelMsg});
    for (const auto& n : names)
      if (n == name && !name.empty()) errs->push_back({p + ".name", "Duplicate value: \"" + name + "\""});
    names.push_back(name);
    if (c["image"].as_string().empty()) errs->push_back({p + ".image", "Required value"});
    const json::Value& ports = c["ports"];
    for (size_t j = 0; j < ports.items().size(); ++j) {
      const json::Value& port = ports.items()[j];
      std::string pp = p + ".ports[" + text::to_string(static_cast<int64_t>(j)) + "]";
      if (!port_number(port["containerPort"]))
        errs->push_back({pp + ".containerPort", "Invalid value: " + json::dump(port["containerPort"]) + ": must be between 1 and 65535, inclusive"});
      if (!port["name"].is_null() && !is_port_name(port["name"].as_string()))
        errs->push_back({pp + ".name", quoted(port["name"].as_string()) + "must be no more than 15 characters"});
      validate_protocol(port["protocol"], pp + ".protocol", errs);
    }
  }
  std::string rp = spec["restartPolicy"].as_string();
  if (!rp.empty() && rp != "Always" && rp != "OnFailure" && rp != "Never")
    errs->push_back({base + ".restartPolicy", "Unsupported value: \"" + rp + "\": supported values: \"Always\", \"OnFailure\", \"Never\""});
}

void validate_service(const json::Value& obj, FieldErrors* errs) {
  const json::Value& spec = obj["spec"];
  std::string type = spec["type"].as_string("ClusterIP");
  if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer" && type != "ExternalName")
    errs->push_back({"spec.type", "Unsupported value: \"" + type + "\": supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\""});
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
      errs->push_back({pp + ".name", quoted(p["name"].as_string()) + kLabelMsg});
    validate_protocol(p["protocol"], pp + ".protocol", errs);
    validate_int_or_port_name(p["targetPort"], pp + ".targetPort", errs);
  }
  if (!spec["selector"].is_null()) validate_string_map(spec["selector"], "spec.selector", true, errs);
}

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
      errs->push_back({path + ".service.port.number", "Invalid value: " + json::dump(port["number"]) + ": must be between 1 and 65535, inclusive"});
  } else {
    if (res["kind"].as_string().empty()) errs->push_back({path + ".resource.kind", "Required value"});
    if (res["name"].as_string().empty()) errs->push_back({path + ".resource.name", "Required value"});
  }
}

void validate_ingress(const json::Value& obj, FieldErrors* errs) {
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
      if (!is_dns1123_subdomain(h)) errs->push_back({rp + ".host", quoted(host) + kSubdomainMsg});
    }
    const json::Value& paths = rule.path({"http", "paths"}) ? *rule.path({"http", "paths"}) : json::Value();
    for (size_t j = 0; j < paths.items().size(); ++j) {
      const json::Value& p = paths.items()[j];
      std::string pp = rp + ".http.paths[" + text::to_string(static_cast<int64_t>(j)) + "]";
      std::string type = p["pathType"].as_string();
      if (type.empty()) errs->push_back({pp + ".pathType", "Required value: pathType must be specified"});
      else if (type != "Exact" && type != "Prefix" && type != "ImplementationSpecific")
        errs->push_back({pp + ".pathType", "Unsupported value: \"" + type + "\": supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\""});
      std::string path = p["path"].as_string();
      if ((type == "Exact" || type == "Prefix") && (path.empty() || path[0] != '/'))
        errs->push_back({pp + ".path", quoted(path) + "must be an absolute path"});
      validate_ingress_backend(p["backend"], pp + ".backend", errs);
    }
  }
}

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
        errs->push_back({pp + ".endPort", "Invalid value: " + json::dump(p["endPort"]) + ": must be greater than or equal to `port`"});
    }
  }
}

// metav1.LabelSelector as kube-apiserver validates it: label keys and values, known
// operators, values exactly when the operator needs them.
void validate_label_selector(const json::Value& sel, const std::string& path, FieldErrors* errs) {
  if (sel.is_null()) return;
  validate_string_map(sel["matchLabels"], path + ".matchLabels", true, errs);
  const json::Value& exprs = sel["matchExpressions"];
  for (size_t i = 0; i < exprs.items().size(); ++i) {
    const json::Value& e = exprs.items()[i];
    std::string ep = path + ".matchExpressions[" + text::to_string(static_cast<int64_t>(i)) + "]";
    std::string key = e["key"].as_string();
    if (!is_label_key(key))
      errs->push_back({ep + ".key", quoted(key) + "name part must consist of alphanumeric characters, '-', '_' or "
                                                  "'.', and must start and end with an alphanumeric character"});
    std::string op = e["operator"].as_string();
    bool needs_values = op == "In" || op == "NotIn";
    if (!needs_values && op != "Exists" && op != "DoesNotExist")
      errs->push_back({ep + ".operator", "Invalid value: \"" + op + "\": not a valid selector operator"});
    else if (needs_values && e["values"].items().empty())
      errs->push_back({ep + ".values", "Required value: must be specified when `operator` is 'In' or 'NotIn'"});
    else if (!needs_values && !e["values"].items().empty())
      errs->push_back({ep + ".values", "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"});
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
        errs->push_back({pp + ".ipBlock.cidr", quoted(cidr) + "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"});
      } else {
        uint32_t mask = bits ? ~0u << (32 - bits) : 0;
        for (size_t e = 0; e < ipb["except"].items().size(); ++e) {
          std::string ex = ipb["except"].items()[e].as_string();
          uint32_t en;
          int eb;
          std::string ep = pp + ".ipBlock.except[" + text::to_string(static_cast<int64_t>(e)) + "]";
          if (!parse_cidr(ex, &en, &eb)) errs->push_back({ep, quoted(ex) + "must be a valid CIDR value"});
          else if (eb <= bits || (en & mask) != (net & mask)) errs->push_back({ep, quoted(ex) + "must be a strict subset of `cidr`"});
        }
      }
    } else if (!set) {
      errs->push_back({pp, "Required value: must specify a peer"});
    }
  }
}

void validate_netpol(const json::Value& obj, FieldErrors* errs) {
  const json::Value& spec = obj["spec"];
  if (spec.find("podSelector") == nullptr) errs->push_back({"spec.podSelector", "Required value"});
  validate_label_selector(spec["podSelector"], "spec.podSelector", errs);
  for (const auto& t : spec["policyTypes"].items()) {
    if (t.as_string() != "Ingress" && t.as_string() != "Egress")
      errs->push_back({"spec.policyTypes", "Unsupported value: \"" + t.as_string() + "\": supported values: \"Egress\", \"Ingress\""});
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

bool is_config_key(const std::string& k) {
  if (k.empty() || k.size() > 253 || k == "." || k == "..") return false;
  for (char c : k)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

bool is_base64(const std::string& s) {
  if (s.size() % 4 != 0) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/') continue;
    if (c == '=' && i >= s.size() - 2) continue;
    return false;
  }
  return true;
}

void validate_data_map(const json::Value& m, const std::string& path, bool base64, FieldErrors* errs) {
  if (m.is_null()) return;
  if (!m.is_object()) {
    errs->push_back({path, "Invalid value: must be a map"});
    return;
  }
  for (const auto& kv : m.members()) {
    if (!is_config_key(kv.first))
      errs->push_back({path, quoted(kv.first) + "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"});
    if (!kv.second.is_string()) errs->push_back({path + "[" + kv.first + "]", "Invalid value: must be a string"});
    else if (base64 && !is_base64(kv.second.str()))
      errs->push_back({path + "[" + kv.first + "]", "Invalid value: illegal base64 data"});
  }
}

}  // namespace

bool is_dns1123_label(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s)
    if (!lower_alnum(c) && c != '-') return false;
  return true;
}

bool is_dns1123_subdomain(const std::string& s) {
  // Kubernetes' subdomain check limits the whole name to 253 characters, not each part to a
  // label's 63: a 100-character ConfigMap or Secret name is valid.
  if (s.empty() || s.size() > 253) return false;
  for (const auto& part : text::split(s, '.')) {
    if (part.empty() || !lower_alnum(part.front()) || !lower_alnum(part.back())) return false;
    for (char c : part)
      if (!lower_alnum(c) && c != '-') return false;
  }
  return true;
}

bool is_dns1035_label(const std::string& s) { return is_dns1123_label(s) && s[0] >= 'a' && s[0] <= 'z'; }

bool is_port_name(const std::string& s) {
  if (s.empty() || s.size() > 15) return false;
  bool letter = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= 'a' && c <= 'z') letter = true;
    else if (!(c >= '0' && c <= '9') && c != '-') return false;
    if (c == '-' && (i == 0 || i + 1 == s.size() || s[i - 1] == '-')) return false;
  }
  return letter;
}

std::string validate_name(const ResourceInfo& r, const std::string& name) {
  std::string kind = r.kind;
  if (kind == "Namespace") return is_dns1123_label(name) ? "" : quoted(name) + kLabelMsg;
  if (kind == "Service") return is_dns1035_label(name) ? "" : quoted(name) + kDns1035Msg;
  return is_dns1123_subdomain(name) ? "" : quoted(name) + kSubdomainMsg;
}

void validate_object(const ResourceInfo& r, const json::Value& obj, FieldErrors* errs) {
  const json::Value& md = obj["metadata"];
  std::string name = md["name"].as_string();
  if (name.empty()) errs->push_back({"metadata.name", "Required value: name or generateName is required"});
  else {
    std::string e = validate_name(r, name);
    if (!e.empty()) errs->push_back({"metadata.name", e});
  }
  validate_string_map(md["labels"], "metadata.labels", true, errs);
  validate_string_map(md["annotations"], "metadata.annotations", false, errs);
  std::string kind = r.kind;
  if (kind == "Pod") validate_pod_spec(obj["spec"], "spec", errs);
  else if (kind == "Service") validate_service(obj, errs);
  else if (kind == "Ingress") validate_ingress(obj, errs);
  else if (kind == "NetworkPolicy") validate_netpol(obj, errs);
  else if (kind == "ConfigMap") {
    validate_data_map(obj["data"], "data", false, errs);
    validate_data_map(obj["binaryData"], "binaryData", true, errs);
  } else if (kind == "Secret") {
    validate_data_map(obj["data"], "data", true, errs);
    validate_data_map(obj["stringData"], "stringData", false, errs);
  }
}

void apply_defaults(const ResourceInfo& r, json::Value* obj) {
  std::string kind = r.kind;
  json::Value& md = obj->at_or_insert("metadata");
  if (kind == "Namespace") {
    md.at_or_insert("labels").set("kubernetes.io/metadata.name", md["name"].as_string());
    json::Value& spec = obj->at_or_insert("spec");
    if (!spec.find("finalizers")) {
      json::Value f = json::Value::array();
      f.push("kubernetes");
      spec.set("finalizers", f);
    }
    json::Value& st = obj->at_or_insert("status");
    if (!st.find("phase")) st.set("phase", "Active");
  } else if (kind == "Pod") {
    json::Value& spec = obj->at_or_insert("spec");
    if (!spec.find("restartPolicy")) spec.set("restartPolicy", "Always");
    if (!spec.find("terminationGracePeriodSeconds")) spec.set("terminationGracePeriodSeconds", 30);
    if (!spec.find("dnsPolicy")) spec.set("dnsPolicy", "ClusterFirst");
    if (!spec.find("schedulerName")) spec.set("schedulerName", "default-scheduler");
    if (!spec.find("enableServiceLinks")) spec.set("enableServiceLinks", true);
    for (auto& c : spec.at_or_insert("containers").items()) {
      if (!c.find("imagePullPolicy")) c.set("imagePullPolicy", "IfNotPresent");
      if (!c.find("terminationMessagePath")) c.set("terminationMessagePath", "/dev/termination-log");
      if (!c.find("terminationMessagePolicy")) c.set("terminationMessagePolicy", "File");
      if (json::Value* ports = c.find("ports"))
        for (auto& p : ports->items())
          if (!p.find("protocol")) p.set("protocol", "TCP");
    }
    json::Value& st = obj->at_or_insert("status");
    if (!st.find("phase")) st.set("phase", "Pending");
    if (!st.find("qosClass")) st.set("qosClass", qos_class(spec));
  } else if (kind == "Service") {
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
  } else if (kind == "NetworkPolicy") {
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
  } else if (kind == "Secret") {
    if (!obj->find("type")) obj->set("type", "Opaque");
  }
}

}  // namespace api
}  // namespace k32
