#include "core/openapi/schema.h"

#include <cstring>

namespace k32 {
namespace schema {

const Node* any() { return &kNodes[0]; }

const Node* root(const std::string& kind_key) {
  for (uint16_t i = 0; i < kKindCount; ++i)
    if (kind_key == kKinds[i].key) return &kNodes[kKinds[i].node];
  return nullptr;
}

namespace {
const Field* find_field(const Node* node, const std::string& name) {
  if (!node || node->type != Type::Object) return nullptr;
  // Fields are sorted by name (byte order, as Python sorts str of ASCII names).
  size_t lo = node->first_field, hi = static_cast<size_t>(node->first_field) + node->n_fields;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = std::strcmp(kFields[mid].name, name.c_str());
    if (c == 0) return &kFields[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return nullptr;
}
}  // namespace

const Node* field(const Node* node, const std::string& name) {
  if (!node || node->type == Type::Any) return any();
  const Field* f = find_field(node, name);
  return f ? &kNodes[f->node] : nullptr;
}

const char* field_default(const Node* node, const std::string& name) {
  const Field* f = find_field(node, name);
  return f ? f->default_json : nullptr;
}

const Node* elem(const Node* node) {
  if (node && (node->type == Type::Array || node->type == Type::Map)) return &kNodes[node->elem];
  return any();
}

namespace {

const char* type_name(json::Type t) {
  switch (t) {
    case json::Type::Null: return "null";
    case json::Type::Bool: return "boolean";
    case json::Type::Int: return "integer";
    case json::Type::Double: return "number";
    case json::Type::String: return "string";
    case json::Type::Array: return "array";
    case json::Type::Object: return "object";
  }
  return "?";
}

const char* expected_name(Type t) {
  switch (t) {
    case Type::Object:
    case Type::Map: return "object";
    case Type::Array: return "array";
    case Type::String: return "string";
    case Type::Integer: return "integer";
    case Type::Number: return "number";
    case Type::Boolean: return "boolean";
    case Type::IntOrString: return "integer or string";
    case Type::Quantity: return "quantity (string or number)";
    case Type::Any: break;
  }
  return "any";
}

bool type_ok(const Node* n, const json::Value& v) {
  if (v.is_null()) return true;  // null means "unset" for every Kubernetes field
  switch (n->type) {
    case Type::Any: return true;
    case Type::Object:
    case Type::Map: return v.is_object();
    case Type::Array: return v.is_array();
    case Type::String: return v.is_string();
    // Go's decoder accepts 3.0 for an int field; JSON numbers with an integral value pass.
    case Type::Integer: return v.is_int() || (v.is_number() && v.as_double() == static_cast<double>(v.as_int()));
    case Type::Number: return v.is_number();
    case Type::Boolean: return v.is_bool();
    case Type::IntOrString: return v.is_int() || v.is_string();
    case Type::Quantity: return v.is_string() || v.is_number();
  }
  return true;
}

bool walk(const Node* n, const json::Value& v, std::string* path, std::vector<std::string>* unknown, std::string* err) {
  if (!type_ok(n, v)) {
    if (err)
      *err = (path->empty() ? std::string(".") : *path) + ": expected " + expected_name(n->type) + ", got " + type_name(v.type());
    return false;
  }
  if (v.is_null()) return true;
  const size_t mark = path->size();
  if (n->type == Type::Object) {
    for (const auto& m : v.members()) {
      path->append(".").append(m.first);
      const Node* f = field(n, m.first);
      if (!f) {
        if (unknown) unknown->push_back(*path);
      } else if (!walk(f, m.second, path, unknown, err)) {
        return false;
      }
      path->resize(mark);
    }
  } else if (n->type == Type::Map) {
    const Node* e = elem(n);
    for (const auto& m : v.members()) {
      path->append(".").append(m.first);
      if (!walk(e, m.second, path, unknown, err)) return false;
      path->resize(mark);
    }
  } else if (n->type == Type::Array) {
    const Node* e = elem(n);
    const auto& items = v.items();
    for (size_t i = 0; i < items.size(); ++i) {
      path->append("[").append(std::to_string(i)).append("]");
      if (!walk(e, items[i], path, unknown, err)) return false;
      path->resize(mark);
    }
  }
  return true;
}

}  // namespace

bool check_fields(const std::string& kind_key, const json::Value& obj, std::vector<std::string>* unknown,
                  std::string* type_error) {
  const Node* r = root(kind_key);
  if (!r) {
    if (type_error) *type_error = "no schema for kind " + kind_key;
    return false;
  }
  std::string path;
  return walk(r, obj, &path, unknown, type_error);
}

}  // namespace schema
}  // namespace k32
