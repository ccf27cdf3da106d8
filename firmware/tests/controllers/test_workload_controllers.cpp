// The workload controllers and the garbage collector over an in-memory store, without a
// scheduler or kubelets: pods are marked Running/Ready by the test, as kubelets would.
#include "check.h"
#include "test_fixture.h"
#include "core/api/api_server.h"
#include "core/controllers/controller_manager.h"
#include "core/json/json.h"
#include "core/util/text.h"
#include "port.h"

using namespace k32;
using k32test::parse_json;

static std::vector<json::Value> list(store::ObjectStore* st, const char* res) { return st->list(res, "default", nullptr); }

// Marks every live pod Running and Ready since `since_s`, as its kubelet would report.
static void run_pods(store::ObjectStore* st, int64_t since_s) {
  for (auto p : list(st, "pods")) {
    if (!p["metadata"]["deletionTimestamp"].is_null() || p["status"]["phase"].as_string() == "Running") continue;
    json::Value& s = p.at_or_insert("status");
    s.set("phase", "Running");
    s.set("conditions", parse_json("[{\"type\":\"Ready\",\"status\":\"True\"}]"));
    s.find("conditions")->items()[0].set("lastTransitionTime", text::rfc3339(since_s));
    json::Value stored;
    st->update("pods", "default", p["metadata"]["name"].str(), p, 0, &stored);
  }
}

// Pods with a deletionTimestamp finish terminating (their kubelet stopped them).
static void finish_terminating(store::ObjectStore* st) {
  for (const auto& p : list(st, "pods")) {
    if (p["metadata"]["deletionTimestamp"].is_null()) continue;
    json::Value removed;
    st->remove("pods", "default", p["metadata"]["name"].str(), 0, &removed);
  }
}

static int live_pods(store::ObjectStore* st) {
  int n = 0;
  for (const auto& p : list(st, "pods")) n += p["metadata"]["deletionTimestamp"].is_null() ? 1 : 0;
  return n;
}

