#include "core/netpol/policy_cache.h"

#include <set>
#include "port.h"

namespace k32 {
namespace netpol {

namespace {
bool policy_needs_target_pod(const std::vector<json::Value>& policies) {
  // Only label and port-name rules need the target pod: ipBlock and numeric ports do not.
  for (const auto& p : policies)
    for (const auto& rule : p["spec"]["egress"].items()) {
      for (const auto& peer : rule["to"].items())
        if (peer.find("podSelector") || peer.find("namespaceSelector")) return true;
      for (const auto& port : rule["ports"].items())
        if (port["port"].is_string()) return true;
    }
  return false;
}
}  // namespace

void PolicyCache::begin_pods() {
  port::LockGuard<port::Mutex> lk(mu_);
  pass_pods_.clear();
  pass_namespaces_.clear();
}

void PolicyCache::record_pod(const json::Value& pod) {
  const std::string ns = pod["metadata"]["namespace"].as_string();
  // Only what a caller is matched on (its namespace and labels): a whole pod per running
  // pod is more than a small worker keeps for it.
  json::Value md = json::Value::object();
  md.set("namespace", ns);
  md.set("labels", pod["metadata"]["labels"]);
  json::Value caller = json::Value::object();
  caller.set("metadata", std::move(md));
  const std::string key = ns + "/" + pod["metadata"]["name"].as_string();
  port::LockGuard<port::Mutex> lk(mu_);
  local_pods_[key] = std::move(caller);
  pass_pods_.insert(key);
  pass_namespaces_.insert(ns);
}

void PolicyCache::end_pods() {
  port::LockGuard<port::Mutex> lk(mu_);
  for (auto it = local_pods_.begin(); it != local_pods_.end();)
    it = pass_pods_.count(it->first) ? std::next(it) : local_pods_.erase(it);
  for (auto it = namespaces_.begin(); it != namespaces_.end();)
    it = pass_namespaces_.count(it->first) ? std::next(it) : namespaces_.erase(it);
  pass_pods_.clear();
  pass_namespaces_.clear();
}

bool PolicyCache::list_into(const std::string& ns, uint64_t now_ms) {
  std::vector<json::Value> fresh;
  if (!list_(ns, &fresh)) return false;  // the API call runs outside any lock the caller holds
  port::LockGuard<port::Mutex> lk(mu_);
  NsEntry& e = namespaces_[ns];
  e.policies = std::move(fresh);
  e.loaded = true;
  e.listed_ms = now_ms;
  return true;
}

bool PolicyCache::ensure_namespace(const std::string& ns, uint64_t now_ms) {
  {
    port::LockGuard<port::Mutex> lk(mu_);
    auto it = namespaces_.find(ns);
    if (it != namespaces_.end() && it->second.loaded) return true;
    namespaces_[ns];  // recorded: relisted from now on even when this load fails
  }
  return list_into(ns, now_ms);
}

void PolicyCache::relist_due(uint64_t now_ms) {
  std::vector<std::string> due;
  {
    port::LockGuard<port::Mutex> lk(mu_);
    for (const auto& kv : namespaces_)
      if (!kv.second.loaded || now_ms - kv.second.listed_ms >= relist_ms_) due.push_back(kv.first);
  }
  for (const auto& ns : due) list_into(ns, now_ms);
}

bool PolicyCache::loaded(const std::string& ns) const {
  port::LockGuard<port::Mutex> lk(mu_);
  auto it = namespaces_.find(ns);
  return it != namespaces_.end() && it->second.loaded;
}

// A copy, read through the cache; the API read itself runs without the lock so one slow
// read does not hold up every other pod's call.
PolicyCache::Cached PolicyCache::cached(std::map<std::string, Cached>& m, const ReadObject& read, const std::string& key,
                                        uint64_t now_ms) {
  {
    port::LockGuard<port::Mutex> lk(mu_);
    auto it = m.find(key);
    if (it != m.end() && now_ms - it->second.read_ms < pod_cache_ms_) return it->second;
  }
  Cached c;
  c.read_ms = now_ms;
  c.found = read && read(key, &c.obj);
  port::LockGuard<port::Mutex> lk(mu_);
  m[key] = c;
  return c;
}

Verdict PolicyCache::check(const std::string& caller_key, Destination dst, const std::string& target_key, uint64_t now_ms) {
  const std::string ns = caller_key.substr(0, caller_key.find('/'));
  std::vector<json::Value> policies;
  json::Value caller;
  {
    port::LockGuard<port::Mutex> lk(mu_);
    auto it = namespaces_.find(ns);
    if (it == namespaces_.end() || !it->second.loaded) {
      Verdict v;
      v.allowed = false;
      v.reason = "NetworkPolicies of namespace " + ns + " not loaded yet";
      return v;
    }
    policies = it->second.policies;
    auto pit = local_pods_.find(caller_key);
    if (pit != local_pods_.end()) caller = pit->second;
  }
  if (caller.is_null()) {
    // The kubelet records a pod's labels before it starts it; a caller without recorded
    // labels is not a pod this node started, and evaluating it as label-less would let it
    // past every policy that selects it by label.
    Verdict v;
    v.allowed = false;
    v.reason = "labels of pod " + caller_key + " not recorded on this node";
    return v;
  }
  json::Value pod_copy;
  if (!target_key.empty() && policy_needs_target_pod(policies)) {
    Cached p = cached(target_pods_, read_pod_, target_key, now_ms);
    if (p.found) {
      pod_copy = std::move(p.obj);
      Cached n = cached(target_namespaces_, read_ns_, target_key.substr(0, target_key.find('/')), now_ms);
      if (n.found) dst.namespace_labels = n.obj["metadata"]["labels"];
    }
  }
  if (!pod_copy.is_null()) dst.pod = &pod_copy;
  std::vector<const json::Value*> ptrs;
  for (const auto& p : policies) ptrs.push_back(&p);
  return evaluate_egress(ptrs, caller, dst);
}

}  // namespace netpol
}  // namespace k32
