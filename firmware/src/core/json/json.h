// A small JSON document model for the API server: parse, build, serialise.
// Objects keep insertion order (Kubernetes clients expect stable field order).
#pragma once
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "k32_board.h"

namespace k32 {
namespace json {

enum class Type : uint8_t { Null, Bool, Int, Double, String, Array, Object };

// One value is a tag and a union of what it can hold (28 bytes on a 32-bit board, 40 on a
// 64-bit host): an API object is thousands of them, so each carries only its own kind.
// 64-bit numbers are kept as two 32-bit words, so a value needs only 4-byte alignment: on the
// boards (Xtensa, RISC-V, Arm) an int64_t or double member is 8-aligned and would pad every
// value to 32 bytes.
class Value {
 public:
  using Member = std::pair<std::string, Value>;

  Value() : type_(Type::Null), n_{0, 0} {}
  Value(std::nullptr_t) : type_(Type::Null), n_{0, 0} {}
  Value(bool b) : type_(Type::Bool), b_(b) {}
  Value(int v) : type_(Type::Int), n_{0, 0} { set_int(v); }
  Value(int64_t v) : type_(Type::Int), n_{0, 0} { set_int(v); }
  Value(uint32_t v) : type_(Type::Int), n_{0, 0} { set_int(v); }
  Value(double v) : type_(Type::Double), n_{0, 0} { set_double(v); }
  Value(const char* s) : type_(Type::String) { new (&s_) std::string(s); }
  Value(std::string s) : type_(Type::String) { new (&s_) std::string(std::move(s)); }
  Value(const Value& o) : type_(Type::Null), n_{0, 0} { copy_from(o); }
  Value(Value&& o) noexcept : type_(Type::Null), n_{0, 0} { move_from(std::move(o)); }
  Value& operator=(const Value& o);
  Value& operator=(Value&& o) noexcept;
  ~Value() { destroy(); }

  static Value object() {
    Value v;
    v.become(Type::Object);
    return v;
  }
  static Value array() {
    Value v;
    v.become(Type::Array);
    return v;
  }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::Null; }
  bool is_bool() const { return type_ == Type::Bool; }
  bool is_int() const { return type_ == Type::Int; }
  bool is_number() const { return type_ == Type::Int || type_ == Type::Double; }
  bool is_string() const { return type_ == Type::String; }
  bool is_array() const { return type_ == Type::Array; }
  bool is_object() const { return type_ == Type::Object; }

  bool as_bool(bool dflt = false) const { return type_ == Type::Bool ? b_ : dflt; }
  int64_t as_int(int64_t dflt = 0) const;
  double as_double(double dflt = 0) const;
  // The string value, or `dflt` when this is not a string.
  const std::string& str() const;
  std::string as_string(const std::string& dflt = std::string()) const { return type_ == Type::String ? s_ : dflt; }

  // ---- objects ----
  // Pointer to the member value, or nullptr (also when this is not an object).
  const Value* find(const std::string& key) const;
  Value* find(const std::string& key);
  // Member lookup that yields a shared null for missing keys / non-objects.
  const Value& operator[](const std::string& key) const;
  // Inserts (or replaces) a member, turning a null into an object first.
  Value& set(const std::string& key, Value v);
  // Returns the member, creating it as null (turning this into an object) if absent.
  Value& at_or_insert(const std::string& key);
  bool erase(const std::string& key);
  // The members of an object; of any other value an empty list (what is added to it is
  // dropped, as the value is no object).
  std::vector<Member>& members();
  const std::vector<Member>& members() const;

  // Follows a path of object keys; nullptr when any step is missing.
  const Value* path(std::initializer_list<const char*> keys) const;
  std::string path_str(std::initializer_list<const char*> keys) const;

  // ---- arrays ----
  // The elements of an array; of any other value an empty list (see members()).
  std::vector<Value>& items();
  const std::vector<Value>& items() const;
  Value& push(Value v);
  size_t size() const;

  bool operator==(const Value& o) const;
  bool operator!=(const Value& o) const { return !(*this == o); }

 private:
  void destroy() noexcept;
  void become(Type t);  // destroys the held value, then holds an empty one of type t
  void copy_from(const Value& o);
  void move_from(Value&& o) noexcept;
  int64_t int_bits() const {
    int64_t v;
    std::memcpy(&v, n_, sizeof v);
    return v;
  }
  double double_bits() const {
    double v;
    std::memcpy(&v, n_, sizeof v);
    return v;
  }
  void set_int(int64_t v) { std::memcpy(n_, &v, sizeof v); }
  void set_double(double v) { std::memcpy(n_, &v, sizeof v); }

  Type type_;
  union {
    bool b_;
    uint32_t n_[2];  // an Int's int64_t or a Double's double (int_bits, double_bits)
    std::string s_;
    std::vector<Value> arr_;
    std::vector<Member> obj_;
  };
};

struct ParseError {
  size_t offset = 0;
  std::string message;    // "unexpected character 'x' at offset 12"
  bool too_deep = false;  // the document nests deeper than the limit it was parsed with
};

// Nesting is counted as in depth(): the top value is at level 0, a member or element one
// level below its container. The parser recurses once per level, so the limit bounds its stack.
constexpr int kMaxDepth = static_cast<int>(K32_JSON_DEPTH_MAX);

// Parses exactly one JSON value (surrounding whitespace allowed); fails when a value sits
// deeper than max_depth levels.
bool parse(const char* data, size_t len, Value* out, ParseError* err, int max_depth = kMaxDepth);
inline bool parse(const std::string& s, Value* out, ParseError* err, int max_depth = kMaxDepth) {
  return parse(s.data(), s.size(), out, err, max_depth);
}

// As parse, leaving out every object member named `drop_key` at any level (the node's own
// clients drop metadata.managedFields, which they never read and which is a large share
// of every object): only one such member is ever held at a time.
bool parse_dropping(const char* data, size_t len, const char* drop_key, Value* out, ParseError* err);
inline bool parse_dropping(const std::string& s, const char* drop_key, Value* out, ParseError* err) {
  return parse_dropping(s.data(), s.size(), drop_key, out, err);
}
// As parse_dropping, leaving out members of any name in `drop_keys` (a nullptr-ended list): a
// reader that needs a few fields of a large object (the heartbeat's Node) parses only a view.
bool parse_dropping_any(const std::string& s, const char* const* drop_keys, Value* out, ParseError* err);

// The level of the deepest value (0 for a scalar or an empty container): parse(dump(v), .., d)
// succeeds exactly when depth(v) <= d.
int depth(const Value& v);

// Compact serialisation.
std::string dump(const Value& v);
// Drops every member of the object `obj` but `keys` (no-op on a non-object): a view of a
// parsed object that keeps only what its reader needs, its room given back.
void keep_only(Value* obj, std::initializer_list<const char*> keys);
void dump_to(const Value& v, std::string* out);
// Two-space indented serialisation (for humans and files).
std::string dump_pretty(const Value& v);
void append_escaped(const std::string& s, std::string* out);

}  // namespace json
}  // namespace k32
