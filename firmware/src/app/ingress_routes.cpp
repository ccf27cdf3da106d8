#include "app/ingress_routes.h"

#include <cctype>

#include "core/util/fit.h"
#include "core/util/text.h"

namespace k32 {
namespace app {

namespace {

Backend backend_of(const json::Value& b, const std::string& ns) {
  Backend out;
  if (!b["resource"].is_null()) {
    out.is_resource = true;
    out.resource_kind = b["resource"]["kind"].as_string();
    out.resource_name = b["resource"]["name"].as_string();
    out.resource_group = b["resource"]["apiGroup"].as_string();
  } else {
    out.service = b["service"]["name"].as_string();
    out.port_number = static_cast<int32_t>(b["service"]["port"]["number"].as_int(0));
    out.port_name = b["service"]["port"]["name"].as_string();
    out.service_key = ns + "/" + out.service;
    out.port_key = out.service_key + ":" + (out.port_name.empty() ? text::to_string(out.port_number) : out.port_name);
  }
  return out;
}

// "/api/" and "/api" are the same Prefix rule; "/" stays "/".
std::string rule_path(const std::string& p) {
  std::string r = p.empty() ? "/" : p;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  return r;
}

bool wildcard_matches(const std::string& pattern, const std::string& host) {
  // "*.example.com" matches exactly one extra label: "a.example.com", not "a.b.example.com".
  std::string suffix = pattern.substr(1);  // ".example.com"
  if (host.size() <= suffix.size() || !text::ends_with(host, suffix)) return false;
  std::string label = host.substr(0, host.size() - suffix.size());
  return !label.empty() && label.find('.') == std::string::npos;
}

}  // namespace

bool RouteTable::serves(const json::Value& ing) {
  const json::Value* cls = ing["spec"].find("ingressClassName");
  return !cls || cls->is_null() || cls->as_string() == "kube32";
}

std::string RouteTable::normalise_host(const std::string& h) {
  // Trimmed and lowered in one copy (this runs on every Ingress request).
  size_t b = 0, e = h.size();
  while (b < e && std::isspace(static_cast<unsigned char>(h[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(h[e - 1]))) --e;
  std::string host(h, b, e - b);
  for (auto& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!host.empty() && host[0] == '[') return host;  // IPv6 literal: not served
  size_t colon = host.rfind(':');
  if (colon != std::string::npos) host.resize(colon);
  while (!host.empty() && host.back() == '.') host.pop_back();
  return host;
}

namespace {
// A Prefix match of an already normalised rule path: whole segments only.
bool normalised_prefix_matches(const std::string& r, const std::string& path) {
  if (r.size() == 1 && r[0] == '/') return true;
  if (path.size() < r.size() || path.compare(0, r.size(), r) != 0) return false;
  return path.size() == r.size() || path[r.size()] == '/';
}
}  // namespace

bool RouteTable::prefix_matches(const std::string& rule, const std::string& path) {
  return normalised_prefix_matches(rule_path(rule), path);
}

void RouteTable::build(const std::vector<json::Value>& ingresses) {
  routes_.clear();
  defaults_.clear();
  host_rules_ = false;
  for (const auto& ing : ingresses) add(ing);
  finish();
}

void RouteTable::add(const json::Value& ing) {
  if (!serves(ing) || !ing["metadata"]["deletionTimestamp"].is_null()) return;
  std::string ns = ing.path_str({"metadata", "namespace"});
  std::string name = ing.path_str({"metadata", "name"});
  const json::Value& spec = ing["spec"];
  if (!spec["defaultBackend"].is_null()) {
    RouteMatch d;
    d.found = true;
    d.is_default = true;
    d.ns = ns;
    d.ingress = name;
    d.id = ns + "/" + name;
    d.backend = backend_of(spec["defaultBackend"], ns);
    defaults_.push_back(d);
  }
  for (const auto& rule : spec["rules"].items()) {
    const json::Value* paths = rule.path({"http", "paths"});
    if (!paths) continue;
    for (const auto& p : paths->items()) {
      Route r;
      r.host = text::lower(rule["host"].as_string());
      r.path = p["path"].as_string("/");
      r.to.found = true;
      r.to.ns = ns;
      r.to.ingress = name;
      r.to.id = ns + "/" + name;
      r.to.type = p["pathType"].as_string("Prefix");
      r.to.backend = backend_of(p["backend"], ns);
      r.exact = r.to.type == "Exact";
      r.to.matched_path = r.exact ? r.path : rule_path(r.path);
      host_rules_ = host_rules_ || !r.host.empty();
      routes_.push_back(std::move(r));
    }
  }
}

void RouteTable::finish() {
  // A rebuild keeps the vectors' old capacity and doubling leaves up to half unused: the
  // table is built once per change and read on every request, so it is held at its size.
  util::fit_capacity(&routes_);
  util::fit_capacity(&defaults_);
}

bool RouteTable::names_service(const std::string& service_key) const {
  for (const auto& r : routes_)
    if (!r.to.backend.is_resource && r.to.backend.service_key == service_key) return true;
  for (const auto& d : defaults_)
    if (!d.backend.is_resource && d.backend.service_key == service_key) return true;
  return false;
}

RouteMatch RouteTable::match(const std::string& host_header, const std::string& path) const {
  const RouteMatch* m = find(host_header, path);
  return m ? *m : RouteMatch();
}

const RouteMatch* RouteTable::find(const std::string& host_header, const std::string& path) const {
  // A table without host rules (the usual one on a board) needs neither the Host header
  // normalised nor the exact and wildcard groups tried.
  std::string host = host_rules_ ? normalise_host(host_header) : std::string();
  for (int group = host_rules_ ? 0 : 2; group < 3; ++group) {
    const Route* best = nullptr;
    size_t best_len = 0;
    for (const auto& r : routes_) {
      bool host_ok = group == 0   ? (!r.host.empty() && r.host[0] != '*' && r.host == host)
                     : group == 1 ? (!r.host.empty() && r.host[0] == '*' && wildcard_matches(r.host, host))
                                  : r.host.empty();
      if (!host_ok) continue;
      const std::string& rule = r.to.matched_path;
      bool ok = r.exact ? path == rule : normalised_prefix_matches(rule, path);
      if (!ok) continue;
      size_t len = rule.size();
      // Longest path wins; on equal length Exact beats Prefix; otherwise the first in
      // namespace/name order (the table's order) keeps the route.
      if (!best || len > best_len || (len == best_len && r.exact && !best->exact)) {
        best = &r;
        best_len = len;
      }
    }
    if (best) return &best->to;
  }
  return defaults_.empty() ? nullptr : &defaults_.front();
}

}  // namespace app
}  // namespace k32
