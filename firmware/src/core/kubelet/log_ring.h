// A container's log: a bounded ring of the newest bytes, addressed by absolute offsets so
// followers (kubectl logs -f, the control plane's proxy) can resume where they stopped.
#pragma once
#include <cstdint>
#include <string>
#include "port.h"

namespace k32 {
namespace kubelet {

constexpr size_t kLogRingBytes = 16 * 1024;  // per container instance; --previous keeps one more

class LogRing {
 public:
  explicit LogRing(size_t cap = kLogRingBytes) : cap_(cap) {}
  void append(const char* data, size_t len);
  // Appends one line, adding '\n' when missing.
  void line(const char* data, size_t len);
  // Bytes from absolute offset `from` (clamped to what the ring still holds); *next is
  // the offset after them.
  std::string read_from(uint64_t from, uint64_t* next);
  // The last `lines` lines (all held when lines < 0).
  std::string tail(int64_t lines);
  uint64_t end();
  // Waits until bytes beyond `offset` exist (or timeout); true when they do.
  bool wait_beyond(uint64_t offset, uint32_t timeout_ms);
  void clear();

 private:
  port::Mutex mu_;
  port::CondVar cv_;
  size_t cap_;
  std::string buf_;     // the newest min(total, cap) bytes, oldest first
  uint64_t total_ = 0;  // absolute offset of the end
};

}  // namespace kubelet
}  // namespace k32
