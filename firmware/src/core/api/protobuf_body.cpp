#include "core/api/protobuf_body.h"

#include <cstdint>
#include <cstring>

#include "core/openapi/proto_table.h"
#include "core/openapi/schema_table.h"
#include "core/util/base64.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

// A bounds-checked protobuf wire reader over one message.
class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  explicit Reader(const std::string& s) : Reader(reinterpret_cast<const uint8_t*>(s.data()), s.size()) {}
  bool done() const { return p_ >= end_; }
  bool ok() const { return ok_; }
  // Next field: number and wire type; false at the end or on malformed input.
  bool next(uint32_t* field, uint32_t* wire) {
    if (done() || !ok_) return false;
    uint64_t key;
    if (!varint(&key)) return false;
    *field = static_cast<uint32_t>(key >> 3);
    *wire = static_cast<uint32_t>(key & 7);
    if (*field == 0) return fail();
    return true;
  }
  bool varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return fail();
      uint8_t b = *p_++;
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return fail();
  }
  bool fixed64(uint64_t* v) {
    if (end_ - p_ < 8) return fail();
    *v = 0;
    for (int i = 7; i >= 0; --i) *v = (*v << 8) | p_[i];
    p_ += 8;
    return true;
  }
  bool bytes(std::string* out) {
    uint64_t n;
    if (!varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return fail();
    out->assign(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return true;
  }
  bool skip(uint32_t wire) {
    uint64_t v;
    std::string s;
    switch (wire) {
      case 0: return varint(&v);
      case 1: return fixed64(&v);
      case 2: return bytes(&s);
      case 5:
        if (end_ - p_ < 4) return fail();
        p_ += 4;
        return true;
      default: return fail();
    }
  }
  bool fail() {
    ok_ = false;
    return false;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

enum Wire : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2 };

class Decoder {
 public:
  explicit Decoder(std::string* err) : err_(err) {}

  // One message of an Object node into *out (an object), at nesting `depth`.
  bool message(const std::string& msg, uint16_t node, uint16_t via, json::Value* out, int depth) {
    if (depth > json::kMaxDepth)
      return fail("the protobuf message nests deeper than " + std::to_string(json::kMaxDepth) + " levels");
    if (!out->is_object()) *out = json::Value::object();
    const schema::Node& n = schema::kNodes[node];
    Reader r(msg);
    uint32_t f, w;
    while (r.next(&f, &w)) {
      const schema::Field* field = nullptr;
      const schema::ProtoField* pf = nullptr;
      bool inlined = false;
      for (uint16_t i = n.first_field; i < n.first_field + n.n_fields; ++i) {
        const schema::ProtoField& p = schema::kProtoFields[i];
        if (p.via == via && p.number == f) {
          field = &schema::kFields[i];
          pf = &p;
          break;
        }
        if (via == 0 && p.via == f) inlined = true;
      }
      if (inlined) {  // an embedded Go struct: its fields belong to this JSON object
        std::string sub;
        if (w != kLen || !r.bytes(&sub)) return malformed(r, "an inlined message");
        if (!message(sub, node, static_cast<uint16_t>(f), out, depth + 1)) return false;
        continue;
      }
      if (!field) {  // a field newer than our schema: protobuf readers skip it
        if (!r.skip(w)) return malformed(r, "field " + std::to_string(f));
        continue;
      }
      if (!value(&r, w, field->node, pf->omit_zero, field->name, out, depth)) return false;
    }
    return r.ok() || fail("the protobuf message is truncated or malformed");
  }

 private:
  // One occurrence of field `name` (repeated fields and maps occur once per element).
  bool value(Reader* r, uint32_t w, uint16_t node, bool omit_zero, const char* name, json::Value* obj, int depth) {
    const schema::Node& n = schema::kNodes[node];
    if (n.type == schema::Type::Array) {
      json::Value& arr = obj->at_or_insert(name);
      if (!arr.is_array()) arr = json::Value::array();
      const schema::Node& elem = schema::kNodes[n.elem];
      bool scalar_elem = elem.type == schema::Type::Integer || elem.type == schema::Type::Boolean ||
                         elem.type == schema::Type::Number;
      if (scalar_elem && w == kLen) {  // packed repeated scalars
        std::string packed;
        if (!r->bytes(&packed)) return malformed(*r, name);
        Reader pr(packed);
        while (!pr.done()) {
          json::Value v;
          if (!scalar(&pr, elem.type == schema::Type::Number ? kFixed64 : kVarint, n.elem, name, &v, depth)) return false;
          arr.push(v);
        }
        return true;
      }
      json::Value v;
      if (!scalar(r, w, n.elem, name, &v, depth)) return false;
      arr.push(v);
      return true;
    }
    if (n.type == schema::Type::Map) {
      std::string entry;
      if (w != kLen || !r->bytes(&entry)) return malformed(*r, name);
      Reader er(entry);
      std::string key;
      json::Value v;
      uint32_t ef, ew;
      while (er.next(&ef, &ew)) {
        if (ef == 1 && ew == kLen) {
          if (!er.bytes(&key)) return malformed(er, name);
          if (!text::valid_utf8(key)) return not_utf8(name);
        } else if (ef == 2) {
          if (!scalar(&er, ew, n.elem, name, &v, depth)) return false;
        } else if (!er.skip(ew)) {
          return malformed(er, name);
        }
      }
      if (!er.ok()) return malformed(er, name);
      if (v.is_null()) v = empty_of(n.elem);  // proto omits an empty value
      json::Value& map = obj->at_or_insert(name);
      if (!map.is_object()) map = json::Value::object();
      map.set(key, v);
      return true;
    }
    json::Value v;
    if (!scalar(r, w, node, name, &v, depth)) return false;
    if (v.is_null()) return true;  // a zero Time: Go prints null, and we omit it
    if (omit_zero && is_zero(v)) return true;
    obj->set(name, v);
    return true;
  }

  // A single (non-repeated) value of `node`.
  bool scalar(Reader* r, uint32_t w, uint16_t node, const char* name, json::Value* v, int depth) {
    const schema::Node& n = schema::kNodes[node];
    uint8_t codec = schema::kNodeCodecs[node];
    uint64_t u;
    std::string s;
    switch (n.type) {
      case schema::Type::Boolean:
        if (w != kVarint || !r->varint(&u)) return malformed(*r, name);
        *v = u != 0;
        return true;
      case schema::Type::Integer:
        if (w != kVarint || !r->varint(&u)) return malformed(*r, name);
        *v = static_cast<int64_t>(u);  // int32/int64 are two's complement varints
        return true;
      case schema::Type::Number: {
        if (w != kFixed64 || !r->fixed64(&u)) return malformed(*r, name);
        double d;
        std::memcpy(&d, &u, sizeof d);
        *v = d;
        return true;
      }
      case schema::Type::String:
        if (w != kLen || !r->bytes(&s)) return malformed(*r, name);
        if (codec == schema::kTime || codec == schema::kMicroTime) return timestamp(s, codec, name, v);
        if (codec == schema::kBytes) {  // []byte: anything, base64 in JSON
          *v = base64_encode(s);
          return true;
        }
        if (!text::valid_utf8(s)) return not_utf8(name);
        *v = s;
        return true;
      case schema::Type::Quantity:  // resource.Quantity {string string = 1}
        if (w != kLen || !r->bytes(&s)) return malformed(*r, name);
        return string_field(s, name, v);
      case schema::Type::IntOrString:
        if (w != kLen || !r->bytes(&s)) return malformed(*r, name);
        return int_or_string(s, name, v);
      case schema::Type::Object:
        if (w != kLen || !r->bytes(&s)) return malformed(*r, name);
        *v = json::Value::object();
        return message(s, node, 0, v, depth + 1);
      case schema::Type::Any:  // runtime.RawExtension / FieldsV1: {bytes raw = 1} holding JSON
        if (w != kLen || !r->bytes(&s)) return malformed(*r, name);
        return raw_json(s, name, v);
      default: return fail(std::string("field \"") + name + "\" has no protobuf form");
    }
  }

  bool timestamp(const std::string& msg, uint8_t codec, const char* name, json::Value* v) {
    if (msg.empty()) return true;  // the zero time
    Reader r(msg);
    uint64_t secs = 0, nanos = 0, x;
    uint32_t f, w;
    while (r.next(&f, &w)) {
      if ((f == 1 || f == 2) && w == kVarint) {
        if (!r.varint(&x)) break;
        (f == 1 ? secs : nanos) = x;
      } else if (!r.skip(w)) {
        break;
      }
    }
    if (!r.ok()) return malformed(r, name);
    int64_t s = static_cast<int64_t>(secs);
    *v = codec == schema::kMicroTime ? text::rfc3339_micro(s * 1000 + static_cast<int64_t>(nanos) / 1000000) : text::rfc3339(s);
    return true;
  }

  bool string_field(const std::string& msg, const char* name, json::Value* v) {
    Reader r(msg);
    std::string s;
    uint32_t f, w;
    while (r.next(&f, &w)) {
      if (f == 1 && w == kLen) {
        if (!r.bytes(&s)) break;
      } else if (!r.skip(w)) {
        break;
      }
    }
    if (!r.ok()) return malformed(r, name);
    if (!text::valid_utf8(s)) return not_utf8(name);
    *v = s;
    return true;
  }

  // intstr.IntOrString {int64 type = 1; int32 intVal = 2; string strVal = 3}
  bool int_or_string(const std::string& msg, const char* name, json::Value* v) {
    Reader r(msg);
    uint64_t type = 0, iv = 0;
    std::string sv;
    uint32_t f, w;
    while (r.next(&f, &w)) {
      if ((f == 1 || f == 2) && w == kVarint) {
        if (!r.varint(f == 1 ? &type : &iv)) break;
      } else if (f == 3 && w == kLen) {
        if (!r.bytes(&sv)) break;
      } else if (!r.skip(w)) {
        break;
      }
    }
    if (!r.ok()) return malformed(r, name);
    if (type == 1 && !text::valid_utf8(sv)) return not_utf8(name);
    if (type == 1) *v = sv;
    else *v = static_cast<int64_t>(static_cast<int32_t>(iv));
    return true;
  }

  bool raw_json(const std::string& msg, const char* name, json::Value* v) {
    std::string raw;
    if (!string_field(msg, name, v)) return false;
    raw = v->str();
    if (raw.empty()) {
      *v = json::Value::object();
      return true;
    }
    json::ParseError pe;
    if (!json::parse(raw, v, &pe)) return fail(std::string("field \"") + name + "\" holds invalid JSON: " + pe.message);
    return true;
  }

  static json::Value empty_of(uint16_t node) {
    switch (schema::kNodes[node].type) {
      case schema::Type::Object: return json::Value::object();
      case schema::Type::Integer: return json::Value(0);
      case schema::Type::Boolean: return json::Value(false);
      default: return json::Value("");
    }
  }

  static bool is_zero(const json::Value& v) {
    return (v.is_string() && v.str().empty()) || (v.is_int() && v.as_int() == 0) || (v.is_bool() && !v.as_bool()) ||
           (v.type() == json::Type::Double && v.as_double() == 0);
  }

  // Strings become JSON strings in the store: they must be UTF-8 (bytes fields need not be).
  bool not_utf8(const std::string& what) { return fail("field \"" + what + "\" is not valid UTF-8"); }
  bool malformed(const Reader&, const std::string& what) { return fail("the protobuf body is malformed at \"" + what + "\""); }
  bool fail(const std::string& msg) {
    if (err_->empty()) *err_ = msg;
    return false;
  }

  std::string* err_;
};

}  // namespace

bool decode_protobuf_object(const std::string& body, json::Value* out, std::string* err, bool* unsupported) {
  err->clear();
  if (unsupported) *unsupported = false;
  if (body.size() < 4 || body.compare(0, 4, std::string("k8s\0", 4)) != 0) {
    *err = "the protobuf body does not start with the Kubernetes magic \"k8s\\0\"";
    return false;
  }
  // runtime.Unknown {TypeMeta typeMeta = 1; bytes raw = 2; string contentEncoding = 3; ...}
  Reader r(reinterpret_cast<const uint8_t*>(body.data()) + 4, body.size() - 4);
  std::string api_version, kind, raw, encoding;
  uint32_t f, w;
  while (r.next(&f, &w)) {
    std::string s;
    if (f == 1 && w == kLen) {
      if (!r.bytes(&s)) break;
      Reader tm(s);
      uint32_t tf, tw;
      while (tm.next(&tf, &tw)) {
        if ((tf == 1 || tf == 2) && tw == kLen) {
          if (!tm.bytes(tf == 1 ? &api_version : &kind)) break;
        } else if (!tm.skip(tw)) {
          break;
        }
      }
      if (!tm.ok()) r.fail();
    } else if (f == 2 && w == kLen) {
      if (!r.bytes(&raw)) break;
    } else if (f == 3 && w == kLen) {
      if (!r.bytes(&encoding)) break;
    } else if (!r.skip(w)) {
      break;
    }
  }
  if (!r.ok()) {
    *err = "the protobuf body is malformed";
    return false;
  }
  if (!text::valid_utf8(api_version) || !text::valid_utf8(kind)) {
    *err = "the protobuf body's apiVersion or kind is not valid UTF-8";
    return false;
  }
  if (!encoding.empty()) {
    *err = "protobuf content encoding \"" + encoding + "\" is not supported";
    if (unsupported) *unsupported = true;
    return false;
  }
  std::string key = api_version + "/" + kind;
  const schema::KindRoot* root = nullptr;
  for (uint16_t i = 0; i < schema::kKindCount; ++i) {
    if (key == schema::kKinds[i].key) root = &schema::kKinds[i];
  }
  if (!root) {
    *err = "Kube32 does not serve " + api_version + " " + kind;
    if (unsupported) *unsupported = true;
    return false;
  }
  *out = json::Value::object();
  out->set("apiVersion", api_version);
  out->set("kind", kind);
  Decoder d(err);
  if (!d.message(raw, root->node, 0, out, 0)) {
    *err = "the protobuf " + kind + " does not decode: " + *err;
    return false;
  }
  return true;
}

}  // namespace api
}  // namespace k32