int main() {
  k32test::ApiFixture fx;
  store::ObjectStore& st = fx.st;
  api::ApiServer& api = fx.api();
  json::Value stored;
  controllers::ControllerManager cm(&api);
  cm.attach();
  const api::ResourceInfo* dep_res = api::find_by_kind("apps/v1", "Deployment");
  json::Value dep = parse_json(
      "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\"},\"spec\":{\"replicas\":4,"
      "\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"strategy\":{\"rollingUpdate\":{\"maxSurge\":1,\"maxUnavailable\":0}},"
      "\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"a\"}]}}}"
      "}");
  CHECK(api.local_create(*dep_res, "default", dep, &stored).ok());
  // Defaults were applied on the way in.
  CHECK_EQ(stored["spec"]["revisionHistoryLimit"].as_int(), 10);
  CHECK_EQ(stored["spec"]["template"]["spec"]["restartPolicy"].as_string(), std::string("Always"));

  int64_t now = port::wall_time_s();
  for (int i = 0; i < 4; ++i) cm.pass();
  std::vector<json::Value> rss = list(&st, "apps/replicasets");
  CHECK_EQ(rss.size(), 1u);
  std::string hash = rss[0]["metadata"]["labels"]["pod-template-hash"].as_string();
  CHECK(!hash.empty());
  CHECK_EQ(rss[0]["metadata"]["name"].as_string(), "web-" + hash);
  CHECK_EQ(rss[0]["metadata"]["ownerReferences"].items()[0]["uid"], stored["metadata"]["uid"]);
  CHECK_EQ(live_pods(&st), 4);
  for (const auto& p : list(&st, "pods")) {
    CHECK_EQ(p["metadata"]["labels"]["pod-template-hash"].as_string(), hash);
    CHECK_EQ(p["metadata"]["ownerReferences"].items()[0]["uid"], rss[0]["metadata"]["uid"]);
  }
  run_pods(&st, now - 5);
  for (int i = 0; i < 4; ++i) cm.pass();
  json::Value d;
  CHECK(st.get("apps/deployments", "default", "web", &d));
  CHECK_EQ(d["status"]["availableReplicas"].as_int(), 4);
  CHECK_EQ(d["status"]["updatedReplicas"].as_int(), 4);
  CHECK_EQ(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"].as_string(), std::string("1"));
  // The scaling step is reported on the Deployment, as kube-controller-manager does.
  bool scaled_event = false;
  for (const auto& e : list(&st, "events"))
    scaled_event = scaled_event ||
                   (e["reason"].as_string() == "ScalingReplicaSet" && e["involvedObject"]["kind"].as_string() == "Deployment" &&
                    e["message"].as_string() == "Scaled up replica set web-" + hash + " from 0 to 4");
  CHECK(scaled_event);

  // A new image rolls out one pod at a time: never more than 5 pods, never fewer than 4 ready.
  json::Value upd = d;
  upd.at_or_insert("spec").at_or_insert("template").at_or_insert("spec").at_or_insert("containers").items()[0].set("image", "b");
  CHECK(api.local_update(*dep_res, d, upd, "", &stored).ok());
  bool done = false;
  for (int round = 0; round < 40 && !done; ++round) {
    cm.pass();
    CHECK(live_pods(&st) <= 5);
    int ready = 0;
    for (const auto& p : list(&st, "pods"))
      if (p["metadata"]["deletionTimestamp"].is_null() && p["status"]["phase"].as_string() == "Running") ++ready;
    CHECK(ready >= 4);
    run_pods(&st, now - 5);
    cm.pass();
    finish_terminating(&st);
    CHECK(st.get("apps/deployments", "default", "web", &d));
    done = d["status"]["updatedReplicas"].as_int() == 4 && d["status"]["replicas"].as_int() == 4 &&
           d["status"]["availableReplicas"].as_int() == 4;
  }
  CHECK(done);
  for (const auto& p : list(&st, "pods")) CHECK_EQ(p["spec"]["containers"].items()[0]["image"].as_string(), std::string("b"));
  CHECK_EQ(list(&st, "apps/replicasets").size(), 2u);
  int scaled_down = 0;
  for (const auto& e : list(&st, "events"))
    if (e["message"].as_string().find("Scaled down replica set web-" + hash) == 0) ++scaled_down;
  CHECK_EQ(scaled_down, 4);

  // Deleting the Deployment (background) collects its ReplicaSets, then their pods.
  CHECK(api.local_delete(*dep_res, "default", "web", "Background", "").ok());
  for (int i = 0; i < 6; ++i) {
    cm.pass();
    finish_terminating(&st);
  }
  CHECK_EQ(list(&st, "apps/replicasets").size(), 0u);
  CHECK_EQ(list(&st, "pods").size(), 0u);

  // minReadySeconds: pods Ready for 5 s of the 60 required are not available yet; Recreate
  // starts no new pod while an old one still runs.
  json::Value slow =
      parse_json("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"slow\"},\"spec\":{\"replicas\":2,"
                 "\"minReadySeconds\":60,\"strategy\":{\"type\":\"Recreate\"},\"selector\":{\"matchLabels\":{\"app\":\"slow\"}},"
                 "\"template\":{\"metadata\":{\"labels\":{\"app\":\"slow\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":"
                 "\"a\"}]}}}}");
  CHECK(api.local_create(*dep_res, "default", slow, &stored).ok());
  for (int i = 0; i < 4; ++i) cm.pass();
  run_pods(&st, port::wall_time_s() - 5);
  for (int i = 0; i < 4; ++i) cm.pass();
  CHECK(st.get("apps/deployments", "default", "slow", &d));
  CHECK_EQ(d["status"]["readyReplicas"].as_int(), 2);
  CHECK_EQ(d["status"]["availableReplicas"].as_int(), 0);
  upd = d;
  upd.at_or_insert("spec").at_or_insert("template").at_or_insert("spec").at_or_insert("containers").items()[0].set("image", "b");
  CHECK(api.local_update(*dep_res, d, upd, "", &stored).ok());
  for (int i = 0; i < 4; ++i) cm.pass();
  int old_pods = 0, new_pods = 0;
  for (const auto& p : list(&st, "pods")) {
    bool is_new = p["spec"]["containers"].items()[0]["image"].as_string() == "b";
    (is_new ? new_pods : old_pods) += p["metadata"]["deletionTimestamp"].is_null() ? 1 : 0;
  }
  CHECK_EQ(old_pods, 0);
  CHECK_EQ(new_pods, 2);
  TEST_MAIN_END();
}
