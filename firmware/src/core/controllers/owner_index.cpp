#include "core/controllers/owner_index.h"

#include "core/api/resources.h"
#include "core/util/text.h"

namespace k32 {
namespace controllers {

namespace {

// Pod phases as Kubernetes names them; one the index does not know is kept as Unknown.
constexpr const char* kPhases[] = {"", "Pending", "Running", "Succeeded", "Failed", "Unknown"};
constexpr uint8_t kUnknownPhase = 5;

uint8_t phase_index(const std::string& phase) {
  for (uint8_t i = 0; i < sizeof(kPhases) / sizeof(kPhases[0]); ++i)
    if (phase == kPhases[i]) return i;
  return kUnknownPhase;
}

std::string key_of(const std::string& resource, const std::string& ns, const std::string& name) {
  return resource + "/" + ns + "/" + name;
}

bool has_gc_finalizer(const json::Value& md) {
  for (const auto& f : md["finalizers"].items())
    if (f.as_string() == "foregroundDeletion" || f.as_string() == "orphan") return true;
  return false;
}

bool relevant_to_workloads(const std::string& resource) {
  return resource == "apps/deployments" || resource == "apps/replicasets";
}

// Kinds a controller claims by their labels: pods (ReplicaSets) and ReplicaSets (Deployments).
bool claimable(const std::string& resource) { return resource == "pods" || resource == "apps/replicasets"; }

bool has_controller(const json::Value& md) {
  for (const auto& o : md["ownerReferences"].items())
    if (o["controller"].as_bool()) return true;
  return false;
}

}  // namespace

std::string flatten_labels(const json::Value& labels) {
  std::string out;
  for (const auto& m : labels.members()) {
    if (!out.empty()) out += ',';
    out += m.first;
    out += '=';
    out += m.second.as_string();
  }
  return out;
}

bool labels_match(const api::LabelSelector& sel, const std::string& flat) {
  json::Value labels = json::Value::object();
  for (const auto& kv : text::split(flat, ',')) {
    size_t eq = kv.find('=');
    if (eq != std::string::npos) labels.set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return sel.matches(labels);
}

const OwnerRef* Dependent::controller_ref() const {
  for (const auto& o : owners)
    if (o.controller) return &o;
  return nullptr;
}

OwnerKey owner_key(const OwnerRef& o, const std::string& ns) {
  const api::ResourceInfo* r = api::find_by_kind(o.api_version, o.kind);
  if (!r) return {"", ns, o.name};
  return {r->store_id(), r->namespaced ? ns : std::string(), o.name};
}

const api::ResourceInfo* resource_by_store_id(const std::string& store_id) {
  for (const auto& r : api::all_resources())
    if (r.store_id() == store_id) return &r;
  return nullptr;
}

void OwnerIndex::attach(store::ObjectStore* st) {
  st->add_listener([this](const store::Event& ev) { observe(ev); });
  // One resource at a time, so at most one resource's objects are copied at once.
  for (const auto& r : api::all_resources()) {
    if (r.read_only) continue;
    std::vector<json::Value> objs = st->list(r.store_id(), "", nullptr);
    port::LockGuard<port::Mutex> lock(mu_);
    for (const auto& o : objs) {
      if (!o["metadata"]["ownerReferences"].items().empty()) put_locked(r.store_id(), o, true);
      track_orphan_locked(r.store_id(), o, false);
      if (!o["metadata"]["deletionTimestamp"].is_null() && has_gc_finalizer(o["metadata"]))
        gc_work_[o.path_str({"metadata", "uid"})] = {r.store_id(), o.path_str({"metadata", "namespace"}),
                                                     o.path_str({"metadata", "name"})};
    }
  }
}

void OwnerIndex::put_locked(const std::string& resource, const json::Value& obj, bool added) {
  const json::Value& md = obj["metadata"];
  std::string ns = md["namespace"].as_string();
  std::string key = key_of(resource, ns, md["name"].as_string());
  erase_locked(key);
  Entry d;
  d.uid = md["uid"].as_string();
  d.deleting = !md["deletionTimestamp"].is_null();
  d.created_s = text::parse_rfc3339(md["creationTimestamp"].as_string());
  for (const auto& o : md["ownerReferences"].items()) {
    OwnerRef r;
    r.uid = o["uid"].as_string();
    r.api_version = o["apiVersion"].as_string();
    r.kind = o["kind"].as_string();
    r.name = o["name"].as_string();
    r.controller = o["controller"].as_bool();
    r.block_owner_deletion = o["blockOwnerDeletion"].as_bool();
    if (r.uid.empty()) continue;
    // A new dependent may point at an owner that is already gone.
    if (added && !gc_work_.count(r.uid)) gc_work_[r.uid] = owner_key(r, ns);
    d.owners.push_back(std::move(r));
  }
  if (claimable(resource)) d.labels = flatten_labels(md["labels"]);
  if (resource == "pods") {
    const json::Value& st = obj["status"];
    d.phase = phase_index(st["phase"].as_string("Pending"));
    d.bound = !obj["spec"]["nodeName"].as_string().empty();
    for (const auto& c : st["conditions"].items()) {
      if (c["type"].as_string() != "Ready") continue;
      d.ready = c["status"].as_string() == "True";
      d.ready_since_s = text::parse_rfc3339(c["lastTransitionTime"].as_string());
    }
  }
  auto it = by_key_.emplace(std::move(key), std::move(d)).first;
  for (const auto& o : it->second.owners) by_owner_.insert({o.uid, &it->first});
}

void OwnerIndex::erase_locked(const std::string& key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  for (const auto& o : it->second.owners) {
    auto range = by_owner_.equal_range(o.uid);
    for (auto j = range.first; j != range.second;) {
      if (j->second == &it->first) j = by_owner_.erase(j);
      else ++j;
    }
  }
  by_key_.erase(it);
}

Dependent OwnerIndex::dependent_of(const Entries::value_type& e) {
  Dependent d;
  // The key is "resource/ns/name": the name and the namespace hold no '/', a resource may.
  const std::string& k = e.first;
  size_t name_at = k.rfind('/');
  size_t ns_at = k.rfind('/', name_at - 1);
  d.resource = k.substr(0, ns_at);
  d.ns = k.substr(ns_at + 1, name_at - ns_at - 1);
  d.name = k.substr(name_at + 1);
  const Entry& x = e.second;
  d.uid = x.uid;
  d.owners = x.owners;
  d.deleting = x.deleting;
  if (d.resource == "pods") d.phase = kPhases[x.phase];
  d.ready = x.ready;
  d.ready_since_s = x.ready_since_s;
  d.bound = x.bound;
  d.created_s = x.created_s;
  d.labels = x.labels;
  return d;
}

bool OwnerIndex::track_orphan_locked(const std::string& resource, const json::Value& obj, bool deleted) {
  if (!claimable(resource)) return false;
  const json::Value& md = obj["metadata"];
  std::string key = key_of(resource, md["namespace"].as_string(), md["name"].as_string());
  std::string phase = obj["status"]["phase"].as_string();
  if (deleted || has_controller(md) || !md["deletionTimestamp"].is_null() || phase == "Succeeded" || phase == "Failed") {
    orphans_.erase(key);
    return false;
  }
  std::string labels = flatten_labels(md["labels"]);
  auto it = orphans_.find(key);
  if (it != orphans_.end() && it->second == labels) return false;
  orphans_[key] = std::move(labels);
  return true;
}

std::vector<std::string> OwnerIndex::orphans_matching(const std::string& resource, const std::string& ns,
                                                      const api::LabelSelector& sel) {
  std::string prefix = key_of(resource, ns, "");
  port::LockGuard<port::Mutex> lock(mu_);
  std::vector<std::string> out;
  for (auto it = orphans_.lower_bound(prefix); it != orphans_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
    if (labels_match(sel, it->second)) out.push_back(it->first.substr(prefix.size()));
  return out;
}

void OwnerIndex::observe(const store::Event& ev) {
  const json::Value& md = ev.object["metadata"];
  std::string uid = md["uid"].as_string();
  port::LockGuard<port::Mutex> lock(mu_);
  bool owned = !md["ownerReferences"].items().empty();
  std::string key = key_of(ev.resource, ev.ns, ev.name);
  bool was_owned = by_key_.count(key) > 0;
  if (ev.type == store::EventType::Deleted) {
    erase_locked(key);
    if (by_owner_.count(uid)) gc_work_[uid] = {ev.resource, ev.ns, ev.name};
  } else {
    if (owned) put_locked(ev.resource, ev.object, ev.type == store::EventType::Added);
    else erase_locked(key);
    if (!md["deletionTimestamp"].is_null() && has_gc_finalizer(md)) gc_work_[uid] = {ev.resource, ev.ns, ev.name};
  }
  bool adoptable = track_orphan_locked(ev.resource, ev.object, ev.type == store::EventType::Deleted);
  if (owned || was_owned || adoptable || relevant_to_workloads(ev.resource)) dirty_ = true;
}

std::vector<Dependent> OwnerIndex::dependents_of(const std::string& owner_uid) {
  port::LockGuard<port::Mutex> lock(mu_);
  std::vector<Dependent> out;
  auto range = by_owner_.equal_range(owner_uid);
  for (auto it = range.first; it != range.second; ++it) {
    auto d = by_key_.find(*it->second);
    if (d != by_key_.end()) out.push_back(dependent_of(*d));
  }
  return out;
}

bool OwnerIndex::has_dependents(const std::string& owner_uid) {
  port::LockGuard<port::Mutex> lock(mu_);
  return by_owner_.count(owner_uid) > 0;
}

std::map<std::string, OwnerKey> OwnerIndex::take_gc_work() {
  port::LockGuard<port::Mutex> lock(mu_);
  std::map<std::string, OwnerKey> out;
  out.swap(gc_work_);
  return out;
}

bool OwnerIndex::take_dirty() {
  port::LockGuard<port::Mutex> lock(mu_);
  bool d = dirty_;
  dirty_ = false;
  return d;
}

json::Value without_owner(const json::Value& obj, const std::string& owner_uid) {
  json::Value out = obj;
  json::Value kept = json::Value::array();
  for (const auto& o : obj["metadata"]["ownerReferences"].items())
    if (o["uid"].as_string() != owner_uid) kept.push(o);
  json::Value& md = out.at_or_insert("metadata");
  if (kept.items().empty()) md.erase("ownerReferences");
  else md.set("ownerReferences", kept);
  return out;
}

}  // namespace controllers
}  // namespace k32
