// The control plane's egress gateway: makes https:// calls
// for pods on workers, on behalf of their nodes, checked against the pods'
// NetworkPolicies in the object store, and streams the host's answer back chunked.
#pragma once
#include <functional>
#include <string>

#include "core/api/api_server.h"
#include "core/calls/call_client.h"
#include "core/calls/tls_sessions.h"
#include "core/store/object_store.h"

namespace k32 {
namespace calls {

struct EgressGatewayEnv {
  store::ObjectStore* store = nullptr;
  TlsSessions* sessions = nullptr;
  size_t head_max = 8192;
  // True when the API server has a bearer token (then it already checked the request's).
  std::function<bool()> has_token;
  // Whether the request carries the API server's bearer token (checked here, not by the
  // API server, so a refusal is logged as the gateway's).
  std::function<bool(const http::Request&)> authorized;
};

class EgressGateway {
 public:
  explicit EgressGateway(EgressGatewayEnv env) : env_(std::move(env)) {}
  // Mount with ApiServer::add_route(gw.route(), true): it checks the bearer token itself.
  api::ExtraRoute route();
  // Serves one request to the egress path (exposed for tests).
  void serve(http::Request& req, http::ResponseWriter& w);

 private:
  void refuse(http::ResponseWriter& w, const std::string& peer, const std::string& pod, const std::string& reason);
  EgressGatewayEnv env_;
  RateLimitedLog refused_log_;
  RateLimitedLog netpol_log_;
  RateLimitedLog cert_log_;
};

// Checks one connection of a pod against the NetworkPolicies of its namespace in the
// store (the control plane's own pods and the gateway share this).
netpol::Verdict store_policy_check(store::ObjectStore* store, const json::Value& pod, netpol::Destination dst,
                                   const std::string& target_pod);

}  // namespace calls
}  // namespace k32
