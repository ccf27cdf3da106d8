// Server-side apply and fieldsV1: ownership, pruning, conflicts and force, following the
// behaviour documented at kubernetes.io/docs/reference/using-api/server-side-apply/.
#include "core/patch/patch.h"
#include "patch_test_util.h"

using k32::json::Value;
using k32::patch::ApplyResult;
using k32::patch::server_side_apply;
using k32test::J;
using k32test::same;

namespace {

const Value& managed(const Value& obj) { return obj["metadata"]["managedFields"]; }

void create_and_reapply() {
  ApplyResult r;
  std::string err;
  Value cfg = J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1","b":"2"}},
                    "data":{"k":"v","k2":"v2"}})");
  CHECK(server_side_apply("v1/ConfigMap", Value(), cfg, "kubectl", false, &r, &err));
  CHECK(same("created data", r.object["data"], J(R"({"k":"v","k2":"v2"})")));
  CHECK_EQ(managed(r.object).size(), 1u);
  const Value& e = managed(r.object).items()[0];
  CHECK_EQ(e["manager"].as_string(), "kubectl");
  CHECK_EQ(e["operation"].as_string(), "Apply");
  CHECK_EQ(e["apiVersion"].as_string(), "v1");
  CHECK_EQ(e["fieldsType"].as_string(), "FieldsV1");
  CHECK(same("fieldsV1", e["fieldsV1"], J(R"({"f:data":{"f:k":{},"f:k2":{}},"f:metadata":{"f:labels":{"f:a":{},"f:b":{}}}})")));

  // Another writer (Update) adds a label of its own.
  Value live = r.object;
  live.find("metadata")->find("labels")->set("c", "3");
  live.find("metadata")
      ->find("managedFields")
      ->push(J(R"({"manager":"kubectl-label","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",
            "fieldsV1":{"f:metadata":{"f:labels":{"f:c":{}}}}})"));

  // Re-apply without label b and data k2: both are pruned, label c (not ours) stays.
  Value cfg2 = J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"1"}},
                     "data":{"k":"new"}})");
  ApplyResult r2;
  CHECK(server_side_apply("v1/ConfigMap", live, cfg2, "kubectl", false, &r2, &err));
  CHECK(same("pruned labels", r2.object["metadata"]["labels"], J(R"({"a":"1","c":"3"})")));
  CHECK(same("pruned data", r2.object["data"], J(R"({"k":"new"})")));
  CHECK_EQ(managed(r2.object).size(), 2u);
  CHECK(same("re-applied fieldsV1", managed(r2.object).items()[0]["fieldsV1"],
             J(R"({"f:data":{"f:k":{}},"f:metadata":{"f:labels":{"f:a":{}}}})")));
  CHECK_EQ(managed(r2.object).items()[1]["manager"].as_string(), "kubectl-label");
}

void conflicts_and_force() {
  Value live = J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[
      {"manager":"kubectl-edit","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1",
       "fieldsV1":{"f:data":{"f:k":{},"f:other":{}}}}]},"data":{"k":"v","other":"o"}})");
  std::string err;
  // Same value: shared ownership, no conflict.
  ApplyResult same_value;
  CHECK(server_side_apply("v1/ConfigMap", live, J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},
                                                     "data":{"k":"v"}})"),
                          "mgr", false, &same_value, &err));
  CHECK(same_value.conflicts.empty());

  // Different value: a conflict naming the other manager and the field.
  ApplyResult r;
  Value cfg = J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"changed"}})");
  CHECK(!server_side_apply("v1/ConfigMap", live, cfg, "mgr", false, &r, &err));
  CHECK_EQ(r.conflicts.size(), 1u);
  if (!r.conflicts.empty()) CHECK_EQ(r.conflicts[0], std::string("conflict with \"kubectl-edit\" using v1: .data.k"));

  // Force: the value changes and the field moves to us.
  ApplyResult f;
  CHECK(server_side_apply("v1/ConfigMap", live, cfg, "mgr", true, &f, &err));
  CHECK_EQ(f.object["data"]["k"].as_string(), "changed");
  CHECK_EQ(f.object["data"]["other"].as_string(), "o");
  CHECK_EQ(managed(f.object).size(), 2u);
  CHECK(same("forced other", managed(f.object).items()[0]["fieldsV1"], J(R"({"f:data":{"f:other":{}}})")));
  CHECK(same("forced mine", managed(f.object).items()[1]["fieldsV1"], J(R"({"f:data":{"f:k":{}}})")));
}

