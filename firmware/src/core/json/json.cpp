#include "core/json/json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace k32 {
namespace json {

namespace {
const Value& null_value() {
  static const Value v;
  return v;
}
const std::string& empty_string() {
  static const std::string s;
  return s;
}
// What members()/items() give for a value of another type: empty, and emptied again at
// each use, so nothing written to them is ever seen (as before the tagged union, when a
// value carried empty lists of every kind).
std::vector<Value::Member>& no_members() {
  static std::vector<Value::Member> v;
  v.clear();
  return v;
}
std::vector<Value>& no_items() {
  static std::vector<Value> v;
  v.clear();
  return v;
}
}  // namespace

void Value::destroy() noexcept {
  switch (type_) {
    case Type::String: s_.~basic_string(); break;
    case Type::Array: arr_.~vector(); break;
    case Type::Object: obj_.~vector(); break;
    default: break;
  }
  type_ = Type::Null;
  n_[0] = n_[1] = 0;
}

void Value::become(Type t) {
  destroy();
  switch (t) {
    case Type::String: new (&s_) std::string(); break;
    case Type::Array: new (&arr_) std::vector<Value>(); break;
    case Type::Object: new (&obj_) std::vector<Member>(); break;
    default: break;
  }
  type_ = t;
}

void Value::copy_from(const Value& o) {
  switch (o.type_) {
    case Type::String: new (&s_) std::string(o.s_); break;
    case Type::Array: new (&arr_) std::vector<Value>(o.arr_); break;
    case Type::Object: new (&obj_) std::vector<Member>(o.obj_); break;
    case Type::Bool: b_ = o.b_; break;
    default:  // Int, Double, Null: the number's two words
      n_[0] = o.n_[0];
      n_[1] = o.n_[1];
      break;
  }
  type_ = o.type_;
}

// The source keeps its type with an empty string or list, as a moved-from member did.
void Value::move_from(Value&& o) noexcept {
  switch (o.type_) {
    case Type::String: new (&s_) std::string(std::move(o.s_)); break;
    case Type::Array: new (&arr_) std::vector<Value>(std::move(o.arr_)); break;
    case Type::Object: new (&obj_) std::vector<Member>(std::move(o.obj_)); break;
    case Type::Bool: b_ = o.b_; break;
    default:  // Int, Double, Null: the number's two words
      n_[0] = o.n_[0];
      n_[1] = o.n_[1];
      break;
  }
  type_ = o.type_;
}

// Through a temporary: `v = v["child"]` must read the child before v lets go of it.
Value& Value::operator=(const Value& o) {
  if (this == &o) return *this;
  Value tmp(o);
  destroy();
  move_from(std::move(tmp));
  return *this;
}

Value& Value::operator=(Value&& o) noexcept {
  if (this == &o) return *this;
  Value tmp(std::move(o));
  destroy();
  move_from(std::move(tmp));
  return *this;
}

std::vector<Value::Member>& Value::members() { return type_ == Type::Object ? obj_ : no_members(); }
const std::vector<Value::Member>& Value::members() const {
  static const std::vector<Member> none;
  return type_ == Type::Object ? obj_ : none;
}
std::vector<Value>& Value::items() { return type_ == Type::Array ? arr_ : no_items(); }
const std::vector<Value>& Value::items() const {
  static const std::vector<Value> none;
  return type_ == Type::Array ? arr_ : none;
}

int64_t Value::as_int(int64_t dflt) const {
  if (type_ == Type::Int) return int_bits();
  // Out of int64 range the conversion is undefined: such a number is no integer we can use.
  if (type_ == Type::Double) {
    double d = double_bits();
    if (d >= -9.2e18 && d <= 9.2e18) return static_cast<int64_t>(d);
  }
  return dflt;
}

double Value::as_double(double dflt) const {
  if (type_ == Type::Double) return double_bits();
  if (type_ == Type::Int) return static_cast<double>(int_bits());
  return dflt;
}

const std::string& Value::str() const { return type_ == Type::String ? s_ : empty_string(); }

const Value* Value::find(const std::string& key) const {
  if (type_ != Type::Object) return nullptr;
  for (const auto& m : obj_)
    if (m.first == key) return &m.second;
  return nullptr;
}

Value* Value::find(const std::string& key) {
  if (type_ != Type::Object) return nullptr;
  for (auto& m : obj_)
    if (m.first == key) return &m.second;
  return nullptr;
}

const Value& Value::operator[](const std::string& key) const {
  const Value* v = find(key);
  return v ? *v : null_value();
}

Value& Value::set(const std::string& key, Value v) {
  Value& slot = at_or_insert(key);
  slot = std::move(v);
  return slot;
}

Value& Value::at_or_insert(const std::string& key) {
  if (type_ != Type::Object) { *this = object(); }
  for (auto& m : obj_)
    if (m.first == key) return m.second;
  obj_.emplace_back(key, Value());
  return obj_.back().second;
}

bool Value::erase(const std::string& key) {
  if (type_ != Type::Object) return false;
  for (auto it = obj_.begin(); it != obj_.end(); ++it) {
    if (it->first == key) {
      obj_.erase(it);
      return true;
    }
  }
  return false;
}

const Value* Value::path(std::initializer_list<const char*> keys) const {
  const Value* cur = this;
  for (const char* k : keys) {
    cur = cur->find(k);
    if (!cur) return nullptr;
  }
  return cur;
}

std::string Value::path_str(std::initializer_list<const char*> keys) const {
  const Value* v = path(keys);
  return v ? v->as_string() : std::string();
}

Value& Value::push(Value v) {
  if (type_ != Type::Array) *this = array();
  arr_.push_back(std::move(v));
  return arr_.back();
}

size_t Value::size() const {
  if (type_ == Type::Array) return arr_.size();
  if (type_ == Type::Object) return obj_.size();
  return 0;
}

bool Value::operator==(const Value& o) const {
  if (is_number() && o.is_number()) {
    if (type_ == Type::Int && o.type_ == Type::Int) return int_bits() == o.int_bits();
    return as_double() == o.as_double();
  }
  if (type_ != o.type_) return false;
  switch (type_) {
    case Type::Null: return true;
    case Type::Bool: return b_ == o.b_;
    case Type::String: return s_ == o.s_;
    case Type::Array: return arr_ == o.arr_;
    case Type::Object: {
      if (obj_.size() != o.obj_.size()) return false;
      for (const auto& m : obj_) {
        const Value* other = o.find(m.first);
        if (!other || !(*other == m.second)) return false;
      }
      return true;
    }
    default: return false;
  }
}

// ---------------------------------------------------------------- parser
namespace {

class Parser {
 public:
  Parser(const char* d, size_t n, ParseError* e, int max_depth, const char* const* drop_keys = nullptr)
      : p_(d), begin_(d), end_(d + n), err_(e), max_depth_(max_depth), drop_keys_(drop_keys) {}

