// Scheduler placement decisions and the quantity parser.
#include "check.h"
#include "test_fixture.h"
#include "core/json/json.h"
#include "core/kubelet/pod_instance.h"
#include "core/sched/quantity.h"
#include "core/sched/scheduler.h"
#include "core/util/text.h"

using namespace k32;
using k32test::parse_json;

static json::Value node(const char* name, const char* role, bool ready, const char* mem = "4Mi") {
  std::string s = std::string("{\"metadata\":{\"name\":\"") + name + "\",\"labels\":{\"node-role.kubernetes.io/" + role +
                  "\":\"\",\"kubernetes.io/hostname\":\"" + name + "\"}},\"spec\":{},\"status\":{\"allocatable\":{\"memory\":\"" +
                  mem + "\",\"pods\":\"2\",\"hardware.kube32.io/ipc\":\"1\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"" +
                  (ready ? "True" : "False") + "\"}]}}";
  return parse_json(s.c_str());
}

// A pod of `image` asking `mem`, bound to `on` (or pending when empty).
static json::Value image_pod(const char* image, const char* mem, const char* on = "") {
  std::string s = std::string("{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u\"},\"spec\":{") +
                  "\"nodeName\":\"" + on + "\",\"nodeSelector\":{\"kubernetes.io/hostname\":\"w\"}," +
                  "\"containers\":[{\"name\":\"c\",\"image\":\"" + image + "\",\"resources\":{\"requests\":{\"memory\":\"" + mem +
                  "\"}}}]},\"status\":{\"phase\":\"Pending\"}}";
  return parse_json(s.c_str());
}

static json::Value pod(const char* spec_extra, const char* mem = "64Ki", const char* ipc = nullptr, const char* on = "") {
  std::string res = std::string("{\"requests\":{\"memory\":\"") + mem + "\"" +
                    (ipc ? std::string(",\"hardware.kube32.io/ipc\":\"") + ipc + "\"" : "") + "}}";
  std::string s =
      std::string("{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u\"},\"spec\":{\"nodeName\":\"") + on +
      "\",\"containers\":[{\"name\":\"c\",\"resources\":" + res + "}]" + spec_extra + "},\"status\":{\"phase\":\"Pending\"}}";
  return parse_json(s.c_str());
}

