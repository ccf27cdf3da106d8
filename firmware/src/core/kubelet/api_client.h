// The kubelet's view of the API server: JSON over HTTP, the same on the control plane
// (to itself) and on workers.
#pragma once
#include <functional>
#include <string>

#include "core/http/http_client.h"
#include "core/json/json.h"

namespace k32 {
namespace kubelet {

class ApiClient {
 public:
  ApiClient(http::Endpoint ep, std::function<std::string()> token) : ep_(std::move(ep)), token_(std::move(token)) {}
  // HTTP status, or a negative transport error; *out holds the parsed body (null if none).
  int call(const std::string& method, const std::string& path, const json::Value* body, json::Value* out);
  const http::Endpoint& endpoint() const { return ep_; }

 private:
  http::Endpoint ep_;
  std::function<std::string()> token_;
};

}  // namespace kubelet
}  // namespace k32
