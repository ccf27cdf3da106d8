// A DEFLATE (RFC 1951) decoder for streams flushed piece by piece, as SPDY's header blocks are:
// each piece ends on a block boundary (a sync flush), and later pieces may refer back into
// earlier ones and into a preset dictionary. The window is a ring of a fixed size set by the
// caller (a board budget); a reference further back than it holds is an error, never a guess.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace k32 {

class Inflater {
 public:
  // window_bytes: how far back references may reach (32768 covers every DEFLATE stream).
  explicit Inflater(size_t window_bytes);
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  // Text references may reach before the first output (zlib's preset dictionary).
  void preset(const uint8_t* dict, size_t len);
  // Decodes the complete blocks of one piece, appending what they hold to *out. False with
  // *err when the data is not DEFLATE, ends inside a block, refers past the window, or
  // would make *out longer than max_out. After a failure the stream is unusable.
  bool feed(const uint8_t* in, size_t len, std::string* out, size_t max_out, std::string* err);
  // A final block has been seen: the stream has ended.
  bool finished() const { return final_; }

 private:
  void put(uint8_t b);
  std::string win_;
  size_t pos_ = 0;     // next write position in win_
  size_t filled_ = 0;  // bytes of history held (at most win_.size())
  bool final_ = false;
  bool broken_ = false;
};

}  // namespace k32
