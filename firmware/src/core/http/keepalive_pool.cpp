#include "core/http/keepalive_pool.h"
#include "port.h"

namespace k32 {
namespace http {

KeepAlivePool::~KeepAlivePool() {
  for (auto& kv : idle_)
    for (port::Socket s : kv.second) port::tcp_close(s);
}

port::Socket KeepAlivePool::take(const std::string& dest) {
  port::LockGuard<port::Mutex> lock(mu_);
  auto& v = idle_[dest];
  while (!v.empty()) {
    port::Socket s = v.back();
    v.pop_back();
    if (!port::tcp_peer_closed(s)) return s;
    port::tcp_close(s);
  }
  return port::kNoSocket;
}

void KeepAlivePool::give(const std::string& dest, port::Socket s) {
  port::LockGuard<port::Mutex> lock(mu_);
  auto& v = idle_[dest];
  if (v.size() >= kIdlePerDestination) {
    port::tcp_close(s);
    return;
  }
  v.push_back(s);
}

size_t KeepAlivePool::idle_count(const std::string& dest) {
  port::LockGuard<port::Mutex> lock(mu_);
  auto it = idle_.find(dest);
  return it == idle_.end() ? 0 : it->second.size();
}

}  // namespace http
}  // namespace k32