int main() {
  int64_t q = 0;
  CHECK(sched::parse_quantity("64Ki", &q) && q == 65536);
  CHECK(sched::parse_quantity("1Mi", &q) && q == 1048576);
  CHECK(sched::parse_quantity("100M", &q) && q == 100000000);
  CHECK(sched::parse_quantity("2", &q) && q == 2);
  CHECK(sched::parse_quantity("500m", &q) && q == 1);
  CHECK(sched::parse_quantity("1.5Ki", &q) && q == 1536);
  CHECK(!sched::parse_quantity("", &q));
  CHECK(!sched::parse_quantity("12Qi", &q));
  CHECK(!sched::parse_quantity("Ki", &q));
  CHECK(!sched::parse_quantity("99999999999999999999", &q));

  std::vector<json::Value> nodes{node("cp", "control-plane", true), node("w1", "worker", true, "8Mi"),
                                 node("w2", "worker", false, "16Mi")};
  std::vector<json::Value> none;

  // Most free memory among Ready nodes: w1 (w2 is NotReady, tainted).
  sched::Decision d = sched::schedule(pod(""), nodes, none);
  CHECK_EQ(d.node, std::string("w1"));

  // nodeSelector pins it to the control plane.
  d = sched::schedule(pod(",\"nodeSelector\":{\"node-role.kubernetes.io/control-plane\":\"\"}"), nodes, none);
  CHECK_EQ(d.node, std::string("cp"));

  // Tolerating not-ready lets it land on w2 (the most free memory).
  d = sched::schedule(pod(",\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\"}]"), nodes, none);
  CHECK_EQ(d.node, std::string("w2"));

  // Required node affinity: NotIn worker -> control plane only.
  d = sched::schedule(
      pod(",\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":"
          "[{\"matchExpressions\":[{\"key\":\"node-role.kubernetes.io/worker\",\"operator\":\"DoesNotExist\"}]}]}}}"),
      nodes, none);
  CHECK_EQ(d.node, std::string("cp"));
  d = sched::schedule(
      pod(",\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":"
          "[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[\"cp\"]}]}]}}}"),
      nodes, none);
  CHECK_EQ(d.node, std::string("cp"));

  // Memory: nobody has 32Mi.
  d = sched::schedule(pod("", "32Mi"), nodes, none);
  CHECK(d.node.empty());
  CHECK(d.message.find("0/3 nodes are available") == 0);
  CHECK(d.message.find("Insufficient memory") != std::string::npos);
  CHECK(d.message.find("untolerated taint {node.kubernetes.io/not-ready}") != std::string::npos);

  // Extended resource: one ipc slot per node; w1's is taken, so cp gets the pod.
  std::vector<json::Value> running{pod("", "64Ki", "1", "w1")};
  d = sched::schedule(pod("", "64Ki", "1"), nodes, running);
  CHECK_EQ(d.node, std::string("cp"));
  d = sched::schedule(pod("", "64Ki", "2"), nodes, running);
  CHECK(d.node.empty());
  CHECK(d.message.find("Insufficient hardware.kube32.io/ipc") != std::string::npos);

  // Pod count: w1 holds 2 pods already (allocatable pods = 2).
  running.push_back(pod("", "64Ki", nullptr, "w1"));
  d = sched::schedule(pod(",\"nodeSelector\":{\"kubernetes.io/hostname\":\"w1\"}"), nodes, running);
  CHECK(d.node.empty());
  CHECK(d.message.find("Too many pods") != std::string::npos);

  // Replicas spread: a pod of a ReplicaSet goes to the node with the fewest of its siblings,
  // before the one with the most free memory (w1 runs one sibling, cp none).
  {
    std::vector<json::Value> two{node("cp", "control-plane", true), node("w1", "worker", true, "8Mi")};
    json::Value sibling = pod("", "64Ki", nullptr, "w1");
    json::Value refs =
        parse_json("[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"rs\",\"uid\":\"rs-1\",\"controller\":true}]");
    sibling.at_or_insert("metadata").set("ownerReferences", refs);
    json::Value next = pod("");
    next.at_or_insert("metadata").set("ownerReferences", refs);
    std::vector<json::Value> on_w1{sibling};
    CHECK_EQ(sched::schedule(next, two, on_w1).node, std::string("cp"));
    // A pod of no controller still goes by free memory.
    CHECK_EQ(sched::schedule(pod(""), two, on_w1).node, std::string("w1"));
  }

  // Malformed request quantity: a clear message, no placement.
  d = sched::schedule(pod("", "lots"), nodes, none);
  CHECK(d.node.empty());
  CHECK(d.message.find("\"lots\" is not a quantity") != std::string::npos);

  // User taint without toleration.
  nodes[0].at_or_insert("spec").set("taints", parse_json("[{\"key\":\"dedicated\",\"value\":\"x\",\"effect\":\"NoSchedule\"}]"));
  d = sched::schedule(pod(",\"nodeSelector\":{\"node-role.kubernetes.io/control-plane\":\"\"}"), nodes, none);
  CHECK(d.node.empty());
  d = sched::schedule(pod(",\"nodeSelector\":{\"node-role.kubernetes.io/"
                          "control-plane\":\"\"},\"tolerations\":[{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"x\","
                          "\"effect\":\"NoSchedule\"}]"),
                      nodes, none);
  CHECK_EQ(d.node, std::string("cp"));
  // A node's per-pod overhead (kube32.io/pod-overhead) is charged with every pod: in 96Ki
  // with 20Ki a pod, one 64Ki pod fits and the second is refused with kube-scheduler's words.
  {
    json::Value w = node("w", "worker", true, "96Ki");
    w.at_or_insert("metadata").at_or_insert("annotations").set(sched::kPodOverheadAnnotation, "20Ki");
    w.at_or_insert("status").at_or_insert("allocatable").set("pods", "4");
    std::vector<json::Value> ns{w};
    std::vector<json::Value> none;
    CHECK_EQ(sched::schedule(pod(""), ns, none).node, std::string("w"));
    std::vector<json::Value> one{pod("", "64Ki", nullptr, "w")};
    sched::Decision d = sched::schedule(pod(""), ns, one);
    CHECK(d.node.empty());
    CHECK_EQ(d.message, std::string("0/1 nodes are available: 1 Insufficient memory."));
    // An 8Ki pod fits beside it only without the overhead (64 + 8 + 2 x 20 > 96).
    CHECK(sched::schedule(pod("", "8Ki"), ns, one).node.empty());
    w.at_or_insert("metadata").at_or_insert("annotations").set(sched::kPodOverheadAnnotation, "0");
    std::vector<json::Value> ns0{w};
    CHECK_EQ(sched::schedule(pod("", "8Ki"), ns0, one).node, std::string("w"));
  }
  // Compiled modules: each image's once per node, from the node's status.images, from its
  // bound pods' images it does not report yet, and for a pod whose image it holds neither way.
  {
    json::Value w = node("w", "worker", true, "96Ki");
    w.at_or_insert("status").at_or_insert("allocatable").set("pods", "8");
    json::Value w2 = node("w2", "worker", true, "4Mi");
    w2.at_or_insert("status").set(
        "images",
        parse_json("[{\"names\":[\"wasm://sd/a@sha256:0000000000000000000000000000000000000000000000000000000000000000\","
                   "\"wasm://sd/a\"],\"sizeBytes\":16384},{\"names\":[\"wasm://sd/b\"],\"sizeBytes\":8192}]"));
    std::vector<json::Value> ns{w, w2};
    std::vector<json::Value> none;
    CHECK_EQ(sched::image_key("kube32.io/sd/a@sha256:0000000000000000000000000000000000000000000000000000000000000000"),
             std::string("wasm://sd/a"));
    CHECK_EQ(sched::image_key("nginx"), std::string());
    // 64 + a's module (16, as w2 reports it) fits w's 96; 81 + 16 does not, in words that say why.
    CHECK_EQ(sched::schedule(image_pod("wasm://sd/a", "64Ki"), ns, none).node, std::string("w"));
    sched::Decision d = sched::schedule(image_pod("wasm://sd/a", "81Ki"), ns, none);
    CHECK(d.node.empty());
    CHECK_EQ(d.message, std::string("0/2 nodes are available: 1 Insufficient memory (with the compiled module of "
                                    "wasm://sd/a: 16 KiB), 1 node(s) didn't match Pod's node affinity/selector."));
    // A second pod of the image (its other spelling) shares the module w does not report yet:
    // 64 + 16 + 16 fits, once.
    std::vector<json::Value> one{image_pod("wasm://sd/a", "64Ki", "w")};
    CHECK_EQ(sched::schedule(image_pod("kube32.io/sd/a", "16Ki"), ns, one).node, std::string("w"));
    // A pod of another image brings its module: 64 + 16 + 16 + 8 > 96.
    d = sched::schedule(image_pod("wasm://sd/b", "16Ki"), ns, one);
    CHECK(d.node.empty());
    CHECK(d.message.find("Insufficient memory (with the compiled module of wasm://sd/b: 8 KiB)") != std::string::npos);
    CHECK_EQ(sched::schedule(image_pod("wasm://sd/b", "8Ki"), ns, one).node, std::string("w"));
    // A module w reports holding counts while it does, with no pod of it left: 96 - 16 = 80.
    ns[0].at_or_insert("status").set("images", parse_json("[{\"names\":[\"wasm://sd/a\"],\"sizeBytes\":16384}]"));
    CHECK(sched::schedule(image_pod("wasm://sd/b", "73Ki"), ns, none).node.empty());
    CHECK_EQ(sched::schedule(image_pod("wasm://sd/a", "80Ki"), ns, none).node, std::string("w"));
    // Its report is what w charges, not the larger size another node gave.
    ns[0].at_or_insert("status").set("images", parse_json("[{\"names\":[\"wasm://sd/a\"],\"sizeBytes\":4096}]"));
    CHECK_EQ(sched::schedule(image_pod("wasm://sd/a", "92Ki"), ns, none).node, std::string("w"));
    // A malformed size is left out (as an unreported image).
    ns[0].at_or_insert("status").set("images", parse_json("[{\"names\":[\"wasm://sd/c\"],\"sizeBytes\":\"lots\"}]"));
    CHECK_EQ(sched::schedule(image_pod("wasm://sd/b", "88Ki"), ns, none).node, std::string("w"));
    // A size near int64_t's end (two of them) does not wrap the node's sum: w has no room.
    ns[0].at_or_insert("status").set("images", parse_json("[{\"names\":[\"wasm://sd/c\"],\"sizeBytes\":9223372036854775000},"
                                                          "{\"names\":[\"wasm://sd/d\"],\"sizeBytes\":9223372036854775000}]"));
    CHECK(sched::schedule(image_pod("wasm://sd/b", "8Ki"), ns, none).node.empty());
    // An image built into the firmware no node reports: its module's cost is learnt by
    // compiling it here, the same figure the kubelet's module cache counts.
    uint64_t echo = 0;
    CHECK(kubelet::image_module_bytes("wasm://embedded/echo", &echo) && echo > 1024);
    ns[0].at_or_insert("status").set("images", json::Value());
    int64_t fits = 96 * 1024 - static_cast<int64_t>(echo);
    std::string exact = text::to_string(fits), over = text::to_string(fits + 1);
    CHECK_EQ(sched::schedule(image_pod("wasm://embedded/echo", exact.c_str()), ns, none).node, std::string("w"));
    d = sched::schedule(image_pod("wasm://embedded/echo", over.c_str()), ns, none);
    CHECK(d.message.find("with the compiled module of wasm://embedded/echo") != std::string::npos);
  }
  TEST_MAIN_END();
}
