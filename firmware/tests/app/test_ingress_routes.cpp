// Route table rules (host groups exact > wildcard > host-less, longest path, Exact over
// Prefix, first Ingress by namespace/name), without sockets.
#include <string>

#include "app/ingress_routes.h"
#include "check.h"
#include "core/json/json.h"

using k32::json::Value;

static Value ingress(const char* ns, const char* name, const char* json_spec) {
  Value v;
  k32::json::ParseError e;
  k32::json::parse(json_spec, &v, &e);
  Value ing = Value::object();
  ing.at_or_insert("metadata").set("namespace", ns);
  ing.at_or_insert("metadata").set("name", name);
  ing.set("spec", v);
  return ing;
}

static std::string svc(const k32::app::RouteTable& t, const char* host, const char* path) {
  k32::app::RouteMatch m = t.match(host, path);
  return m.found ? m.backend.service : "404";
}

int main() {
  using k32::app::RouteTable;
  CHECK(RouteTable::prefix_matches("/api", "/api"));
  CHECK(RouteTable::prefix_matches("/api/", "/api"));
  CHECK(RouteTable::prefix_matches("/api", "/api/x"));
  CHECK(!RouteTable::prefix_matches("/api", "/apix"));
  CHECK(RouteTable::prefix_matches("/", "/anything"));
  CHECK_EQ(RouteTable::normalise_host("Shop.Example.COM:8080"), std::string("shop.example.com"));

  RouteTable t;
  std::vector<Value> ings;
  ings.push_back(ingress("a", "exact", R"({"rules":[{"host":"shop.example.com","http":{"paths":[
      {"path":"/api","pathType":"Prefix","backend":{"service":{"name":"api","port":{"number":80}}}},
      {"path":"/api/v1/login","pathType":"Exact","backend":{"service":{"name":"login","port":{"number":80}}}}]}}]})"));
  ings.push_back(ingress("a", "wild", R"({"rules":[{"host":"*.example.com","http":{"paths":[
      {"path":"/","pathType":"Prefix","backend":{"service":{"name":"wild","port":{"number":80}}}}]}}]})"));
  ings.push_back(ingress("a", "hostless", R"({"rules":[{"http":{"paths":[
      {"path":"/x","pathType":"Prefix","backend":{"service":{"name":"x-prefix","port":{"number":80}}}},
      {"path":"/x","pathType":"Exact","backend":{"service":{"name":"x-exact","port":{"number":80}}}},
      {"path":"/s","pathType":"Prefix","backend":{"service":{"name":"first","port":{"number":80}}}}]}}]})"));
  ings.push_back(ingress("b", "dup", R"({"rules":[{"http":{"paths":[
      {"path":"/s","pathType":"Prefix","backend":{"service":{"name":"second","port":{"number":80}}}}]}}]})"));
  ings.push_back(ingress("c", "other", R"({"ingressClassName":"nginx","rules":[{"http":{"paths":[
      {"path":"/","pathType":"Prefix","backend":{"service":{"name":"nginx","port":{"number":80}}}}]}}]})"));
  t.build(ings);
  CHECK_EQ(svc(t, "shop.example.com", "/api/x"), std::string("api"));
  CHECK_EQ(svc(t, "shop.example.com", "/api/v1/login"), std::string("login"));
  CHECK_EQ(svc(t, "shop.example.com", "/other"), std::string("wild"));  // exact group has no match → wildcard
  CHECK_EQ(svc(t, "a.b.example.com", "/x"), std::string("x-exact"));
  CHECK_EQ(svc(t, "none", "/x/1"), std::string("x-prefix"));
  CHECK_EQ(svc(t, "none", "/s"), std::string("first"));
  CHECK_EQ(svc(t, "none", "/nothing"), std::string("404"));
  ings.push_back(ingress("z", "default", R"({"defaultBackend":{"service":{"name":"dflt","port":{"number":80}}}})"));
  t.build(ings);
  CHECK_EQ(svc(t, "none", "/nothing"), std::string("dflt"));
  // The Services the table calls (the controller forgets the round-robin place of others).
  CHECK(t.names_service("a/login") && t.names_service("z/dflt") && t.names_service("b/second"));
  CHECK(!t.names_service("c/nginx"));  // another controller's Ingress
  CHECK(!t.names_service("a/second"));
  ings.pop_back();
  t.build(ings);
  CHECK(!t.names_service("z/dflt"));

  // A table without host rules skips the host groups: the same answers, any Host header.
  std::vector<Value> hostless(ings.begin() + 2, ings.end());
  RouteTable h;
  h.build(hostless);
  CHECK_EQ(svc(h, "Shop.Example.COM:8080", "/x"), std::string("x-exact"));
  CHECK_EQ(svc(h, "", "/x/1"), std::string("x-prefix"));
  CHECK_EQ(svc(h, "none", "/s"), std::string("first"));
  CHECK_EQ(svc(h, "none", "/api/x"), std::string("404"));
  // Rebuilt with a host rule again, the host groups count again.
  h.build(ings);
  CHECK_EQ(svc(h, "shop.example.com", "/api/x"), std::string("api"));
  TEST_MAIN_END();
}
