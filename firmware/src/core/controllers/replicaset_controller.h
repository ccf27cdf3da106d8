// The ReplicaSet controller, as kube-controller-manager's: keeps spec.replicas pods of each
// ReplicaSet (created from its template or adopted, owned by it, placed by the scheduler;
// one whose labels stop matching is released), deletes the
// surplus least-established first, and reports replicas / ready / available (ready for
// minReadySeconds) in its status.
#pragma once
#include <cstdint>

#include "core/api/api_server.h"
#include "core/controllers/owner_index.h"

namespace k32 {
namespace controllers {

class ReplicaSetController {
 public:
  ReplicaSetController(api::ApiServer* api, OwnerIndex* index) : api_(api), index_(index) {}
  // Syncs every ReplicaSet; lowers *wake_s to the time a pod becomes available, if any is waiting.
  void pass(int64_t now_s, int64_t* wake_s);
  void sync(const json::Value& rs, int64_t now_s, int64_t* wake_s);

 private:
  bool create_pod(const json::Value& rs, std::string* err);
  api::ApiServer* api_;
  OwnerIndex* index_;
};

// The pods of one owner it controls and that still count (not terminating, not finished).
struct PodCounts {
  int64_t active = 0;
  int64_t ready = 0;
  int64_t available = 0;
};
PodCounts count_pods(const std::vector<Dependent>& pods, const std::string& owner_uid, int64_t min_ready_s, int64_t now_s,
                     int64_t* wake_s);

}  // namespace controllers
}  // namespace k32