  bool parse_document(Value* out) {
    skip_ws();
    if (!parse_value(out, 0)) return false;
    skip_ws();
    if (p_ != end_) return fail("unexpected data after the JSON value");
    return true;
  }

 private:
  const char* p_;
  const char* begin_;
  const char* end_;
  ParseError* err_;
  int max_depth_;
  // Members of these names (a nullptr-ended list) are parsed (so errors still count) and dropped.
  const char* const* drop_keys_;

  bool fail(const char* what) {
    if (err_) {
      err_->offset = static_cast<size_t>(p_ - begin_);
      char buf[160];
      if (p_ < end_ && static_cast<unsigned char>(*p_) >= 0x20 && static_cast<unsigned char>(*p_) < 0x7f)
        std::snprintf(buf, sizeof buf, "%s at offset %lu (near '%c')", what, static_cast<unsigned long>(err_->offset), *p_);
      else std::snprintf(buf, sizeof buf, "%s at offset %lu", what, static_cast<unsigned long>(err_->offset));
      err_->message = buf;
    }
    return false;
  }

  void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  bool literal(const char* word) {
    size_t n = std::strlen(word);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return fail("invalid literal");
    p_ += n;
    return true;
  }

  bool parse_value(Value* out, int depth) {
    if (depth > max_depth_) {
      if (err_) err_->too_deep = true;
      return fail("nesting too deep");
    }
    if (p_ >= end_) return fail("unexpected end of input");
    switch (*p_) {
      case '{': return parse_object(out, depth);
      case '[': return parse_array(out, depth);
      default: return parse_scalar(out);
    }
  }

