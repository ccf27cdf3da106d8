// k32_http_call URLs and how their host resolves, as a Kubernetes DNS name does inside a
// pod: <svc>, <svc>.<ns>, <svc>.<ns>.svc[.cluster.local] name a Service (<svc>.<ns> falls
// back to an outside host when no such Service exists); an IPv4 address or any other name
// is a host outside the cluster; https:// always is (pods serve plain HTTP).
#pragma once
#include <cstdint>
#include <string>

namespace k32 {
namespace calls {

struct CallUrl {
  bool https = false;
  std::string host;   // lowercase, as written (no port)
  uint16_t port = 0;  // 0 when the URL gives none (the default depends on the target)
  std::string path;   // "/..." including any query; "/" when the URL has none
};

// Parses http://<host>[:<port>]<path> / https://...; false with *err naming the rule broken.
bool parse_call_url(const std::string& url, CallUrl* out, std::string* err);

// What a host name of an http:// URL names.
struct NameTarget {
  enum Kind { Service, Outside } kind = Outside;
  std::string service;
  std::string ns;
  // <service>.<namespace>: when no such Service exists the name is looked up outside.
  bool outside_fallback = false;
};
NameTarget classify_host(const std::string& host, const std::string& caller_ns);

bool is_ipv4_literal(const std::string& host);

// Default ports of hosts outside the cluster.
constexpr uint16_t kHttpPort = 80;
constexpr uint16_t kHttpsPort = 443;

}  // namespace calls
}  // namespace k32
