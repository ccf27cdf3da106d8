#include "core/kubelet/log_ring.h"
#include "port.h"


namespace k32 {
namespace kubelet {

void LogRing::append(const char* data, size_t len) {
  {
    port::LockGuard<port::Mutex> lock(mu_);
    if (len >= cap_) {
      buf_.assign(data + (len - cap_), cap_);
    } else {
      buf_.append(data, len);
      if (buf_.size() > cap_) buf_.erase(0, buf_.size() - cap_);
    }
    total_ += len;
  }
  cv_.notify_all();
}

void LogRing::line(const char* data, size_t len) {
  std::string s(data, len);
  if (s.empty() || s.back() != '\n') s.push_back('\n');
  append(s.data(), s.size());
}

std::string LogRing::read_from(uint64_t from, uint64_t* next) {
  port::LockGuard<port::Mutex> lock(mu_);
  uint64_t start = total_ - buf_.size();
  if (from < start) from = start;
  if (from > total_) from = total_;
  *next = total_;
  return buf_.substr(static_cast<size_t>(from - start));
}

std::string LogRing::tail(int64_t lines) {
  port::LockGuard<port::Mutex> lock(mu_);
  if (lines < 0) return buf_;
  if (lines == 0) return std::string();
  size_t pos = buf_.size();
  if (pos && buf_[pos - 1] == '\n') --pos;  // the final newline ends the last line
  int64_t seen = 0;
  while (pos > 0) {
    if (buf_[pos - 1] == '\n' && ++seen == lines) break;
    --pos;
  }
  return buf_.substr(pos);
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
}

}  // namespace kubelet
}  // namespace k32
