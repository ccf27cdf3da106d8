#include "core/node/node_heartbeat.h"

#include "core/node/node_object.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace node {

void refresh_conditions(json::Value* node, const json::Value& fresh) {
  json::Value conds = fresh["status"]["conditions"];
  for (auto& c : conds.items()) {
    for (const auto& old : (*node)["status"]["conditions"].items()) {
      if (old["type"].str() == c["type"].str() && old["status"].str() == c["status"].str())
        c.set("lastTransitionTime", old["lastTransitionTime"]);
    }
  }
  node->at_or_insert("status").set("conditions", conds);
}

bool Heartbeat::register_node() {
  json::Value fresh = make_node(cfg_);
  json::Value out;
  int rc = api_->create("/api/v1/nodes", fresh, &out);
  if (rc == 409) {
    // Known from before (a restart): take the stored object and refresh its status.
    json::Value existing;
    if (api_->get("/api/v1/nodes/" + cfg_.name, &existing) != 200) return false;
    json::Value st = fresh["status"];
    refresh_conditions(&existing, fresh);
    json::Value conds = existing["status"]["conditions"];
    existing.set("status", st);
    existing.at_or_insert("status").set("conditions", conds);
    // Labels and annotations the kubelet owns are re-asserted; the user's stay.
    for (const char* part : {"labels", "annotations"})
      for (const auto& l : fresh["metadata"][part].members())
        existing.at_or_insert("metadata").at_or_insert(part).set(l.first, l.second);
    rc = api_->replace("/api/v1/nodes/" + cfg_.name + "/status", existing, &out);
    if (rc == 200) rc = api_->replace("/api/v1/nodes/" + cfg_.name, out, &out);
  }
  if (rc != 200 && rc != 201) {
    logf("[NODE] %s: registration failed (%d)", cfg_.name.c_str(), rc);
    return false;
  }
  node_uid_ = out.path_str({"metadata", "uid"});
  registered_ = true;
  logf("[NODE] %s registered with the API server", cfg_.name.c_str());
  return true;
}

bool Heartbeat::beat() {
  if (!registered_ && !register_node()) return false;
  // Of the stored Node the beat reads only status.conditions: the rest (metadata, spec, the
  // status' images, capacity and nodeInfo) is left out as the reply is parsed, not held as a
  // tree on the node's heap for the moment of the beat (util/own_work.h).
  static const char* const kNotRead[] = {"managedFields", "metadata",    "spec",      "images",          "nodeInfo",
                                         "capacity",      "allocatable", "addresses", "daemonEndpoints", nullptr};
  json::Value node;
  int rc = api_->get_view("/api/v1/nodes/" + cfg_.name, kNotRead, &node);
  if (rc == 404) {
    registered_ = false;
    return register_node();
  }
  if (rc != 200) return false;
  // Only the conditions change between beats: a merge patch of them, not the whole Node
  // written back. The API server holds a write's body to its heap reserve (about
  // WRITE_HEAP_FACTOR times its bytes), and the whole Node, several KiB, was refused 507 on
  // a control plane holding ten apps in internal RAM: the node then went NotReady. Of the
  // stored Node only its conditions are kept, and only the fresh conditions are made (the
  // whole fresh Node was 7 KiB of a control plane's internal RAM for each beat).
  json::Value patch = json::Value::object();
  patch.at_or_insert("status").set("conditions", node["status"]["conditions"]);
  node = json::Value();
  json::Value fresh = json::Value::object();
  fresh.at_or_insert("status").set("conditions", node_conditions());
  refresh_conditions(&patch, fresh);
  fresh = json::Value();
  // The modules held now (a merge patch replaces the list whole; null removes it).
  if (images_) patch.at_or_insert("status").set("images", images_());
  rc = api_->patch("/api/v1/nodes/" + cfg_.name + "/status", patch, nullptr);
  if (rc != 200) return false;
  json::Value out;
  // Taints belong to the node lifecycle controller (it lifts the unreachable ones once this
  // heartbeat makes the node Ready again) and to users; the kubelet leaves them alone.
  const std::string lease_path = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + cfg_.name;
  json::Value lease;
  rc = api_->get(lease_path, &lease);
  if (rc == 404) {
    rc = api_->create("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", make_lease(cfg_.name, node_uid_), &out);
    return rc == 201 || rc == 409;
  }
  if (rc != 200) return false;
  lease.at_or_insert("spec").set("renewTime", text::rfc3339_micro(port::wall_time_s() * 1000));
  lease.at_or_insert("spec").set("holderIdentity", cfg_.name);
  rc = api_->replace(lease_path, lease, &out);
  return rc == 200;
}

void Heartbeat::images_changed(void* self) {
  Heartbeat* h = static_cast<Heartbeat*>(self);
  port::LockGuard<port::Mutex> lock(h->wake_mu_);
  h->images_changed_ = true;
  h->wake_cv_.notify_one();
}

void Heartbeat::wait_beat(uint32_t ms) {
  const uint64_t due = port::monotonic_ms() + ms;
  for (;;) {
    {
      port::UniqueLock lock(wake_mu_);
      for (;;) {
        const uint64_t now = port::monotonic_ms();
        if (now >= due) return;
        if (images_changed_) break;
        wake_cv_.wait_for(lock, static_cast<uint32_t>(due - now));
      }
      images_changed_ = false;
    }
    // Only the list (a merge patch replaces it whole; null removes it): the scheduler charges
    // a new image's module from it. Not sent before the Node exists; a failed send waits for
    // the next beat, which sends the list too.
    if (!registered_ || !images_) continue;
    json::Value patch = json::Value::object();
    patch.at_or_insert("status").set("images", images_());
    api_->patch("/api/v1/nodes/" + cfg_.name + "/status", patch, nullptr);
  }
}

void Heartbeat::run() {
  for (;;) {
    bool ok = beat();
    if (ok && after_beat_) after_beat_();
    wait_beat(ok ? kHeartbeatMs : 1000);
  }
}

}  // namespace node
}  // namespace k32
