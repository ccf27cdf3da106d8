#include "core/controllers/garbage_collector.h"

#include "core/util/log.h"

namespace k32 {
namespace controllers {

namespace {

bool has_finalizer(const json::Value& obj, const char* f) {
  for (const auto& x : obj["metadata"]["finalizers"].items())
    if (x.as_string() == f) return true;
  return false;
}

}  // namespace

size_t GarbageCollector::pass() {
  for (auto& kv : index_->take_gc_work()) pending_[kv.first] = kv.second;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (process(it->first, it->second)) it = pending_.erase(it);
    else ++it;
  }
  return pending_.size();
}

bool GarbageCollector::owner_alive(const OwnerRef& ref, const std::string& ns) {
  OwnerKey k = owner_key(ref, ns);
  if (k.resource.empty()) return true;  // a kind we do not serve: never collect for it
  json::Value o;
  return api_->store()->get(k.resource, k.ns, k.name, &o) && o.path_str({"metadata", "uid"}) == ref.uid;
}

bool GarbageCollector::strip_owner(const Dependent& d, const std::string& owner_uid) {
  const api::ResourceInfo* r = resource_by_store_id(d.resource);
  json::Value old;
  if (!r || !api_->store()->get(d.resource, d.ns, d.name, &old)) return true;  // gone already
  json::Value obj = without_owner(old, owner_uid);
  json::Value stored;
  return api_->local_update(*r, old, std::move(obj), "", &stored).ok();
}

bool GarbageCollector::remove_finalizer(const OwnerKey& owner, const json::Value& old, const char* finalizer) {
  const api::ResourceInfo* r = resource_by_store_id(owner.resource);
  if (!r) return true;
  json::Value obj = old;
  json::Value kept = json::Value::array();
  for (const auto& f : old["metadata"]["finalizers"].items())
    if (f.as_string() != finalizer) kept.push(f);
  obj.at_or_insert("metadata").set("finalizers", kept);
  json::Value stored;
  return api_->local_update(*r, old, std::move(obj), "", &stored).ok();
}

bool GarbageCollector::process(const std::string& uid, const OwnerKey& owner) {
  if (owner.resource.empty()) return true;
  json::Value obj;
  bool exists = api_->store()->get(owner.resource, owner.ns, owner.name, &obj) && obj.path_str({"metadata", "uid"}) == uid;
  std::vector<Dependent> deps = index_->dependents_of(uid);
  bool ok = true;
  if (!exists) {
    // Background: each dependent with no other live owner goes; the others let go of this one.
    for (const auto& d : deps) {
      bool other_owner = false;
      for (const auto& o : d.owners)
        if (o.uid != uid && owner_alive(o, d.ns)) other_owner = true;
      if (other_owner) {
        ok = strip_owner(d, uid) && ok;
      } else if (!d.deleting) {
        const api::ResourceInfo* r = resource_by_store_id(d.resource);
        if (!r) continue;
        // A dependent with dependents of its own goes in the foreground, so its own are collected too.
        api::ApiError e =
            api_->local_delete(*r, d.ns, d.name, index_->has_dependents(d.uid) ? "Foreground" : "Background", d.uid);
        if (!e.ok() && e.code != 404 && e.code != 409) ok = false;
      }
    }
    return ok;
  }
  if (obj["metadata"]["deletionTimestamp"].is_null()) return true;  // alive: nothing to collect
  if (has_finalizer(obj, "orphan")) {
    for (const auto& d : deps) ok = strip_owner(d, uid) && ok;
    if (!ok) return false;
    logf("[GC] %s %s/%s deleted, its %d dependents orphaned", owner.resource.c_str(), owner.ns.c_str(), owner.name.c_str(),
         static_cast<int>(deps.size()));
    return remove_finalizer(owner, obj, "orphan");
  }
  if (has_finalizer(obj, "foregroundDeletion")) {
    // Every dependent goes, but the owner waits only for those whose reference to it says
    // blockOwnerDeletion; the others may outlive it (a finalizer of their own, say).
    bool blocked = false;
    for (const auto& d : deps) {
      for (const auto& o : d.owners) blocked = blocked || (o.uid == uid && o.block_owner_deletion);
      if (d.deleting) continue;
      const api::ResourceInfo* r = resource_by_store_id(d.resource);
      if (!r) continue;
      api::ApiError e = api_->local_delete(*r, d.ns, d.name, index_->has_dependents(d.uid) ? "Foreground" : "Background", d.uid);
      if (!e.ok() && e.code != 404 && e.code != 409) ok = false;
    }
    if (!ok || blocked) return false;  // until the last blocking dependent is gone
    return remove_finalizer(owner, obj, "foregroundDeletion");
  }
  return true;
}

}  // namespace controllers
}  // namespace k32
