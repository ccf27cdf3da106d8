// Calls to hosts outside the cluster:
// the node's resolver, one connection per call with Connection: close, forwarded
// headers filtered, plain HTTP from any node and TLS 1.2 on a session thread.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/calls/call_url.h"
#include "core/calls/http_exchange.h"
#include "core/calls/tls_sessions.h"

namespace k32 {
namespace calls {

struct OutsideRequest {
  std::string method;
  CallUrl url;
  std::string ip;                     // resolved address (the one NetworkPolicy was checked against)
  std::vector<http::Header> headers;  // the caller's, filtered here
  const uint8_t* body = nullptr;
  size_t body_len = 0;
  ExchangeLimits limits;
};

struct OutsideResult {
  int32_t rc = 0;      // status or K32_ERR_*
  int status = 0;      // the response's status when one arrived
  std::string reason;  // certificate or handshake failure reason (for [EGRESS] lines)
};

// Resolves a host name with the node's resolver within the deadline; K32_ERR_NOENT when it
// does not resolve, K32_ERR_TIMEOUT when the deadline passed.
int32_t resolve_outside(const std::string& host, uint64_t deadline_ms, std::string* ip);

uint16_t outside_port(const CallUrl& url);

// Makes the call; https:// runs on one of `sessions` (K32_ERR_BUSY when all are in use).
OutsideResult call_outside(const OutsideRequest& rq, const BodySink& sink, TlsSessions* sessions);

}  // namespace calls
}  // namespace k32