  // Out of line: a scalar's temporaries stay out of the frame every nesting level repeats
  // (a 64-deep document must fit a board's thread stack).
  __attribute__((noinline)) bool parse_scalar(Value* out) {
    switch (*p_) {
      case '"': {
        std::string s;
        if (!parse_string(&s)) return false;
        *out = Value(std::move(s));
        return true;
      }
      case 't':
        if (!literal("true")) return false;
        *out = Value(true);
        return true;
      case 'f':
        if (!literal("false")) return false;
        *out = Value(false);
        return true;
      case 'n':
        if (!literal("null")) return false;
        *out = Value();
        return true;
      default: return parse_number(out);
    }
  }

  // The key as a std::string, out of line for the same reason.
  __attribute__((noinline)) bool parse_key(Value* obj, Value** slot) {
    std::string key;
    if (!parse_string(&key)) return false;
    // Duplicate keys: the last one wins, as in Go's encoding/json.
    *slot = &obj->set(key, Value());
    return true;
  }

  bool parse_object(Value* out, int depth) {
    ++p_;  // {
    *out = Value::object();
    if (closes_at_once('}')) return true;
    for (;;) {
      skip_ws();
      if (p_ >= end_ || *p_ != '"') return fail("expected a string key");
      Value* slot = nullptr;
      if (!parse_key(out, &slot)) return false;
      skip_ws();
      if (p_ >= end_ || *p_ != ':') return fail("expected ':'");
      ++p_;
      skip_ws();
      // Parsed in place: a nested value only changes its own subtree, so `slot` stays valid.
      if (!parse_value(slot, depth + 1)) return false;
      if (drop_keys_) drop_last(out);
      const After next = after_item('}');
      if (next != After::More) return next == After::Closed;
    }
  }

  bool parse_array(Value* out, int depth) {
    ++p_;  // [
    *out = Value::array();
    if (closes_at_once(']')) return true;
    for (;;) {
      skip_ws();
      if (!parse_value(&out->push(Value()), depth + 1)) return false;
      const After next = after_item(']');
      if (next != After::More) return next == After::Closed;
    }
  }

  // Just past '{' or '[': consumes `close` when the object or array is empty.
  bool closes_at_once(char close) {
    skip_ws();
    if (p_ < end_ && *p_ == close) {
      ++p_;
      return true;
    }
    return false;
  }

  // Past one member or element: a ',' means another follows, `close` ends the object or
  // array ('}' or ']'); either is consumed. Anything else fails.
  enum class After : uint8_t { More, Closed, Failed };
  After after_item(char close) {
    const bool object = close == '}';
    skip_ws();
    if (p_ >= end_) {
      fail(object ? "unexpected end of input in object" : "unexpected end of input in array");
      return After::Failed;
    }
    if (*p_ == ',') {
      ++p_;
      return After::More;
    }
    if (*p_ == close) {
      ++p_;
      return After::Closed;
    }
    fail(object ? "expected ',' or '}'" : "expected ',' or ']'");
    return After::Failed;
  }

  __attribute__((noinline)) void drop_last(Value* obj) {
    std::vector<Value::Member>& m = obj->members();
    if (m.empty()) return;
    for (const char* const* k = drop_keys_; *k; ++k) {
      if (m.back().first == *k) {
        m.pop_back();
        return;
      }
    }
  }

