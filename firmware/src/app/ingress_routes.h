// The Ingress route table: built from the stored Ingresses, consulted per request. Pure data
// and matching; no I/O. Host groups are tried exact, then wildcard, then host-less, and only
// the most specific group with a match counts; in it the longest path wins (Exact over
// Prefix on a tie), and between Ingresses with the same rule the first by namespace/name.
#pragma once
#include <string>
#include <vector>

#include "core/json/json.h"

namespace k32 {
namespace app {

struct Backend {
  bool is_resource = false;
  // Service backend
  std::string service;
  int32_t port_number = 0;
  std::string port_name;
  // Resource backend (kube32.io StaticBundle)
  std::string resource_kind;
  std::string resource_name;
  std::string resource_group;
  // Service backends, set when the table is built: "ns/service" (its round-robin counter) and
  // "ns/service:port" (its cached backends), so a request does not concatenate them.
  std::string service_key;
  std::string port_key;
};

struct RouteMatch {
  bool found = false;
  bool is_default = false;
  std::string ns;
  std::string ingress;
  std::string id;            // "ns/name" of the Ingress (its request counter's key)
  std::string matched_path;  // the rule path (normalised) that matched; "" for defaults
  std::string type;          // Exact | Prefix | ImplementationSpecific
  Backend backend;
};

struct Route {
  std::string host;    // "" = any host; "*.example.com" = one-label wildcard
  std::string path;    // as written
  bool exact = false;  // type == "Exact", worked out once when the table is built
  // What a request matching it gets; its matched_path is the path as matched: as written
  // (Exact) or normalised (Prefix).
  RouteMatch to;
};

class RouteTable {
 public:
  // Ingresses in namespace/name order (as the store lists them).
  void build(const std::vector<json::Value>& ingresses);
  // The same one Ingress at a time, on an empty table (a store walk need not hold every
  // Ingress at once): add each in namespace/name order, then finish once.
  void add(const json::Value& ingress);
  void finish();
  RouteMatch match(const std::string& host_header, const std::string& path) const;
  // The same in place, without copying a match: null when nothing matches. Valid while
  // the table is (a request holds the table it matched in; a rebuild makes a new one).
  const RouteMatch* find(const std::string& host_header, const std::string& path) const;
  size_t size() const { return routes_.size(); }
  // Whether a route or default backend calls the Service "ns/service".
  bool names_service(const std::string& service_key) const;

  static std::string normalise_host(const std::string& host_header);
  // Whether a Prefix rule path matches a request path by segments.
  static bool prefix_matches(const std::string& rule, const std::string& path);
  // Ingress classes this controller serves: unset or "kube32".
  static bool serves(const json::Value& ingress);

 private:
  std::vector<Route> routes_;
  std::vector<RouteMatch> defaults_;  // defaultBackend per Ingress, in ns/name order
  bool host_rules_ = false;           // some route names a host
};

}  // namespace app
}  // namespace k32
