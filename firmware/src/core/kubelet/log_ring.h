// A container's log: a bounded ring of the newest bytes, addressed by absolute offsets so
// followers (kubectl logs -f, the control plane's proxy) can resume where they stopped.
// Beside the bytes it keeps a compact index of when each line started (kubectl logs
// --timestamps), bounded in bytes too: when the index is full the oldest line leaves the
// ring with its entry, so every line held has a time.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace kubelet {

class LogRing {
 public:
  // One index entry: where a line starts and the monotonic time it started at. The
  // monotonic clock (not wall time) is recorded so a line logged before SNTP set the wall
  // clock still reads with the right time once it is set (see stamp_ms).
  struct LineMark {
    uint64_t offset;
    uint64_t mono_ms;
  };

  explicit LogRing(size_t cap = K32_LOG_RING_BYTES, size_t index_bytes = K32_LOG_LINE_INDEX_BYTES)
      : cap_(cap), marks_max_(index_bytes / sizeof(LineMark) ? index_bytes / sizeof(LineMark) : 1) {}
  void append(const char* data, size_t len);
  // Appends one line, adding '\n' when missing.
  void line(const char* data, size_t len);
  // Bytes from absolute offset `from` (clamped to what the ring still holds); *next is
  // the offset after them. With `timestamps`, each line that starts in them is prefixed
  // with its RFC3339 time with nanoseconds and a space, as kube-apiserver's pods/log does.
  std::string read_from(uint64_t from, uint64_t* next, bool timestamps = false);
  // The last `lines` lines (all held when lines < 0).
  std::string tail(int64_t lines, bool timestamps = false);
  uint64_t end();
  // Waits until bytes beyond `offset` exist (or timeout); true when they do.
  bool wait_beyond(uint64_t offset, uint32_t timeout_ms);
  void clear();
  // Holds this ring to `cap` bytes and `index_bytes` of line index from now on, its oldest
  // bytes leaving first (a restarted container's two logs share one ring's budget).
  void resize(size_t cap, size_t index_bytes);
  // Unix milliseconds of a monotonic instant: the wall clock now minus the line's age, or,
  // while the wall clock is unset, the time since boot (so it reads as 1970-01-01 + uptime).
  static int64_t stamp_ms(uint64_t mono_ms);

 private:
  void put_locked(const char* data, size_t len);                // under mu_: index, store, count
  void mark_lines(const char* data, size_t len);                // mu_ held
  void trim();                                                  // mu_ held
  std::string stamped(uint64_t from, const std::string& text);  // mu_ held
  // The bytes as a circle in buf_ (mu_ held): a full ring overwrites its oldest bytes in
  // place, where erasing them from the front of a string moved the whole ring per line.
  char at(size_t rel) const { return buf_[(head_ + rel) % buf_.size()]; }
  std::string copy(size_t rel, size_t n) const;  // n bytes from the rel-th held byte on
  void drop_front(size_t n);                     // the n oldest bytes leave
  void make_room(size_t n);                      // storage for n more bytes (n + held_ <= cap_)
  void relayout(size_t storage);                 // the held bytes, oldest first, in `storage` bytes

  port::Mutex mu_;
  port::CondVar cv_;
  size_t cap_;
  size_t marks_max_;
  std::string buf_;            // storage: the newest held_ bytes from buf_[head_] on, wrapping
  size_t head_ = 0;            // where the oldest byte held is
  size_t held_ = 0;            // bytes held (<= buf_.size() <= cap_)
  uint64_t total_ = 0;         // absolute offset of the end
  bool at_line_start_ = true;  // the next byte appended starts a line
  // By offset; the first may start before the bytes held. Made with the first line and
  // freed by clear(): an empty deque already takes a block of heap, and most containers'
  // --previous ring stays empty.
  std::unique_ptr<std::deque<LineMark>> marks_;
};

}  // namespace kubelet
}  // namespace k32