  static void append_utf8(uint32_t cp, std::string* s) {
    if (cp < 0x80) {
      s->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      s->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      s->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      s->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool hex4(uint32_t* out) {
    if (end_ - p_ < 4) return fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = p_[i];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else return fail("invalid \\u escape");
    }
    p_ += 4;
    *out = v;
    return true;
  }

  // Validates one UTF-8 sequence starting at p_ and copies it.
  bool copy_utf8(std::string* s) {
    const unsigned char c = static_cast<unsigned char>(*p_);
    int n = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      cp = c & 0x07;
    } else return fail("invalid UTF-8");
    if (end_ - p_ <= n) return fail("truncated UTF-8");
    for (int i = 1; i <= n; ++i) {
      unsigned char cc = static_cast<unsigned char>(p_[i]);
      if ((cc & 0xC0) != 0x80) return fail("invalid UTF-8");
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
      return fail("invalid UTF-8");
    s->append(p_, static_cast<size_t>(n + 1));
    p_ += n + 1;
    return true;
  }

  bool parse_string(std::string* s) {
    ++p_;  // opening quote
    for (;;) {
      if (p_ >= end_) return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return true;
      }
      if (c < 0x20) return fail("control character in string");
      if (c == '\\') {
        ++p_;
        if (p_ >= end_) return fail("unterminated escape");
        char e = *p_++;
        switch (e) {
          case '"': s->push_back('"'); break;
          case '\\': s->push_back('\\'); break;
          case '/': s->push_back('/'); break;
          case 'b': s->push_back('\b'); break;
          case 'f': s->push_back('\f'); break;
          case 'n': s->push_back('\n'); break;
          case 'r': s->push_back('\r'); break;
          case 't': s->push_back('\t'); break;
          case 'u': {
            uint32_t cp;
            if (!hex4(&cp)) return false;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              uint32_t lo;
              if (end_ - p_ < 6 || p_[0] != '\\' || p_[1] != 'u') return fail("unpaired surrogate");
              p_ += 2;
              if (!hex4(&lo)) return false;
              if (lo < 0xDC00 || lo > 0xDFFF) return fail("unpaired surrogate");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
              return fail("unpaired surrogate");
            }
            append_utf8(cp, s);
            break;
          }
          default: --p_; return fail("invalid escape");
        }
        continue;
      }
      if (c >= 0x80) {
        if (!copy_utf8(s)) return false;
        continue;
      }
      s->push_back(static_cast<char>(c));
      ++p_;
    }
  }

  bool parse_number(Value* out) {
    const char* start = p_;
    bool is_float = false;
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9')) {
      p_ = start;
      return fail("invalid value");
    }
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ < end_ && *p_ == '.') {
      is_float = true;
      ++p_;
      if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9')) return fail("invalid number");
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      is_float = true;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ >= end_ || !(*p_ >= '0' && *p_ <= '9')) return fail("invalid number");
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    std::string text(start, p_);
    if (!is_float) {
      errno = 0;
      char* endp = nullptr;
      long long v = std::strtoll(text.c_str(), &endp, 10);
      if (errno == 0) {
        *out = Value(static_cast<int64_t>(v));
        return true;
      }
    }
    double d = std::strtod(text.c_str(), nullptr);
    // Go's encoding/json refuses what does not fit a float64; infinity would also be written
    // back as null, so an object read with 1e400 would not be the object stored.
    if (!std::isfinite(d)) {
      p_ = start;
      return fail("number out of range");
    }
    *out = Value(d);
    return true;
  }
};

}  // namespace

int depth(const Value& v) {
  int d = 0;
  if (v.is_object()) {
    for (const auto& m : v.members()) d = std::max(d, 1 + depth(m.second));
  } else if (v.is_array()) {
    for (const auto& e : v.items()) d = std::max(d, 1 + depth(e));
  }
  return d;
}

bool parse(const char* data, size_t len, Value* out, ParseError* err, int max_depth) {
  Parser p(data, len, err, max_depth);
  return p.parse_document(out);
}

bool parse_dropping(const char* data, size_t len, const char* drop_key, Value* out, ParseError* err) {
  const char* const keys[] = {drop_key, nullptr};
  Parser p(data, len, err, kMaxDepth, keys);
  return p.parse_document(out);
}

