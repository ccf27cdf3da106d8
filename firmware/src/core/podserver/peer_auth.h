// Who may use a node's pod server (port 7000 on boards). Its callers are nodes only: the
// control plane's ingress and log proxy, and the service calls of pods on other nodes.
// The rule is the egress gateway's: when the cluster has a bearer token the request must
// carry it (in X-Kube32-Token, so that a pod's own Authorization header passes through
// untouched), and without a token it must come from the InternalIP of a Node of the
// cluster (or this node's own address). Everyone else is refused before any routing
// header (X-Kube32-Pod, X-Kube32-Call-Chain) is looked at.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/http/http_message.h"
#include "port.h"

namespace k32 {
namespace podserver {

constexpr const char* kTokenHeader = "X-Kube32-Token";

// Constant-time comparison of a presented token with the cluster's (the token guards the
// whole cluster, so its bytes must not leak through timing).
bool token_matches(const std::string& given, const std::string& token);

class PeerAuth {
 public:
  // The cluster's bearer token now ("" = none; it changes on the console).
  using Token = std::function<std::string()>;
  // The InternalIPs of the cluster's Nodes; false when they could not be read.
  using ListNodeIps = std::function<bool(std::vector<std::string>* out)>;

  // refresh_ms: an address not in the list triggers a new listing at most this often, so a
  // stranger cannot make the node hammer the API, and a new node is known within it.
  // always: addresses accepted without a listing (this node, the control plane).
  PeerAuth(Token token, std::vector<std::string> always, ListNodeIps list, uint32_t refresh_ms)
      : token_(std::move(token)), always_(std::move(always)), list_(std::move(list)), refresh_ms_(refresh_ms) {}

  // 0 when the caller is a node of the cluster; otherwise the HTTP status to answer
  // (401 without/with a wrong token, 403 from an address that is not a node) and *why.
  int check(const http::Request& rq, uint64_t now_ms, std::string* why);

 private:
  bool is_node_ip(const std::string& ip, uint64_t now_ms);

  Token token_;
  std::vector<std::string> always_;
  ListNodeIps list_;
  uint32_t refresh_ms_;
  // Readers copy the pointer under the lock and search outside it; a refresh lists without
  // the lock and swaps in a new list, so a check never waits for another's API read.
  port::Mutex mu_;
  std::shared_ptr<const std::vector<std::string>> ips_;
  uint64_t listed_ms_ = 0;
  bool listing_ = false;
};

}  // namespace podserver
}  // namespace k32
