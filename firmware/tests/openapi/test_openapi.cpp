// The embedded OpenAPI documents (lookup, content, index hashes) and strict field validation
// against the generated schema table.
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "core/json/json.h"
#include "core/openapi/openapi.h"
#include "core/openapi/schema.h"

using k32::json::Value;

namespace {

Value parse_doc(const k32::openapi::Document& d) {
  Value v;
  k32::json::ParseError e;
  bool ok = k32::json::parse(reinterpret_cast<const char*>(d.data), d.len, &v, &e);
  CHECK(ok);
  if (!ok) std::fprintf(stderr, "  document does not parse: %s\n", e.message.c_str());
  return v;
}

void lookup() {
  k32::openapi::Document json_v2, pb_v2, v3, missing;
  CHECK(k32::openapi::find("/openapi/v2", false, &json_v2));
  CHECK(k32::openapi::find("/openapi/v2", true, &pb_v2));
  CHECK(std::strcmp(json_v2.content_type, "application/json") == 0);
  // kube-openapi serves the protobuf form as an opaque stream (see apigen/documents.py).
  CHECK(std::strcmp(pb_v2.content_type, "application/octet-stream") == 0);
  CHECK(pb_v2.data != json_v2.data);
  CHECK(pb_v2.len > 1000 && pb_v2.data[0] == 0x0a);  // field 1 (swagger), length-delimited
  CHECK(std::strcmp(json_v2.etag, pb_v2.etag) != 0);
  // Only v2 has a protobuf form: v3 asked for protobuf still answers JSON.
  CHECK(k32::openapi::find("/openapi/v3/api/v1", true, &v3));
  CHECK(std::strcmp(v3.content_type, "application/json") == 0);
  CHECK(k32::openapi::find("/openapi/v3/apis/apps/v1", false, &v3));         // Deployments, ReplicaSets
  CHECK(!k32::openapi::find("/openapi/v3/apis/batch/v1", false, &missing));  // Jobs are not served
  CHECK(!k32::openapi::find("/openapi/v2/", false, &missing));
  CHECK(!k32::openapi::find(nullptr, false, &missing));
}

void v2_content() {
  k32::openapi::Document d;
  CHECK(k32::openapi::find("/openapi/v2", false, &d));
  Value v2 = parse_doc(d);
  CHECK_EQ(v2["swagger"].as_string(), "2.0");
  const Value& pod = v2["definitions"]["io.k8s.api.core.v1.Pod"];
  CHECK_EQ(pod["x-kubernetes-group-version-kind"].items().size(), 1u);
  CHECK_EQ(pod["x-kubernetes-group-version-kind"].items()[0]["kind"].as_string(), "Pod");
  const Value& containers = v2["definitions"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
  CHECK_EQ(containers["x-kubernetes-patch-merge-key"].as_string(), "name");
  CHECK_EQ(containers["x-kubernetes-patch-strategy"].as_string(), "merge");
  CHECK(v2["definitions"].find("io.k8s.api.networking.v1.Ingress") != nullptr);
  CHECK(v2["definitions"].find("io.k8s.api.apps.v1.Deployment") != nullptr);
  CHECK(v2["definitions"].find("io.k8s.api.batch.v1.Job") == nullptr);  // not served
  CHECK(v2["paths"].find("/api/v1/namespaces/{namespace}/pods/{name}") != nullptr);
}

void v3_index_and_field_validation() {
  k32::openapi::Document idx;
  CHECK(k32::openapi::find("/openapi/v3", false, &idx));
  Value index = parse_doc(idx);
  const char* gvs[] = {"api/v1", "apis/discovery.k8s.io/v1", "apis/coordination.k8s.io/v1", "apis/networking.k8s.io/v1"};
  for (const char* gv : gvs) {
    std::string url = index["paths"][gv]["serverRelativeURL"].as_string();
    std::string path = "/openapi/v3/" + std::string(gv);
    CHECK(url.compare(0, path.size() + 6, path + "?hash=") == 0);
    k32::openapi::Document d;
    CHECK(k32::openapi::find(path.c_str(), false, &d));
    // The index hash is the document's ETag (sha256 of its bytes).
    CHECK_EQ("\"" + url.substr(path.size() + 6) + "\"", std::string(d.etag));
  }
  k32::openapi::Document core;
  CHECK(k32::openapi::find("/openapi/v3/api/v1", false, &core));
  Value v3 = parse_doc(core);
  // kubectl decides server-side field validation from the PATCH operation's parameters.
  const Value& patch = v3["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"];
  CHECK_EQ(patch["x-kubernetes-group-version-kind"]["kind"].as_string(), "Pod");
  bool has_fv = false;
  for (const auto& p : patch["parameters"].items())
    if (p["name"].as_string() == "fieldValidation" && p["in"].as_string() == "query") has_fv = true;
  CHECK(has_fv);
  CHECK(v3["components"]["schemas"].find("io.k8s.api.core.v1.Pod") != nullptr);
}

struct FieldCase {
  const char* kind;
  const char* obj;
  bool ok;
  std::vector<std::string> unknown;
};

void check_fields() {
  const FieldCase cases[] = {
      {"v1/Pod",
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},
         "spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}],
         "resources":{"limits":{"cpu":"100m","memory":1024}}}]}})",
       true,
       {}},
      {"v1/Pod",
       R"({"spec":{"foo":1,"containers":[{"name":"c","bar":{"x":1}}]},"extra":true})",
       true,
       {".spec.foo", ".spec.containers[0].bar", ".extra"}},
      {"v1/Pod", R"({"spec":{"containers":"nope"}})", false, {}},
      {"v1/Pod", R"({"spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}})", false, {}},
      {"v1/Service", R"({"spec":{"ports":[{"port":80,"targetPort":"http"},{"port":81,"targetPort":8081}]}})", true, {}},
      {"v1/Service", R"({"spec":{"ports":[{"port":80,"targetPort":true}]}})", false, {}},
      {"v1/ConfigMap", R"({"data":{"a":"b"},"binaryData":{"b":"AAAA"},"immutable":false})", true, {}},
      {"v1/ConfigMap", R"({"data":{"a":1}})", false, {}},
      {"v1/Pod", R"({"metadata":{"managedFields":[{"fieldsV1":{"f:anything":{}}}]}})", true, {}},
      {"networking.k8s.io/v1/Ingress",
       R"({"spec":{"rules":[{"host":"h","http":{"paths":[{"path":"/",
         "pathType":"Prefix","backend":{"service":{"name":"s","port":{"number":80}}}}]}}]}})",
       true,
       {}},
      {"networking.k8s.io/v1/NetworkPolicy", R"({"spec":{"podSelector":{},"egres":[]}})", true, {".spec.egres"}},
      {"coordination.k8s.io/v1/Lease", R"({"spec":{"holderIdentity":"n","leaseDurationSeconds":40}})", true, {}},
      {"discovery.k8s.io/v1/EndpointSlice", R"({"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}]})", true, {}},
      {"v1/Frob", "{}", false, {}},
  };
  for (const auto& c : cases) {
    Value obj;
    k32::json::ParseError pe;
    CHECK(k32::json::parse(c.obj, std::strlen(c.obj), &obj, &pe));
    std::vector<std::string> unknown;
    std::string err;
    bool ok = k32::schema::check_fields(c.kind, obj, &unknown, &err);
    CHECK_EQ(ok, c.ok);
    if (ok != c.ok) std::fprintf(stderr, "  %s %s: %s\n", c.kind, c.obj, err.c_str());
    if (!ok) CHECK(!err.empty());
    if (ok) {
      CHECK(unknown == c.unknown);
      if (unknown != c.unknown)
        for (const auto& u : unknown) std::fprintf(stderr, "  unknown: %s\n", u.c_str());
    }
  }
  std::vector<std::string> unknown;
  std::string err;
  Value bad;
  k32::json::ParseError pe;
  k32::json::parse(R"({"spec":{"containers":[{"ports":[{"containerPort":"80"}]}]}})", &bad, &pe);
  k32::schema::check_fields("v1/Pod", bad, &unknown, &err);
  CHECK_EQ(err, std::string(".spec.containers[0].ports[0].containerPort: expected integer, got string"));
}

}  // namespace

int main() {
  lookup();
  v2_content();
  v3_index_and_field_validation();
  check_fields();
  TEST_MAIN_END();
}
