// The kubelet's pod list reader: each item of a list body found without parsing the rest
// (strings with brackets and escapes, an "items" key inside an item, cut-short bodies), and
// the small view of a pod the kubelet keeps instead of the whole object.
#include <string>
#include <vector>

#include "check.h"
#include "core/json/json.h"
#include "core/kubelet/pod_list.h"
#include "port.h"

using namespace k32;
using namespace k32::kubelet;

static std::vector<std::string> items_of(const std::string& body, bool* ok) {
  std::vector<std::string> out;
  *ok = for_each_list_item(body, [&](const char* d, size_t n) {
    out.emplace_back(d, n);
    return true;
  });
  return out;
}

static void test_items_found() {
  bool ok = false;
  const std::string body = R"({"kind":"PodList","metadata":{"resourceVersion":"7","items":"not this"},)"
                           R"( "items" : [ {"a":"}]\"{[","items":[1,2]} , {"b":[{"c":null}]},3 ,"s\"]" ] ,"apiVersion":"v1"})";
  std::vector<std::string> got = items_of(body, &ok);
  CHECK(ok);
  CHECK_EQ(got.size(), size_t(4));
  if (got.size() == 4) {
    CHECK_EQ(got[0], std::string(R"({"a":"}]\"{[","items":[1,2]})"));
    CHECK_EQ(got[1], std::string(R"({"b":[{"c":null}]})"));
    CHECK_EQ(got[2], std::string("3"));
    CHECK_EQ(got[3], std::string(R"("s\"]")"));
  }
  // Every item is a JSON value of its own.
  for (const auto& s : got) {
    json::Value v;
    json::ParseError pe;
    CHECK(json::parse(s, &v, &pe));
  }
  CHECK(items_of(R"({"items":[]})", &ok).empty() && ok);
  CHECK(items_of(R"({"kind":"PodList","items":null})", &ok).empty() && ok);
}

static void test_bad_bodies() {
  bool ok = true;
  items_of(R"({"kind":"PodList"})", &ok);  // no items: not a list
  CHECK(!ok);
  items_of(R"({"items":[{"a":1},{"b":)", &ok);  // cut short
  CHECK(!ok);
  items_of(R"({"items":[{"a":"x}]})", &ok);  // a string that never ends
  CHECK(!ok);
  items_of("[1,2]", &ok);
  CHECK(!ok);
  items_of("", &ok);
  CHECK(!ok);
  // Stopping early is not an error.
  int seen = 0;
  CHECK(for_each_list_item(R"({"items":[1,2,3]})", [&](const char*, size_t) { return ++seen < 2; }));
  CHECK_EQ(seen, 2);
}

static const char* kPod = R"({"kind":"Pod","apiVersion":"v1",
 "metadata":{"name":"e","namespace":"default","uid":"u1","resourceVersion":"9","labels":{"app":"e"},
   "annotations":{"kube32.io/event-topics":"t"},"creationTimestamp":"2026-01-01T00:00:00Z",
   "managedFields":[{"manager":"kubectl","operation":"Update","fieldsV1":{"f:spec":{}}}]},
 "spec":{"nodeName":"w","restartPolicy":"Always","containers":[{"name":"c","image":"wasm://embedded/echo",
   "env":[{"name":"A","value":"b"}],"resources":{"limits":{"memory":"64Ki"}}}]},
 "status":{"phase":"Running","qosClass":"Burstable","hostIP":"127.0.0.2","podIP":"127.0.0.2",
   "conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:01Z"}],
   "containerStatuses":[{"name":"c","state":{"running":{"startedAt":"2026-01-01T00:00:01Z"}},"ready":true,
     "restartCount":0,"image":"wasm://embedded/echo","imageID":"wasm://embedded/echo@sha256:00"}]}})";

static void test_view_keeps_what_the_kubelet_reads() {
  json::Value pod;
  json::ParseError pe;
  CHECK(json::parse(kPod, &pod, &pe));
  json::Value v = pod_view(pod);
  CHECK_EQ(v["metadata"]["name"].str(), std::string("e"));
  CHECK_EQ(v["metadata"]["uid"].str(), std::string("u1"));
  CHECK_EQ(v["metadata"]["labels"]["app"].str(), std::string("e"));
  CHECK_EQ(v["metadata"]["annotations"]["kube32.io/event-topics"].str(), std::string("t"));
  CHECK(v["spec"] == pod["spec"]);
  CHECK_EQ(v["status"]["phase"].str(), std::string("Running"));
  CHECK_EQ(v["status"]["qosClass"].str(), std::string("Burstable"));
  CHECK(v["status"]["conditions"] == pod["status"]["conditions"]);
  CHECK(!v["metadata"].find("managedFields") && !v["metadata"].find("creationTimestamp"));
  CHECK(!v["status"].find("containerStatuses") && !v["status"].find("podIP"));
  CHECK(!v.find("kind"));
  // The view is a fraction of the pod's heap.
  port::MemStats a = port::mem_stats();
  json::Value* whole = new json::Value(pod);
  port::MemStats b = port::mem_stats();
  json::Value* small = new json::Value(pod_view(pod));
  port::MemStats c = port::mem_stats();
  uint64_t whole_bytes = b.internal_in_use + b.psram_in_use - a.internal_in_use - a.psram_in_use;
  uint64_t view_bytes = c.internal_in_use + c.psram_in_use - b.internal_in_use - b.psram_in_use;
  std::printf("pod %llu bytes, its view %llu bytes\n", static_cast<unsigned long long>(whole_bytes),
              static_cast<unsigned long long>(view_bytes));
  CHECK(view_bytes < whole_bytes);
  delete whole;
  delete small;
}

// A page's continue token is the list's own metadata.continue, after or before the items,
// never a field of the same name inside an item; none on the last page.
static void test_continue_token() {
  CHECK_EQ(list_continue(R"({"kind":"PodList","items":[{"metadata":{"continue":"no"}}],)"
                         R"("metadata":{"resourceVersion":"9","continue":"default/bm-3","remainingItemCount":6}})"),
           std::string("default/bm-3"));
  CHECK_EQ(list_continue(R"({"metadata":{"continue":"ns/a"},"items":[]})"), std::string("ns/a"));
  CHECK_EQ(list_continue(R"({"items":[{"metadata":{"continue":"no"}}],"metadata":{"resourceVersion":"9"}})"), std::string());
  CHECK_EQ(list_continue(R"({"items":[],"metadata":{"continue":)"), std::string());  // cut short
  CHECK_EQ(list_continue("[1,2]"), std::string());
}

int main() {
  test_items_found();
  test_continue_token();
  test_bad_bodies();
  test_view_keeps_what_the_kubelet_reads();
  TEST_MAIN_END();
}
