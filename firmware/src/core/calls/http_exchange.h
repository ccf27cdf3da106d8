// One HTTP/1.1 request and its response over a CallStream, with the limits of a call to a
// host outside the cluster: response head limit (K32_ERR_IO past it), 1xx skipped,
// body delivered as it arrives and cut after `limit` bytes (K32_ERR_TOOBIG), a deadline
// over the whole exchange (K32_ERR_TIMEOUT), and a cancel flag (the pod stopped).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/calls/call_stream.h"
#include "core/http/http_message.h"

namespace k32 {
namespace calls {

struct ExchangeLimits {
  uint64_t deadline_ms = 0;  // port::monotonic_ms() value the exchange must end by
  size_t head_max = 1024;    // status line + headers
  size_t body_limit = 0;     // bytes delivered before K32_ERR_TOOBIG
  const std::atomic<bool>* cancel = nullptr;
  // Polled with `cancel`: true when whoever waits for the answer has gone (the egress
  // gateway's worker closed its connection), which ends the exchange.
  std::function<bool()> abandoned;
  // Called once with the final response's head before any body (the egress gateway
  // starts its streamed answer there); returning false ends the exchange (K32_ERR_IO).
  std::function<bool(int status, const std::vector<http::Header>& headers)> on_head;
};

struct ExchangeResult {
  int32_t rc = 0;  // the status (100..599) or a K32_ERR_* code
  int status = 0;  // the final response's status once its head arrived (also after TOOBIG)
  std::vector<http::Header> headers;
};

// Receives body bytes as they arrive; returning false ends the exchange (K32_ERR_IO).
using BodySink = std::function<bool(const char* data, size_t len)>;

// The request head: "<method> <target> HTTP/1.1", Host, the given headers, Content-Length
// when there is a body (or the method carries one), and Connection: close (or keep-alive
// for the node-to-node pool).
std::string build_request_head(const std::string& method, const std::string& target, const std::string& host_header,
                               const std::vector<http::Header>& headers, size_t body_len, bool keep_alive = false);

// Sends the request and reads the response; the body goes to `sink`.
ExchangeResult http_exchange(CallStream& s, const std::string& request_head, const uint8_t* body, size_t body_len,
                             bool head_request, const ExchangeLimits& lim, const BodySink& sink);

// Maps a port-level errno (-ECONNREFUSED ...) to the K32_ERR_* code a pod sees (ECONNREFUSED ->
// K32_ERR_CONNREFUSED, ETIMEDOUT -> K32_ERR_TIMEOUT, EHOSTUNREACH/ENETUNREACH ->
// K32_ERR_HOSTUNREACH, anything else K32_ERR_IO).
int32_t errno_to_k32(int err);

bool valid_method(const std::string& m);

}  // namespace calls
}  // namespace k32
