// The kubelet's view of the API server: JSON over HTTP, the same on the control plane
// (to itself) and on workers.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/http/http_client.h"
#include "core/json/json.h"

namespace k32 {
namespace kubelet {

class ApiClient {
 public:
  ApiClient(http::Endpoint ep, std::function<std::string()> token) : ep_(std::move(ep)), token_(std::move(token)) {}
  // HTTP status, or a negative transport error; *out holds the parsed body (null if none).
  // timeout_ms bounds connect, request and response.
  int call(const std::string& method, const std::string& path, const json::Value* body, json::Value* out,
           uint32_t timeout_ms = kDefaultTimeoutMs);
  // GET with the body unparsed (the kubelet reads its pod list one item at a time).
  int get_raw(const std::string& path, std::string* body, uint32_t timeout_ms = kDefaultTimeoutMs);
  // A list read a page of K32_NODE_LIST_PAGE items at a time (limit and continue, in the
  // API server's key order): fn gets each item's raw JSON and may stop the walk by returning
  // false. HTTP status of the failing page (or a negative transport error), 200 when every
  // page read; *malformed set when a page was not a list. The peak is one page, not the list.
  int for_each_item(const std::string& path, const std::function<bool(const char*, size_t)>& fn, bool* malformed,
                    uint32_t timeout_ms = kDefaultTimeoutMs);
  // One page of that walk, for a caller that acts on each page once its bytes are freed:
  // *cont is the continue token to read from ("" for the first page) and, on return, the
  // next page's ("" after the last page, a failed or malformed one, or fn stopping).
  int read_page(const std::string& path, std::string* cont, const std::function<bool(const char*, size_t)>& fn, bool* malformed,
                uint32_t timeout_ms = kDefaultTimeoutMs);
  static constexpr uint32_t kDefaultTimeoutMs = 10000;
  const http::Endpoint& endpoint() const { return ep_; }

 private:
  int send(const std::string& method, const std::string& path, const std::vector<http::Header>& headers, const std::string& body,
           uint32_t timeout_ms, http::ClientResponse* resp);
  http::Endpoint ep_;
  std::function<std::string()> token_;
};

}  // namespace kubelet
}  // namespace k32
