// k32_http_call on a node: argument checks, URL and name resolution, NetworkPolicy,
// and the route of each call — a Service (through the in-cluster hook), a host outside
// the cluster over plain HTTP, https:// on the control plane's TLS sessions or, on a
// worker, through the control plane's egress gateway. Return codes are the K32_ERR_* values of
// k32_app_abi.h, or the HTTP status of the answer.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/calls/call_url.h"
#include "core/calls/http_exchange.h"
#include "core/calls/tls_sessions.h"
#include "core/netpol/netpol_eval.h"
#include "core/util/log.h"

namespace k32 {
namespace calls {

struct CallArgs {
  std::string caller_ns;
  std::string caller_name;
  std::string method;
  std::string url;
  std::string headers;  // "Name: value\r\n" lines
  const uint8_t* body = nullptr;
  size_t body_len = 0;
  uint8_t* resp = nullptr;
  size_t resp_cap = 0;
  uint32_t timeout_ms = 0;                    // 0: K32_CALL_TIMEOUT_DEFAULT_MS
  const std::atomic<bool>* cancel = nullptr;  // set when the pod is stopping
  std::string call_chain;                     // the X-Kube32-Call-Chain of the request the caller is handling
};

struct CallReply {
  int32_t rc = 0;  // what k32_http_call returns
  int status = 0;  // what k32_http_status returns afterwards
  uint32_t resp_len = 0;
};

// A call to a Service, handed to the in-cluster layer (service_call.h) with everything
// already parsed; it fills the reply and applies NetworkPolicy to the pods it picks.
struct ServiceCall {
  const CallArgs* args;
  std::string service, ns;
  uint16_t port = 0;  // 0: the Service's first port
  std::string path;
  std::vector<http::Header> headers;  // already filtered to the four forwarded ones
  uint64_t deadline_ms = 0;
};

struct CallEnv {
  bool control_plane = true;
  size_t head_max = 1024;
  TlsSessions* sessions = nullptr;  // control plane: makes https:// connections
  // Decides one connection; empty: every connection allowed.
  std::function<netpol::Verdict(const CallArgs&, const netpol::Destination&, const std::string& target_pod)> policy;
  // In-cluster Services: returns the call's code and sets *exists to whether the
  // Service exists (a <svc>.<ns> name without one is a host outside). Empty: none exist.
  std::function<int32_t(const ServiceCall&, CallReply*, bool* exists)> service;
  // Worker: forwards an https:// call to the egress gateway. Empty: K32_ERR_NOTSUP.
  std::function<int32_t(const CallArgs&, const CallUrl&, const std::vector<http::Header>&, uint64_t deadline_ms, CallReply*)>
      egress;
};

class CallClient {
 public:
  explicit CallClient(CallEnv env) : env_(std::move(env)) {}
  CallReply call(const CallArgs& a);
  const CallEnv& env() const { return env_; }

  // The [NETPOL] line, at most one per second so a pod retrying in a loop cannot flood the log.
  void log_denied(const CallArgs& a, const std::string& target, const std::string& reason);

 private:
  CallReply call_outside_host(const CallArgs& a, const CallUrl& url, const std::vector<http::Header>& hs, uint64_t deadline);
  CallEnv env_;
  RateLimitedLog netpol_log_;
  RateLimitedLog cert_log_;
};

// Effective timeout: 0 -> default, capped at the maximum.
uint32_t effective_timeout_ms(uint32_t requested);

}  // namespace calls
}  // namespace k32
