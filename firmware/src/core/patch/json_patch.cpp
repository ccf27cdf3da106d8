// RFC 6902 JSON Patch over the JSON model, with RFC 6901 JSON Pointers.
#include <cstdio>

#include "core/patch/patch.h"

namespace k32 {
namespace patch {

namespace {

// Splits a JSON Pointer into unescaped reference tokens ("" is the whole document).
bool parse_pointer(const std::string& ptr, std::vector<std::string>* tokens, std::string* err) {
  tokens->clear();
  if (ptr.empty()) return true;
  if (ptr[0] != '/') {
    *err = "path \"" + ptr + "\" must be empty or start with '/'";
    return false;
  }
  std::string cur;
  for (size_t i = 1; i <= ptr.size(); ++i) {
    if (i == ptr.size() || ptr[i] == '/') {
      tokens->push_back(cur);
      cur.clear();
      continue;
    }
    if (ptr[i] == '~') {
      char n = i + 1 < ptr.size() ? ptr[i + 1] : '\0';
      if (n != '0' && n != '1') {
        *err = "path \"" + ptr + "\" has an invalid '~' escape";
        return false;
      }
      cur.push_back(n == '0' ? '~' : '/');
      ++i;
      continue;
    }
    cur.push_back(ptr[i]);
  }
  return true;
}

// Array index per RFC 6901: "0" or digits without a leading zero; "-" is handled by callers.
bool parse_index(const std::string& tok, size_t* idx) {
  if (tok.empty() || tok.size() > 9) return false;
  if (tok.size() > 1 && tok[0] == '0') return false;
  size_t v = 0;
  for (char c : tok) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  *idx = v;
  return true;
}

// The value at tokens[0..n), or nullptr.
json::Value* resolve(json::Value* root, const std::vector<std::string>& tokens, size_t n) {
  json::Value* cur = root;
  for (size_t i = 0; i < n && cur; ++i) {
    if (cur->is_object()) {
      cur = cur->find(tokens[i]);
    } else if (cur->is_array()) {
      size_t idx;
      if (!parse_index(tokens[i], &idx) || idx >= cur->items().size()) return nullptr;
      cur = &cur->items()[idx];
    } else {
      return nullptr;
    }
  }
  return cur;
}

bool do_add(json::Value* root, const std::vector<std::string>& t, json::Value v, std::string* err) {
  if (t.empty()) {
    *root = std::move(v);
    return true;
  }
  json::Value* parent = resolve(root, t, t.size() - 1);
  if (!parent) {
    *err = "the parent of the target does not exist";
    return false;
  }
  const std::string& last = t.back();
  if (parent->is_object()) {
    parent->set(last, std::move(v));
    return true;
  }
  if (parent->is_array()) {
    auto& items = parent->items();
    if (last == "-") {
      items.push_back(std::move(v));
      return true;
    }
    size_t idx;
    if (!parse_index(last, &idx) || idx > items.size()) {
      *err = "array index \"" + last + "\" is out of range";
      return false;
    }
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(idx), std::move(v));
    return true;
  }
  *err = "the parent of the target is not an object or array";
  return false;
}

bool do_remove(json::Value* root, const std::vector<std::string>& t, json::Value* removed, std::string* err) {
  if (t.empty()) {
    *err = "cannot remove the whole document";
    return false;
  }
  json::Value* parent = resolve(root, t, t.size() - 1);
  const std::string& last = t.back();
  if (parent && parent->is_object()) {
    json::Value* v = parent->find(last);
    if (v) {
      if (removed) *removed = std::move(*v);
      parent->erase(last);
      return true;
    }
  } else if (parent && parent->is_array()) {
    size_t idx;
    auto& items = parent->items();
    if (parse_index(last, &idx) && idx < items.size()) {
      if (removed) *removed = std::move(items[idx]);
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(idx));
      return true;
    }
  }
  *err = "the target does not exist";
  return false;
}

bool is_proper_prefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() >= b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

bool apply_op(json::Value* doc, const json::Value& op, std::string* err) {
  if (!op.is_object()) {
    *err = "an operation must be a JSON object";
    return false;
  }
  const json::Value* opname = op.find("op");
  const json::Value* pathv = op.find("path");
  if (!opname || !opname->is_string()) {
    *err = "missing or non-string \"op\"";
    return false;
  }
  if (!pathv || !pathv->is_string()) {
    *err = "missing or non-string \"path\"";
    return false;
  }
  const std::string& name = opname->str();
  std::vector<std::string> path;
  if (!parse_pointer(pathv->str(), &path, err)) return false;
  const json::Value* value = op.find("value");
  auto need_value = [&]() {
    if (!value) *err = "missing \"value\"";
    return value != nullptr;
  };
  std::string why;
  if (name == "add") {
    if (!need_value()) return false;
    if (!do_add(doc, path, *value, &why)) {
      *err = "path " + pathv->str() + ": " + why;
      return false;
    }
    return true;
  }
  if (name == "remove") {
    if (!do_remove(doc, path, nullptr, &why)) {
      *err = "path " + pathv->str() + ": " + why;
      return false;
    }
    return true;
  }
  if (name == "replace") {
    if (!need_value()) return false;
    json::Value* target = resolve(doc, path, path.size());
    if (!target) {
      *err = "path " + pathv->str() + ": the target does not exist";
      return false;
    }
    *target = *value;
    return true;
  }
  if (name == "test") {
    if (!need_value()) return false;
    json::Value* target = resolve(doc, path, path.size());
    if (!target || !(*target == *value)) {
      *err = "path " + pathv->str() + ": test failed";
      return false;
    }
    return true;
  }
  if (name == "move" || name == "copy") {
    const json::Value* fromv = op.find("from");
    if (!fromv || !fromv->is_string()) {
      *err = "missing or non-string \"from\"";
      return false;
    }
    std::vector<std::string> from;
    if (!parse_pointer(fromv->str(), &from, err)) return false;
    json::Value moved;
    if (name == "move") {
      if (from == path) return true;
      if (is_proper_prefix(from, path)) {
        *err = "cannot move " + fromv->str() + " into its own child " + pathv->str();
        return false;
      }
      if (!do_remove(doc, from, &moved, &why)) {
        *err = "from " + fromv->str() + ": " + why;
        return false;
      }
    } else {
      json::Value* src = resolve(doc, from, from.size());
      if (!src) {
        *err = "from " + fromv->str() + ": the source does not exist";
        return false;
      }
      moved = *src;
    }
    if (!do_add(doc, path, std::move(moved), &why)) {
      *err = "path " + pathv->str() + ": " + why;
      return false;
    }
    return true;
  }
  *err = "unknown op \"" + name + "\"";
  return false;
}

}  // namespace

