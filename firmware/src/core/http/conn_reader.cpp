#include "core/http/conn_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "core/http/http_message.h"
#include "k32_board.h"

namespace k32 {
namespace http {

namespace {

// Whether *s can take `more` bytes without the heap running out: the string grows by at least
// doubling (std::string's growth), so that whole block must fit in what the heap has left. A
// body or buffer that cannot grow ends the read with NoMemory instead of an allocation that
// would stop the node (the kubelet's pod list read beside a full worker's pods and connections).
bool can_grow(std::string* s, size_t more) {
  const size_t need = s->size() + more;
  if (need <= s->capacity()) return true;
  const size_t block = std::max(need, 2 * s->capacity());
  // One block, in one region: internal RAM, or PSRAM past it where the board has it.
  const uint64_t bytes = uint64_t{block} + 1;
  if (port::mem_available(port::Region::Internal) < bytes &&
      !(port::has_psram() && port::mem_available(port::Region::Psram) >= bytes))
    return false;
  s->reserve(block);
  return true;
}

// Whether *s can be given room for `want` bytes in one allocation, and gives it: a body whose
// length the peer announced is allocated once, not grown to up to twice its size (the
// kubelet's pod list page was 20 KiB of buffer for 12 KiB of text). std::string never grows by
// less than doubling, which the check counts as can_grow does.
bool can_reserve(std::string* s, size_t want) {
  if (want <= s->capacity()) return true;
  return can_grow(s, want - s->size());
}

}  // namespace

ReadStatus ConnReader::fill(uint32_t timeout_ms) {
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > K32_HTTP_READ_COMPACT) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  if (deadline_ms_) {
    uint64_t now = port::monotonic_ms();
    if (now >= deadline_ms_) return ReadStatus::Timeout;
    if (deadline_ms_ - now < timeout_ms) timeout_ms = static_cast<uint32_t>(deadline_ms_ - now);
  }
  char tmp[K32_HTTP_READ_CHUNK];
  int n = conn_->recv(tmp, sizeof tmp, timeout_ms);
  if (n == 0) return ReadStatus::Closed;
  if (n == -ETIMEDOUT) return ReadStatus::Timeout;
  if (n < 0) return ReadStatus::Error;
  if (!can_grow(&buf_, static_cast<size_t>(n))) return ReadStatus::NoMemory;
  buf_.append(tmp, static_cast<size_t>(n));
  return ReadStatus::Ok;
}

ReadStatus ConnReader::read_head(std::string* head, size_t max_bytes, uint32_t timeout_ms) {
  return read_head_until(head, max_bytes, timeout_ms, 0);
}

ReadStatus ConnReader::read_head_by(std::string* head, size_t max_bytes, uint64_t deadline_ms) {
  return read_head_until(head, max_bytes, 0, deadline_ms);
}

ReadStatus ConnReader::wait_data(uint32_t timeout_ms) {
  if (pos_ < buf_.size()) return ReadStatus::Ok;
  return fill(timeout_ms);
}

ReadStatus ConnReader::read_head_until(std::string* head, size_t max_bytes, uint32_t timeout_ms, uint64_t deadline_ms) {
  size_t scanned = 0;  // bytes after pos_ already searched (fill() may move pos_)
  for (;;) {
    size_t from = pos_ + (scanned > 3 ? scanned - 3 : 0);
    size_t end = buf_.find("\r\n\r\n", from);
    if (end != std::string::npos) {
      if (end - pos_ > max_bytes) return ReadStatus::TooLarge;
      head->assign(buf_, pos_, end - pos_);
      pos_ = end + 4;
      return ReadStatus::Ok;
    }
    scanned = buf_.size() - pos_;
    if (scanned > max_bytes) return ReadStatus::TooLarge;
    if (deadline_ms) {
      uint64_t now = port::monotonic_ms();
      if (now >= deadline_ms) return ReadStatus::Timeout;
      timeout_ms = static_cast<uint32_t>(deadline_ms - now);
    }
    ReadStatus st = fill(timeout_ms);
    if (st != ReadStatus::Ok) return st;
  }
}

ReadStatus ConnReader::read_exact(size_t n, std::string* out, uint32_t timeout_ms) {
  out->clear();
  return append_exact(n, out, timeout_ms);
}

ReadStatus ConnReader::append_exact(size_t n, std::string* out, uint32_t timeout_ms) {
  // Grown as the bytes arrive (a peer that announces a length and sends slowly holds no more
  // than it sent), each growth checked against the heap.
  const size_t end = out->size() + n;
  if (reserve_announced_ && end > out->capacity() && !can_reserve(out, end + (chunk_room_ ? end / 8 : 0)))
    return ReadStatus::NoMemory;
  while (out->size() < end) {
    if (pos_ < buf_.size()) {
      size_t take = std::min(end - out->size(), buf_.size() - pos_);
      if (!can_grow(out, take)) return ReadStatus::NoMemory;
      out->append(buf_, pos_, take);
      pos_ += take;
      continue;
    }
    ReadStatus st = fill(timeout_ms);
    if (st != ReadStatus::Ok) return st == ReadStatus::Closed ? ReadStatus::Malformed : st;
  }
  return ReadStatus::Ok;
}

ReadStatus ConnReader::read_line(std::string* line, size_t max_bytes, uint32_t timeout_ms) {
  for (;;) {
    size_t end = buf_.find("\r\n", pos_);
    if (end != std::string::npos) {
      if (end - pos_ > max_bytes) return ReadStatus::TooLarge;
      line->assign(buf_, pos_, end - pos_);
      pos_ = end + 2;
      return ReadStatus::Ok;
    }
    if (buf_.size() - pos_ > max_bytes) return ReadStatus::TooLarge;
    ReadStatus st = fill(timeout_ms);
    if (st != ReadStatus::Ok) return st;
  }
}

ReadStatus ConnReader::read_chunked(std::string* out, size_t max_bytes, uint32_t timeout_ms) {
  out->clear();
  for (;;) {
    bool last = false;
    ReadStatus st = append_chunk(out, max_bytes - out->size(), timeout_ms, &last);
    if (st != ReadStatus::Ok || last) return st;
  }
}

ReadStatus ConnReader::read_chunk(std::string* out, size_t max_bytes, uint32_t timeout_ms, bool* last) {
  out->clear();
  return append_chunk(out, max_bytes, timeout_ms, last);
}

ReadStatus ConnReader::append_chunk(std::string* out, size_t max_bytes, uint32_t timeout_ms, bool* last) {
  *last = false;
  std::string line;
  ReadStatus st = read_line(&line, 64, timeout_ms);
  if (st != ReadStatus::Ok) return st == ReadStatus::TooLarge ? ReadStatus::Malformed : st;
  uint64_t size = 0;
  if (!parse_chunk_size(line, &size)) return ReadStatus::Malformed;
  if (size == 0) {
    *last = true;
    for (;;) {  // trailers, then the blank line
      st = read_line(&line, 8192, timeout_ms);
      if (st != ReadStatus::Ok) return st;
      if (line.empty()) return ReadStatus::Ok;
    }
  }
  if (size > max_bytes) return ReadStatus::TooLarge;
  // A chunk's room comes with an eighth more: the small chunks that follow a large one (a
  // list's closing metadata after its item) then fit without the body being moved, which
  // held the old and the new body at once.
  chunk_room_ = true;
  st = append_exact(static_cast<size_t>(size), out, timeout_ms);
  chunk_room_ = false;
  if (st != ReadStatus::Ok) return st;
  st = read_line(&line, 2, timeout_ms);
  if (st != ReadStatus::Ok || !line.empty()) return ReadStatus::Malformed;
  return ReadStatus::Ok;
}

ReadStatus ConnReader::read_to_close(std::string* out, size_t max_bytes, uint32_t timeout_ms) {
  out->assign(buf_, pos_, std::string::npos);
  pos_ = buf_.size();
  for (;;) {
    if (out->size() > max_bytes) return ReadStatus::TooLarge;
    ReadStatus st = fill(timeout_ms);
    if (st == ReadStatus::Closed) return ReadStatus::Ok;
    if (st != ReadStatus::Ok) return st;
    out->append(buf_, pos_, std::string::npos);
    pos_ = buf_.size();
  }
}

}  // namespace http
}  // namespace k32
