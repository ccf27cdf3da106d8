#include "core/controllers/controller_ref_manager.h"

#include "core/util/log.h"

namespace k32 {
namespace controllers {

namespace {

bool finished(const Dependent& d) { return d.phase == "Succeeded" || d.phase == "Failed"; }

// One write to an object the index named, from its stored version (the index may lag behind
// the store): false when it changed so that the claim no longer applies.
bool release(api::ApiServer* api, const api::ResourceInfo& r, const Dependent& d, const std::string& owner_uid) {
  json::Value old;
  if (!api->store()->get(d.resource, d.ns, d.name, &old) || old.path_str({"metadata", "uid"}) != d.uid) return false;
  json::Value obj = without_owner(old, owner_uid);
  json::Value stored;
  return api->local_update(r, old, std::move(obj), "", &stored).ok();
}

bool adopt(api::ApiServer* api, const api::ResourceInfo& r, const json::Value& owner, const std::string& name,
           const api::LabelSelector& sel) {
  json::Value old;
  std::string ns = owner["metadata"]["namespace"].as_string();
  if (!api->store()->get(r.store_id(), ns, name, &old)) return false;
  const json::Value& md = old["metadata"];
  for (const auto& o : md["ownerReferences"].items())
    if (o["controller"].as_bool()) return false;
  std::string phase = old["status"]["phase"].as_string();
  if (!md["deletionTimestamp"].is_null() || phase == "Succeeded" || phase == "Failed" || !sel.matches(md["labels"])) return false;
  json::Value obj = old;
  json::Value& refs = obj.at_or_insert("metadata").at_or_insert("ownerReferences");
  if (!refs.is_array()) refs = json::Value::array();
  refs.push(controller_ref_to(owner));
  json::Value stored;
  return api->local_update(r, old, std::move(obj), "", &stored).ok();
}

}  // namespace

json::Value controller_ref_to(const json::Value& owner) {
  json::Value ref = json::Value::object();
  ref.set("apiVersion", owner["apiVersion"]);
  ref.set("kind", owner["kind"]);
  ref.set("name", owner["metadata"]["name"]);
  ref.set("uid", owner["metadata"]["uid"]);
  ref.set("controller", true);
  ref.set("blockOwnerDeletion", true);
  return ref;
}

bool claim(api::ApiServer* api, OwnerIndex* index, const json::Value& owner, const std::string& resource,
           const api::LabelSelector& sel, const std::vector<Dependent>& deps) {
  const json::Value& md = owner["metadata"];
  if (!md["deletionTimestamp"].is_null() || sel.reqs.empty()) return false;
  const api::ResourceInfo* r = resource_by_store_id(resource);
  if (!r) return false;
  std::string uid = md["uid"].as_string();
  bool changed = false;
  for (const auto& d : deps) {
    const OwnerRef* c = d.controller_ref();
    if (d.resource != resource || !c || c->uid != uid || d.deleting || finished(d) || labels_match(sel, d.labels)) continue;
    if (release(api, *r, d, uid)) {
      changed = true;
      logf("[CLAIM] %s %s/%s released by %s: its labels no longer match", resource.c_str(), d.ns.c_str(), d.name.c_str(),
           md["name"].as_string().c_str());
    }
  }
  for (const auto& name : index->orphans_matching(resource, md["namespace"].as_string(), sel))
    changed = adopt(api, *r, owner, name, sel) || changed;
  return changed;
}

}  // namespace controllers
}  // namespace k32
