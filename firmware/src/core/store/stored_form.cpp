#include "core/store/stored_form.h"

#include "core/store/store_format.h"

namespace k32 {
namespace store {
namespace stored_form {

namespace {

using json::Value;

// The fields of a managedFields entry in the order Kubernetes writes them; the compact array
// keeps this order (subresource last, and only when the entry has one).
const char* const kFields[] = {"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"};
enum { kManager, kOperation, kApiVersion, kTime, kFieldsType, kFieldsV1, kSubresource, kFieldCount };

bool special(char c) { return c == '\\' || c == '(' || c == ')' || c == ',' || c == '~'; }

void append_token(const std::string& s, size_t from, std::string* out) {
  for (size_t i = from; i < s.size(); ++i) {
    if (special(s[i])) out->push_back('\\');
    out->push_back(s[i]);
  }
}

// A fieldsV1 set (members whose values are sets; {} is a leaf) as a string; false when it is
// not one.
bool encode_set(const Value& set, std::string* out, int depth) {
  if (depth > json::kMaxDepth) return false;
  bool first = true;
  for (const auto& m : set.members()) {
    if (!m.second.is_object()) return false;
    if (!first) out->push_back(',');
    first = false;
    if (m.first.compare(0, 2, "f:") == 0) {
      append_token(m.first, 2, out);
    } else {
      out->push_back('~');
      append_token(m.first, 0, out);
    }
    if (m.second.size()) {
      out->push_back('(');
      if (!encode_set(m.second, out, depth + 1)) return false;
      out->push_back(')');
    }
  }
  return true;
}

// Reads a set from s at *pos up to the end or an unmatched ')'.
bool decode_set(const std::string& s, size_t* pos, Value* out, int depth) {
  if (depth > json::kMaxDepth) return false;
  *out = Value::object();
  for (;;) {
    std::string key;
    bool literal = *pos < s.size() && s[*pos] == '~';
    if (literal) ++*pos;
    else key = "f:";
    while (*pos < s.size() && s[*pos] != '(' && s[*pos] != ')' && s[*pos] != ',') {
      if (s[*pos] == '\\') {
        if (++*pos == s.size()) return false;
      } else if (s[*pos] == '~') {
        return false;
      }
      key.push_back(s[(*pos)++]);
    }
    Value& child = out->set(key, Value::object());
    if (*pos < s.size() && s[*pos] == '(') {
      ++*pos;
      Value sub;
      if (!decode_set(s, pos, &sub, depth + 1)) return false;
      if (*pos >= s.size() || s[*pos] != ')') return false;
      ++*pos;
      child = std::move(sub);
    }
    if (*pos >= s.size() || s[*pos] == ')') return true;
    ++*pos;  // ','
  }
}

// A value that is one of two common strings, or the string itself (null when absent).
Value code(const Value* v, const char* one, const char* two = nullptr) {
  if (!v) return Value();
  if (v->str() == one) return Value(1);
  if (two && v->str() == two) return Value(2);
  return *v;
}

// The same, with 0 for the value `same` (the object's own apiVersion or creationTimestamp).
Value same_or(const Value* v, const Value& same) {
  if (!v) return Value();
  if (same.is_string() && v->str() == same.str()) return Value(0);
  return *v;
}

bool compact_entry(const Value& e, const Value& obj, Value* out) {
  if (!e.is_object()) return false;
  const Value* f[kFieldCount] = {};
  for (const auto& m : e.members()) {
    int i = 0;
    while (i < kFieldCount && m.first != kFields[i]) ++i;
    if (i == kFieldCount || f[i]) return false;
    if (i == kFieldsV1 ? !m.second.is_object() : !m.second.is_string()) return false;
    f[i] = &m.second;
  }
  *out = Value::array();
  out->push(f[kManager] ? *f[kManager] : Value());
  out->push(code(f[kOperation], "Update", "Apply"));
  out->push(same_or(f[kApiVersion], obj["apiVersion"]));
  out->push(same_or(f[kTime], obj["metadata"]["creationTimestamp"]));
  out->push(code(f[kFieldsType], "FieldsV1"));
  if (!f[kFieldsV1]) {
    out->push(Value());
  } else if (f[kFieldsV1]->size() == 0) {
    out->push(Value(0));  // {} (an empty string would read back as one member named "f:")
  } else {
    std::string s;
    if (!encode_set(*f[kFieldsV1], &s, 0)) return false;
    out->push(Value(std::move(s)));
  }
  if (f[kSubresource]) out->push(*f[kSubresource]);
  return true;
}

bool expand_entry(const Value& c, const Value& obj, Value* out) {
  const auto& a = c.items();
  if (!c.is_array() || a.size() < kSubresource || a.size() > kFieldCount) return false;
  *out = Value::object();
  for (size_t i = 0; i < a.size(); ++i) {
    const Value& v = a[i];
    if (v.is_null()) continue;
    Value full;
    if (i == kOperation && v.is_int()) full = v.as_int() == 1 ? "Update" : "Apply";
    else if (i == kFieldsType && v.is_int()) full = "FieldsV1";
    else if (i == kApiVersion && v.is_int()) full = obj["apiVersion"];
    else if (i == kTime && v.is_int()) full = obj["metadata"]["creationTimestamp"];
    else if (i == kFieldsV1 && v.is_int()) full = Value::object();
    else if (i == kFieldsV1) {
      size_t pos = 0;
      if (!decode_set(v.str(), &pos, &full, 0) || pos != v.str().size()) return false;
    } else full = v;
    out->set(kFields[i], std::move(full));
  }
  return true;
}

}  // namespace

std::string encode(const json::Value& obj, bool* compact) {
  std::string out;
  *compact = false;
  const Value* md = obj.find("metadata");
  const Value* mf = md ? md->find("managedFields") : nullptr;
  Value short_mf = Value::array();
  bool ok = mf && mf->is_array();
  if (ok) {
    for (const auto& e : mf->items()) {
      Value c;
      if (!compact_entry(e, obj, &c)) {
        ok = false;
        break;
      }
      short_mf.push(std::move(c));
    }
  }
  if (!ok) {
    json::dump_to(obj, &out);
    out.shrink_to_fit();
    return out;
  }
  // The object as dump_to writes it, with the short list in managedFields' place.
  out.push_back('{');
  bool first = true;
  for (const auto& m : obj.members()) {
    if (!first) out.push_back(',');
    first = false;
    json::append_escaped(m.first, &out);
    out.push_back(':');
    if (&m.second != md) {
      json::dump_to(m.second, &out);
      continue;
    }
    out.push_back('{');
    bool first_md = true;
    for (const auto& k : md->members()) {
      if (!first_md) out.push_back(',');
      first_md = false;
      json::append_escaped(k.first, &out);
      out.push_back(':');
      json::dump_to(&k.second == mf ? short_mf : k.second, &out);
    }
    out.push_back('}');
  }
  out.push_back('}');
  out.shrink_to_fit();
  *compact = true;
  return out;
}

bool decode(const std::string& bytes, bool compact, json::Value* out, json::ParseError* err) {
  if (!json::parse(bytes, out, err, format::kRecordDepthMax)) return false;
  if (!compact) return true;
  Value* md = out->find("metadata");
  Value* mf = md ? md->find("managedFields") : nullptr;
  if (!mf || !mf->is_array()) {
    err->message = "a compact managedFields list is missing";
    return false;
  }
  // Expanded into a new list: `out` is only read while it is built.
  Value full = Value::array();
  for (const auto& c : mf->items()) {
    Value e;
    if (!expand_entry(c, *out, &e)) {
      err->message = "a compact managedFields entry does not expand";
      return false;
    }
    full.push(std::move(e));
  }
  *mf = std::move(full);
  return true;
}

}  // namespace stored_form
}  // namespace store
}  // namespace k32
