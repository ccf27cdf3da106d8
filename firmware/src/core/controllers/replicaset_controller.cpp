#include "core/controllers/replicaset_controller.h"

#include <algorithm>

#include "core/api/selectors.h"
#include "core/controllers/controller_event.h"
#include "core/controllers/controller_ref_manager.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "k32_board.h"

namespace k32 {
namespace controllers {

namespace {

constexpr const char* kComponent = "replicaset-controller";

bool counts(const Dependent& d, const std::string& owner_uid) {
  const OwnerRef* c = d.controller_ref();
  return d.resource == "pods" && c && c->uid == owner_uid && !d.deleting && d.phase != "Succeeded" && d.phase != "Failed";
}

int phase_rank(const std::string& phase) { return phase == "Pending" ? 0 : phase == "Running" ? 2 : 1; }

// Which pod goes first when there are too many, as kube-controller-manager ranks them:
// not yet placed, then pending, not ready, ready for the shortest time, newest.
bool delete_before(const Dependent& a, const Dependent& b) {
  if (a.bound != b.bound) return !a.bound;
  if (phase_rank(a.phase) != phase_rank(b.phase)) return phase_rank(a.phase) < phase_rank(b.phase);
  if (a.ready != b.ready) return !a.ready;
  if (a.ready && a.ready_since_s != b.ready_since_s) return a.ready_since_s > b.ready_since_s;
  if (a.created_s != b.created_s) return a.created_s > b.created_s;
  return a.name < b.name;
}

}  // namespace

PodCounts count_pods(const std::vector<Dependent>& pods, const std::string& owner_uid, int64_t min_ready_s, int64_t now_s,
                     int64_t* wake_s) {
  PodCounts c;
  for (const auto& p : pods) {
    if (!counts(p, owner_uid)) continue;
    ++c.active;
    if (!p.ready) continue;
    ++c.ready;
    int64_t at = p.ready_since_s + min_ready_s;
    if (min_ready_s <= 0 || at <= now_s) ++c.available;
    else if (wake_s && (*wake_s == 0 || at < *wake_s)) *wake_s = at;
  }
  return c;
}

void ReplicaSetController::pass(int64_t now_s, int64_t* wake_s) {
  // ReplicaSets are few (a Deployment keeps revisionHistoryLimit of them); pods are not listed.
  // One parsed at a time, as DeploymentController::pass.
  api_->store()->for_each("apps/replicasets", "", nullptr, [&](json::Value& rs) {
    sync(rs, now_s, wake_s);
    return true;
  });
}

bool ReplicaSetController::create_pod(const json::Value& rs, std::string* err) {
  const json::Value& tpl = rs["spec"]["template"];
  json::Value pod = json::Value::object();
  pod.set("apiVersion", "v1");
  pod.set("kind", "Pod");
  json::Value& md = pod.set("metadata", json::Value::object());
  md.set("generateName", rs["metadata"]["name"].str() + "-");
  md.set("namespace", rs["metadata"]["namespace"]);
  if (tpl["metadata"]["labels"].is_object()) md.set("labels", tpl["metadata"]["labels"]);
  if (tpl["metadata"]["annotations"].is_object()) md.set("annotations", tpl["metadata"]["annotations"]);
  json::Value refs = json::Value::array();
  refs.push(controller_ref_to(rs));
  md.set("ownerReferences", refs);
  pod.set("spec", tpl["spec"]);
  json::Value stored;
  api::ApiError e =
      api_->local_create(*api::find_by_kind("v1", "Pod"), rs["metadata"]["namespace"].str(), std::move(pod), &stored);
  if (!e.ok()) *err = e.message;
  return e.ok();
}

void ReplicaSetController::sync(const json::Value& rs, int64_t now_s, int64_t* wake_s) {
  const json::Value& md = rs["metadata"];
  std::string uid = md["uid"].as_string();
  std::string ns = md["namespace"].as_string();
  int64_t want = rs["spec"]["replicas"].as_int(1);
  // Its pods first: matching orphans adopted, owned pods whose labels stopped matching released.
  std::vector<Dependent> deps = index_->dependents_of(uid);
  api::LabelSelector sel;
  std::string err;
  if (api::label_selector_from_json(rs["spec"]["selector"], &sel, &err) && claim(api_, index_, rs, "pods", sel, deps))
    deps = index_->dependents_of(uid);
  PodCounts c = count_pods(deps, uid, rs["spec"]["minReadySeconds"].as_int(), now_s, wake_s);
  std::string failure;
  // A ReplicaSet being deleted makes no more pods; the garbage collector takes its own.
  if (md["deletionTimestamp"].is_null()) {
    if (c.active < want) {
      int64_t n = std::min<int64_t>(want - c.active, K32_CONTROLLER_POD_BURST);
      for (int64_t i = 0; i < n; ++i)
        if (!create_pod(rs, &failure)) break;
    } else if (c.active > want) {
      std::vector<Dependent> mine;
      for (auto& d : deps)
        if (counts(d, uid)) mine.push_back(std::move(d));
      std::sort(mine.begin(), mine.end(), delete_before);
      int64_t n = std::min<int64_t>(c.active - want, K32_CONTROLLER_POD_BURST);
      const api::ResourceInfo* pod_res = api::find_by_kind("v1", "Pod");
      for (int64_t i = 0; i < n && i < static_cast<int64_t>(mine.size()); ++i)
        api_->local_delete(*pod_res, mine[i].ns, mine[i].name, "Background", mine[i].uid);
    }
  }
  json::Value st = json::Value::object();
  st.set("replicas", c.active);
  if (c.active) st.set("fullyLabeledReplicas", c.active);
  if (c.ready) st.set("readyReplicas", c.ready);
  if (c.available) st.set("availableReplicas", c.available);
  st.set("observedGeneration", md["generation"].as_int());
  const json::Value& old_conds = rs["status"]["conditions"];
  if (!failure.empty()) {
    bool first = true;
    for (const auto& oc : old_conds.items())
      if (oc["type"].as_string() == "ReplicaFailure" && oc["message"].as_string() == failure) first = false;
    if (first) record_event(api_->store(), rs, "Warning", "FailedCreate", "Error creating: " + failure, kComponent);
    json::Value cond = json::Value::object();
    cond.set("type", "ReplicaFailure");
    cond.set("status", "True");
    cond.set("reason", "FailedCreate");
    cond.set("message", failure);
    // Keep the first time it failed, as long as it fails the same way.
    std::string since = text::rfc3339(now_s);
    for (const auto& oc : old_conds.items())
      if (oc["type"].as_string() == "ReplicaFailure" && oc["message"].as_string() == failure)
        since = oc["lastTransitionTime"].as_string(since);
    cond.set("lastTransitionTime", since);
    json::Value conds = json::Value::array();
    conds.push(cond);
    st.set("conditions", conds);
    logf("[RS] %s/%s: cannot create a pod: %s", ns.c_str(), md["name"].as_string().c_str(), failure.c_str());
  }
  if (st == rs["status"]) return;
  json::Value upd = rs;
  upd.set("status", st);
  json::Value stored;
  api_->local_update(*api::find_by_kind("apps/v1", "ReplicaSet"), rs, std::move(upd), "status", &stored);
}

}  // namespace controllers
}  // namespace k32
