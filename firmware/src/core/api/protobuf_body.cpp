#include "core/api/protobuf_body.h"

#include <cstdint>

#include "core/util/base64.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

// A bounds-checked protobuf wire reader over one message.
class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool done() const { return p_ >= end_; }
  bool ok() const { return ok_; }
  // Next field: number and wire type; false at the end or on malformed input.
  bool next(uint32_t* field, uint32_t* wire) {
    if (done()) return false;
    uint64_t key;
    if (!varint(&key)) return false;
    *field = static_cast<uint32_t>(key >> 3);
    *wire = static_cast<uint32_t>(key & 7);
    // Field 0 does not exist: a body with it is malformed, not a message that ends there.
    return *field != 0 || fail();
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
  bool bytes(std::string* out) {
    uint64_t n;
    if (!varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return fail();
    out->assign(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return true;
  }
  // A string field: bytes that must be UTF-8, since they become JSON strings in the store.
  bool string(std::string* out) { return bytes(out) && (text::valid_utf8(*out) || fail()); }
  bool skip(uint32_t wire) {
    uint64_t v;
    std::string s;
    switch (wire) {
      case 0: return varint(&v);
      case 1: if (end_ - p_ < 8) return fail(); p_ += 8; return true;
      case 2: return bytes(&s);
      case 5: if (end_ - p_ < 4) return fail(); p_ += 4; return true;
      default: return fail();
    }
  }

 private:
  bool fail() {
    ok_ = false;
    return false;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

Reader reader_of(const std::string& s) { return Reader(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

// map<string, string|bytes> entry {1: key, 2: value}.
bool map_entry(const std::string& msg, bool value_is_bytes, json::Value* map) {
  Reader r = reader_of(msg);
  std::string key, value;
  uint32_t f, w;
  while (r.next(&f, &w)) {
    if ((f == 1 || f == 2) && w == 2) {
      if (!(f == 1 || !value_is_bytes ? r.string(f == 1 ? &key : &value) : r.bytes(&value))) return false;
    } else if (!r.skip(w)) {
      return false;
    }
  }
  if (!r.ok()) return false;
  map->set(key, value_is_bytes ? base64_encode(value) : value);
  return true;
}

bool object_meta(const std::string& msg, json::Value* md) {
  Reader r = reader_of(msg);
  *md = json::Value::object();
  uint32_t f, w;
  static const char* kStrings[] = {nullptr, "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion"};
  while (r.next(&f, &w)) {
    std::string s;
    if (f >= 1 && f <= 6 && w == 2) {
      if (!r.string(&s)) return false;
      md->set(kStrings[f], s);
    } else if ((f == 11 || f == 12) && w == 2) {
      if (!r.bytes(&s) || !map_entry(s, false, &md->at_or_insert(f == 11 ? "labels" : "annotations"))) return false;
    } else if (f == 14 && w == 2) {
      if (!r.string(&s)) return false;
      md->at_or_insert("finalizers").push(s);
    } else if (!r.skip(w)) {
      return false;
    }
  }
  return r.ok();
}

bool decode_configmap_or_secret(const std::string& raw, bool secret, json::Value* obj) {
  Reader r = reader_of(raw);
  uint32_t f, w;
  while (r.next(&f, &w)) {
    std::string s;
    uint64_t v;
    if (f == 1 && w == 2) {
      json::Value md;
      if (!r.bytes(&s) || !object_meta(s, &md)) return false;
      obj->set("metadata", md);
    } else if (f == 2 && w == 2) {
      if (!r.bytes(&s) || !map_entry(s, secret, &obj->at_or_insert("data"))) return false;
    } else if (!secret && f == 3 && w == 2) {
      if (!r.bytes(&s) || !map_entry(s, true, &obj->at_or_insert("binaryData"))) return false;
    } else if (secret && f == 3 && w == 2) {
      if (!r.string(&s)) return false;
      obj->set("type", s);
    } else if (secret && f == 4 && w == 2) {
      if (!r.bytes(&s) || !map_entry(s, false, &obj->at_or_insert("stringData"))) return false;
    } else if (((!secret && f == 4) || (secret && f == 5)) && w == 0) {
      if (!r.varint(&v)) return false;
      obj->set("immutable", v != 0);
    } else if (!r.skip(w)) {
      return false;
    }
  }
  return r.ok();
}

bool decode_namespace(const std::string& raw, json::Value* obj) {
  Reader r = reader_of(raw);
  uint32_t f, w;
  while (r.next(&f, &w)) {
    std::string s;
    if (f == 1 && w == 2) {
      json::Value md;
      if (!r.bytes(&s) || !object_meta(s, &md)) return false;
      obj->set("metadata", md);
    } else if (f == 2 && w == 2) {
      if (!r.bytes(&s)) return false;
      Reader spec = reader_of(s);
      uint32_t sf, sw;
      json::Value& sp = obj->at_or_insert("spec");
      while (spec.next(&sf, &sw)) {
        std::string fin;
        if (sf == 1 && sw == 2) {
          if (!spec.string(&fin)) return false;
          sp.at_or_insert("finalizers").push(fin);
        } else if (!spec.skip(sw)) {
          return false;
        }
      }
      if (!spec.ok()) return false;
    } else if (!r.skip(w)) {
      return false;
    }
  }
  return r.ok();
}

}  // namespace

bool decode_protobuf_object(const std::string& body, json::Value* out, std::string* err) {
  if (body.size() < 4 || body.compare(0, 4, std::string("k8s\0", 4)) != 0) {
    *err = "the protobuf body does not start with the Kubernetes magic \"k8s\\0\"";
    return false;
  }
  Reader r(reinterpret_cast<const uint8_t*>(body.data()) + 4, body.size() - 4);
  std::string api_version, kind, raw, encoding;
  uint32_t f, w;
  while (r.next(&f, &w)) {
    std::string s;
    if (f == 1 && w == 2) {
      if (!r.bytes(&s)) break;
      Reader tm = reader_of(s);
      uint32_t tf, tw;
      while (tm.next(&tf, &tw)) {
        if ((tf == 1 || tf == 2) && tw == 2) {
          if (!tm.string(tf == 1 ? &api_version : &kind)) break;
        } else if (!tm.skip(tw)) {
          break;
        }
      }
      if (!tm.ok()) {
        *err = "the protobuf body's TypeMeta is malformed (or a string in it is not UTF-8)";
        return false;
      }
    } else if (f == 2 && w == 2) {
      if (!r.bytes(&raw)) break;
    } else if (f == 3 && w == 2) {
      if (!r.string(&encoding)) break;
    } else if (!r.skip(w)) {
      break;
    }
  }
  if (!r.ok()) {
    *err = "the protobuf body is malformed (or a string in it is not UTF-8)";
    return false;
  }
  if (!encoding.empty()) {
    *err = "protobuf content encoding \"" + encoding + "\" is not supported";
    return false;
  }
  *out = json::Value::object();
  out->set("apiVersion", api_version);
  out->set("kind", kind);
  bool ok;
  if (api_version == "v1" && kind == "ConfigMap") ok = decode_configmap_or_secret(raw, false, out);
  else if (api_version == "v1" && kind == "Secret") ok = decode_configmap_or_secret(raw, true, out);
  else if (api_version == "v1" && kind == "Namespace") ok = decode_namespace(raw, out);
  else {
    *err = "Kube32 decodes protobuf bodies only for ConfigMap, Secret and Namespace (got " + api_version + " " + kind +
           "); send application/json, e.g. with kubectl apply -f";
    return false;
  }
  if (!ok) *err = "the protobuf " + kind + " is malformed (or a string in it is not UTF-8)";
  return ok;
}

}  // namespace api
}  // namespace k32
