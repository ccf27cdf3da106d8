#include "core/kubelet/api_client.h"

#include <cerrno>

#include "core/kubelet/pod_list.h"
#include "core/util/own_work.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace kubelet {

// A 503 from the API server means every connection was busy and nothing of the request was
// read (it says Retry-After): sending it again is safe for any method, and a pod's start
// must not fail on a busy moment while the node's other pods start too.
int ApiClient::send(const std::string& method, const std::string& path, const std::vector<http::Header>& headers,
                    const std::string& body, uint32_t timeout_ms, http::ClientResponse* resp) {
  int rc = 0;
  for (uint32_t attempt = 0;; ++attempt) {
    *resp = http::ClientResponse();
    rc = http::request(ep_, method, path, headers, body, timeout_ms, K32_NODE_API_REPLY_MAX, resp);
    if (rc != 0 || resp->status != 503 || attempt + 1 >= K32_NODE_API_BUSY_RETRIES) return rc;
    port::sleep_ms(K32_NODE_API_BUSY_WAIT_MS);
  }
}

int ApiClient::get_raw(const std::string& path, std::string* body, uint32_t timeout_ms) {
  util::OwnWorkTurn turn;  // the reply is the node's heap until the caller drops it (own_work.h)
  std::vector<http::Header> headers{{"Accept", "application/json"}, {"User-Agent", "kube32-kubelet"}};
  std::string tok = token_ ? token_() : std::string();
  if (!tok.empty()) headers.push_back({"Authorization", "Bearer " + tok});
  http::ClientResponse resp;
  int rc = send("GET", path, headers, std::string(), timeout_ms, &resp);
  if (rc != 0) return rc;
  *body = std::move(resp.body);
  return resp.status;
}

int ApiClient::read_page(const std::string& path, std::string* cont, const std::function<bool(const char*, size_t)>& fn,
                         bool* malformed, uint32_t timeout_ms) {
  *malformed = false;
  // The page's body and what fn makes of each item are one piece of the node's own work.
  util::OwnWorkTurn turn;
  const std::string first = path + (path.find('?') == std::string::npos ? "?" : "&") +
                            "limit=" + text::to_string(static_cast<int64_t>(K32_NODE_LIST_PAGE));
  std::string body;
  // The token is namespace/name: DNS labels and one slash, nothing to escape.
  int rc = get_raw(cont->empty() ? first : first + "&continue=" + *cont, &body, timeout_ms);
  cont->clear();
  if (rc != 200) return rc;
  bool stopped = false;
  if (!for_each_list_item(body, [&](const char* data, size_t len) { return !(stopped = !fn(data, len)); })) {
    *malformed = true;
    return rc;
  }
  if (!stopped) *cont = list_continue(body);
  return rc;
}

int ApiClient::for_each_item(const std::string& path, const std::function<bool(const char*, size_t)>& fn, bool* malformed,
                             uint32_t timeout_ms) {
  std::string cont;
  for (;;) {
    int rc = read_page(path, &cont, fn, malformed, timeout_ms);
    if (rc != 200 || *malformed || cont.empty()) return rc;
  }
}

int ApiClient::call(const std::string& method, const std::string& path, const json::Value* body, json::Value* out,
                    uint32_t timeout_ms) {
  // The request's text, the reply and its tree: one piece of the node's own work (own_work.h).
  util::OwnWorkTurn turn;
  std::vector<http::Header> headers{{"Accept", "application/json"}, {"User-Agent", "kube32-kubelet"}};
  // The kubelet's PATCHes are merge patches of a pod's status (only the fields it owns).
  if (body) headers.push_back({"Content-Type", method == "PATCH" ? "application/merge-patch+json" : "application/json"});
  std::string tok = token_ ? token_() : std::string();
  if (!tok.empty()) headers.push_back({"Authorization", "Bearer " + tok});
  http::ClientResponse resp;
  int rc = send(method, path, headers, body ? json::dump(*body) : std::string(), timeout_ms, &resp);
  if (rc != 0) return rc;
  if (out) {
    *out = json::Value();
    if (!util::heap_holds_json(resp.body.size())) return -ENOMEM;  // the caller tries again later
    json::ParseError pe;
    // managedFields: nothing on a node reads them, and they are a large share of each object.
    if (!json::parse_dropping(resp.body, "managedFields", out, &pe)) *out = json::Value();
  }
  return resp.status;
}

}  // namespace kubelet
}  // namespace k32
