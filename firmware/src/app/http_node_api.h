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
  int get_view(const std::string& path, const char* const* drop_keys, json::Value* out) override;

 private:
  // drop_keys: the member names the parse leaves out (nullptr: managedFields).
  int call(const std::string& method, const std::string& path, const json::Value* body, json::Value* out,
           const char* const* drop_keys = nullptr);
  http::Endpoint ep_;
  std::function<std::string()> token_;
};

}  // namespace app
}  // namespace k32
