// A worker's view of NetworkPolicy (a worker enforces its own pods' calls): the kubelet
// records its pods' labels at every pod sync, loads a namespace's policies before the
// first pod of that namespace starts, relists every K32_POLICY_RELIST_MS, and target pods
// read for label/port-name rules are kept K32_POLICY_POD_CACHE_MS. Calls of pods whose
// namespace is not loaded yet, or whose labels were never recorded, are denied. Time
// comes in as an argument (testable).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/json/json.h"
#include "core/netpol/netpol_eval.h"
#include "port.h"

namespace k32 {
namespace netpol {

class PolicyCache {
 public:
  // Lists the NetworkPolicies of a namespace from the API server; false when unreachable.
  using ListPolicies = std::function<bool(const std::string& ns, std::vector<json::Value>* out)>;
  // Reads one object (a pod "ns/name" or a Namespace "name") from the API; false when absent.
  using ReadObject = std::function<bool(const std::string& key, json::Value* out)>;

  PolicyCache(uint32_t relist_ms, uint32_t pod_cache_ms, ListPolicies list, ReadObject read_pod, ReadObject read_ns)
      : relist_ms_(relist_ms),
        pod_cache_ms_(pod_cache_ms),
        list_(std::move(list)),
        read_pod_(std::move(read_pod)),
        read_ns_(std::move(read_ns)) {}

  // Pod sync, a pod at a time (objects with metadata.namespace/name/labels): begin_pods
  // opens a pass, record_pod records one pod's labels at once (before it starts), and
  // end_pods, once the whole list was read, forgets the pods the pass did not list and the
  // namespaces without a pod any more. A pass never ended forgets nothing.
  void begin_pods();
  void record_pod(const json::Value& pod);
  void end_pods();
  // Before a pod of `ns` starts: loads its policies unless loaded. False when the API
  // could not be read (the pod may start; its calls are denied until a relist succeeds).
  bool ensure_namespace(const std::string& ns, uint64_t now_ms);
  // Relists every recorded namespace whose list is older than the relist interval.
  void relist_due(uint64_t now_ms);
  bool loaded(const std::string& ns) const;

  // Decides one connection of the local pod `caller_key` ("ns/name"). For a pod behind a
  // Service, target_key names it ("ns/name") and dst.pod is filled from the cache/API.
  Verdict check(const std::string& caller_key, Destination dst, const std::string& target_key, uint64_t now_ms);

 private:
  struct NsEntry {
    bool loaded = false;
    uint64_t listed_ms = 0;
    std::vector<json::Value> policies;
  };
  struct Cached {
    bool found = false;
    uint64_t read_ms = 0;
    json::Value obj;
  };
  bool list_into(const std::string& ns, uint64_t now_ms);
  Cached cached(std::map<std::string, Cached>& m, const ReadObject& read, const std::string& key, uint64_t now_ms);

  const uint32_t relist_ms_;
  const uint32_t pod_cache_ms_;
  ListPolicies list_;
  ReadObject read_pod_;
  ReadObject read_ns_;
  mutable port::Mutex mu_;
  std::map<std::string, NsEntry> namespaces_;
  std::map<std::string, json::Value> local_pods_;  // "ns/name" -> its namespace and labels as of the last sync
  std::set<std::string> pass_pods_;                // "ns/name" recorded since begin_pods
  std::set<std::string> pass_namespaces_;          // their namespaces
  std::map<std::string, Cached> target_pods_;
  std::map<std::string, Cached> target_namespaces_;
};

}  // namespace netpol
}  // namespace k32
