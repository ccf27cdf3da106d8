#include "core/node/node_lifecycle.h"

#include "core/node/node_config.h"
#include "core/node/node_object.h"
#include "core/store/event_ttl.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace node {

namespace {
int64_t last_heartbeat_ms(store::ObjectStore* st, const json::Value& n) {
  int64_t best = -1;
  for (const auto& c : n["status"]["conditions"].items()) {
    if (c["type"].str() != "Ready") continue;
    int64_t t = text::parse_rfc3339(c["lastHeartbeatTime"].as_string());
    if (t >= 0) best = t * 1000;
  }
  json::Value lease;
  if (st->get("coordination.k8s.io/leases", "kube-node-lease", n.path_str({"metadata", "name"}), &lease)) {
    int64_t t = text::parse_rfc3339(lease.path_str({"spec", "renewTime"}));
    if (t >= 0 && t * 1000 > best) best = t * 1000;
  }
  return best;
}

constexpr const char* kUnreachable = "node.kubernetes.io/unreachable";

json::Value taint(const char* effect) {
  json::Value t = json::Value::object();
  t.set("key", kUnreachable);
  t.set("effect", effect);
  if (std::string(effect) == "NoExecute") t.set("timeAdded", text::rfc3339(port::wall_time_s()));
  return t;
}

bool is_lifecycle_taint(const json::Value& t) {
  const std::string& k = t["key"].str();
  return k == kUnreachable || k == "node.kubernetes.io/not-ready";
}

bool node_ready(const json::Value& n) {
  for (const auto& c : n["status"]["conditions"].items())
    if (c["type"].str() == "Ready" && c["status"].str() == "True") return true;
  return false;
}

bool write_node(store::ObjectStore* st, json::Value& n) {
  json::Value stored;
  uint64_t rv = 0;
  text::parse_uint(n.path_str({"metadata", "resourceVersion"}), UINT64_MAX, &rv);
  return st->update("nodes", "", n.path_str({"metadata", "name"}), n, rv, &stored) == store::Result::Ok;
}
}  // namespace

int NodeLifecycle::mark_pods_not_ready(const std::string& node) {
  // As kube-controller-manager's MarkPodsNotReady: the pods of a node nobody hears from are
  // no longer Ready, so Endpoints move them to notReadyAddresses and callers stop picking them.
  int marked = 0;
  // One pod parsed at a time (the store's lock is not held while this runs, so it may write).
  store_->for_each("pods", "", nullptr, [&](json::Value& pod) {
    if (pod["spec"]["nodeName"].as_string() != node) return true;
    json::Value* conds = pod.at_or_insert("status").find("conditions");
    if (!conds) return true;
    bool changed = false;
    for (auto& c : conds->items()) {
      if (c["type"].str() == "Ready" && c["status"].str() != "False") {
        c.set("status", "False");
        c.set("lastTransitionTime", text::rfc3339(port::wall_time_s()));
        changed = true;
      }
    }
    if (!changed) return true;
    uint64_t rv = 0;
    text::parse_uint(pod.path_str({"metadata", "resourceVersion"}), UINT64_MAX, &rv);
    json::Value stored;
    if (store_->update("pods", pod.path_str({"metadata", "namespace"}), pod.path_str({"metadata", "name"}), pod, rv, &stored) ==
        store::Result::Ok)
      ++marked;
    return true;
  });
  return marked;
}

int NodeLifecycle::check_once(int64_t now_ms) {
  int marked = 0;
  for (auto& n : store_->list("nodes", "", nullptr)) {
    std::string name = n.path_str({"metadata", "name"});
    json::Value* taints = n.at_or_insert("spec").find("taints");
    bool has_ours = false;
    if (taints)
      for (const auto& t : taints->items()) has_ours = has_ours || is_lifecycle_taint(t);
    int64_t last = last_heartbeat_ms(store_, n);
    bool silent = last >= 0 && now_ms - last > static_cast<int64_t>(kNodeGraceMs);
    if (node_ready(n) && !silent) {
      if (!has_ours) continue;
      // Back in touch: lift the taints this controller added; users' taints stay.
      json::Value keep = json::Value::array();
      for (const auto& t : taints->items())
        if (!is_lifecycle_taint(t)) keep.push(t);
      if (keep.items().empty()) n.at_or_insert("spec").erase("taints");
      else n.at_or_insert("spec").set("taints", keep);
      if (write_node(store_, n)) logf("[NODE] %s is Ready again; unreachable taints removed", name.c_str());
      continue;
    }
    if (!node_ready(n)) {
      // Already NotReady: make sure its pods say so too (a control-plane restart in between).
      mark_pods_not_ready(name);
      continue;
    }
    set_ready(&n, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.", false);
    json::Value& list = n.at_or_insert("spec").at_or_insert("taints");
    if (!list.is_array()) list = json::Value::array();
    for (const char* effect : {"NoSchedule", "NoExecute"}) {
      bool present = false;
      for (const auto& t : list.items()) present = present || (t["key"].str() == kUnreachable && t["effect"].str() == effect);
      if (!present) list.push(taint(effect));
    }
    if (write_node(store_, n)) {
      logf("[NODE] %s stopped posting status; marked NotReady", name.c_str());
      ++marked;
      mark_pods_not_ready(name);
    }
  }
  return marked;
}

void NodeLifecycle::run(void* self) {
  NodeLifecycle* lc = static_cast<NodeLifecycle*>(self);
  uint64_t last_sweep_ms = port::monotonic_ms();
  for (;;) {
    port::sleep_ms(kNodeMonitorMs);
    lc->check_once(port::wall_time_s() * 1000);
    // The control plane's other periodic housekeeping rides on this thread: expired Events.
    if (port::monotonic_ms() - last_sweep_ms >= K32_EVENT_SWEEP_MS) {
      last_sweep_ms = port::monotonic_ms();
      int n = store::expire_events(lc->store_, port::wall_time_s(), K32_EVENT_TTL_S);
      if (n > 0) logf("[NODE] %d expired Events deleted", n);
    }
  }
}

}  // namespace node
}  // namespace k32