bool json_patch(const json::Value& doc, const json::Value& ops, json::Value* out, std::string* err) {
  std::string dummy;
  if (!err) err = &dummy;
  if (!ops.is_array()) {
    *err = "a JSON patch must be an array of operations";
    return false;
  }
  json::Value work = doc;
  const auto& items = ops.items();
  for (size_t i = 0; i < items.size(); ++i) {
    std::string why;
    if (!apply_op(&work, items[i], &why)) {
      char head[48];
      std::snprintf(head, sizeof head, "operation %lu", static_cast<unsigned long>(i));
      std::string opname = items[i]["op"].as_string();
      *err = std::string(head) + (opname.empty() ? "" : " (" + opname + ")") + ": " + why;
      return false;
    }
  }
  *out = std::move(work);
  return true;
}

void merge_patch(const json::Value& doc, const json::Value& patch, json::Value* out) {
  if (!patch.is_object()) {
    *out = patch;
    return;
  }
  json::Value result = doc.is_object() ? doc : json::Value::object();
  for (const auto& m : patch.members()) {
    if (m.second.is_null()) {
      result.erase(m.first);
      continue;
    }
    json::Value merged;
    const json::Value* cur = result.find(m.first);
    merge_patch(cur ? *cur : json::Value(), m.second, &merged);
    result.set(m.first, std::move(merged));
  }
  *out = std::move(result);
}

}  // namespace patch
}  // namespace k32
