#include "core/kubelet/log_ring.h"

#include <cstdio>
#include <cstring>

#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace kubelet {

namespace {

// Unix ms of monotonic 0: the wall clock minus the uptime, or 0 (boot = the epoch) while
// the wall clock is unset. Taken once per read so the lines of one answer stay in order.
int64_t mono_base_ms() {
  if (!port::wall_clock_set()) return 0;
  return port::wall_time_s() * 1000 - static_cast<int64_t>(port::monotonic_ms());
}

// kubelet's log timestamp layout: RFC3339 with nine fraction digits, then a space.
std::string stamp_text(int64_t unix_ms) {
  if (unix_ms < 0) unix_ms = 0;
  std::string s = text::rfc3339(unix_ms / 1000);  // ...SSZ
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%03d000000Z ", static_cast<int>(unix_ms % 1000));
  s.pop_back();
  return s + frac;
}

}  // namespace

int64_t LogRing::stamp_ms(uint64_t mono_ms) { return mono_base_ms() + static_cast<int64_t>(mono_ms); }

void LogRing::mark_lines(const char* data, size_t len) {
  if (len == 0) return;
  const uint64_t now = port::monotonic_ms();
  // Line starts found with memchr, not byte by byte: every log line of every pod comes here.
  size_t i = 0;
  while (i < len) {
    if (at_line_start_) {
      if (!marks_) marks_.reset(new std::deque<LineMark>());
      marks_->push_back({total_ + i, now});
    }
    const void* nl = std::memchr(data + i, '\n', len - i);
    if (!nl) {
      at_line_start_ = false;
      return;
    }
    i = static_cast<size_t>(static_cast<const char*>(nl) - data) + 1;
    at_line_start_ = true;
  }
}

std::string LogRing::copy(size_t rel, size_t n) const {
  std::string out;
  if (n == 0) return out;
  out.reserve(n);
  const size_t from = (head_ + rel) % buf_.size();
  const size_t first = n < buf_.size() - from ? n : buf_.size() - from;
  out.append(buf_, from, first);
  out.append(buf_, 0, n - first);
  return out;
}

void LogRing::drop_front(size_t n) {
  held_ -= n;
  head_ = held_ ? (head_ + n) % buf_.size() : 0;
}

void LogRing::relayout(size_t storage) {
  std::string fitted;
  fitted.reserve(storage);
  if (held_) {
    const size_t first = held_ < buf_.size() - head_ ? held_ : buf_.size() - head_;
    fitted.append(buf_, head_, first);
    fitted.append(buf_, 0, held_ - first);
  }
  fitted.resize(storage);
  buf_.swap(fitted);
  head_ = 0;
}

void LogRing::make_room(size_t n) {
  if (held_ + n <= buf_.size()) return;
  // Storage grows by doubling while the ring is small, and a ring that outgrows half its
  // cap is given exactly the cap (most containers log far less than their ring holds).
  size_t want = held_ + n;
  if (want < 2 * buf_.size()) want = 2 * buf_.size();
  if (2 * want > cap_) want = cap_;
  relayout(want);
}

void LogRing::trim() {
  if (held_ > cap_) drop_front(held_ - cap_);
  if (!marks_) return;
  std::deque<LineMark>& marks = *marks_;
  // A full index drops its oldest line with the line's bytes.
  while (marks.size() > marks_max_) {
    marks.pop_front();
    uint64_t start = total_ - held_;
    if (marks.front().offset > start) drop_front(static_cast<size_t>(marks.front().offset - start));
  }
  // Keep the entry of a line whose head left the ring; drop the ones before it.
  const uint64_t start = total_ - held_;
  while (marks.size() >= 2 && marks[1].offset <= start) marks.pop_front();
}

