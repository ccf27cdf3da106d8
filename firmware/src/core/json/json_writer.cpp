#include "core/json/json_writer.h"

#include <cstring>

namespace k32 {
namespace json {

namespace {
constexpr int kMaxDepth = 32;  // the width of Writer::filled_
}  // namespace

bool Writer::flush() {
  if (ok_ && len_ > 0) ok_ = sink_->write(buf_, len_);
  len_ = 0;  // after a failure the bytes are dropped: the sink cannot take them
  return ok_;
}

void Writer::raw(const char* data, size_t len) {
  while (len > 0) {
    if (len_ == sizeof buf_) flush();
    size_t n = sizeof buf_ - len_;
    if (n > len) n = len;
    std::memcpy(buf_ + len_, data, n);
    len_ += n;
    data += n;
    len -= n;
  }
}

void Writer::before_value() {
  if (after_key_) {  // a member's value: the key wrote its own comma
    after_key_ = false;
    return;
  }
  if (depth_ == 0) return;
  const uint32_t bit = 1u << (depth_ - 1);
  if (filled_ & bit) put(',');
  filled_ |= bit;
}

void Writer::open(char c) {
  before_value();
  if (depth_ == kMaxDepth) {  // deeper than filled_ can track: the answer would be wrong
    ok_ = false;
    return;
  }
  put(c);
  ++depth_;
  filled_ &= ~(1u << (depth_ - 1));
}

void Writer::close(char c) {
  if (depth_ > 0) --depth_;
  put(c);
}

void Writer::key(const char* k) {
  before_value();
  escaped(k, std::strlen(k));
  put(':');
  after_key_ = true;
}

void Writer::value(const char* s) { value(s, std::strlen(s)); }

void Writer::value(const char* s, size_t len) {
  before_value();
  escaped(s, len);
}

void Writer::value(bool b) {
  before_value();
  if (b) raw("true", 4);
  else raw("false", 5);
}

void Writer::value(int64_t n) {
  before_value();
  // Digits by hand, as json::dump writes them.
  uint64_t u = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  char digits[20];
  char* p = digits + sizeof digits;
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (n < 0) put('-');
  raw(p, static_cast<size_t>(digits + sizeof digits - p));
}

// The escapes of json::append_escaped, byte for byte.
void Writer::escaped(const char* s, size_t len) {
  put('"');
  const char* run = s;
  const char* const end = s + len;
  for (const char* p = s; p < end; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    raw(run, static_cast<size_t>(p - run));
    run = p + 1;
    switch (c) {
      case '"': raw("\\\"", 2); break;
      case '\\': raw("\\\\", 2); break;
      case '\n': raw("\\n", 2); break;
      case '\r': raw("\\r", 2); break;
      case '\t': raw("\\t", 2); break;
      case '\b': raw("\\b", 2); break;
      case '\f': raw("\\f", 2); break;
      default: {
        static const char kHex[] = "0123456789abcdef";
        const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        raw(esc, sizeof esc);
      }
    }
  }
  raw(run, static_cast<size_t>(end - run));
  put('"');
}

}  // namespace json
}  // namespace k32
