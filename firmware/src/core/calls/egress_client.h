// A worker's side of the egress gateway: each https:// call of its pods becomes POST
// /apis/kube32.io/v1/egress on the control plane, because only the control plane makes TLS
// connections (its session threads and mbedTLS buffers live in PSRAM, which the worker
// boards lack).
#pragma once
#include <string>
#include <vector>

#include "core/calls/call_client.h"

namespace k32 {
namespace calls {

constexpr const char* kEgressPath = "/apis/kube32.io/v1/egress";
constexpr const char* kEgressResultHeader = "X-Kube32-Egress-Result";
constexpr const char* kEgressContentType = "message/http";

struct GatewayTarget {
  std::string ip;  // the control plane's API address
  uint16_t port = 0;
  std::string token;     // the cluster bearer token; empty when the API server has none
  std::string local_ip;  // connect from the node's address (the gateway checks InternalIP)
};

// The message/http body: request line with the absolute https:// URL, the headers, the body.
std::string egress_message(const std::string& method, const CallUrl& url, const std::vector<http::Header>& headers,
                           const uint8_t* body, size_t body_len);

// Forwards one call; fills rep (status, copied bytes) and returns the pod's code:
// the host's status, the K32_ERR_* of X-Kube32-Egress-Result, K32_ERR_NOTSUP for a 404
// without it (no gateway), K32_ERR_PERM for 401/403 without it.
int32_t call_via_gateway(const GatewayTarget& gw, const CallArgs& a, const CallUrl& url, const std::vector<http::Header>& headers,
                         uint64_t deadline_ms, size_t head_max, CallReply* rep);

}  // namespace calls
}  // namespace k32
