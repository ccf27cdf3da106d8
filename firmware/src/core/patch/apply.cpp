// Server-side apply (a compact structured-merge-diff): merge the applied configuration,
// detect conflicts with other managers, prune fields the manager stopped setting, and
// record ownership in metadata.managedFields (fieldsV1).
#include "core/patch/field_set.h"
#include "core/patch/patch.h"

namespace k32 {
namespace patch {

namespace {

using json::Value;
using schema::Node;
using schema::Type;

// Fields Kubernetes never records in managedFields (structured-merge-diff's strip set).
const char* const kStrippedMetadata[] = {"name",
                                         "namespace",
                                         "uid",
                                         "resourceVersion",
                                         "generation",
                                         "creationTimestamp",
                                         "managedFields",
                                         "selfLink",
                                         "deletionTimestamp",
                                         "deletionGracePeriodSeconds"};

enum class Scope { All, MainResource, Status };

void strip_identity(FieldSet* fs, Scope scope) {
  fs->children.erase("f:apiVersion");
  fs->children.erase("f:kind");
  // Writes to the main resource never own status: that is the status subresource's.
  if (scope == Scope::MainResource) fs->children.erase("f:status");
  if (scope == Scope::Status) {
    auto st = fs->children.find("f:status");
    FieldSet keep;
    if (st != fs->children.end()) keep = std::move(st->second);
    fs->children.clear();
    if (!keep.empty()) fs->children["f:status"] = std::move(keep);
    return;
  }
  auto md = fs->children.find("f:metadata");
  if (md == fs->children.end()) return;
  for (const char* f : kStrippedMetadata) md->second.children.erase(std::string("f:") + f);
  if (md->second.children.empty()) fs->children.erase(md);
}

const Node* child_node(const Node* n, const std::string& name) {
  if (!n) return nullptr;
  const Node* c = n->type == Type::Map ? schema::elem(n) : schema::field(n, name);
  return c == schema::any() ? nullptr : c;
}

// Kubernetes rejects apply configurations whose keyed-list elements cannot be identified:
// without this, re-applying such a configuration would append the element again each time.
bool check_keys(const Value& v, const Node* n, std::string* path, std::string* err, int depth) {
  if (!n || depth > json::kMaxDepth) return true;
  const size_t mark = path->size();
  if (v.is_object() && (n->type == Type::Object || n->type == Type::Map)) {
    for (const auto& m : v.members()) {
      path->append(".").append(m.first);
      if (!check_keys(m.second, child_node(n, m.first), path, err, depth + 1)) return false;
      path->resize(mark);
    }
  } else if (v.is_array() && n->type == Type::Array) {
    const Node* e = schema::elem(n);
    if (e == schema::any()) e = nullptr;
    std::vector<std::string> seen;
    for (size_t i = 0; i < v.items().size(); ++i) {
      path->append("[").append(std::to_string(i)).append("]");
      if (keyed_list(n)) {
        std::string key;
        if (!list_key_element(v.items()[i], n, &key)) {
          *err = *path + ": element of an associative list must be an object with its key field(s)";
          return false;
        }
        for (const auto& s : seen)
          if (s == key) {
            *err = *path + ": duplicate entries for key " + key.substr(2);
            return false;
          }
        seen.push_back(key);
      }
      if (!check_keys(v.items()[i], e, path, err, depth + 1)) return false;
      path->resize(mark);
    }
  }
  return true;
}

Value apply_merge(const Value& live, const Value& applied, const Node* n, int depth) {
  if (depth > json::kMaxDepth) return applied;
  if (applied.is_object() && n && (n->type == Type::Object || n->type == Type::Map)) {
    // Merging into an empty object when nothing (or something else) is live drops the
    // configuration's nulls the same way on create as on update.
    Value out = live.is_object() ? live : Value::object();
    for (const auto& m : applied.members()) {
      if (m.second.is_null()) {
        out.erase(m.first);
        continue;
      }
      const Value* cur = out.find(m.first);
      out.set(m.first, apply_merge(cur ? *cur : Value(), m.second, child_node(n, m.first), depth + 1));
    }
    return out;
  }
  if (applied.is_array() && keyed_list(n)) {
    Value out = live.is_array() ? live : Value::array();
    const Node* e = schema::elem(n);
    for (const auto& a : applied.items()) {
      std::string ka;
      bool merged = false;
      if (list_key_element(a, n, &ka)) {
        for (auto& l : out.items()) {
          std::string kl;
          if (list_key_element(l, n, &kl) && kl == ka) {
            l = apply_merge(l, a, e, depth + 1);
            merged = true;
            break;
          }
        }
      }
      if (!merged) out.push(apply_merge(Value(), a, e, depth + 1));
    }
    return out;
  }
  if (applied.is_array() && set_list(n)) {
    Value out = live.is_array() ? live : Value::array();
    for (const auto& a : applied.items()) {
      bool present = false;
      for (const auto& l : out.items())
        if (l == a) present = true;
      if (!present) out.push(a);
    }
    return out;
  }
  return applied;
}

// Finds the element a path step names inside `v`; *index gets the array position.
Value* step(Value* v, const std::string& elem, const Node* n, const Node** next, size_t* index) {
  *next = nullptr;
  if (elem.size() < 2) return nullptr;
  const std::string rest = elem.substr(2);
  if (elem[0] == 'f') {
    *next = child_node(n, rest);
    return v->find(rest);
  }
  if (!v->is_array()) return nullptr;
  auto& items = v->items();
  for (size_t i = 0; i < items.size(); ++i) {
    bool hit = false;
    if (elem[0] == 'k' && n) {
      std::string k;
      hit = list_key_element(items[i], n, &k) && k == elem;
    } else if (elem[0] == 'v') {
      hit = json::dump(items[i]) == rest;
    }
    if (hit) {
      *index = i;
      *next = n ? schema::elem(n) : nullptr;
      if (*next == schema::any()) *next = nullptr;
      return &items[i];
    }
  }
  return nullptr;
}

const Value* value_at(const Value& root, const std::vector<std::string>& path, const Node* n) {
  Value* cur = const_cast<Value*>(&root);  // step() does not modify; it is shared with remove_at
  for (const auto& p : path) {
    const Node* next;
    size_t idx;
    cur = step(cur, p, n, &next, &idx);
    if (!cur) return nullptr;
    n = next;
  }
  return cur;
}

void remove_at(Value* root, const std::vector<std::string>& path, const Node* n) {
  if (path.empty()) return;
  Value* cur = root;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const Node* next;
    size_t idx;
    cur = step(cur, path[i], n, &next, &idx);
    if (!cur) return;
    n = next;
  }
  const std::string& last = path.back();
  const Node* next;
  size_t idx = 0;
  if (!step(cur, last, n, &next, &idx)) return;
  if (last[0] == 'f') cur->erase(last.substr(2));
  else cur->items().erase(cur->items().begin() + static_cast<std::ptrdiff_t>(idx));
}

std::string api_version_of(const std::string& kind_key) {
  size_t slash = kind_key.rfind('/');
  return slash == std::string::npos ? std::string() : kind_key.substr(0, slash);
}

bool is_leaf(const FieldSet& set, const std::vector<std::string>& path) {
  const FieldSet* cur = &set;
  for (const auto& p : path) cur = &cur->children.at(p);
  return cur->children.empty();
}

// A key field of a list element ("f:name" under "k:{\"name\":...}"): it goes only with
// its element, never alone.
bool is_key_field(const std::vector<std::string>& path) {
  if (path.size() < 2) return false;
  const std::string& last = path.back();
  const std::string& parent = path[path.size() - 2];
  if (last.compare(0, 2, "f:") != 0 || parent.compare(0, 2, "k:") != 0) return false;
  Value keys;
  json::ParseError pe;
  return json::parse(parent.substr(2), &keys, &pe) && keys.find(last.substr(2)) != nullptr;
}

struct Owner {
  size_t entry;  // index in live.metadata.managedFields
  FieldSet set;
  bool changed = false;
};

}  // namespace

json::Value fields_v1(const std::string& kind_key, const json::Value& obj) {
  FieldSet fs;
  collect_fields(obj, schema::root(kind_key), &fs);
  strip_identity(&fs, Scope::All);
  return fs.to_json();
}

bool server_side_apply(const std::string& kind_key, const json::Value& live, const json::Value& applied,
                       const std::string& manager, bool force, ApplyResult* out, std::string* err) {
  std::string dummy;
  if (!err) err = &dummy;
  out->conflicts.clear();
  const Node* root = schema::root(kind_key);
  if (!root) {
    *err = "server-side apply is not supported for kind " + kind_key;
    return false;
  }
  if (!applied.is_object()) {
    *err = "the apply configuration must be an object";
    return false;
  }
  const std::string api_version = api_version_of(kind_key);
  const std::string kind = kind_key.substr(api_version.size() + 1);
  if (applied["apiVersion"].as_string() != api_version || applied["kind"].as_string() != kind) {
    *err = "the apply configuration must have apiVersion \"" + api_version + "\" and kind \"" + kind + "\"";
    return false;
  }
  if (!applied["metadata"]["managedFields"].is_null()) {
    *err = "metadata.managedFields must be nil";
    return false;
  }
  if (manager.empty()) {
    *err = "fieldManager is required for apply";
    return false;
  }
  {
    std::string path;
    if (!check_keys(applied, root, &path, err, 0)) return false;
  }
  const Value base = live.is_object() ? live : Value::object();

  // Ownership recorded so far.
  const Value& entries = base["metadata"]["managedFields"];
  FieldSet previous;
  int mine = -1;
  std::vector<Owner> others;
  for (size_t i = 0; i < entries.items().size(); ++i) {
    const Value& e = entries.items()[i];
    FieldSet fs;
    if (!e["fieldsV1"].is_null() && !FieldSet::from_json(e["fieldsV1"], &fs)) {
      *err = "metadata.managedFields[" + std::to_string(i) + "].fieldsV1 is malformed";
      return false;
    }
    if (e["manager"].as_string() == manager && e["operation"].as_string() == "Apply" && e["subresource"].as_string().empty()) {
      mine = static_cast<int>(i);
      previous = std::move(fs);
    } else {
      Owner o;
      o.entry = i;
      o.set = std::move(fs);
      others.push_back(std::move(o));
    }
  }

  FieldSet wanted;
  collect_fields(applied, root, &wanted);
  strip_identity(&wanted, Scope::MainResource);

  Value merged = apply_merge(base, applied, root, 0);

  // Conflicts: a field another manager owns whose value this apply changes.
  std::vector<std::vector<std::string>> wanted_paths;
  std::vector<std::string> prefix;
  wanted.members(&wanted_paths, &prefix);
  for (auto& o : others) {
    const Value& e = entries.items()[o.entry];
    for (const auto& p : wanted_paths) {
      if (!o.set.contains(p) || !is_leaf(wanted, p)) continue;
      const Value* before = value_at(base, p, root);
      const Value* after = value_at(merged, p, root);
      if (before && after && *before == *after) continue;
      if (force) {
        o.set.remove(p);
        o.changed = true;
        continue;
      }
      std::string sub = e["subresource"].as_string();
      out->conflicts.push_back("conflict with \"" + e["manager"].as_string() + "\"" +
                               (sub.empty() ? "" : " with subresource \"" + sub + "\"") + " using " +
                               e["apiVersion"].as_string(api_version) + ": " + path_string(p));
    }
  }
  if (!out->conflicts.empty()) {
    *err = "apply conflicts with other field managers";
    return false;
  }

  // Prune what this manager set before and no longer sets, unless someone else owns it.
  std::vector<std::vector<std::string>> before_paths;
  prefix.clear();
  previous.members(&before_paths, &prefix);
  // Parents come before their children in before_paths, so a removed list element is found
  // by its key before any of its fields go.
  for (const auto& p : before_paths) {
    if (wanted.contains(p) || wanted.touches(p) || is_key_field(p)) continue;
    bool shared = false;
    for (const auto& o : others)
      if (o.set.touches(p)) shared = true;
    if (!shared) remove_at(&merged, p, root);
  }

  // managedFields: the other entries (minus forced-away fields), then ours in its old place.
  Value mf = Value::array();
  Value my_entry = Value::object();
  my_entry.set("manager", manager);
  my_entry.set("operation", "Apply");
  my_entry.set("apiVersion", api_version);
  if (mine >= 0 && entries.items()[static_cast<size_t>(mine)].find("time"))
    my_entry.set("time", entries.items()[static_cast<size_t>(mine)]["time"]);
  my_entry.set("fieldsType", "FieldsV1");
  my_entry.set("fieldsV1", wanted.to_json());
  size_t next_other = 0;
  for (size_t i = 0; i < entries.items().size(); ++i) {
    if (static_cast<int>(i) == mine) {
      mf.push(my_entry);
      continue;
    }
    const Owner& o = others[next_other++];
    if (o.changed && o.set.empty()) continue;  // force took everything this manager had
    Value e = entries.items()[i];
    if (o.changed) e.set("fieldsV1", o.set.to_json());
    mf.push(std::move(e));
  }
  if (mine < 0) mf.push(std::move(my_entry));
  merged.at_or_insert("metadata").set("managedFields", std::move(mf));
  out->object = std::move(merged);
  return true;
}

bool record_update(const std::string& kind_key, const json::Value* old, const std::string& manager,
                   const std::string& subresource, json::Value* obj, std::string* err) {
  std::string dummy;
  if (!err) err = &dummy;
  const Node* root = schema::root(kind_key);
  if (!root) {
    *err = "no schema for kind " + kind_key;
    return false;
  }
  if (!obj || !obj->is_object()) {
    *err = "the object must be a JSON object";
    return false;
  }
  const Value before = old && old->is_object() ? *old : Value::object();
  const Scope scope = subresource == "status" ? Scope::Status : Scope::MainResource;
  FieldSet old_set, new_set;
  collect_fields(before, root, &old_set);
  collect_fields(*obj, root, &new_set);
  strip_identity(&old_set, scope);
  strip_identity(&new_set, scope);

  std::vector<std::vector<std::string>> new_paths, old_paths, changed, removed;
  std::vector<std::string> prefix;
  new_set.members(&new_paths, &prefix);
  old_set.members(&old_paths, &prefix);
  for (const auto& p : new_paths) {
    const Value* a = value_at(before, p, root);
    const Value* b = value_at(*obj, p, root);
    if (!a || (is_leaf(new_set, p) && (!b || !(*a == *b)))) changed.push_back(p);
  }
  for (const auto& p : old_paths)
    if (!new_set.contains(p) && !new_set.touches(p)) removed.push_back(p);

  const Value* sent = obj->find("metadata") ? obj->find("metadata")->find("managedFields") : nullptr;
  const Value entries = sent && sent->is_array() ? *sent : before["metadata"]["managedFields"];
  Value mf = Value::array();
  bool placed = false;
  Value mine = Value::object();
  mine.set("manager", manager);
  mine.set("operation", "Update");
  mine.set("apiVersion", api_version_of(kind_key));
  mine.set("fieldsType", "FieldsV1");
  if (!subresource.empty()) mine.set("subresource", subresource);
  auto finish_mine = [&](FieldSet* fs) {
    for (const auto& p : changed) fs->insert(p);
    for (const auto& p : removed) fs->remove(p);
    if (fs->empty()) return false;
    mine.set("fieldsV1", fs->to_json());
    return true;
  };
  for (size_t i = 0; i < entries.items().size(); ++i) {
    const Value& e = entries.items()[i];
    FieldSet fs;
    if (!e["fieldsV1"].is_null() && !FieldSet::from_json(e["fieldsV1"], &fs)) {
      *err = "metadata.managedFields[" + std::to_string(i) + "].fieldsV1 is malformed";
      return false;
    }
    const bool is_mine = e["manager"].as_string() == manager && e["operation"].as_string() == "Update" &&
                         e["subresource"].as_string() == subresource;
    if (is_mine) {
      if (e.find("time")) mine.set("time", e["time"]);
      if (finish_mine(&fs)) mf.push(mine);
      placed = true;
      continue;
    }
    for (const auto& p : changed) fs.remove(p);
    for (const auto& p : removed) fs.remove(p);
    if (fs.empty()) continue;
    Value kept = e;
    kept.set("fieldsV1", fs.to_json());
    mf.push(std::move(kept));
  }
  if (!placed) {
    FieldSet fs;
    if (finish_mine(&fs)) mf.push(std::move(mine));
  }
  if (mf.items().empty()) {
    if (Value* md = obj->find("metadata")) md->erase("managedFields");
  } else {
    obj->at_or_insert("metadata").set("managedFields", std::move(mf));
  }
  return true;
}

}  // namespace patch
}  // namespace k32
