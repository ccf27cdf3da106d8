#include "core/netpol/netpol_eval.h"

#include <cstdio>

#include "core/api/selectors.h"

namespace k32 {
namespace netpol {

namespace {

const json::Value& labels_of(const json::Value& obj) { return obj["metadata"]["labels"]; }

bool selector_matches(const json::Value& sel, const json::Value& labels) {
  api::LabelSelector s;
  std::string err;
  // A selector the API server let through but we cannot read matches nothing: deny-safe.
  if (!api::label_selector_from_json(sel, &s, &err)) return false;
  return s.matches(labels);
}

bool has_egress_type(const json::Value& spec) {
  const json::Value* types = spec.find("policyTypes");
  if (!types || !types->is_array() || types->size() == 0) {
    // kube-apiserver's default: Ingress, plus Egress when the policy has egress rules.
    const json::Value* eg = spec.find("egress");
    return eg && eg->is_array() && eg->size() > 0;
  }
  for (const auto& t : types->items())
    if (t.as_string() == "Egress") return true;
  return false;
}

// ipBlock.cidr minus its except blocks.
bool ip_block_matches(const json::Value& block, const std::string& ip) {
  if (!cidr_contains(block["cidr"].as_string(), ip)) return false;
  for (const auto& ex : block["except"].items())
    if (cidr_contains(ex.as_string(), ip)) return false;
  return true;
}

bool peer_matches(const json::Value& peer, const std::string& policy_ns, const Destination& dst) {
  if (const json::Value* block = peer.find("ipBlock")) {
    if (block->is_object()) return ip_block_matches(*block, dst.ip);
  }
  const json::Value* pod_sel = peer.find("podSelector");
  const json::Value* ns_sel = peer.find("namespaceSelector");
  if (pod_sel && pod_sel->is_null()) pod_sel = nullptr;
  if (ns_sel && ns_sel->is_null()) ns_sel = nullptr;
  if (!pod_sel && !ns_sel) return false;
  if (!dst.pod) return false;  // selectors never match hosts outside the cluster
  if (ns_sel) {
    json::Value ns_labels = dst.namespace_labels.is_object() ? dst.namespace_labels : json::Value::object();
    if (!ns_labels.find(kNamespaceNameLabel)) ns_labels.set(kNamespaceNameLabel, (*dst.pod)["metadata"]["namespace"].as_string());
    if (!selector_matches(*ns_sel, ns_labels)) return false;
  } else if ((*dst.pod)["metadata"]["namespace"].as_string() != policy_ns) {
    return false;  // podSelector alone: pods of the policy's namespace
  }
  return !pod_sel || selector_matches(*pod_sel, labels_of(*dst.pod));
}

// The container port named `name` (TCP) of the target pod.
bool named_port_matches(const std::string& name, const Destination& dst) {
  if (!dst.pod) return false;
  for (const auto& c : (*dst.pod)["spec"]["containers"].items()) {
    for (const auto& p : c["ports"].items()) {
      std::string proto = p["protocol"].as_string("TCP");
      if (p["name"].as_string() == name && proto == "TCP" && p["containerPort"].as_int(-1) == dst.port) return true;
    }
  }
  return false;
}

bool port_matches(const json::Value& rule_port, const Destination& dst) {
  if (rule_port["protocol"].as_string("TCP") != "TCP") return false;  // only TCP matches
  const json::Value* port = rule_port.find("port");
  if (!port || port->is_null()) return true;  // every port of the protocol
  if (port->is_string()) return named_port_matches(port->str(), dst);
  int64_t lo = port->as_int(-1);
  const json::Value* end = rule_port.find("endPort");
  int64_t hi = (end && end->is_int()) ? end->as_int() : lo;
  return dst.port >= lo && dst.port <= hi;
}

bool rule_allows(const json::Value& rule, const std::string& policy_ns, const Destination& dst) {
  const json::Value* to = rule.find("to");
  if (to && to->is_array() && to->size() > 0) {
    bool any = false;
    for (const auto& peer : to->items())
      if (peer_matches(peer, policy_ns, dst)) {
        any = true;
        break;
      }
    if (!any) return false;
  }
  const json::Value* ports = rule.find("ports");
  if (ports && ports->is_array() && ports->size() > 0) {
    for (const auto& p : ports->items())
      if (port_matches(p, dst)) return true;
    return false;
  }
  return true;
}

}  // namespace

bool parse_ipv4(const std::string& s, uint32_t* out) {
  unsigned a, b, c, d;
  char extra;
  if (std::sscanf(s.c_str(), "%3u.%3u.%3u.%3u%c", &a, &b, &c, &d, &extra) != 4) return false;
  if (a > 255 || b > 255 || c > 255 || d > 255) return false;
  *out = (uint32_t(a) << 24) | (uint32_t(b) << 16) | (uint32_t(c) << 8) | uint32_t(d);
  return true;
}

bool cidr_contains(const std::string& cidr, const std::string& ip) {
  size_t slash = cidr.find('/');
  if (slash == std::string::npos) return false;
  uint32_t net, addr;
  if (!parse_ipv4(cidr.substr(0, slash), &net) || !parse_ipv4(ip, &addr)) return false;
  const std::string bits_s = cidr.substr(slash + 1);
  if (bits_s.empty() || bits_s.size() > 2 || bits_s.find_first_not_of("0123456789") != std::string::npos) return false;
  unsigned bits = unsigned(std::stoul(bits_s));
  if (bits > 32) return false;
  uint32_t mask = bits == 0 ? 0u : (0xFFFFFFFFu << (32 - bits));
  return (net & mask) == (addr & mask);
}

bool selects_for_egress(const json::Value& policy, const json::Value& pod) {
  if (policy["metadata"]["namespace"].as_string() != pod["metadata"]["namespace"].as_string()) return false;
  const json::Value& spec = policy["spec"];
  if (!has_egress_type(spec)) return false;
  return selector_matches(spec["podSelector"], labels_of(pod));
}

Verdict evaluate_egress(const std::vector<const json::Value*>& policies, const json::Value& caller, const Destination& dst) {
  Verdict v;
  std::string names;
  for (const json::Value* pol : policies) {
    if (!pol || !selects_for_egress(*pol, caller)) continue;
    const std::string ns = (*pol)["metadata"]["namespace"].as_string();
    for (const auto& rule : (*pol)["spec"]["egress"].items())
      if (rule_allows(rule, ns, dst)) return v;
    if (!names.empty()) names += ",";
    names += ns + "/" + (*pol)["metadata"]["name"].as_string();
  }
  if (names.empty()) return v;  // no policy selects the caller: default allow
  v.allowed = false;
  v.reason = "no egress rule of NetworkPolicy " + names + " allows TCP " + dst.ip + ":" + std::to_string(dst.port);
  return v;
}

}  // namespace netpol
}  // namespace k32
