#include "core/calls/egress_client.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "core/calls/call_headers.h"
#include "core/calls/outside_call.h"
#include "runtime/k32_app_abi.h"

namespace k32 {
namespace calls {

namespace {
std::string pct(const std::string& s) {
  static const char hex[] = "0123456789ABCDEF";
  std::string o;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      o += static_cast<char>(c);
    } else {
      o += '%';
      o += hex[c >> 4];
      o += hex[c & 15];
    }
  }
  return o;
}
}  // namespace

std::string egress_message(const std::string& method, const CallUrl& url, const std::vector<http::Header>& headers,
                           const uint8_t* body, size_t body_len) {
  std::string m = method + " https://" + url.host;
  if (url.port) m += ":" + std::to_string(url.port);
  m += url.path + " HTTP/1.1\r\n";
  for (const auto& h : headers) m += h.name + ": " + h.value + "\r\n";
  m += "\r\n";
  if (body_len) m.append(reinterpret_cast<const char*>(body), body_len);
  return m;
}

int32_t call_via_gateway(const GatewayTarget& gw, const CallArgs& a, const CallUrl& url, const std::vector<http::Header>& headers,
                         uint64_t deadline_ms, size_t head_max, CallReply* rep) {
  uint64_t now = port::monotonic_ms();
  if (now >= deadline_ms) return K32_ERR_TIMEOUT;
  uint32_t left = static_cast<uint32_t>(deadline_ms - now);
  int err = 0;
  port::Socket s = port::tcp_connect_from(gw.local_ip.c_str(), gw.ip.c_str(), gw.port, left, &err);
  if (s == port::kNoSocket) {
    int32_t rc = errno_to_k32(err);
    return rc == K32_ERR_TIMEOUT ? rc : K32_ERR_IO;  // the control plane is unreachable
  }
  std::string msg = egress_message(a.method, url, headers_for_outside(headers), a.body, a.body_len);
  std::string target = std::string(kEgressPath) + "?pod=" + pct(a.caller_ns + "/" + a.caller_name) +
                       "&timeout=" + std::to_string(deadline_ms - port::monotonic_ms()) + "&limit=" + std::to_string(a.resp_cap);
  std::vector<http::Header> hs = {{"Content-Type", kEgressContentType}};
  if (!gw.token.empty()) hs.push_back({"Authorization", "Bearer " + gw.token});
  std::string head = build_request_head("POST", target, gw.ip + ":" + std::to_string(gw.port), hs, msg.size());

  ExchangeLimits lim;
  lim.deadline_ms = deadline_ms;
  lim.head_max = head_max;
  lim.body_limit = a.resp_cap;
  lim.cancel = a.cancel;
  size_t copied = 0;
  TcpStream stream(s);
  ExchangeResult x = http_exchange(stream, head, reinterpret_cast<const uint8_t*>(msg.data()), msg.size(), false, lim,
                                   [&](const char* d, size_t n) {
                                     std::memcpy(a.resp + copied, d, n);
                                     copied += n;
                                     return true;
                                   });
  port::tcp_close(s);  // closing ends the gateway's call and frees its session
  rep->resp_len = static_cast<uint32_t>(copied);
  const std::string* result = nullptr;
  for (const auto& h : x.headers)
    if (header_name_is(h.name, kEgressResultHeader)) result = &h.value;
  if (x.status == 0) return x.rc == K32_ERR_TIMEOUT ? x.rc : (x.rc == K32_ERR_IO ? K32_ERR_IO : x.rc);
  if (!result) {
    // Not the gateway's answer about the host (no result header): an API server that has no
    // gateway (404) or refused us. Its body is not the host's, so none of it reaches the pod.
    rep->resp_len = 0;
    if (x.status == 404) return K32_ERR_NOTSUP;
    if (x.status == 401 || x.status == 403) return K32_ERR_PERM;
    return K32_ERR_IO;
  }
  long code = std::strtol(result->c_str(), nullptr, 10);
  if (code < 0) {
    rep->resp_len = 0;
    return static_cast<int32_t>(code);
  }
  rep->status = static_cast<int>(code);
  return x.rc == K32_ERR_TOOBIG || x.rc < 0 ? x.rc : static_cast<int32_t>(code);
}

}  // namespace calls
}  // namespace k32
