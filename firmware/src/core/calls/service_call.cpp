#include "core/calls/service_call.h"

#include <cstring>

#include "core/api/endpoints_view.h"
#include "core/calls/call_headers.h"
#include "core/calls/outside_call.h"
#include "core/podserver/peer_auth.h"
#include "core/podserver/pod_server_address.h"
#include "k32_board.h"
#include "runtime/k32_app_abi.h"
#include "port.h"

namespace k32 {
namespace calls {

namespace {

// The Service port a call names: by number, or the first when the URL gave none.
const json::Value* service_port(const json::Value& svc, uint16_t port) {
  const auto& ports = svc["spec"]["ports"].items();
  if (ports.empty()) return nullptr;
  if (port == 0) return &ports[0];
  for (const auto& p : ports)
    if (p["port"].as_int() == port) return &p;
  return nullptr;
}

}  // namespace

uint16_t pod_server_port(const json::Value& node) {
  uint16_t p = 0;
  return podserver::pod_server_port(node, &p) ? p : static_cast<uint16_t>(K32_POD_PORT);
}

std::vector<std::string> parse_chain(const std::string& chain) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= chain.size()) {
    size_t comma = chain.find(',', start);
    std::string item = chain.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t a = item.find_first_not_of(' '), b = item.find_last_not_of(' ');
    if (a != std::string::npos) out.push_back(item.substr(a, b - a + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

ServiceResolver store_service_resolver(store::ObjectStore* st) {
  // The store is in memory: nothing here waits, so the deadline needs no checking.
  return [st](const std::string& ns, const std::string& name, uint16_t port, uint64_t, bool* exists,
              std::vector<Backend>* out) -> int32_t {
    json::Value svc;
    *exists = st->get("services", ns, name, &svc);
    if (!*exists) return K32_ERR_NOENT;
    const json::Value* sp = service_port(svc, port);
    if (!sp) return K32_ERR_NOENT;
    for (const auto& pod : api::selected_pods(st, svc)) {
      if (!api::pod_ready(pod)) continue;
      Backend b;
      b.key = ns + "/" + pod["metadata"]["name"].as_string();
      b.ip = pod["status"]["podIP"].as_string();
      b.node = pod["spec"]["nodeName"].as_string();
      int32_t tp = api::resolve_target_port(*sp, pod);
      if (tp <= 0 || tp > 65535) continue;
      b.port = static_cast<uint16_t>(tp);
      json::Value node;
      b.node_port = st->get("nodes", "", b.node, &node) ? pod_server_port(node) : static_cast<uint16_t>(K32_POD_PORT);
      b.pod = pod;
      out->push_back(std::move(b));
    }
    return 0;
  };
}

int ApiServiceResolver::get_by(const std::string& path, json::Value* out, uint64_t deadline_ms) {
  uint64_t now = port::monotonic_ms();
  if (deadline_ms && now >= deadline_ms) return K32_ERR_TIMEOUT;
  uint32_t left = deadline_ms ? static_cast<uint32_t>(deadline_ms - now) : 0;  // 0: the client's own
  int st = get_(path, out, left);
  if (st < 0 && deadline_ms && port::monotonic_ms() >= deadline_ms) return K32_ERR_TIMEOUT;
  return st;
}

uint16_t ApiServiceResolver::node_port(const std::string& node, uint64_t now, uint64_t deadline_ms) {
  {
    port::LockGuard<port::Mutex> lk(mu_);
    auto it = node_ports_.find(node);
    if (it != node_ports_.end() && now - it->second.first < cache_ms_) return it->second.second;
  }
  json::Value n;
  uint16_t port = get_by("/api/v1/nodes/" + node, &n, deadline_ms) == 200 ? pod_server_port(n)
                                                                          : static_cast<uint16_t>(K32_POD_PORT);
  port::LockGuard<port::Mutex> lk(mu_);
  node_ports_[node] = {now, port};
  return port;
}

int32_t ApiServiceResolver::resolve(const std::string& ns, const std::string& svc, uint16_t port, uint64_t deadline_ms,
                                    bool* exists, std::vector<Backend>* out) {
  const std::string key = ns + "/" + svc;
  const uint64_t now = port::monotonic_ms();
  Entry e;
  bool hit = false;
  {
    port::LockGuard<port::Mutex> lk(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end() && now - it->second.at < cache_ms_) {
      e = it->second;
      hit = true;
    }
  }
  if (!hit) {
    e.at = now;
    int st = get_by("/api/v1/namespaces/" + ns + "/services/" + svc, &e.service, deadline_ms);
    if (st == 404) {
      e.rc = K32_ERR_NOENT;
    } else if (st == K32_ERR_TIMEOUT) {
      e.rc = K32_ERR_TIMEOUT;
    } else if (st != 200) {
      e.rc = K32_ERR_IO;
    } else {
      e.exists = true;
      int st2 = get_by("/api/v1/namespaces/" + ns + "/endpoints/" + svc, &e.endpoints, deadline_ms);
      e.rc = st2 == 200 || st2 == 404 ? 0 : st2 == K32_ERR_TIMEOUT ? K32_ERR_TIMEOUT : K32_ERR_IO;
    }
    if (e.rc != K32_ERR_IO && e.rc != K32_ERR_TIMEOUT) {  // unreachable API answers are not kept
      port::LockGuard<port::Mutex> lk(mu_);
      cache_[key] = e;
    }
  }
  *exists = e.exists;
  if (e.rc != 0) return e.rc;
  const json::Value* sp = service_port(e.service, port);
  if (!sp) return K32_ERR_NOENT;
  const std::string port_name = (*sp)["name"].as_string();
  for (const auto& subset : e.endpoints["subsets"].items()) {
    int64_t target = 0;
    for (const auto& p : subset["ports"].items())
      if (p["name"].as_string() == port_name) target = p["port"].as_int();
    if (target <= 0 || target > 65535) continue;
    for (const auto& a : subset["addresses"].items()) {  // ready addresses only
      Backend b;
      b.key = ns + "/" + a["targetRef"]["name"].as_string();
      b.ip = a["ip"].as_string();
      b.node = a["nodeName"].as_string();
      b.port = static_cast<uint16_t>(target);
      b.node_port = node_port(b.node, now, deadline_ms);
      out->push_back(std::move(b));
    }
  }
  return 0;
}

int32_t ServiceCaller::call_remote(const Backend& b, const ServiceCall& sc, const std::string& chain, CallReply* rep) {
  const CallArgs& a = *sc.args;
  // The target node's pod server routes by X-Kube32-Pod (as the Ingress controller relays).
  const std::string addr = b.ip + ":" + std::to_string(b.node_port);
  std::vector<http::Header> hs = sc.headers;
  hs.push_back({kPodHeader, b.key});
  hs.push_back({kChainHeader, chain});
  if (env_.token) {
    std::string tok = env_.token();
    if (!tok.empty()) hs.push_back({podserver::kTokenHeader, std::move(tok)});
  }
  const std::string head = build_request_head(a.method, sc.path, addr, hs, a.body_len, true);
  ExchangeLimits lim;
  lim.deadline_ms = sc.deadline_ms;
  lim.head_max = env_.head_max;
  lim.body_limit = a.resp_cap;
  lim.cancel = a.cancel;
  for (int attempt = 0; attempt < 2; ++attempt) {
    port::Socket s = attempt == 0 ? idle_.take(addr) : port::kNoSocket;
    const bool reused = s != port::kNoSocket;
    if (!reused) {
      uint64_t now = port::monotonic_ms();
      if (now >= sc.deadline_ms) return K32_ERR_TIMEOUT;
      int err = 0;
      s = port::tcp_connect(b.ip.c_str(), b.node_port, static_cast<uint32_t>(sc.deadline_ms - now), &err);
      if (s == port::kNoSocket) {
        int32_t rc = errno_to_k32(err);
        return rc == K32_ERR_TIMEOUT ? rc : K32_ERR_IO;  // the target node is unreachable
      }
    }
    size_t copied = 0;
    TcpStream stream(s);
    ExchangeResult x = http_exchange(stream, head, a.body, a.body_len, a.method == "HEAD", lim, [&](const char* d, size_t n) {
      std::memcpy(a.resp + copied, d, n);
      copied += n;
      return true;
    });
    if (x.rc == K32_ERR_IO && reused && x.status == 0) {  // a pooled connection the node had closed
      port::tcp_close(s);
      continue;
    }
    bool close = x.rc < 100;
    for (const auto& h : x.headers)
      if (header_name_is(h.name, "Connection") && h.value.find("close") != std::string::npos) close = true;
    if (close) port::tcp_close(s);
    else idle_.give(addr, s);
    rep->status = x.status;
    rep->resp_len = static_cast<uint32_t>(copied);
    return x.rc;
  }
  return K32_ERR_IO;
}

int32_t ServiceCaller::call(CallClient& client, const ServiceCall& sc, CallReply* rep, bool* exists) {
  const CallArgs& a = *sc.args;
  std::vector<Backend> backends;
  int32_t rc = env_.resolve(sc.ns, sc.service, sc.port, sc.deadline_ms, exists, &backends);
  if (rc != 0) return rc;
  if (backends.empty()) return K32_ERR_NOENT;  // no ready pod selected
  const std::string caller = a.caller_ns + "/" + a.caller_name;
  std::vector<std::string> chain = parse_chain(a.call_chain);
  chain.push_back(caller);
  std::string target_name = "service " + sc.ns + "/" + sc.service;
  // Rotate the start so load spreads; take the first candidate the policies allow.
  uint32_t start;
  {
    port::LockGuard<port::Mutex> lk(mu_);
    start = next_++;
  }
  if (chain.size() >= K32_CALL_CHAIN_MAX) return K32_ERR_LOOP;
  const Backend* pick = nullptr;
  std::string reason;
  bool looped = false;
  for (size_t i = 0; i < backends.size() && !pick; ++i) {
    const Backend& b = backends[(start + i) % backends.size()];
    // A pod already in the chain (the caller itself, calling a Service it backs) is passed
    // over for another backend; LOOP only when no other one is left.
    bool in_chain = false;
    for (const auto& c : chain) in_chain = in_chain || c == b.key;
    if (in_chain) {
      looped = true;
      continue;
    }
    if (client.env().policy) {
      netpol::Destination d;
      d.ip = b.ip;
      d.port = b.port;
      if (!b.pod.is_null()) d.pod = &b.pod;
      netpol::Verdict v = client.env().policy(a, d, b.key);
      if (!v.allowed) {
        reason = v.reason;
        continue;
      }
    }
    pick = &b;
  }
  if (!pick) {
    if (reason.empty() && looped) return K32_ERR_LOOP;
    client.log_denied(a, target_name, reason);
    return K32_ERR_PERM;
  }
  std::string chain_text;
  for (const auto& c : chain) chain_text += (chain_text.empty() ? "" : ",") + c;

  if (pick->node == env_.node_name && env_.local) {
    if (port::stack_free_bytes() < env_.inproc_stack_bytes) return K32_ERR_NOMEM;
    http::Request rq;
    rq.method = a.method;
    rq.target = sc.path;
    size_t q = sc.path.find('?');
    rq.path = sc.path.substr(0, q);
    rq.query = q == std::string::npos ? std::string() : sc.path.substr(q + 1);
    rq.version = "HTTP/1.1";
    rq.headers = sc.headers;
    rq.headers.push_back({kPodHeader, pick->key});
    rq.headers.push_back({kChainHeader, chain_text});
    if (a.body_len) rq.body.assign(reinterpret_cast<const char*>(a.body), a.body_len);
    LocalResponse out;
    rc = env_.local(pick->key, rq, &out, sc.deadline_ms);
    if (rc < 0) return rc;
    rep->status = out.status;
    size_t n = out.body.size() < a.resp_cap ? out.body.size() : a.resp_cap;
    if (n) std::memcpy(a.resp, out.body.data(), n);
    rep->resp_len = static_cast<uint32_t>(n);
    return out.body.size() > a.resp_cap ? K32_ERR_TOOBIG : out.status;
  }
  return call_remote(*pick, sc, chain_text, rep);
}

}  // namespace calls
}  // namespace k32