void pod_lists() {
  std::string err;
  Value cfg = J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[
      {"name":"web","image":"nginx:1.0","ports":[{"containerPort":80,"protocol":"TCP"}]},
      {"name":"side","image":"busybox"}],"status":{"phase":"Running"}}})");
  // fieldsV1 keys list elements by their map keys.
  CHECK(same("pod fieldsV1", k32::patch::fields_v1("v1/Pod", J(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","finalizers":["x"]},"spec":{"containers":[{"name":"web","image":"nginx",
      "ports":[{"containerPort":80,"protocol":"TCP"}]}]}})")),
             J(R"({"f:metadata":{"f:finalizers":{"v:\"x\"":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},
          "f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},
          "f:containerPort":{},"f:protocol":{}}}}}}})")));

  ApplyResult r;
  CHECK(server_side_apply("v1/Pod", Value(), cfg, "kubectl", false, &r, &err));
  // Live state the kubelet added (status) and a defaulted field another manager owns.
  Value live = r.object;
  live.set("status", J(R"({"phase":"Running"})"));
  live.find("spec")->find("containers")->items()[0].set("imagePullPolicy", "IfNotPresent");
  live.find("metadata")->find("managedFields")->push(J(R"({"manager":"defaults","operation":"Update",
      "apiVersion":"v1","fieldsType":"FieldsV1",
      "fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:imagePullPolicy":{}}}}}})"));

  // Change an image, drop the side container, add a port.
  Value cfg2 = J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[
      {"name":"web","image":"nginx:1.1","ports":[{"containerPort":80,"protocol":"TCP"},
       {"containerPort":443,"protocol":"TCP"}]}]}})");
  ApplyResult r2;
  CHECK(server_side_apply("v1/Pod", live, cfg2, "kubectl", false, &r2, &err));
  if (!r2.conflicts.empty()) std::fprintf(stderr, "  conflict: %s\n", r2.conflicts[0].c_str());
  CHECK(same("pod after apply", r2.object["spec"]["containers"], J(R"([
      {"name":"web","image":"nginx:1.1","ports":[{"containerPort":80,"protocol":"TCP"},
       {"containerPort":443,"protocol":"TCP"}],"imagePullPolicy":"IfNotPresent"}])")));
  CHECK_EQ(r2.object["status"]["phase"].as_string(), "Running");
  // Apply to the main resource never owns status.
  CHECK(managed(r2.object).items()[0]["fieldsV1"].find("f:status") == nullptr);
}

void bad_input() {
  ApplyResult r;
  std::string err;
  CHECK(!server_side_apply("v1/Frob", Value(), J(R"({"apiVersion":"v1","kind":"Frob"})"), "m", false, &r, &err));
  CHECK(!server_side_apply("v1/Pod", Value(), J(R"({"apiVersion":"v1","kind":"Service"})"), "m", false, &r, &err));
  CHECK(!server_side_apply("v1/Pod", Value(), J(R"([1])"), "m", false, &r, &err));
  CHECK(!server_side_apply("v1/Pod", Value(), J(R"({"apiVersion":"v1","kind":"Pod"})"), "", false, &r, &err));
  CHECK(!server_side_apply("v1/Pod", Value(), J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"managedFields":[]}})"), "m",
                           false, &r, &err));
  Value corrupt = J(R"({"metadata":{"managedFields":[{"manager":"x","fieldsV1":{"bogus":{}}}]}})");
  CHECK(!server_side_apply("v1/Pod", corrupt, J(R"({"apiVersion":"v1","kind":"Pod"})"), "m", false, &r, &err));
  CHECK(err.find("managedFields[0]") != std::string::npos);
}

// Non-apply writes record ownership too, so apply conflicts with kubectl edit/patch.
void update_ownership() {
  std::string err;
  Value created = J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v","o":"1"}})");
  CHECK(k32::patch::record_update("v1/ConfigMap", nullptr, "kubectl-create", "", &created, &err));
  CHECK_EQ(managed(created).size(), 1u);
  CHECK(same("create owns all", managed(created).items()[0]["fieldsV1"], J(R"({"f:data":{"f:k":{},"f:o":{}}})")));
  CHECK_EQ(managed(created).items()[0]["operation"].as_string(), "Update");

  // An edit changes k and drops o: k moves to the editor, o leaves every set.
  Value edited = created;
  edited.find("data")->set("k", "edited");
  edited.find("data")->erase("o");
  CHECK(k32::patch::record_update("v1/ConfigMap", &created, "kubectl-edit", "", &edited, &err));
  CHECK_EQ(managed(edited).size(), 1u);  // kubectl-create's set became empty
  CHECK_EQ(managed(edited).items()[0]["manager"].as_string(), "kubectl-edit");
  CHECK(same("editor owns k", managed(edited).items()[0]["fieldsV1"], J(R"({"f:data":{"f:k":{}}})")));

  // Applying another value for k now conflicts with the editor.
  ApplyResult r;
  CHECK(!server_side_apply("v1/ConfigMap", edited,
                           J(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"x"}})"), "kubectl",
                           false, &r, &err));
  CHECK_EQ(r.conflicts.size(), 1u);

  // An unchanged write changes no ownership; a status write owns only status.
  Value same_again = edited;
  CHECK(k32::patch::record_update("v1/ConfigMap", &edited, "other", "", &same_again, &err));
  CHECK(same("no-op update", managed(same_again), managed(edited)));
  Value pod = J(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n"}})");
  Value pod2 = pod;
  pod2.set("status", J(R"({"phase":"Running"})"));
  CHECK(k32::patch::record_update("v1/Pod", &pod, "kubelet", "status", &pod2, &err));
  CHECK(same("status owner", managed(pod2).items()[0]["fieldsV1"], J(R"({"f:status":{"f:phase":{}}})")));
  CHECK_EQ(managed(pod2).items()[0]["subresource"].as_string(), "status");
  CHECK(!k32::patch::record_update("v1/Frob", nullptr, "m", "", &pod2, &err));
}

}  // namespace

int main() {
  update_ownership();
  create_and_reapply();
  conflicts_and_force();
  pod_lists();
  bad_input();
  TEST_MAIN_END();
}
