// The kinds table and its strategies: every served kind has one that fits how it is served
// (computed kinds compute, stored kinds do not), and a few strategies' rules as Kubernetes
// applies them (name rules, LimitRange defaulting, ResourceQuota's columns, quantities).
#include <cstring>
#include <string>

#include "check.h"
#include "core/api/kinds/kind_strategy.h"
#include "core/api/resources.h"
#include "core/api/tables.h"
#include "core/api/validation.h"
#include "core/json/json.h"

using k32::json::Value;
namespace api = k32::api;

static Value parse(const char* text) {
  Value v;
  k32::json::ParseError e;
  CHECK(k32::json::parse(text, &v, &e));
  return v;
}

static void table_is_consistent() {
  int n = 0;
  for (const auto& r : api::all_resources()) {
    ++n;
    CHECK(r.strategy != nullptr);
    if (!r.strategy) continue;
    // Read-only kinds are computed on read and only those; the rest live in the store.
    CHECK_EQ(r.read_only, r.strategy->compute != nullptr);
    CHECK(r.strategy->n_columns > 0);
    for (uint8_t i = 0; i < r.strategy->n_columns; ++i) CHECK(r.strategy->columns[i].cell != nullptr);
    // Every kind but Event is printed with its name first, as kubectl expects.
    if (std::strcmp(r.kind, "Event") != 0) CHECK(std::strcmp(r.strategy->columns[0].format, "name") == 0);
    CHECK(api::find_resource(r.group, r.version, r.resource) == &r);
    CHECK(api::find_by_kind(r.group_version(), r.kind) == &r);
  }
  CHECK(n >= 14);
  const api::ResourceInfo* pods = api::find_resource("", "v1", "pods");
  CHECK(pods && pods->has_subresource("status") && pods->has_subresource("binding") && !pods->has_subresource("stat"));
}

static void name_rules() {
  const api::ResourceInfo* svc = api::find_resource("", "v1", "services");
  const api::ResourceInfo* ns = api::find_resource("", "v1", "namespaces");
  const api::ResourceInfo* cm = api::find_resource("", "v1", "configmaps");
  CHECK(api::validate_name(*svc, "1web") != "");  // a Service name starts with a letter
  CHECK(api::validate_name(*cm, "1web.example") == "");
  CHECK(api::validate_name(*ns, "a.b") != "");  // a namespace is one DNS label
}

static void limit_range_defaults() {
  const api::ResourceInfo* lr = api::find_resource("", "v1", "limitranges");
  CHECK(lr != nullptr);
  if (!lr) return;
  Value obj = parse(R"({"metadata":{"name":"l"},"spec":{"limits":[
      {"type":"Container","max":{"cpu":"1","memory":"1Gi"},"min":{"cpu":"10m"},"default":{"memory":"64Mi"}},
      {"type":"Pod","max":{"cpu":"2"}}]}})");
  api::apply_defaults(*lr, &obj);
  const Value& c = obj["spec"]["limits"].items()[0];
  CHECK(c["default"] == parse(R"({"memory":"64Mi","cpu":"1"})"));
  CHECK(c["defaultRequest"] == parse(R"({"memory":"64Mi","cpu":"1"})"));
  CHECK(obj["spec"]["limits"].items()[1].find("default") == nullptr);
  api::FieldErrors errs;
  api::validate_object(*lr, obj, &errs);
  CHECK(errs.empty());
  Value bad = parse(R"({"metadata":{"name":"l"},"spec":{"limits":[{"type":"Pod","default":{"cpu":"x"}}]}})");
  api::validate_object(*lr, bad, &errs);
  CHECK_EQ(errs.size(), 2u);  // Pod items take no default; "x" is not a quantity
}

static void resource_quota_columns() {
  const api::ResourceInfo* rq = api::find_resource("", "v1", "resourcequotas");
  CHECK(rq != nullptr);
  if (!rq) return;
  std::vector<Value> objs{parse(R"({"metadata":{"name":"q","creationTimestamp":"2026-01-01T00:00:00Z"},
      "status":{"hard":{"requests.cpu":"2","pods":"10","limits.memory":"1Gi","limits.cpu":"4"},
                "used":{"pods":"3","limits.cpu":"500m"}}})")};
  Value t = api::make_table(*rq, objs, api::IncludeObject::None, 0, "1");
  const Value& cols = t["columnDefinitions"];
  CHECK_EQ(cols.items().size(), 4u);
  CHECK(cols.items()[2]["name"].as_string() == "Request");
  const Value& cells = t["rows"].items()[0]["cells"];
  CHECK(cells.items()[0].as_string() == "q");
  CHECK(cells.items()[2].as_string() == "pods: 3/10, requests.cpu: 0/2");
  CHECK(cells.items()[3].as_string() == "limits.cpu: 500m/4, limits.memory: 0/1Gi");
}

static void quantities() {
  for (const char* ok : {"1", "500m", "1.5Gi", "64Ki", "1e3", "2E-2", "+3", "0.1", "100n", "4P"}) CHECK(api::is_quantity(ok));
  for (const char* bad : {"", "m", "1..2", "1Kb", "1e", "Gi", "1 Gi", "1.2.3", "e3"}) CHECK(!api::is_quantity(bad));
}

int main() {
  table_is_consistent();
  name_rules();
  limit_range_defaults();
  resource_quota_columns();
  quantities();
  TEST_MAIN_END();
}
