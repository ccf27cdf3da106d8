#include "core/calls/egress_gateway.h"

#include <cstdlib>
#include <cstring>

#include "core/calls/call_headers.h"
#include "core/calls/egress_client.h"
#include "core/calls/outside_call.h"
#include "core/netpol/netpol_eval.h"
#include "runtime/k32_app_abi.h"

namespace k32 {
namespace calls {

namespace {

// The HTTP status a gateway answer carries for a call that failed before the host answered.
int http_status_for(int32_t rc) {
  switch (rc) {
    case K32_ERR_PERM: return 403;
    case K32_ERR_INVAL: return 400;
    case K32_ERR_BUSY: return 503;
    case K32_ERR_TIMEOUT: return 504;
    default: return 502;  // NOENT, CONNREFUSED, HOSTUNREACH, IO, TLS, CERT
  }
}

void answer_error(http::ResponseWriter& w, int32_t rc, const std::string& message) {
  w.add_header(kEgressResultHeader, std::to_string(rc));
  if (rc == K32_ERR_BUSY) w.add_header("Retry-After", "1");
  w.close_after();
  w.send(http_status_for(rc), "text/plain", message + "\n");
}

// "GET https://host/path HTTP/1.1\r\nName: v\r\n\r\nbody"
bool parse_message(const std::string& m, std::string* method, std::string* url, std::vector<http::Header>* hs, std::string* body,
                   std::string* err) {
  size_t eol = m.find("\r\n");
  size_t end = m.find("\r\n\r\n");
  if (eol == std::string::npos || end == std::string::npos) {
    *err = "message/http body: no request line and blank line";
    return false;
  }
  std::string line = m.substr(0, eol);
  size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (sp1 == std::string::npos || sp2 == sp1 || line.compare(sp2 + 1, std::string::npos, "HTTP/1.1") != 0) {
    *err = "message/http body: request line must be \"METHOD URL HTTP/1.1\"";
    return false;
  }
  *method = line.substr(0, sp1);
  *url = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string header_text = end > eol ? m.substr(eol + 2, end - eol - 2 + 2) : std::string();
  if (!parse_call_headers(header_text, hs, err)) return false;
  *body = m.substr(end + 4);
  return true;
}

}  // namespace

netpol::Verdict store_policy_check(store::ObjectStore* store, const json::Value& pod, netpol::Destination dst,
                                   const std::string& target_pod) {
  const std::string ns = pod["metadata"]["namespace"].as_string();
  uint64_t rv = 0;
  std::vector<json::Value> pols = store->list("networking.k8s.io/networkpolicies", ns, &rv);
  std::vector<const json::Value*> ptrs;
  for (const auto& p : pols) ptrs.push_back(&p);
  json::Value target;
  if (!target_pod.empty()) {
    size_t slash = target_pod.find('/');
    std::string tns = target_pod.substr(0, slash);
    if (store->get("pods", tns, target_pod.substr(slash + 1), &target)) {
      dst.pod = &target;
      json::Value nsobj;
      if (store->get("namespaces", "", tns, &nsobj)) dst.namespace_labels = nsobj["metadata"]["labels"];
    }
  }
  return netpol::evaluate_egress(ptrs, pod, dst);
}

void EgressGateway::refuse(http::ResponseWriter& w, const std::string& peer, const std::string& pod, const std::string& reason) {
  refused_log_.log("[EGRESS] gateway refused " + peer + " (pod " + pod + "): " + reason);
  answer_error(w, K32_ERR_PERM, "egress refused: " + reason);
}

api::ExtraRoute EgressGateway::route() {
  return [this](http::Request& req, http::ResponseWriter& w, const api::RequestInfo*) {
    if (req.path != kEgressPath) return false;
    serve(req, w);
    return true;
  };
}

void EgressGateway::serve(http::Request& req, http::ResponseWriter& w) {
  if (env_.has_token && env_.has_token() && env_.authorized && !env_.authorized(req)) {
    bool have = false;
    std::string who = req.query_param("pod", &have);
    refuse(w, req.peer_ip, have ? who : "?", "missing or wrong bearer token");
    return;
  }
  if (req.method != "POST") {
    w.add_header("Allow", "POST");
    answer_error(w, K32_ERR_INVAL, "the egress gateway takes POST");
    return;
  }
  const std::string* ct = req.header("Content-Type");
  if (!ct || ct->compare(0, std::strlen(kEgressContentType), kEgressContentType) != 0) {
    answer_error(w, K32_ERR_INVAL, "Content-Type must be message/http");
    return;
  }
  bool have_pod = false;
  const std::string pod_key = req.query_param("pod", &have_pod);
  size_t slash = pod_key.find('/');
  if (!have_pod || slash == std::string::npos || slash == 0 || slash + 1 == pod_key.size()) {
    answer_error(w, K32_ERR_INVAL, "query parameter pod must be <namespace>/<name>");
    return;
  }
  json::Value pod;
  if (!env_.store->get("pods", pod_key.substr(0, slash), pod_key.substr(slash + 1), &pod)) {
    refuse(w, req.peer_ip, pod_key, "no such pod");
    return;
  }
  const std::string node = pod["spec"]["nodeName"].as_string();
  if (node.empty()) {
    refuse(w, req.peer_ip, pod_key, "pod is not bound to a node");
    return;
  }
  // With a token it was checked above; without one only the node the
  // pod is bound to may speak for it.
  if (!(env_.has_token && env_.has_token())) {
    json::Value n;
    std::string internal_ip;
    if (env_.store->get("nodes", "", node, &n))
      for (const auto& a : n["status"]["addresses"].items())
        if (a["type"].as_string() == "InternalIP") internal_ip = a["address"].as_string();
    if (internal_ip.empty() || internal_ip != req.peer_ip) {
      refuse(w, req.peer_ip, pod_key, "not the InternalIP of node " + node);
      return;
    }
  }
  uint64_t timeout = 0, limit = 0;
  bool have_t = false, have_l = false;
  std::string ts = req.query_param("timeout", &have_t), ls = req.query_param("limit", &have_l);
  char* e1 = nullptr;
  char* e2 = nullptr;
  timeout = have_t ? std::strtoull(ts.c_str(), &e1, 10) : 0;
  limit = have_l ? std::strtoull(ls.c_str(), &e2, 10) : 0;
  if (!have_t || !have_l || ts.empty() || ls.empty() || *e1 || *e2 || limit > 0x7fffffffull) {
    answer_error(w, K32_ERR_INVAL, "query parameters timeout and limit must be unsigned integers");
    return;
  }
  std::string method, url_s, body, err;
  std::vector<http::Header> hs;
  CallUrl url;
  if (!parse_message(req.body, &method, &url_s, &hs, &body, &err) || !valid_method(method) ||
      !parse_call_url(url_s, &url, &err) || !url.https) {
    answer_error(w, K32_ERR_INVAL, err.empty() ? "the message must be an https:// request" : err);
    return;
  }
  const uint64_t deadline = port::monotonic_ms() + effective_timeout_ms(static_cast<uint32_t>(timeout));
  OutsideRequest rq;
  rq.method = method;
  rq.url = url;
  rq.headers = hs;
  rq.body = reinterpret_cast<const uint8_t*>(body.data());
  rq.body_len = body.size();
  rq.limits.deadline_ms = deadline;
  rq.limits.head_max = env_.head_max;
  rq.limits.body_limit = static_cast<size_t>(limit) + 1;  // limit + 1 tells the worker it overflowed
  const port::Socket worker = w.socket();
  rq.limits.abandoned = [worker] { return port::tcp_peer_closed(worker); };  // frees the session early
  int32_t rc = resolve_outside(url.host, deadline, &rq.ip);
  if (rc != 0) {
    answer_error(w, rc, "cannot resolve " + url.host);
    return;
  }
  const std::string target = "https://" + url.host + ":" + std::to_string(outside_port(url));
  netpol::Destination d;
  d.ip = rq.ip;
  d.port = outside_port(url);
  netpol::Verdict v = store_policy_check(env_.store, pod, d, "");
  if (!v.allowed) {
    netpol_log_.log("[NETPOL] " + pod_key + " -> " + target + " denied: " + v.reason);
    answer_error(w, K32_ERR_PERM, "denied by NetworkPolicy");
    return;
  }
  bool streaming = false;
  rq.limits.on_head = [&](int status, const std::vector<http::Header>& rh) {
    w.add_header(kEgressResultHeader, std::to_string(status));
    for (const auto& h : rh)
      if (header_name_is(h.name, "Content-Type") || header_name_is(h.name, "Location")) w.add_header(h.name, h.value);
    w.close_after();
    streaming = true;
    return w.begin_stream(status, "");
  };
  OutsideResult r = call_outside(
      rq, [&](const char* data, size_t n) { return w.write_chunk(std::string(data, n)); }, env_.sessions);
  if (!streaming) {
    if (r.rc == K32_ERR_CERT) cert_log_.log("[EGRESS] " + pod_key + " -> " + target + ": certificate rejected: " + r.reason);
    answer_error(w, r.rc < 0 ? r.rc : K32_ERR_IO, r.reason.empty() ? "call failed" : r.reason);
    return;
  }
  if (r.rc >= 100 || r.rc == K32_ERR_TOOBIG) {
    w.end_stream();
  } else {
    port::tcp_shutdown(w.socket());  // the host failed mid-body: the worker sees a cut answer
  }
}

}  // namespace calls
}  // namespace k32
