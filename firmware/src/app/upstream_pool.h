// HTTP/1.1 keep-alive connections from the ingress to worker pod servers, and the relay
// of one request/response through them (the response streams back as it arrives).
#pragma once
#include <string>
#include <vector>

#include "core/http/http_message.h"
#include "core/http/keepalive_pool.h"

namespace k32 {
namespace app {

class UpstreamPool {
 public:
  // Sends req to ip:port with the extra headers and relays the answer into w.
  // Returns false (w untouched) when the upstream could not be reached at all.
  bool relay(const std::string& ip, uint16_t port, const http::Request& req, const std::vector<http::Header>& extra,
             http::ResponseWriter& w);

 private:
  http::KeepAlivePool idle_;
};

}  // namespace app
}  // namespace k32
