#include "core/kubelet/api_client.h"
#include "k32_board.h"

namespace k32 {
namespace kubelet {

int ApiClient::get_raw(const std::string& path, std::string* body, uint32_t timeout_ms) {
  std::vector<http::Header> headers{{"Accept", "application/json"}, {"User-Agent", "kube32-kubelet"}};
  std::string tok = token_ ? token_() : std::string();
  if (!tok.empty()) headers.push_back({"Authorization", "Bearer " + tok});
  http::ClientResponse resp;
  int rc = http::request(ep_, "GET", path, headers, std::string(), timeout_ms, K32_NODE_API_REPLY_MAX, &resp);
  if (rc != 0) return rc;
  *body = std::move(resp.body);
  return resp.status;
}

int ApiClient::call(const std::string& method, const std::string& path, const json::Value* body, json::Value* out,
                    uint32_t timeout_ms) {
  std::vector<http::Header> headers{{"Accept", "application/json"}, {"User-Agent", "kube32-kubelet"}};
  // The kubelet's PATCHes are merge patches of a pod's status (only the fields it owns).
  if (body) headers.push_back({"Content-Type", method == "PATCH" ? "application/merge-patch+json" : "application/json"});
  std::string tok = token_ ? token_() : std::string();
  if (!tok.empty()) headers.push_back({"Authorization", "Bearer " + tok});
  http::ClientResponse resp;
  int rc = http::request(ep_, method, path, headers, body ? json::dump(*body) : std::string(), timeout_ms, K32_NODE_API_REPLY_MAX,
                         &resp);
  if (rc != 0) return rc;
  if (out) {
    json::ParseError pe;
    // managedFields: nothing on a node reads them, and they are a large share of each object.
    if (!json::parse_dropping(resp.body, "managedFields", out, &pe)) *out = json::Value();
  }
  return resp.status;
}

}  // namespace kubelet
}  // namespace k32
