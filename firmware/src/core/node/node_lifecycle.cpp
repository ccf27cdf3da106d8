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

json::Value taint(const char* effect) {
  json::Value t = json::Value::object();
  t.set("key", "node.kubernetes.io/unreachable");
  t.set("effect", effect);
  if (std::string(effect) == "NoExecute") t.set("timeAdded", text::rfc3339(port::wall_time_s()));
  return t;
}
}  // namespace

int NodeLifecycle::check_once(int64_t now_ms) {
  int marked = 0;
  for (auto& n : store_->list("nodes", "", nullptr)) {
    bool ready = false;
    for (const auto& c : n["status"]["conditions"].items())
      if (c["type"].str() == "Ready" && c["status"].str() == "True") ready = true;
    if (!ready) continue;
    int64_t last = last_heartbeat_ms(store_, n);
    if (last < 0 || now_ms - last <= static_cast<int64_t>(kNodeGraceMs)) continue;
    set_ready(&n, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.", false);
    json::Value taints = json::Value::array();
    taints.push(taint("NoSchedule"));
    taints.push(taint("NoExecute"));
    n.at_or_insert("spec").set("taints", taints);
    json::Value stored;
    uint64_t rv = 0;
    text::parse_uint(n.path_str({"metadata", "resourceVersion"}), UINT64_MAX, &rv);
    std::string name = n.path_str({"metadata", "name"});
    if (store_->update("nodes", "", name, n, rv, &stored) == store::Result::Ok) {
      logf("[NODE] %s stopped posting status; marked NotReady", name.c_str());
      ++marked;
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
