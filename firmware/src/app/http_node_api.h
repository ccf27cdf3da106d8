// NodeApi over HTTP: how a kubelet (on any node) talks to the API server.
#pragma once
#include <functional>

#include "core/http/http_client.h"
#include "core/node/node_heartbeat.h"

namespace k32 {
namespace app {

class HttpNodeApi : public node::NodeApi {
 public:
  HttpNodeApi(http::Endpoint ep, std::function<std::string()> token) : ep_(std::move(ep)), token_(std::move(token)) {}
  int get(const std::string& path, json::Value* out) override;
  int create(const std::string& collection_path, const json::Value& obj, json::Value* out) override;
  int replace(const std::string& path, const json::Value& obj, json::Value* out) override;
  int patch(const std::string& path, const json::Value& patch, json::Value* out) override;

 private:
  int call(const std::string& method, const std::string& path, const json::Value* body, json::Value* out);
  http::Endpoint ep_;
  std::function<std::string()> token_;
};

}  // namespace app
}  // namespace k32
