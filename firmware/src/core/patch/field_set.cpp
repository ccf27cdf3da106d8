#include "core/patch/field_set.h"

#include <algorithm>
#include <cstring>

namespace k32 {
namespace patch {

using json::Value;
using schema::Node;
using schema::Type;

bool FieldSet::empty() const {
  if (member) return false;
  for (const auto& c : children)
    if (!c.second.empty()) return false;
  return true;
}

void FieldSet::members(std::vector<std::vector<std::string>>* out, std::vector<std::string>* prefix) const {
  if (member) out->push_back(*prefix);
  for (const auto& c : children) {
    prefix->push_back(c.first);
    c.second.members(out, prefix);
    prefix->pop_back();
  }
}

bool FieldSet::contains(const std::vector<std::string>& path) const {
  const FieldSet* cur = this;
  for (const auto& p : path) {
    auto it = cur->children.find(p);
    if (it == cur->children.end()) return false;
    cur = &it->second;
  }
  return cur->member;
}

bool FieldSet::touches(const std::vector<std::string>& path) const {
  const FieldSet* cur = this;
  for (const auto& p : path) {
    auto it = cur->children.find(p);
    if (it == cur->children.end()) return false;
    cur = &it->second;
  }
  return !cur->empty();
}

void FieldSet::remove(const std::vector<std::string>& path) {
  if (path.empty()) {
    member = false;
    return;
  }
  auto it = children.find(path[0]);
  if (it == children.end()) return;
  it->second.remove(std::vector<std::string>(path.begin() + 1, path.end()));
  if (it->second.empty()) children.erase(it);
}

void FieldSet::insert(const std::vector<std::string>& path) {
  FieldSet* cur = this;
  for (const auto& p : path) cur = &cur->children[p];
  cur->member = true;
}

Value FieldSet::to_json() const {
  Value o = Value::object();
  if (member && !children.empty()) o.set(".", Value::object());
  for (const auto& c : children)
    if (!c.second.empty()) o.set(c.first, c.second.to_json());
  return o;
}

bool FieldSet::from_json(const Value& v, FieldSet* out, int depth) {
  if (!v.is_object() || depth > json::kMaxDepth) return false;
  if (v.members().empty()) {
    out->member = true;
    return true;
  }
  for (const auto& m : v.members()) {
    if (m.first == ".") {
      out->member = true;
      continue;
    }
    if (m.first.size() < 2 || m.first[1] != ':' ||
        (m.first[0] != 'f' && m.first[0] != 'k' && m.first[0] != 'v' && m.first[0] != 'i'))
      return false;
    if (!from_json(m.second, &out->children[m.first], depth + 1)) return false;
  }
  return true;
}

bool list_key_element(const Value& item, const Node* list, std::string* out) {
  if (!item.is_object()) return false;
  std::vector<std::string> keys;
  if (list->n_map_keys) {
    for (uint8_t i = 0; i < list->n_map_keys; ++i) keys.push_back(list->map_keys[i]);
  } else if (list->merge_key) {
    keys.push_back(list->merge_key);
  }
  if (keys.empty()) return false;
  std::sort(keys.begin(), keys.end());
  Value k = Value::object();
  bool any_present = false;
  const Node* e = schema::elem(list);
  for (const auto& key : keys) {
    const Value* v = item.find(key);
    if (v && !v->is_null()) {
      k.set(key, *v);
      any_present = true;
      continue;
    }
    // A missing key field takes its schema default (ports' protocol "TCP"), as the API
    // server would have defaulted it before merging.
    const char* dflt = schema::field_default(e, key);
    Value d;
    json::ParseError pe;
    if (dflt && json::parse(dflt, std::strlen(dflt), &d, &pe)) k.set(key, d);
  }
  if (!any_present) return false;
  *out = "k:" + json::dump(k);
  return true;
}

bool keyed_list(const Node* n) {
  return n && n->type == Type::Array &&
         (n->list_type == schema::ListType::Map ||
          (n->list_type == schema::ListType::None && n->merge_key && (n->strategy & schema::kMerge)));
}

bool set_list(const Node* n) {
  return n && n->type == Type::Array &&
         (n->list_type == schema::ListType::Set ||
          (n->list_type == schema::ListType::None && !n->merge_key && (n->strategy & schema::kMerge)));
}

void collect_fields(const Value& v, const Node* n, FieldSet* out) {
  if (n && (n->type == Type::Object || n->type == Type::Map) && v.is_object() && !v.members().empty()) {
    for (const auto& m : v.members()) {
      if (m.second.is_null()) continue;
      const Node* child = n->type == Type::Map ? schema::elem(n) : schema::field(n, m.first);
      if (child == schema::any()) child = nullptr;
      FieldSet& c = out->children["f:" + m.first];
      collect_fields(m.second, child, &c);
      if (c.empty()) c.member = true;
    }
    return;
  }
  if (keyed_list(n) && v.is_array() && !v.items().empty()) {
    const Node* e = schema::elem(n);
    for (const auto& it : v.items()) {
      std::string key;
      if (!list_key_element(it, n, &key)) {
        out->member = true;  // an element without its key: the list can only be owned whole
        continue;
      }
      FieldSet& c = out->children[key];
      c.member = true;
      collect_fields(it, e, &c);
      c.member = true;
    }
    return;
  }
  if (set_list(n) && v.is_array() && !v.items().empty()) {
    for (const auto& it : v.items()) out->children["v:" + json::dump(it)].member = true;
    return;
  }
  out->member = true;
}

std::string path_string(const std::vector<std::string>& path) {
  std::string s;
  for (const auto& p : path) {
    if (p.size() < 2) continue;
    std::string rest = p.substr(2);
    if (p[0] == 'f') {
      s += "." + rest;
    } else if (p[0] == 'k') {
      Value k;
      json::ParseError pe;
      if (json::parse(rest, &k, &pe) && k.is_object()) {
        s += "[";
        bool first = true;
        for (const auto& m : k.members()) {
          s += (first ? "" : ",") + m.first + "=" + json::dump(m.second);
          first = false;
        }
        s += "]";
      } else {
        s += "[" + rest + "]";
      }
    } else if (p[0] == 'v') {
      s += "[=" + rest + "]";
    } else if (p[0] == 'i') {
      s += "[" + rest + "]";
    }
  }
  return s.empty() ? "." : s;
}

}  // namespace patch
}  // namespace k32
