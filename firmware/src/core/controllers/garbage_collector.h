// The garbage collector, as kube-controller-manager's: an object whose owners are all gone is
// deleted (background propagation); an owner deleted with propagationPolicy=Foreground keeps
// its foregroundDeletion finalizer until the dependents whose reference to it sets
// blockOwnerDeletion are gone (the others are deleted too, not waited for); one deleted with Orphan
// first has its dependents' ownerReferences to it removed. Dependents with another live
// owner only lose the reference to the gone one.
#pragma once
#include <map>
#include <string>

#include "core/api/api_server.h"
#include "core/controllers/owner_index.h"

namespace k32 {
namespace controllers {

class GarbageCollector {
 public:
  GarbageCollector(api::ApiServer* api, OwnerIndex* index) : api_(api), index_(index) {}
  // Works through the owners the index flagged (and those still unfinished); returns how
  // many are still waiting for their dependents.
  size_t pass();

 private:
  // True when nothing is left to do for this owner.
  bool process(const std::string& uid, const OwnerKey& owner);
  bool owner_alive(const OwnerRef& ref, const std::string& ns);
  bool strip_owner(const Dependent& d, const std::string& owner_uid);
  bool remove_finalizer(const OwnerKey& owner, const json::Value& obj, const char* finalizer);

  api::ApiServer* api_;
  OwnerIndex* index_;
  std::map<std::string, OwnerKey> pending_;  // owner uid -> where it is (or was)
};

}  // namespace controllers
}  // namespace k32
