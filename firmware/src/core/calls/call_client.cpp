#include "core/calls/call_client.h"

#include <cstring>

#include "core/calls/call_headers.h"
#include "core/calls/outside_call.h"
#include "k32_board.h"
#include "runtime/k32_app_abi.h"

namespace k32 {
namespace calls {

uint32_t effective_timeout_ms(uint32_t requested) {
  if (requested == 0) return K32_CALL_TIMEOUT_DEFAULT_MS;
  return requested > K32_CALL_TIMEOUT_MAX_MS ? K32_CALL_TIMEOUT_MAX_MS : requested;
}

void CallClient::log_denied(const CallArgs& a, const std::string& target, const std::string& reason) {
  netpol_log_.log("[NETPOL] " + a.caller_ns + "/" + a.caller_name + " -> " + target + " denied: " + reason);
}

CallReply CallClient::call_outside_host(const CallArgs& a, const CallUrl& url, const std::vector<http::Header>& hs,
                                        uint64_t deadline) {
  CallReply rep;
  if (url.https && !env_.control_plane) {
    // Workers make no TLS connections: the gateway checks policy with the control plane's store.
    if (!env_.egress) {
      rep.rc = K32_ERR_NOTSUP;
      return rep;
    }
    rep.rc = env_.egress(a, url, hs, deadline, &rep);
    return rep;
  }
  OutsideRequest rq;
  rq.method = a.method;
  rq.url = url;
  rq.headers = hs;
  rq.body = a.body;
  rq.body_len = a.body_len;
  rq.limits.deadline_ms = deadline;
  rq.limits.head_max = env_.head_max;
  rq.limits.body_limit = a.resp_cap;
  rq.limits.cancel = a.cancel;
  rep.rc = resolve_outside(url.host, deadline, &rq.ip);
  if (rep.rc != 0) return rep;
  const std::string target = std::string(url.https ? "https://" : "http://") + url.host + ":" + std::to_string(outside_port(url));
  if (env_.policy) {
    netpol::Destination d;
    d.ip = rq.ip;
    d.port = outside_port(url);
    netpol::Verdict v = env_.policy(a, d, "");
    if (!v.allowed) {
      log_denied(a, target, v.reason);
      rep.rc = K32_ERR_PERM;
      return rep;
    }
  }
  size_t copied = 0;
  BodySink sink = [&](const char* d, size_t n) {
    std::memcpy(a.resp + copied, d, n);
    copied += n;
    return true;
  };
  OutsideResult r = call_outside(rq, sink, env_.sessions);
  if (r.rc == K32_ERR_CERT)
    cert_log_.log("[EGRESS] " + a.caller_ns + "/" + a.caller_name + " -> " + target + ": certificate rejected: " + r.reason);
  rep.rc = r.rc;
  rep.status = r.status;
  rep.resp_len = static_cast<uint32_t>(copied);
  return rep;
}

CallReply CallClient::call(const CallArgs& a) {
  CallReply rep;
  const uint64_t deadline = port::monotonic_ms() + effective_timeout_ms(a.timeout_ms);
  CallUrl url;
  std::string err;
  std::vector<http::Header> hs;
  if (!valid_method(a.method) || !parse_call_url(a.url, &url, &err) || !parse_call_headers(a.headers, &hs, &err) ||
      (a.resp_cap > 0 && !a.resp) || (a.body_len > 0 && !a.body)) {
    rep.rc = K32_ERR_INVAL;
    return rep;
  }
  if (!url.https) {
    NameTarget t = classify_host(url.host, a.caller_ns);
    if (t.kind == NameTarget::Service) {
      int32_t rc = K32_ERR_NOENT;
      bool exists = false;
      if (env_.service) {
        ServiceCall sc;
        sc.args = &a;
        sc.service = t.service;
        sc.ns = t.ns;
        sc.port = url.port;
        sc.path = url.path;
        sc.headers = headers_for_pod(hs);
        sc.deadline_ms = deadline;
        rc = env_.service(sc, &rep, &exists);
      }
      if (exists || !t.outside_fallback) {
        rep.rc = rc;
        return rep;
      }
      rep = CallReply();  // no such Service: <svc>.<ns> is a host outside the cluster
    }
  }
  return call_outside_host(a, url, hs, deadline);
}

}  // namespace calls
}  // namespace k32
