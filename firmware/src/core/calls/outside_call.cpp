#include "core/calls/outside_call.h"

#include "core/calls/call_headers.h"
#include "runtime/k32_app_abi.h"

namespace k32 {
namespace calls {

namespace {

uint32_t left_ms(uint64_t deadline) {
  uint64_t now = port::monotonic_ms();
  return now >= deadline ? 0 : static_cast<uint32_t>(deadline - now);
}

std::string host_header(const CallUrl& url) {
  uint16_t dflt = url.https ? kHttpsPort : kHttpPort;
  return url.port && url.port != dflt ? url.host + ":" + std::to_string(url.port) : url.host;
}

OutsideResult exchange(CallStream& s, const OutsideRequest& rq, const BodySink& sink) {
  std::string head =
      build_request_head(rq.method, rq.url.path, host_header(rq.url), headers_for_outside(rq.headers), rq.body_len);
  ExchangeResult x = http_exchange(s, head, rq.body, rq.body_len, rq.method == "HEAD", rq.limits, sink);
  OutsideResult r;
  r.rc = x.rc;
  r.status = x.status;
  return r;
}

// Connects within the deadline; the K32 code on failure.
int32_t connect(const OutsideRequest& rq, port::Socket* s) {
  uint32_t left = left_ms(rq.limits.deadline_ms);
  if (left == 0) return K32_ERR_TIMEOUT;
  int err = 0;
  *s = port::tcp_connect(rq.ip.c_str(), outside_port(rq.url), left, &err);
  return *s == port::kNoSocket ? errno_to_k32(err) : 0;
}

OutsideResult plain_call(const OutsideRequest& rq, const BodySink& sink) {
  OutsideResult r;
  port::Socket s;
  r.rc = connect(rq, &s);
  if (r.rc != 0) return r;
  TcpStream stream(s);
  r = exchange(stream, rq, sink);
  port::tcp_close(s);  // also when the body went past resp_cap: the rest is never read
  return r;
}

OutsideResult tls_call(const OutsideRequest& rq, const BodySink& sink) {
  OutsideResult r;
  port::Socket s;
  r.rc = connect(rq, &s);
  if (r.rc != 0) return r;
  port::TlsFail fail = port::TlsFail::None;
  char reason[200] = {0};
  port::TlsClient* t =
      port::tls_client_connect(s, rq.url.host.c_str(), left_ms(rq.limits.deadline_ms), &fail, reason, sizeof reason);
  if (!t) {
    port::tcp_close(s);
    r.rc = fail == port::TlsFail::Cert ? K32_ERR_CERT : fail == port::TlsFail::Timeout ? K32_ERR_TIMEOUT : K32_ERR_TLS;
    r.reason = reason;
    return r;
  }
  TlsStream stream(t);
  r = exchange(stream, rq, sink);
  port::tls_client_free(t);
  port::tcp_close(s);
  return r;
}

}  // namespace

uint16_t outside_port(const CallUrl& url) { return url.port ? url.port : (url.https ? kHttpsPort : kHttpPort); }

int32_t resolve_outside(const std::string& host, uint64_t deadline_ms, std::string* ip) {
  if (is_ipv4_literal(host)) {
    *ip = host;
    return 0;
  }
  uint32_t left = left_ms(deadline_ms);
  if (left == 0) return K32_ERR_TIMEOUT;
  char buf[16];
  if (!port::resolve_ipv4(host.c_str(), buf, sizeof buf, left))
    return left_ms(deadline_ms) == 0 ? K32_ERR_TIMEOUT : K32_ERR_NOENT;
  *ip = buf;
  return 0;
}

OutsideResult call_outside(const OutsideRequest& rq, const BodySink& sink, TlsSessions* sessions) {
  if (!rq.url.https) return plain_call(rq, sink);
  OutsideResult r;
  if (!sessions) {
    r.rc = K32_ERR_NOTSUP;
    return r;
  }
  std::function<int32_t()> job = [&]() -> int32_t {
    r = tls_call(rq, sink);
    return r.rc;
  };
  int32_t rc = sessions->run(job);
  if (rc == K32_ERR_BUSY && r.rc == 0) r.rc = K32_ERR_BUSY;
  return r;
}

}  // namespace calls
}  // namespace k32
