// The owner index: what it hands out of an owned object (resource, namespace and name from its
// key, a resource with a '/' included; the pod facts replica counting needs), what it keeps of
// each (the control plane holds one per owned pod: a board's RAM per pod), and that deleting
// the objects gives it all back.
#include <cstdio>
#include <string>

#include "check.h"
#include "core/controllers/owner_index.h"
#include "core/json/json.h"
#include "port.h"
#include "test_fixture.h"

using namespace k32;

namespace {

std::string uid_of(int i) {
  char b[40];
  std::snprintf(b, sizeof b, "%08x-1d2c-4b6a-9f3e-5a7c0e2b4d6f", static_cast<unsigned>(i));
  return b;
}

// A pod of a Deployment's ReplicaSet as the API server stores it (the parts the index reads).
store::Event pod_event(store::EventType type, int i) {
  store::Event ev;
  ev.type = type;
  ev.resource = "pods";
  ev.ns = "default";
  ev.name = "web-7f9c6d5b8d-" + std::to_string(10000 + i);
  ev.rv = 100 + static_cast<uint64_t>(i);
  json::Value pod = json::Value::object();
  json::Value& md = pod.set("metadata", json::Value::object());
  md.set("name", ev.name);
  md.set("namespace", ev.ns);
  md.set("uid", uid_of(i));
  md.set("creationTimestamp", "2026-12-02T03:00:00Z");
  json::Value& labels = md.set("labels", json::Value::object());
  labels.set("app", "web");
  labels.set("pod-template-hash", "7f9c6d5b8d");
  json::Value ref = json::Value::object();
  ref.set("apiVersion", "apps/v1");
  ref.set("kind", "ReplicaSet");
  ref.set("name", "web-7f9c6d5b8d");
  ref.set("uid", uid_of(1000));
  ref.set("controller", true);
  ref.set("blockOwnerDeletion", true);
  md.set("ownerReferences", json::Value::array()).push(ref);
  pod.set("spec", json::Value::object()).set("nodeName", "kube32-control-plane");
  json::Value& st = pod.set("status", json::Value::object());
  st.set("phase", "Running");
  json::Value cond = json::Value::object();
  cond.set("type", "Ready");
  cond.set("status", "True");
  cond.set("lastTransitionTime", "2026-12-02T03:00:05Z");
  st.set("conditions", json::Value::array()).push(cond);
  ev.object = std::move(pod);
  return ev;
}

}  // namespace

int main() {
  auto* index = new controllers::OwnerIndex();
  const uint64_t empty = k32test::heap_in_use();
  constexpr int kPods = 32;
  for (int i = 0; i < kPods; ++i) index->observe(pod_event(store::EventType::Added, i));
  const uint64_t per_pod = (k32test::heap_in_use() - empty) / kPods;
  std::printf("owner index: %llu bytes a pod\n", static_cast<unsigned long long>(per_pod));
  // 32-bit (a board's pointer size): 475 bytes with its owner reference, key, uid and labels;
  // a copy of every Dependent field beside the key was 654.
  CHECK(per_pod <= (sizeof(void*) == 4 ? 560u : 700u));

  std::vector<controllers::Dependent> deps = index->dependents_of(uid_of(1000));
  CHECK_EQ(deps.size(), static_cast<size_t>(kPods));
  const controllers::Dependent& d = deps[0];
  CHECK_EQ(d.resource, std::string("pods"));
  CHECK_EQ(d.ns, std::string("default"));
  CHECK(d.name.rfind("web-7f9c6d5b8d-", 0) == 0);
  CHECK_EQ(d.phase, std::string("Running"));
  CHECK(d.ready && d.bound && !d.deleting);
  CHECK(d.ready_since_s > d.created_s);
  CHECK_EQ(d.labels, std::string("app=web,pod-template-hash=7f9c6d5b8d"));
  CHECK(d.controller_ref() && d.controller_ref()->uid == uid_of(1000) && d.controller_ref()->block_owner_deletion);

  // A resource whose store id holds a '/', and a cluster-wide owner's dependent in a namespace.
  {
    store::Event rs = pod_event(store::EventType::Added, 0);
    rs.resource = "apps/replicasets";
    rs.name = "web-7f9c6d5b8d";
    rs.object.at_or_insert("metadata").set("name", rs.name);
    rs.object.at_or_insert("metadata").set("uid", uid_of(2000));
    index->observe(rs);
    deps = index->dependents_of(uid_of(1000));
    bool found = false;
    for (const auto& x : deps)
      if (x.resource == "apps/replicasets") {
        found = true;
        CHECK_EQ(x.ns, std::string("default"));
        CHECK_EQ(x.name, std::string("web-7f9c6d5b8d"));
        CHECK_EQ(x.phase, std::string(""));  // not a pod: no phase
      }
    CHECK(found);
    rs.type = store::EventType::Deleted;
    index->observe(rs);
  }
  std::vector<controllers::Dependent>().swap(deps);  // the copies handed out, gone

  // Deleted, every pod leaves the index (the work it left for the collector aside).
  for (int i = 0; i < kPods; ++i) index->observe(pod_event(store::EventType::Deleted, i));
  CHECK(!index->has_dependents(uid_of(1000)));
  index->take_gc_work();
  CHECK_EQ(k32test::heap_in_use(), empty);
  delete index;
  TEST_MAIN_END();
}
