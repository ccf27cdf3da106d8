#include "core/controllers/deployment_controller.h"

#include <algorithm>

#include "core/api/workloads.h"
#include "core/controllers/controller_event.h"
#include "core/controllers/controller_ref_manager.h"
#include "core/controllers/replicaset_controller.h"
#include "core/util/log.h"
#include "core/util/text.h"

namespace k32 {
namespace controllers {

namespace {

constexpr const char* kChangeCause = "kubernetes.io/change-cause";
constexpr const char* kComponent = "deployment-controller";
constexpr const char* kDesiredAnnotation = "deployment.kubernetes.io/desired-replicas";
constexpr const char* kMaxAnnotation = "deployment.kubernetes.io/max-replicas";

// A template as Kubernetes compares them: absent, null and empty values are the same
// (kubectl sends "creationTimestamp": null and "resources": {}), key order does not matter.
json::Value normalized(const json::Value& v) {
  if (v.is_array()) {
    json::Value a = json::Value::array();
    for (const auto& x : v.items()) a.push(normalized(x));
    return a;
  }
  if (!v.is_object()) return v;
  json::Value o = json::Value::object();
  for (const auto& m : v.members()) {
    json::Value n = normalized(m.second);
    if (n.is_null() || ((n.is_object() || n.is_array()) && n.size() == 0)) continue;
    o.members().push_back({m.first, std::move(n)});
  }
  std::sort(o.members().begin(), o.members().end(),
            [](const json::Value::Member& a, const json::Value::Member& b) { return a.first < b.first; });
  return o;
}

json::Value without_hash(const json::Value& tpl) {
  json::Value t = tpl;
  if (json::Value* md = t.find("metadata"))
    if (json::Value* labels = md->find("labels")) labels->erase(kTemplateHashLabel);
  return normalized(t);
}

int64_t revision_of(const json::Value& rs) {
  uint64_t v = 0;
  text::parse_uint(rs["metadata"]["annotations"][kRevisionAnnotation].as_string(), INT64_MAX, &v);
  return static_cast<int64_t>(v);
}

int64_t spec_replicas(const json::Value& o) { return o["spec"]["replicas"].as_int(1); }

// maxSurge and maxUnavailable resolved against the replica count (surge rounds up,
// unavailable down; both zero would stall, so unavailable becomes 1, as upstream does).
void rolling_bounds(const json::Value& d, int64_t* surge, int64_t* unavailable) {
  int64_t r = spec_replicas(d);
  const json::Value& ru = d["spec"]["strategy"]["rollingUpdate"];
  *surge = 0;
  *unavailable = 0;
  if (d["spec"]["strategy"]["type"].as_string() != "RollingUpdate") return;
  api::workloads::int_or_percent(ru["maxSurge"], r, true, surge);
  api::workloads::int_or_percent(ru["maxUnavailable"], r, false, unavailable);
  if (*surge == 0 && *unavailable == 0) *unavailable = 1;
  if (*unavailable > r) *unavailable = r;
}

json::Value condition(const char* type, const char* status, const std::string& reason, const std::string& message,
                      const json::Value& old_conds, int64_t now_s, bool progressed) {
  json::Value c = json::Value::object();
  c.set("type", type);
  c.set("status", status);
  std::string now = text::rfc3339(now_s);
  std::string update = now, transition = now;
  for (const auto& oc : old_conds.items()) {
    if (oc["type"].as_string() != type) continue;
    if (oc["status"].as_string() == status) transition = oc["lastTransitionTime"].as_string(now);
    if (oc["status"].as_string() == status && oc["reason"].as_string() == reason && !progressed)
      update = oc["lastUpdateTime"].as_string(now);
  }
  c.set("lastUpdateTime", update);
  c.set("lastTransitionTime", transition);
  c.set("reason", reason);
  c.set("message", message);
  return c;
}

int64_t annotation_int(const json::Value& rs, const char* key, bool* ok) {
  uint64_t v = 0;
  *ok = text::parse_uint(rs["metadata"]["annotations"][key].as_string(), INT32_MAX, &v);
  return static_cast<int64_t>(v);
}

// How many replicas a ReplicaSet gains (or loses) when a scaling of the Deployment is spread
// over its active ReplicaSets: its share of the new maximum (replicas + maxSurge), measured
// against the maximum it was last scaled for (its max-replicas annotation), rounded, and
// never more than what is left of the change to spread.
int64_t proportion(const json::Value& rs, const json::Value& d, int64_t to_add, int64_t added) {
  int64_t n = spec_replicas(rs);
  if (n == 0 || to_add == 0 || to_add == added) return 0;
  int64_t fraction = -n;  // scaling to zero takes all of it
  if (spec_replicas(d) > 0) {
    int64_t surge = 0, unavailable = 0;
    rolling_bounds(d, &surge, &unavailable);
    bool ok = false;
    int64_t before = annotation_int(rs, kMaxAnnotation, &ok);
    if (!ok || before == 0) before = d["status"]["replicas"].as_int();
    if (before <= 0) return 0;
    int64_t now_max = spec_replicas(d) + surge;
    fraction = (2 * n * now_max + before) / (2 * before) - n;  // n * now_max / before, rounded half up
  }
  int64_t allowed = to_add - added;
  return to_add > 0 ? std::min(fraction, allowed) : std::max(fraction, allowed);
}

bool newer(const json::Value& a, const json::Value& b) {
  std::string ta = a.path_str({"metadata", "creationTimestamp"}), tb = b.path_str({"metadata", "creationTimestamp"});
  return ta != tb ? ta > tb : a.path_str({"metadata", "name"}) > b.path_str({"metadata", "name"});
}

const json::Value* find_condition(const json::Value& conds, const char* type) {
  for (const auto& c : conds.items())
    if (c["type"].as_string() == type) return &c;
  return nullptr;
}

}  // namespace

std::string pod_template_hash(const json::Value& tpl, int64_t collision_count) {
  std::string data = json::dump(without_hash(tpl));
  if (collision_count > 0) data += text::to_string(collision_count);
  uint32_t h = 2166136261u;
  for (unsigned char c : data) {
    h ^= c;
    h *= 16777619u;
  }
  // rand.SafeEncodeString of the decimal value: no vowels, no look-alike characters.
  static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string dec = text::to_string(static_cast<int64_t>(h)), out;
  for (char c : dec) out.push_back(kAlphabet[static_cast<unsigned char>(c) % 27]);
  return out;
}

void DeploymentController::pass(int64_t now_s, int64_t* wake_s) {
  // One Deployment parsed at a time; sync writes through the API, which the store allows
  // while for_each runs (its lock is not held during the call).
  api_->store()->for_each("apps/deployments", "", nullptr, [&](json::Value& d) {
    sync(d, now_s, wake_s);
    return true;
  });
}

std::vector<json::Value> DeploymentController::owned_replicasets(const json::Value& d) {
  std::string uid = d.path_str({"metadata", "uid"});
  std::vector<json::Value> out;
  for (const auto& dep : index_->dependents_of(uid)) {
    const OwnerRef* c = dep.controller_ref();
    if (dep.resource != "apps/replicasets" || !c || c->uid != uid) continue;
    json::Value rs;
    if (api_->store()->get(dep.resource, dep.ns, dep.name, &rs) && rs.path_str({"metadata", "uid"}) == dep.uid)
      out.push_back(std::move(rs));
  }
  std::sort(out.begin(), out.end(), [](const json::Value& a, const json::Value& b) {
    std::string ta = a.path_str({"metadata", "creationTimestamp"}), tb = b.path_str({"metadata", "creationTimestamp"});
    return ta != tb ? ta < tb : a.path_str({"metadata", "name"}) < b.path_str({"metadata", "name"});
  });
  return out;
}

void DeploymentController::set_revision(json::Value* rs, int64_t revision, const json::Value& d) {
  std::string want = text::to_string(revision);
  const json::Value& cause = d["metadata"]["annotations"][kChangeCause];
  const json::Value& ann = (*rs)["metadata"]["annotations"];
  if (ann[kRevisionAnnotation].as_string() == want && (cause.is_null() || ann[kChangeCause] == cause)) return;
  json::Value upd = *rs;
  json::Value& a = upd.at_or_insert("metadata").at_or_insert("annotations");
  if (!a.is_object()) a = json::Value::object();
  a.set(kRevisionAnnotation, want);
  if (!cause.is_null()) a.set(kChangeCause, cause);
  json::Value stored;
  if (api_->local_update(*api::find_by_kind("apps/v1", "ReplicaSet"), *rs, std::move(upd), "", &stored).ok()) *rs = stored;
}

bool DeploymentController::create_new_rs(const json::Value& d, int64_t revision, int64_t replicas, json::Value* out) {
  const json::Value& dmd = d["metadata"];
  int64_t collisions = d["status"]["collisionCount"].as_int();
  std::string hash = pod_template_hash(d["spec"]["template"], collisions);
  std::string name = dmd["name"].str() + "-" + hash;
  json::Value tpl = d["spec"]["template"];
  json::Value& labels = tpl.at_or_insert("metadata").at_or_insert("labels");
  if (!labels.is_object()) labels = json::Value::object();
  labels.set(kTemplateHashLabel, hash);
  json::Value selector = d["spec"]["selector"];
  json::Value& ml = selector.at_or_insert("matchLabels");
  if (!ml.is_object()) ml = json::Value::object();
  ml.set(kTemplateHashLabel, hash);

  json::Value rs = json::Value::object();
  rs.set("apiVersion", "apps/v1");
  rs.set("kind", "ReplicaSet");
  json::Value& md = rs.set("metadata", json::Value::object());
  md.set("name", name);
  md.set("namespace", dmd["namespace"]);
  md.set("labels", labels);
  json::Value& ann = md.set("annotations", json::Value::object());
  int64_t surge = 0, unavailable = 0;
  rolling_bounds(d, &surge, &unavailable);
  ann.set(kRevisionAnnotation, text::to_string(revision));
  ann.set(kDesiredAnnotation, text::to_string(spec_replicas(d)));
  ann.set(kMaxAnnotation, text::to_string(spec_replicas(d) + surge));
  if (!dmd["annotations"][kChangeCause].is_null()) ann.set(kChangeCause, dmd["annotations"][kChangeCause]);
  json::Value refs = json::Value::array();
  refs.push(controller_ref_to(d));
  md.set("ownerReferences", refs);
  json::Value& spec = rs.set("spec", json::Value::object());
  spec.set("replicas", replicas);
  if (!d["spec"]["minReadySeconds"].is_null()) spec.set("minReadySeconds", d["spec"]["minReadySeconds"]);
  spec.set("selector", selector);
  spec.set("template", tpl);
  const api::ResourceInfo* rsr = api::find_by_kind("apps/v1", "ReplicaSet");
  api::ApiError e = api_->local_create(*rsr, dmd["namespace"].str(), std::move(rs), out);
  if (e.ok()) {
    if (replicas > 0)
      record_event(api_->store(), d, "Normal", "ScalingReplicaSet",
                   "Scaled up replica set " + name + " from 0 to " + text::to_string(replicas), kComponent);
    return true;
  }
  if (e.reason == "AlreadyExists") {
    // The name is taken by another template (or another owner): count a collision, so the
    // next hash differs, as upstream does.
    json::Value upd = d;
    upd.at_or_insert("status").set("collisionCount", collisions + 1);
    json::Value stored;
    api_->local_update(*api::find_by_kind("apps/v1", "Deployment"), d, std::move(upd), "status", &stored);
  } else {
    logf("[DEPLOY] %s/%s: cannot create ReplicaSet %s: %s", dmd["namespace"].as_string().c_str(), dmd["name"].as_string().c_str(),
         name.c_str(), e.message.c_str());
  }
  return false;
}

bool DeploymentController::scale_rs(const json::Value& d, json::Value* rs, int64_t replicas) {
  int64_t surge = 0, unavailable = 0;
  rolling_bounds(d, &surge, &unavailable);
  std::string desired = text::to_string(spec_replicas(d)), max = text::to_string(spec_replicas(d) + surge);
  const json::Value& ann = (*rs)["metadata"]["annotations"];
  if (spec_replicas(*rs) == replicas && ann[kDesiredAnnotation].as_string() == desired && ann[kMaxAnnotation].as_string() == max)
    return true;
  json::Value upd = *rs;
  upd.at_or_insert("spec").set("replicas", replicas);
  json::Value& a = upd.at_or_insert("metadata").at_or_insert("annotations");
  if (!a.is_object()) a = json::Value::object();
  a.set(kDesiredAnnotation, desired);
  a.set(kMaxAnnotation, max);
  json::Value stored;
  if (!api_->local_update(*api::find_by_kind("apps/v1", "ReplicaSet"), *rs, std::move(upd), "", &stored).ok()) return false;
  int64_t was = spec_replicas(*rs);
  *rs = stored;
  if (was != replicas)
    record_event(api_->store(), d, "Normal", "ScalingReplicaSet",
                 std::string("Scaled ") + (replicas > was ? "up" : "down") + " replica set " + stored["metadata"]["name"].str() +
                     " from " + text::to_string(was) + " to " + text::to_string(replicas),
                 kComponent);
  return true;
}

bool DeploymentController::old_pods_running(const std::vector<json::Value>& old_rss) {
  // A terminating pod still runs until its kubelet stops it: it counts, as upstream.
  for (const auto& rs : old_rss) {
    if (spec_replicas(rs) > 0 || rs["status"]["replicas"].as_int() > 0) return true;
    std::string uid = rs.path_str({"metadata", "uid"});
    for (const auto& p : index_->dependents_of(uid)) {
      const OwnerRef* c = p.controller_ref();
      if (p.resource == "pods" && c && c->uid == uid && p.phase != "Succeeded" && p.phase != "Failed") return true;
    }
  }
  return false;
}

int64_t DeploymentController::new_rs_replicas(const json::Value& d, const std::vector<json::Value>& old_rss) {
  int64_t r = spec_replicas(d);
  // Recreate: every old pod stops before the new ReplicaSet is made, with all the replicas.
  if (d["spec"]["strategy"]["type"].as_string() == "Recreate") return old_pods_running(old_rss) ? -1 : r;
  // RollingUpdate: as many as maxSurge leaves room for beside the old ones.
  int64_t surge = 0, unavailable = 0;
  rolling_bounds(d, &surge, &unavailable);
  int64_t current = 0;
  for (const auto& rs : old_rss) current += spec_replicas(rs);
  return std::max<int64_t>(0, std::min(r + surge - current, r));
}

void DeploymentController::roll(const json::Value& d, json::Value* new_rs, std::vector<json::Value>* old_rss) {
  int64_t r = spec_replicas(d);
  if (d["spec"]["strategy"]["type"].as_string() == "Recreate") {
    // Every old pod stops before a new one starts.
    for (auto& rs : *old_rss)
      if (spec_replicas(rs) > 0) scale_rs(d, &rs, 0);
    if (new_rs && !old_pods_running(*old_rss)) scale_rs(d, new_rs, r);
    return;
  }
  if (!new_rs) return;
  int64_t surge = 0, unavailable = 0;
  rolling_bounds(d, &surge, &unavailable);
  auto total = [&]() {
    int64_t t = spec_replicas(*new_rs);
    for (const auto& rs : *old_rss) t += spec_replicas(rs);
    return t;
  };
  // The new ReplicaSet grows as far as maxSurge allows.
  int64_t nr = spec_replicas(*new_rs);
  if (nr > r) {
    scale_rs(d, new_rs, r);
  } else if (nr < r) {
    int64_t room = r + surge - total();
    if (room > 0) scale_rs(d, new_rs, nr + std::min(room, r - nr));
  }
  // Old ReplicaSets shrink while at least replicas - maxUnavailable pods stay available:
  // first the pods that are not available anyway, then available ones, oldest first.
  int64_t min_available = r - unavailable;
  int64_t new_unavailable = spec_replicas(*new_rs) - (*new_rs)["status"]["availableReplicas"].as_int();
  int64_t max_down = total() - min_available - new_unavailable;
  if (max_down <= 0) return;
  for (auto& rs : *old_rss) {
    if (max_down <= 0) break;
    int64_t unhealthy = spec_replicas(rs) - rs["status"]["availableReplicas"].as_int();
    int64_t n = std::min(std::max<int64_t>(unhealthy, 0), max_down);
    if (n > 0 && scale_rs(d, &rs, spec_replicas(rs) - n)) max_down -= n;
  }
  int64_t available = (*new_rs)["status"]["availableReplicas"].as_int();
  for (const auto& rs : *old_rss) available += std::min(rs["status"]["availableReplicas"].as_int(), spec_replicas(rs));
  int64_t down = std::min(available - min_available, max_down);
  for (auto& rs : *old_rss) {
    if (down <= 0) break;
    int64_t n = std::min(spec_replicas(rs), down);
    if (n > 0 && scale_rs(d, &rs, spec_replicas(rs) - n)) down -= n;
  }
}

void DeploymentController::cleanup_history(const json::Value& d, const std::vector<json::Value>& old_rss) {
  int64_t limit = d["spec"]["revisionHistoryLimit"].as_int(10);
  std::vector<const json::Value*> idle;
  for (const auto& rs : old_rss)
    if (spec_replicas(rs) == 0 && rs["status"]["replicas"].as_int() == 0 && rs["metadata"]["deletionTimestamp"].is_null())
      idle.push_back(&rs);
  if (static_cast<int64_t>(idle.size()) <= limit) return;
  std::sort(idle.begin(), idle.end(),
            [](const json::Value* a, const json::Value* b) { return revision_of(*a) < revision_of(*b); });
  const api::ResourceInfo* rsr = api::find_by_kind("apps/v1", "ReplicaSet");
  for (size_t i = 0; i < idle.size() - static_cast<size_t>(limit); ++i)
    api_->local_delete(*rsr, idle[i]->path_str({"metadata", "namespace"}), idle[i]->path_str({"metadata", "name"}), "Background",
                       idle[i]->path_str({"metadata", "uid"}));
}

bool DeploymentController::is_scaling_event(const json::Value& d, const json::Value* new_rs,
                                            const std::vector<json::Value>& old_rss) {
  auto changed = [&](const json::Value& rs) {
    bool ok = false;
    int64_t desired = annotation_int(rs, kDesiredAnnotation, &ok);
    return spec_replicas(rs) > 0 && ok && desired != spec_replicas(d);
  };
  if (new_rs && changed(*new_rs)) return true;
  for (const auto& rs : old_rss)
    if (changed(rs)) return true;
  return false;
}

void DeploymentController::scale(const json::Value& d, json::Value* new_rs, std::vector<json::Value>* old_rss) {
  int64_t r = spec_replicas(d);
  std::vector<json::Value*> active;
  for (auto& rs : *old_rss)
    if (spec_replicas(rs) > 0) active.push_back(&rs);
  if (new_rs && spec_replicas(*new_rs) > 0) active.push_back(new_rs);
  // One active ReplicaSet (or none: then the newest) takes the whole count.
  if (active.size() <= 1) {
    json::Value* only = !active.empty() ? active[0] : new_rs ? new_rs : !old_rss->empty() ? &old_rss->back() : nullptr;
    if (only) scale_rs(d, only, r);
    return;
  }
  // A new ReplicaSet that is complete leaves nothing to the old ones.
  bool ok = false;
  if (new_rs && spec_replicas(*new_rs) == r && annotation_int(*new_rs, kDesiredAnnotation, &ok) == r && ok &&
      (*new_rs)["status"]["availableReplicas"].as_int() == r) {
    for (auto& rs : *old_rss)
      if (spec_replicas(rs) > 0 && !scale_rs(d, &rs, 0)) return;
    return;
  }
  // Mid-rollout: spread the change in replicas + maxSurge over the active ReplicaSets in
  // proportion to their sizes, the largest first (newer first when growing, older first
  // when shrinking); what rounding leaves over goes to the largest.
  if (d["spec"]["strategy"]["type"].as_string() != "RollingUpdate") return;
  int64_t surge = 0, unavailable = 0;
  rolling_bounds(d, &surge, &unavailable);
  int64_t total = 0;
  for (const auto* rs : active) total += spec_replicas(*rs);
  int64_t to_add = (r > 0 ? r + surge : 0) - total;
  std::sort(active.begin(), active.end(), [to_add](const json::Value* a, const json::Value* b) {
    if (spec_replicas(*a) != spec_replicas(*b)) return spec_replicas(*a) > spec_replicas(*b);
    return to_add > 0 ? newer(*a, *b) : newer(*b, *a);
  });
  std::vector<int64_t> sizes;
  int64_t added = 0;
  for (const auto* rs : active) {
    int64_t p = proportion(*rs, d, to_add, added);
    sizes.push_back(spec_replicas(*rs) + p);
    added += p;
  }
  sizes[0] = std::max<int64_t>(sizes[0] + to_add - added, 0);
  for (size_t i = 0; i < active.size(); ++i)
    if (!scale_rs(d, active[i], sizes[i])) return;  // the next pass finishes it
}

void DeploymentController::update_status(const json::Value& d, const json::Value* new_rs, const std::vector<json::Value>& all,
                                         int64_t now_s, int64_t* wake_s) {
  int64_t r = spec_replicas(d);
  int64_t replicas = 0, ready = 0, available = 0, wanted = 0;
  for (const auto& rs : all) {
    replicas += rs["status"]["replicas"].as_int();
    ready += rs["status"]["readyReplicas"].as_int();
    available += rs["status"]["availableReplicas"].as_int();
    wanted += spec_replicas(rs);
  }
  int64_t updated = new_rs ? (*new_rs)["status"]["replicas"].as_int() : 0;
  const json::Value& old = d["status"];
  json::Value st = json::Value::object();
  st.set("observedGeneration", d["metadata"]["generation"].as_int());
  if (replicas) st.set("replicas", replicas);
  if (updated) st.set("updatedReplicas", updated);
  if (ready) st.set("readyReplicas", ready);
  if (available) st.set("availableReplicas", available);
  if (wanted > available) st.set("unavailableReplicas", wanted - available);
  if (!old["collisionCount"].is_null()) st.set("collisionCount", old["collisionCount"]);
  bool progressed = old["replicas"].as_int() != replicas || old["updatedReplicas"].as_int() != updated ||
                    old["readyReplicas"].as_int() != ready || old["availableReplicas"].as_int() != available ||
                    old["observedGeneration"].as_int() != st["observedGeneration"].as_int();
  int64_t surge = 0, unavailable = 0;
  rolling_bounds(d, &surge, &unavailable);
  const json::Value& oc = old["conditions"];
  json::Value conds = json::Value::array();
  bool min_ok = available >= r - unavailable;
  conds.push(condition("Available", min_ok ? "True" : "False", min_ok ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                       min_ok ? "Deployment has minimum availability." : "Deployment does not have minimum availability.", oc,
                       now_s, false));
  std::string subject = new_rs ? "ReplicaSet \"" + (*new_rs)["metadata"]["name"].str() + "\""
                               : "Deployment \"" + d["metadata"]["name"].str() + "\"";
  bool complete = new_rs && updated == r && replicas == r && available == r;
  if (d["spec"]["paused"].as_bool()) {
    conds.push(condition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", oc, now_s, false));
  } else if (complete) {
    conds.push(
        condition("Progressing", "True", "NewReplicaSetAvailable", subject + " has successfully progressed.", oc, now_s, false));
  } else {
    // No progress for progressDeadlineSeconds: the rollout has failed (kubectl rollout status exits 1).
    const json::Value* prev = find_condition(oc, "Progressing");
    std::string prev_reason = prev ? (*prev)["reason"].as_string() : "";
    // Just resumed: the deadline counts from now, and until pods move (more updated, ready or
    // available, fewer old) the condition says so, as upstream's DeploymentResumed.
    bool pods_moved = updated > old["updatedReplicas"].as_int() || ready > old["readyReplicas"].as_int() ||
                      available > old["availableReplicas"].as_int() ||
                      replicas - updated < old["replicas"].as_int() - old["updatedReplicas"].as_int();
    bool resumed = !pods_moved && (prev_reason == "DeploymentPaused" || prev_reason == "DeploymentResumed");
    int64_t since = prev && !progressed && prev_reason != "DeploymentPaused"
                        ? text::parse_rfc3339((*prev)["lastUpdateTime"].as_string())
                        : now_s;
    if (since < 0) since = now_s;
    int64_t deadline = d["spec"]["progressDeadlineSeconds"].as_int(600);
    bool exceeded = prev_reason == "ProgressDeadlineExceeded" && !progressed;
    if (!exceeded && now_s - since > deadline) exceeded = true;
    if (exceeded) {
      conds.push(condition("Progressing", "False", "ProgressDeadlineExceeded", subject + " has timed out progressing.", oc, now_s,
                           false));
    } else if (resumed) {
      conds.push(condition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed", oc, now_s, false));
      int64_t at = since + deadline + 1;
      if (*wake_s == 0 || at < *wake_s) *wake_s = at;
    } else {
      conds.push(condition("Progressing", "True", "ReplicaSetUpdated", subject + " is progressing.", oc, now_s, progressed));
      int64_t at = since + deadline + 1;
      if (*wake_s == 0 || at < *wake_s) *wake_s = at;
    }
  }
  st.set("conditions", conds);
  if (st == old) return;
  json::Value upd = d;
  upd.set("status", st);
  json::Value stored;
  api_->local_update(*api::find_by_kind("apps/v1", "Deployment"), d, std::move(upd), "status", &stored);
}

void DeploymentController::sync(const json::Value& given, int64_t now_s, int64_t* wake_s) {
  if (!given["metadata"]["deletionTimestamp"].is_null()) return;  // the garbage collector's now
  json::Value d = given;
  // Its ReplicaSets first: matching orphans adopted, owned ones whose labels stopped matching released.
  api::LabelSelector sel;
  std::string err;
  if (api::label_selector_from_json(d["spec"]["selector"], &sel, &err))
    claim(api_, index_, d, "apps/replicasets", sel, index_->dependents_of(d.path_str({"metadata", "uid"})));
  std::vector<json::Value> rss = owned_replicasets(d);
  json::Value want = normalized(d["spec"]["template"]);
  json::Value new_rs;
  bool have_new = false;
  std::vector<json::Value> old_rss;
  int64_t max_old = 0;
  for (auto& rs : rss) {
    if (!have_new && without_hash(rs["spec"]["template"]) == want) {
      new_rs = std::move(rs);
      have_new = true;
    } else {
      max_old = std::max(max_old, revision_of(rs));
      old_rss.push_back(std::move(rs));
    }
  }
  // As kube-controller-manager: a paused Deployment, or one whose replica count changed since
  // its active ReplicaSets were last sized, is only scaled; otherwise its template rolls out.
  bool paused = d["spec"]["paused"].as_bool();
  bool scaling = paused || is_scaling_event(d, have_new ? &new_rs : nullptr, old_rss);
  if (!have_new && !scaling) {
    int64_t initial = new_rs_replicas(d, old_rss);  // -1: not yet (Recreate, old pods running)
    if (initial >= 0) {
      if (!create_new_rs(d, max_old + 1, initial, &new_rs)) return;  // retried on the next pass
      have_new = true;
    }
  }
  if (have_new) {
    // A template seen before (rollout undo) becomes the newest revision again.
    if (revision_of(new_rs) <= max_old || revision_of(new_rs) == 0) set_revision(&new_rs, max_old + 1, d);
    std::string rev = text::to_string(revision_of(new_rs));
    if (d["metadata"]["annotations"][kRevisionAnnotation].as_string() != rev) {
      json::Value upd = d;
      json::Value& a = upd.at_or_insert("metadata").at_or_insert("annotations");
      if (!a.is_object()) a = json::Value::object();
      a.set(kRevisionAnnotation, rev);
      json::Value stored;
      if (!api_->local_update(*api::find_by_kind("apps/v1", "Deployment"), d, std::move(upd), "", &stored).ok()) return;
      d = stored;
    }
  }
  if (scaling) {
    scale(d, have_new ? &new_rs : nullptr, &old_rss);
    if (paused) cleanup_history(d, old_rss);
  } else {
    roll(d, have_new ? &new_rs : nullptr, &old_rss);
    cleanup_history(d, old_rss);
  }
  std::vector<json::Value> all = old_rss;
  if (have_new) all.push_back(new_rs);
  update_status(d, have_new ? &new_rs : nullptr, all, now_s, wake_s);
}

}  // namespace controllers
}  // namespace k32
