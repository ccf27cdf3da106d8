#include "app/http_node_api.h"

#include <cerrno>

#include "core/util/own_work.h"
#include "k32_board.h"

namespace k32 {
namespace app {

int HttpNodeApi::call(const std::string& method, const std::string& path, const json::Value* body, json::Value* out,
                      const char* const* drop_keys) {
  // The request's text, the reply and its tree: one piece of the node's own work, taking its
  // turn with the kubelet's (util/own_work.h).
  util::OwnWorkTurn turn;
  std::vector<http::Header> headers{{"Accept", "application/json"}, {"User-Agent", "kube32-kubelet"}};
  if (body) headers.push_back({"Content-Type", method == "PATCH" ? "application/merge-patch+json" : "application/json"});
  std::string tok = token_();
  if (!tok.empty()) headers.push_back({"Authorization", "Bearer " + tok});
  http::ClientResponse resp;
  int rc =
      http::request(ep_, method, path, headers, body ? json::dump(*body) : std::string(), 10000, K32_NODE_API_REPLY_MAX, &resp);
  if (rc != 0) return rc;
  if (!out) return resp.status;
  *out = json::Value();
  if (!util::heap_holds_json(resp.body.size())) return -ENOMEM;  // the next beat tries again
  json::ParseError pe;
  // managedFields: nothing on a node reads them, and they are a large share of each object.
  static const char* const kManagedFields[] = {"managedFields", nullptr};
  if (!json::parse_dropping_any(resp.body, drop_keys ? drop_keys : kManagedFields, out, &pe)) *out = json::Value();
  return resp.status;
}

int HttpNodeApi::get(const std::string& path, json::Value* out) { return call("GET", path, nullptr, out); }
int HttpNodeApi::get_view(const std::string& path, const char* const* drop_keys, json::Value* out) {
  return call("GET", path, nullptr, out, drop_keys);
}
int HttpNodeApi::create(const std::string& path, const json::Value& obj, json::Value* out) {
  return call("POST", path, &obj, out);
}
int HttpNodeApi::patch(const std::string& path, const json::Value& patch, json::Value* out) {
  return call("PATCH", path, &patch, out);
}
int HttpNodeApi::replace(const std::string& path, const json::Value& obj, json::Value* out) {
  return call("PUT", path, &obj, out);
}

}  // namespace app
}  // namespace k32
