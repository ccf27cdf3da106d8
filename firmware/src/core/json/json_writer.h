// Compact JSON written as it is produced, through a fixed buffer, to a byte sink: an answer
// that would otherwise be built as a tree and then as one string (the console's STATUS) holds
// only the buffer, however long it is. The bytes are exactly json::dump's for the same values.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "k32_board.h"

namespace k32 {
namespace json {

// Where the writer's bytes go (a socket, the serial port, a string).
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // False once the bytes cannot be delivered (the peer went away): the rest is dropped.
  virtual bool write(const char* data, size_t len) = 0;
};

class Writer {
 public:
  explicit Writer(ByteSink* sink) : sink_(sink) {}
  ~Writer() { flush(); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Containers; a member's key comes first (key(), then its value or container).
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  void key(const char* k);
  void value(const std::string& s) { value(s.data(), s.size()); }
  void value(const char* s);
  void value(const char* s, size_t len);
  void value(int64_t n);
  void value(bool b);
  // Convenience: one member of the open object.
  template <class T>
  void member(const char* k, const T& v) {
    key(k);
    value(v);
  }
  // Bytes outside the JSON (the answer line's prefix), written as they are.
  void raw(const char* data, size_t len);
  // Hands the buffered bytes to the sink; false once the sink failed.
  bool flush();
  bool ok() const { return ok_; }

 private:
  void open(char c);
  void close(char c);
  void before_value();  // the comma between elements or members
  void put(char c) {
    if (len_ == sizeof buf_) flush();
    buf_[len_++] = c;
  }
  void escaped(const char* s, size_t len);

  ByteSink* sink_;
  bool ok_ = true;
  bool after_key_ = false;
  // One bit per open container, set once it holds an element: nesting deeper than its width
  // is a programming error the writer's users do not make (STATUS nests three deep).
  uint32_t filled_ = 0;
  int depth_ = 0;
  size_t len_ = 0;
  char buf_[K32_CONSOLE_ANSWER_CHUNK];
};

}  // namespace json
}  // namespace k32
