// What the control plane's controllers know about owned objects, kept up to date from the
// object store's change events: for each object with ownerReferences, its owners and (for
// pods) the few status facts replica counting needs. The controllers read this instead of
// listing every pod on every pass, so their memory grows with about half a KiB per owned
// object on a 32-bit board (its key, uid, owner reference and labels; and a key and labels per
// pod or ReplicaSet no controller owns, which a controller may adopt), not with whole pods
// (an echo pod's object is 3.7 KB of JSON).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/api/resources.h"
#include "core/api/selectors.h"
#include "core/store/object_store.h"
#include "port.h"

namespace k32 {
namespace controllers {

struct OwnerRef {
  std::string uid;
  std::string api_version;
  std::string kind;
  std::string name;
  bool controller = false;
  bool block_owner_deletion = false;  // a foreground deletion of the owner waits for this dependent
};

// An owned object, as the index hands it out. Pod fields are meaningful for pods only.
struct Dependent {
  std::string resource;  // store id: "pods", "apps/replicasets"
  std::string ns;
  std::string name;
  std::string uid;
  std::vector<OwnerRef> owners;
  bool deleting = false;      // has a deletionTimestamp
  std::string phase;          // pods: status.phase
  bool ready = false;         // pods: the Ready condition is True
  int64_t ready_since_s = 0;  // pods: when it turned Ready
  bool bound = false;         // pods: has a node
  int64_t created_s = 0;
  std::string labels;  // pods and ReplicaSets: "k=v,k=v", for a controller's selector

  // The owner that is the managing controller ("controller": true), or nullptr.
  const OwnerRef* controller_ref() const;
};

// Labels kept as "k=v,k=v" (neither character can occur in a label key or value): one small
// string per object instead of a JSON object.
std::string flatten_labels(const json::Value& labels);
bool labels_match(const api::LabelSelector& sel, const std::string& flat);

// An object the garbage collector must look at: its dependents may have to go.
struct OwnerKey {
  std::string resource;
  std::string ns;
  std::string name;
};

class OwnerIndex {
 public:
  // Registers for the store's change events, then reads what the store holds already.
  void attach(store::ObjectStore* st);
  // The store listener: cheap, under the index's own lock.
  void observe(const store::Event& ev);

  // Copies of the dependents of one owner.
  std::vector<Dependent> dependents_of(const std::string& owner_uid);
  bool has_dependents(const std::string& owner_uid);

  // The names of the pods ("pods") or ReplicaSets ("apps/replicasets") in `ns` that no
  // controller owns, are not being deleted (nor finished, for pods) and `sel` matches: what
  // a controller with that selector adopts.
  std::vector<std::string> orphans_matching(const std::string& resource, const std::string& ns, const api::LabelSelector& sel);

  // Owners whose dependents the garbage collector must check (deleted owners, owners being
  // deleted in the foreground or with orphaning, owners of newly made objects); taken once.
  std::map<std::string, OwnerKey> take_gc_work();
  // Whether a Deployment, ReplicaSet or an owned pod changed since the last call.
  bool take_dirty();

 private:
  // What the index keeps of an owned object: a Dependent without what its key says (resource,
  // namespace, name) and with its phase as a number. A board keeps one per owned pod, so each
  // of these bytes counts per pod (controllers/test_owner_index measures them).
  struct Entry {
    std::string uid;
    std::vector<OwnerRef> owners;
    std::string labels;
    int64_t ready_since_s = 0;
    int64_t created_s = 0;
    uint8_t phase = 0;  // index into kPhases
    bool deleting = false, ready = false, bound = false;
  };
  using Entries = std::map<std::string, Entry>;  // "resource/ns/name"
  static Dependent dependent_of(const Entries::value_type& e);

  void put_locked(const std::string& resource, const json::Value& obj, bool added);
  void erase_locked(const std::string& key);
  // Keeps orphans_ up to date for one object; true when a controller may now adopt it.
  bool track_orphan_locked(const std::string& resource, const json::Value& obj, bool deleted);

  port::Mutex mu_;
  Entries by_key_;
  std::multimap<std::string, const std::string*> by_owner_;  // owner uid -> by_key_'s key
  std::map<std::string, OwnerKey> gc_work_;
  std::map<std::string, std::string> orphans_;  // "resource/ns/name" -> labels, see orphans_matching
  bool dirty_ = true;
};

// Where an owner reference points, for a dependent in namespace `ns`: resource "" when the
// API serves no such kind; a cluster-scoped owner has no namespace.
OwnerKey owner_key(const OwnerRef& o, const std::string& ns);
// A copy of `obj` without the owner reference to `owner_uid` (ownerReferences dropped when none
// is left): what the collector's orphaning and a controller's release both write.
json::Value without_owner(const json::Value& obj, const std::string& owner_uid);
// The served kind with this store id ("apps/replicasets"), or nullptr.
const api::ResourceInfo* resource_by_store_id(const std::string& store_id);

}  // namespace controllers
}  // namespace k32
