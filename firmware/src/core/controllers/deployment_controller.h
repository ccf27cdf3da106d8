// The Deployment controller, as kube-controller-manager's: one ReplicaSet per pod template
// (named <deployment>-<pod-template-hash>, revision-numbered in the
// deployment.kubernetes.io/revision annotation), rolling from the old ones to the new one
// within maxSurge/maxUnavailable (or all at once for Recreate), a change of replicas spread
// over the ReplicaSets in proportion (also while paused, when only that happens), orphaned
// ReplicaSets its selector matches adopted, old ones kept up to revisionHistoryLimit, and
// the status and conditions `kubectl rollout status` waits on.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/api/api_server.h"
#include "core/controllers/owner_index.h"

namespace k32 {
namespace controllers {

constexpr const char* kRevisionAnnotation = "deployment.kubernetes.io/revision";
constexpr const char* kTemplateHashLabel = "pod-template-hash";

// The pod-template-hash of a template (FNV-1a over its JSON and the collision count,
// spelled with the alphabet Kubernetes uses for generated names).
std::string pod_template_hash(const json::Value& tpl, int64_t collision_count);

class DeploymentController {
 public:
  DeploymentController(api::ApiServer* api, OwnerIndex* index) : api_(api), index_(index) {}
  void pass(int64_t now_s, int64_t* wake_s);
  void sync(const json::Value& d, int64_t now_s, int64_t* wake_s);

 private:
  // The ReplicaSets the Deployment controls, oldest first.
  std::vector<json::Value> owned_replicasets(const json::Value& d);
  // Creates the ReplicaSet of the current template; false when a collision bumps the count.
  bool create_new_rs(const json::Value& d, int64_t revision, int64_t replicas, json::Value* out);
  // The replicas a new ReplicaSet starts with, or -1 when it must wait (Recreate).
  int64_t new_rs_replicas(const json::Value& d, const std::vector<json::Value>& old_rss);
  bool old_pods_running(const std::vector<json::Value>& old_rss);
  bool scale_rs(const json::Value& d, json::Value* rs, int64_t replicas);
  void set_revision(json::Value* rs, int64_t revision, const json::Value& d);
  // Whether an active ReplicaSet was sized for another replica count than the Deployment's.
  bool is_scaling_event(const json::Value& d, const json::Value* new_rs, const std::vector<json::Value>& old_rss);
  // Resizes the ReplicaSets for a new replica count, proportionally when mid-rollout.
  void scale(const json::Value& d, json::Value* new_rs, std::vector<json::Value>* old_rss);
  void roll(const json::Value& d, json::Value* new_rs, std::vector<json::Value>* old_rss);
  void cleanup_history(const json::Value& d, const std::vector<json::Value>& old_rss);
  void update_status(const json::Value& d, const json::Value* new_rs, const std::vector<json::Value>& all, int64_t now_s,
                     int64_t* wake_s);

  api::ApiServer* api_;
  OwnerIndex* index_;
};

}  // namespace controllers
}  // namespace k32