bool parse_dropping_any(const std::string& s, const char* const* drop_keys, Value* out, ParseError* err) {
  Parser p(s.data(), s.size(), err, kMaxDepth, drop_keys);
  return p.parse_document(out);
}

// ---------------------------------------------------------------- writer
void append_escaped(const std::string& s, std::string* out) {
  out->push_back('"');
  // Runs of bytes that need no escape go in with one append each (most strings are one
  // run): every channel message and every dumped string passes here.
  const char* run = s.data();
  const char* const end = run + s.size();
  for (const char* p = run; p < end; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(run, static_cast<size_t>(p - run));
    run = p + 1;
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      default: {
        // c < 0x20 here. Written by hand: printf's machinery (newlib's _svfprintf_r and
        // below, ~0.8 KB of stack at the bottom of a 64-level dump) for six characters.
        static const char kHex[] = "0123456789abcdef";
        const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out->append(esc, sizeof esc);
      }
    }
  }
  out->append(run, static_cast<size_t>(end - run));
  out->push_back('"');
}

static void dump_impl(const Value& v, std::string* out, int indent, int level) {
  auto newline = [&](int lvl) {
    if (indent < 0) return;
    out->push_back('\n');
    out->append(static_cast<size_t>(lvl * indent), ' ');
  };
  switch (v.type()) {
    case Type::Null: out->append("null"); break;
    case Type::Bool: out->append(v.as_bool() ? "true" : "false"); break;
    case Type::Int: {
      // Decimal digits by hand, as for the escapes above: most numbers a document holds
      // are integers, and snprintf's machinery is the deepest part of a dump's stack.
      const int64_t n = v.as_int();
      uint64_t u = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
      char buf[20];
      char* p = buf + sizeof buf;
      do {
        *--p = static_cast<char>('0' + u % 10);
        u /= 10;
      } while (u != 0);
      if (n < 0) out->push_back('-');
      out->append(p, static_cast<size_t>(buf + sizeof buf - p));
      break;
    }
    case Type::Double: {
      double d = v.as_double();
      if (!std::isfinite(d)) {
        out->append("null");
        break;
      }
      if (d == 0) d = 0;  // -0 would be read back as the integer 0 and written differently
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", d);
      out->append(buf);
      break;
    }
    case Type::String: append_escaped(v.str(), out); break;
    case Type::Array: {
      out->push_back('[');
      bool first = true;
      for (const auto& item : v.items()) {
        if (!first) out->push_back(',');
        first = false;
        newline(level + 1);
        dump_impl(item, out, indent, level + 1);
      }
      if (!v.items().empty()) newline(level);
      out->push_back(']');
      break;
    }
    case Type::Object: {
      out->push_back('{');
      bool first = true;
      for (const auto& m : v.members()) {
        if (!first) out->push_back(',');
        first = false;
        newline(level + 1);
        append_escaped(m.first, out);
        out->push_back(':');
        if (indent >= 0) out->push_back(' ');
        dump_impl(m.second, out, indent, level + 1);
      }
      if (!v.members().empty()) newline(level);
      out->push_back('}');
      break;
    }
  }
}

void dump_to(const Value& v, std::string* out) { dump_impl(v, out, -1, 0); }

void keep_only(Value* obj, std::initializer_list<const char*> keys) {
  if (!obj->is_object()) return;
  auto& m = obj->members();
  size_t out = 0;
  for (size_t k = 0; k < m.size(); ++k) {
    bool keep = false;
    for (const char* key : keys) keep = keep || m[k].first == key;
    if (keep) {
      if (out != k) m[out] = std::move(m[k]);
      ++out;
    }
  }
  m.resize(out);
  m.shrink_to_fit();
}

std::string dump(const Value& v) {
  std::string s;
  dump_to(v, &s);
  return s;
}

std::string dump_pretty(const Value& v) {
  std::string s;
  dump_impl(v, &s, 2, 0);
  return s;
}

}  // namespace json
}  // namespace k32
