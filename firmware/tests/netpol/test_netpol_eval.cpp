// Table of NetworkPolicy egress decisions, with Kubernetes egress semantics.
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"
#include "core/json/json.h"
#include "core/netpol/netpol_eval.h"

using namespace k32;

static json::Value J(const char* text) {
  json::Value v;
  json::ParseError e;
  if (!json::parse(std::string(text), &v, &e)) {
    std::fprintf(stderr, "bad test JSON: %s\n", text);
    std::abort();
  }
  return v;
}

static const char* kProbe = R"({"metadata":{"name":"probe","namespace":"default","labels":{"app":"egress-probe"}}})";
static const char* kOther = R"({"metadata":{"name":"other","namespace":"default","labels":{"app":"other"}}})";
static const char* kTarget =
    R"({"metadata":{"name":"db-0","namespace":"data","labels":{"app":"db"}},
        "spec":{"containers":[{"name":"c","ports":[{"name":"http","containerPort":7000},
                                                    {"name":"udp","containerPort":7001,"protocol":"UDP"}]}]}})";
static const char* kLocalTarget =
    R"({"metadata":{"name":"web-0","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[]}})";

// examples/egress-policy.yaml, verbatim.
static const char* kSpecPolicy = R"({"metadata":{"name":"egress-probe","namespace":"default"},
  "spec":{"podSelector":{"matchLabels":{"app":"egress-probe"}},"policyTypes":["Egress"],
  "egress":[{"to":[{"ipBlock":{"cidr":"0.0.0.0/0","except":["192.168.4.0/24"]}}],
             "ports":[{"protocol":"TCP","port":8000}]}]}})";

static netpol::Destination host(const char* ip, uint16_t port) {
  netpol::Destination d;
  d.ip = ip;
  d.port = port;
  return d;
}

static bool allowed(const std::vector<const char*>& pols, const char* caller, const netpol::Destination& d) {
  std::vector<json::Value> vals;
  for (const char* p : pols) vals.push_back(J(p));
  std::vector<const json::Value*> ptrs;
  for (auto& v : vals) ptrs.push_back(&v);
  json::Value c = J(caller);
  netpol::Verdict v = netpol::evaluate_egress(ptrs, c, d);
  if (!v.allowed) CHECK(!v.reason.empty());
  return v.allowed;
}

