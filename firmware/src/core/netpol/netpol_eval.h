// NetworkPolicy egress evaluation, with Kubernetes semantics: pure functions over the
// policies of the caller's namespace, the caller pod and one destination. Ingress rules
// are stored by the API server and never consulted here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/json/json.h"

namespace k32 {
namespace netpol {

// Every namespace carries this label with its own name (as in Kubernetes), so a
// namespaceSelector can pick namespaces by name.
constexpr const char* kNamespaceNameLabel = "kubernetes.io/metadata.name";

// The destination of one connection a k32_http_call opens.
struct Destination {
  std::string ip;     // dotted IPv4: the outside host's address or the target pod's IP
  uint16_t port = 0;  // the host's port or the pod's resolved target port
  // The pod behind a Service (nullptr for a host outside the cluster), and the labels of
  // its namespace (kubernetes.io/metadata.name is added when missing).
  const json::Value* pod = nullptr;
  json::Value namespace_labels;
};

struct Verdict {
  bool allowed = true;
  std::string reason;  // why a denied connection was denied (for the [NETPOL] line)
};

// True when `policy` restricts the egress of `pod`: same namespace, Egress among its
// policyTypes (defaulted as kube-apiserver does when absent), podSelector matching.
bool selects_for_egress(const json::Value& policy, const json::Value& pod);

// Decides one connection of `caller` given every NetworkPolicy of the caller's namespace.
Verdict evaluate_egress(const std::vector<const json::Value*>& policies, const json::Value& caller, const Destination& dst);

// "10.0.0.0/8" contains "10.1.2.3"; false for malformed or non-IPv4 blocks.
bool cidr_contains(const std::string& cidr, const std::string& ip);
bool parse_ipv4(const std::string& s, uint32_t* out);

}  // namespace netpol
}  // namespace k32