void LogRing::put_locked(const char* data, size_t len) {
  mark_lines(data, len);
  total_ += len;
  if (len >= cap_) {
    data += len - cap_;  // only the newest cap_ bytes can stay
    len = cap_;
  }
  if (len == 0) return;
  // The oldest bytes leave before the new ones come in (a full ring never holds more than
  // its cap), and the new ones are written where those were: in two pieces when they wrap
  // around the end of the storage.
  if (held_ + len > cap_) drop_front(held_ + len - cap_);
  make_room(len);
  const size_t at = (head_ + held_) % buf_.size();
  const size_t first = len < buf_.size() - at ? len : buf_.size() - at;
  std::memcpy(&buf_[at], data, first);
  if (len > first) std::memcpy(&buf_[0], data + first, len - first);
  held_ += len;
}

void LogRing::append(const char* data, size_t len) {
  {
    port::LockGuard<port::Mutex> lock(mu_);
    put_locked(data, len);
    trim();
  }
  cv_.notify_all();
}

void LogRing::line(const char* data, size_t len) {
  // The text and its newline go in under one lock, without a copy of the line.
  {
    port::LockGuard<port::Mutex> lock(mu_);
    put_locked(data, len);
    if (len == 0 || data[len - 1] != '\n') put_locked("\n", 1);
    trim();
  }
  cv_.notify_all();
}

std::string LogRing::stamped(uint64_t from, const std::string& text) {
  const int64_t base = mono_base_ms();
  const uint64_t start = total_ - held_;
  std::string out;
  size_t done = 0;
  if (!marks_) return text;  // no line was ever logged
  const std::deque<LineMark>& marks = *marks_;
  for (size_t i = 0; i < marks.size(); ++i) {
    const LineMark& m = marks[i];
    uint64_t at = m.offset;
    if (at < from) {
      // Only the oldest line held can have lost its head; it still gets its time. A read
      // resuming inside a line (a follower) adds none there: the line had it already.
      if (from != start || (i + 1 < marks.size() && marks[i + 1].offset <= from)) continue;
      at = from;
    }
    if (at >= from + text.size()) break;
    size_t rel = static_cast<size_t>(at - from);
    out.append(text, done, rel - done);
    out += stamp_text(base + static_cast<int64_t>(m.mono_ms));
    done = rel;
  }
  out.append(text, done, std::string::npos);
  return out;
}

std::string LogRing::read_from(uint64_t from, uint64_t* next, bool timestamps) {
  port::LockGuard<port::Mutex> lock(mu_);
  uint64_t start = total_ - held_;
  if (from < start) from = start;
  if (from > total_) from = total_;
  *next = total_;
  std::string text = copy(static_cast<size_t>(from - start), static_cast<size_t>(total_ - from));
  return timestamps ? stamped(from, text) : text;
}

std::string LogRing::tail(int64_t lines, bool timestamps) {
  port::LockGuard<port::Mutex> lock(mu_);
  if (lines == 0) return std::string();
  size_t pos = 0;
  if (lines > 0) {
    pos = held_;
    if (pos && at(pos - 1) == '\n') --pos;  // the final newline ends the last line
    int64_t seen = 0;
    while (pos > 0) {
      if (at(pos - 1) == '\n' && ++seen == lines) break;
      --pos;
    }
  }
  std::string text = copy(pos, held_ - pos);
  return timestamps ? stamped(total_ - held_ + pos, text) : text;
}

uint64_t LogRing::end() {
  port::LockGuard<port::Mutex> lock(mu_);
  return total_;
}

bool LogRing::wait_beyond(uint64_t offset, uint32_t timeout_ms) {
  port::UniqueLock lock(mu_);
  return cv_.wait_for(lock, timeout_ms, [&] { return total_ > offset; });
}

void LogRing::clear() {
  port::LockGuard<port::Mutex> lock(mu_);
  buf_.clear();
  buf_.shrink_to_fit();
  head_ = held_ = 0;
  marks_.reset();
  at_line_start_ = true;
}

void LogRing::resize(size_t cap, size_t index_bytes) {
  port::LockGuard<port::Mutex> lock(mu_);
  cap_ = cap ? cap : 1;
  marks_max_ = index_bytes / sizeof(LineMark) ? index_bytes / sizeof(LineMark) : 1;
  trim();
  if (buf_.size() > cap_) relayout(cap_);
}

}  // namespace kubelet
}  // namespace k32