int main() {
  // CIDR arithmetic.
  CHECK(netpol::cidr_contains("0.0.0.0/0", "8.8.8.8"));
  CHECK(netpol::cidr_contains("192.168.4.0/24", "192.168.4.77"));
  CHECK(!netpol::cidr_contains("192.168.4.0/24", "192.168.5.1"));
  CHECK(netpol::cidr_contains("10.1.2.3/32", "10.1.2.3"));
  CHECK(!netpol::cidr_contains("10.1.2.3/32", "10.1.2.4"));
  CHECK(!netpol::cidr_contains("10.0.0.0/33", "10.0.0.1"));
  CHECK(!netpol::cidr_contains("fd00::/8", "10.0.0.1"));
  CHECK(!netpol::cidr_contains("10.0.0.0", "10.0.0.1"));
  CHECK(!netpol::cidr_contains("10.0.0.0/8", "10.0.0"));

  // Default allow: no policies, or none selecting the caller.
  CHECK(allowed({}, kProbe, host("1.2.3.4", 80)));
  CHECK(allowed({kSpecPolicy}, kOther, host("1.2.3.4", 80)));

  // examples/egress-policy.yaml: port 8000 outside 192.168.4.0/24 only.
  CHECK(allowed({kSpecPolicy}, kProbe, host("127.0.0.1", 8000)));
  CHECK(!allowed({kSpecPolicy}, kProbe, host("127.0.0.1", 8001)));
  CHECK(!allowed({kSpecPolicy}, kProbe, host("192.168.4.20", 8000)));
  CHECK(allowed({kSpecPolicy}, kProbe, host("192.168.5.20", 8000)));

  // A policy in another namespace never selects the caller.
  CHECK(
      allowed({R"({"metadata":{"name":"x","namespace":"data"},"spec":{"podSelector":{},"policyTypes":["Egress"],"egress":[]}})"},
              kProbe, host("1.1.1.1", 80)));

  // egress: [] allows nothing; Ingress-only policies do not restrict egress.
  const char* deny_all =
      R"({"metadata":{"name":"deny","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],"egress":[]}})";
  CHECK(!allowed({deny_all}, kProbe, host("1.1.1.1", 80)));
  const char* ingress_only =
      R"({"metadata":{"name":"in","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Ingress"]}})";
  CHECK(allowed({ingress_only}, kProbe, host("1.1.1.1", 80)));
  // policyTypes absent: Egress only when the policy has egress rules (kube-apiserver's default).
  const char* untyped_rules =
      R"({"metadata":{"name":"u","namespace":"default"},"spec":{"podSelector":{},"egress":[{"ports":[{"port":53}]}]}})";
  CHECK(!allowed({untyped_rules}, kProbe, host("1.1.1.1", 80)));
  CHECK(allowed({untyped_rules}, kProbe, host("1.1.1.1", 53)));
  const char* untyped_none = R"({"metadata":{"name":"u","namespace":"default"},"spec":{"podSelector":{}}})";
  CHECK(allowed({untyped_none}, kProbe, host("1.1.1.1", 80)));

  // Policies add up: a deny-all plus an allow lets the allowed through.
  CHECK(allowed({deny_all, kSpecPolicy}, kProbe, host("8.8.8.8", 8000)));
  CHECK(!allowed({deny_all, kSpecPolicy}, kProbe, host("8.8.8.8", 443)));

  // A rule without to matches every destination; without ports every port.
  const char* all_ports_10 = R"({"metadata":{"name":"p","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"to":[{"ipBlock":{"cidr":"10.0.0.0/8"}}]}]}})";
  CHECK(allowed({all_ports_10}, kProbe, host("10.9.9.9", 1)));
  CHECK(allowed({all_ports_10}, kProbe, host("10.9.9.9", 65535)));
  CHECK(!allowed({all_ports_10}, kProbe, host("11.0.0.1", 80)));
  const char* rule_everything =
      R"({"metadata":{"name":"e","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],"egress":[{}]}})";
  CHECK(allowed({rule_everything}, kProbe, host("11.0.0.1", 80)));

  // Port ranges with endPort, and non-TCP protocols never match.
  const char* range = R"({"metadata":{"name":"r","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"ports":[{"protocol":"TCP","port":8000,"endPort":8010},{"protocol":"UDP","port":53}]}]}})";
  CHECK(allowed({range}, kProbe, host("1.1.1.1", 8000)));
  CHECK(allowed({range}, kProbe, host("1.1.1.1", 8010)));
  CHECK(!allowed({range}, kProbe, host("1.1.1.1", 8011)));
  CHECK(!allowed({range}, kProbe, host("1.1.1.1", 7999)));
  CHECK(!allowed({range}, kProbe, host("1.1.1.1", 53)));
  // A ports entry without port matches every TCP port.
  const char* proto_only = R"({"metadata":{"name":"t","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"ports":[{"protocol":"TCP"}]}]}})";
  CHECK(allowed({proto_only}, kProbe, host("1.1.1.1", 1234)));

  // Pods behind a Service: podSelector / namespaceSelector / named ports / pod IP in ipBlock.
  json::Value target = J(kTarget);
  netpol::Destination pod_dst = host("192.168.4.2", 7000);
  pod_dst.pod = &target;
  pod_dst.namespace_labels = J(R"({"team":"data"})");
  const char* ns_sel = R"({"metadata":{"name":"n","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"data"}}}]}]}})";
  CHECK(allowed({ns_sel}, kProbe, pod_dst));
  CHECK(!allowed({ns_sel}, kProbe, host("192.168.4.2", 7000)));  // selectors never match outside hosts
  const char* ns_and_pod = R"({"metadata":{"name":"np","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"to":[{"namespaceSelector":{"matchLabels":{"team":"data"}},"podSelector":{"matchLabels":{"app":"db"}}}]}]}})";
  CHECK(allowed({ns_and_pod}, kProbe, pod_dst));
  const char* ns_and_wrong_pod =
      R"({"metadata":{"name":"np","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"to":[{"namespaceSelector":{"matchLabels":{"team":"data"}},"podSelector":{"matchLabels":{"app":"web"}}}]}]}})";
  CHECK(!allowed({ns_and_wrong_pod}, kProbe, pod_dst));
  // podSelector alone: only pods of the policy's own namespace.
  const char* pod_only = R"({"metadata":{"name":"po","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"to":[{"podSelector":{"matchLabels":{"app":"db"}}}]}]}})";
  CHECK(!allowed({pod_only}, kProbe, pod_dst));  // db-0 lives in "data"
  json::Value local = J(kLocalTarget);
  netpol::Destination local_dst = host("192.168.4.1", 7000);
  local_dst.pod = &local;
  const char* pod_only_web = R"({"metadata":{"name":"pw","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"to":[{"podSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["web"]}]}}]}]}})";
  CHECK(allowed({pod_only_web}, kProbe, local_dst));
  CHECK(!allowed({pod_only_web}, kProbe, pod_dst));
  // Named ports resolve against the target pod's containerPorts (TCP only).
  const char* named = R"({"metadata":{"name":"nm","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"ports":[{"port":"http"}]}]}})";
  CHECK(allowed({named}, kProbe, pod_dst));
  netpol::Destination udp_dst = pod_dst;
  udp_dst.port = 7001;
  const char* named_udp = R"({"metadata":{"name":"nu","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"ports":[{"port":"udp"}]}]}})";
  CHECK(!allowed({named_udp}, kProbe, udp_dst));
  CHECK(!allowed({named}, kProbe, host("192.168.4.2", 7000)));  // outside hosts have no port names
  // ipBlock matches the pod IP of a pod behind a Service.
  const char* pod_ip_block = R"({"metadata":{"name":"ib","namespace":"default"},"spec":{"podSelector":{},"policyTypes":["Egress"],
      "egress":[{"to":[{"ipBlock":{"cidr":"192.168.4.0/24","except":["192.168.4.1/32"]}}]}]}})";
  CHECK(allowed({pod_ip_block}, kProbe, pod_dst));
  CHECK(!allowed({pod_ip_block}, kProbe, local_dst));

  // The reason names the policy and the destination.
  {
    json::Value p = J(kSpecPolicy), c = J(kProbe);
    netpol::Verdict v = netpol::evaluate_egress({&p}, c, host("127.0.0.1", 9000));
    CHECK(!v.allowed);
    CHECK(v.reason.find("default/egress-probe") != std::string::npos);
    CHECK(v.reason.find("127.0.0.1:9000") != std::string::npos);
  }
  TEST_MAIN_END();
}
