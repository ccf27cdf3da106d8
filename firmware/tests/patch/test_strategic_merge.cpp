// Strategic merge patch against the generated schema, with the patches kubectl apply
// (three-way) and kubectl patch send, and the directives of the SMP documentation.
#include "core/patch/patch.h"
#include "patch_test_util.h"

using k32test::J;
using k32test::same;

namespace {

struct Case {
  const char* name;
  const char* kind;
  const char* doc;
  const char* patch;
  const char* want;  // nullptr: the patch must fail
};

const char kPod[] = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web","tier":"fe"}},
  "spec":{"containers":[
    {"name":"web","image":"nginx:1.0","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
     "ports":[{"containerPort":80,"protocol":"TCP"}]},
    {"name":"side","image":"busybox"}],
   "tolerations":[{"key":"k","operator":"Exists"}],
   "volumes":[{"name":"data","emptyDir":{}}]}})";

const Case kCases[] = {
    // kubectl apply after editing the image of one container.
    {"change image", "v1/Pod", kPod,
     R"({"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"side"}],
         "containers":[{"image":"nginx:1.1","name":"web"}]}})",
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web","tier":"fe"}},
       "spec":{"containers":[
         {"name":"web","image":"nginx:1.1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
          "ports":[{"containerPort":80,"protocol":"TCP"}]},
         {"name":"side","image":"busybox"}],
        "tolerations":[{"key":"k","operator":"Exists"}],"volumes":[{"name":"data","emptyDir":{}}]}})"},
    // kubectl apply after deleting env var B from the manifest.
    {"remove env var", "v1/Pod", kPod,
     R"({"spec":{"$setElementOrder/containers":[{"name":"web"},{"name":"side"}],
         "containers":[{"$setElementOrder/env":[{"name":"A"}],"env":[{"$patch":"delete","name":"B"}],"name":"web"}]}})",
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web","tier":"fe"}},
       "spec":{"containers":[
         {"name":"web","image":"nginx:1.0","env":[{"name":"A","value":"1"}],
          "ports":[{"containerPort":80,"protocol":"TCP"}]},
         {"name":"side","image":"busybox"}],
        "tolerations":[{"key":"k","operator":"Exists"}],"volumes":[{"name":"data","emptyDir":{}}]}})"},
    // kubectl apply after adding a port: merged by containerPort, appended.
    {"add port", "v1/Pod", kPod,
     R"({"spec":{"containers":[{"name":"web","$setElementOrder/ports":[{"containerPort":80},{"containerPort":8080}],
         "ports":[{"containerPort":8080}]}]}})",
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web","tier":"fe"}},
       "spec":{"containers":[
         {"name":"web","image":"nginx:1.0","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
          "ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":8080}]},
         {"name":"side","image":"busybox"}],
        "tolerations":[{"key":"k","operator":"Exists"}],"volumes":[{"name":"data","emptyDir":{}}]}})"},
    // Lists without a patch strategy (tolerations) are replaced; null deletes a label.
    {"replace atomic list, delete label", "v1/Pod", kPod,
     R"({"metadata":{"labels":{"tier":null}},"spec":{"tolerations":[{"key":"x","operator":"Exists"}]}})",
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web"}},
       "spec":{"containers":[
         {"name":"web","image":"nginx:1.0","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
          "ports":[{"containerPort":80,"protocol":"TCP"}]},
         {"name":"side","image":"busybox"}],
        "tolerations":[{"key":"x","operator":"Exists"}],"volumes":[{"name":"data","emptyDir":{}}]}})"},
    // $retainKeys on a volume (patch strategy merge,retainKeys): the emptyDir source goes.
    {"retainKeys volume", "v1/Pod", R"({"spec":{"volumes":[{"name":"data","emptyDir":{}}]}})",
     R"({"spec":{"volumes":[{"$retainKeys":["configMap","name"],"configMap":{"name":"cm"},"name":"data"}]}})",
     R"({"spec":{"volumes":[{"name":"data","configMap":{"name":"cm"}}]}})"},
    // A {"$patch":"replace"} element replaces the whole list.
    {"replace list", "v1/Pod", kPod, R"({"spec":{"containers":[{"name":"only","image":"x"},{"$patch":"replace"}]}})",
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"app":"web","tier":"fe"}},
       "spec":{"containers":[{"name":"only","image":"x"}],
        "tolerations":[{"key":"k","operator":"Exists"}],"volumes":[{"name":"data","emptyDir":{}}]}})"},
    // $patch: replace on a map.
    {"replace map", "v1/Service", R"({"spec":{"selector":{"app":"a","tier":"b"}}})",
     R"({"spec":{"selector":{"$patch":"replace","app":"c"}}})", R"({"spec":{"selector":{"app":"c"}}})"},
    // $patch: delete on a map removes it.
    {"delete map", "v1/Service", R"({"metadata":{"name":"s","annotations":{"a":"b"}}})",
     R"({"metadata":{"annotations":{"$patch":"delete"}}})", R"({"metadata":{"name":"s"}})"},
    // Service ports merge by port. Orders here and below are what apimachinery produces
    // (checked with `kubectl patch --local`): patch elements in patch order, interleaved
    // with the live-only ones.
    {"service ports", "v1/Service", R"({"spec":{"ports":[{"port":80,"targetPort":8080},{"port":443}]}})",
     R"({"spec":{"ports":[{"port":80,"targetPort":9090},{"port":53,"protocol":"UDP"}]}})",
     R"({"spec":{"ports":[{"port":80,"targetPort":9090},{"port":53,"protocol":"UDP"},{"port":443}]}})"},
    // Finalizers are a merged set of strings; $deleteFromPrimitiveList removes.
    {"finalizers", "v1/ConfigMap", R"({"metadata":{"finalizers":["a","b"]}})",
     R"({"metadata":{"finalizers":["c","a"],"$deleteFromPrimitiveList/finalizers":["b"]}})",
     R"({"metadata":{"finalizers":["c","a"]}})"},
    // $setElementOrder reorders a merged list.
    {"set element order", "v1/Pod", R"({"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}})",
     R"({"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"a"},{"name":"b"}]}})",
     R"({"spec":{"containers":[{"name":"c"},{"name":"a"},{"name":"b"}]}})"},
    // Data maps of a ConfigMap merge key by key.
    {"configmap data", "v1/ConfigMap", R"({"data":{"a":"1","b":"2"}})", R"({"data":{"b":null,"c":"3"}})",
     R"({"data":{"a":"1","c":"3"}})"},
    // Ingress rules have no merge key: replaced.
    {"ingress rules replaced", "networking.k8s.io/v1/Ingress", R"({"spec":{"rules":[{"host":"a"},{"host":"b"}]}})",
     R"({"spec":{"rules":[{"host":"c"}]}})", R"({"spec":{"rules":[{"host":"c"}]}})"},
    // Unknown fields merge like a JSON merge patch (validation is the API server's job).
    {"unknown field", "v1/Pod", R"({"spec":{"x":{"a":1}}})", R"({"spec":{"x":{"b":2}}})", R"({"spec":{"x":{"a":1,"b":2}}})"},
    {"element without merge key", "v1/Pod", kPod, R"({"spec":{"containers":[{"image":"x"}]}})", nullptr},
    {"bad directive", "v1/Pod", kPod, R"({"spec":{"$patch":"frob"}})", nullptr},
    {"map for a string", "v1/Pod", kPod, R"({"spec":{"nodeName":{"a":1}}})", nullptr},
    {"unknown kind", "v1/Frob", "{}", "{}", nullptr},
    {"patch not an object", "v1/Pod", "{}", "[1]", nullptr},
};

}  // namespace

// `--filter KIND`: results of lines on stdin, so tests/apigen can compare this engine with
// kubectl's.
int filter(const char* kind) {
  return k32test::filter_lines([&](const k32::json::Value& doc, const k32::json::Value& patch, k32::json::Value* out,
                                   std::string* err) { return k32::patch::strategic_merge(kind, doc, patch, out, err); });
}

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--filter") == 0) return filter(argv[2]);
  for (const auto& c : kCases) {
    k32::json::Value out = J(R"("untouched")");
    std::string err;
    bool ok = k32::patch::strategic_merge(c.kind, J(c.doc), J(c.patch), &out, &err);
    k32test::check_case(c.name, ok, err, out, c.want);
  }
  TEST_MAIN_END();
}
