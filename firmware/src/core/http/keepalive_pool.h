// Idle HTTP/1.1 keep-alive connections by destination ("ip:port"), shared by the Ingress
// relay to worker pod servers and the Service calls between nodes. Each destination keeps
// a few idle sockets at most: sockets are scarce on the board (lwIP's table is small).
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "port.h"

namespace k32 {
namespace http {

class KeepAlivePool {
 public:
  static constexpr size_t kIdlePerDestination = 4;
  KeepAlivePool() = default;
  KeepAlivePool(const KeepAlivePool&) = delete;
  KeepAlivePool& operator=(const KeepAlivePool&) = delete;
  ~KeepAlivePool();
  // An idle connection to `dest` the peer has not closed, or kNoSocket.
  port::Socket take(const std::string& dest);
  // Keeps s for reuse, or closes it when `dest` already has enough idle connections.
  void give(const std::string& dest, port::Socket s);
  size_t idle_count(const std::string& dest);

 private:
  port::Mutex mu_;
  std::map<std::string, std::vector<port::Socket>> idle_;
};

}  // namespace http
}  // namespace k32
