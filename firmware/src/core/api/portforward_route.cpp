#include "core/api/portforward_route.h"

#include <atomic>

#include "core/api/portforward_session.h"
#include "core/http/http_client.h"
#include "core/http/internal_headers.h"
#include "core/http/websocket_frame.h"
#include "core/podserver/pod_server.h"
#include "core/podserver/pod_server_address.h"
#include "core/util/base64.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "k32_board.h"

namespace k32 {
namespace api {

namespace {

constexpr const char* kProtocol = "portforward.k8s.io";
constexpr const char* kTunnelProtocol = "SPDY/3.1+portforward.k8s.io";
constexpr const char* kChannelProtocol = "v4.channel.k8s.io";

// ?ports=8080,9090 (or the parameter repeated) for the channel protocol; false with *err.
bool parse_ports(const http::Request& rq, std::vector<uint16_t>* out, std::string* err) {
  for (const auto& q : http::parse_query(rq.query)) {
    if (q.name != "ports") continue;
    for (const auto& part : text::split(q.value, ',')) {
      uint64_t p = 0;
      if (!text::parse_uint(text::trim(part), 65535, &p) || p == 0) {
        *err = "ports: \"" + part + "\" is not a port number (1-65535)";
        return false;
      }
      for (uint16_t have : *out)
        if (have == p) {
          *err = "ports: " + part + " is given twice";
          return false;
        }
      out->push_back(static_cast<uint16_t>(p));
    }
  }
  if (out->empty()) {
    *err = "the WebSocket port-forward protocol needs ?ports=<port>[,<port>...]";
    return false;
  }
  if (out->size() > K32_PORTFORWARD_STREAMS_MAX / 2) {
    *err = "at most " + text::to_string(static_cast<int64_t>(K32_PORTFORWARD_STREAMS_MAX / 2)) + " ports per session";
    return false;
  }
  return true;
}

std::atomic<uint32_t> g_sessions{0};

void send_error(http::ResponseWriter& w, const ApiError& e) {
  if (e.code == 429) w.add_header("Retry-After", "1");
  w.send(e.code, "application/json", json::dump(status_object(e)));
}

// A comma-separated header (all its occurrences) holds `token`, compared without case.
bool header_has(const http::Request& rq, const char* name, const std::string& token) {
  for (const auto& h : rq.headers) {
    if (!text::iequals(h.name, name)) continue;
    for (const auto& part : text::split(h.value, ','))
      if (text::iequals(text::trim(part), token)) return true;
  }
  return false;
}

// ns, name from /api/v1/namespaces/<ns>/pods/<name>/portforward.
bool parse_path(const std::string& path, std::string* ns, std::string* name) {
  auto parts = text::split(path, '/');
  if (parts.size() != 8 || !parts[0].empty() || parts[1] != "api" || parts[2] != "v1" || parts[3] != "namespaces" ||
      parts[5] != "pods" || parts[7] != "portforward")
    return false;
  *ns = parts[4];
  *name = parts[6];
  return !ns->empty() && !name->empty();
}

http::ClientResponse call_pod(const http::Endpoint& ep, const std::string& key, const std::string& token,
                              const http::Request& rq) {
  std::vector<http::Header> hs;
  for (const auto& h : rq.headers)
    if (!http::is_internal_header(h.name) && !text::iequals(h.name, "Content-Length") && !text::iequals(h.name, "Connection"))
      hs.push_back(h);
  hs.push_back({podserver::kPodHeader, key});
  if (!token.empty()) hs.push_back({podserver::kTokenHeader, token});
  http::ClientResponse r;
  const int rc = http::request(ep, rq.method, rq.target, hs, rq.body, K32_PORTFORWARD_POD_CALL_MS, K32_NODE_API_REPLY_MAX, &r);
  if (rc != 0) {
    r = http::ClientResponse();
    r.status = 502;
    r.headers.push_back({"Content-Type", "text/plain; charset=utf-8"});
    r.body = "pod " + key + ": its node " + ep.host + ":" + text::to_string(static_cast<int64_t>(ep.port)) + " did not answer (" +
             text::to_string(static_cast<int64_t>(rc)) + ")\n";
  }
  return r;
}

}  // namespace

ExtraRoute make_portforward_route(store::ObjectStore* st, std::function<std::string()> token) {
  return [st, token](http::Request& rq, http::ResponseWriter& w, const RequestInfo*) {
    std::string ns, name;
    if (!parse_path(rq.path, &ns, &name)) return false;
    const bool websocket = header_has(rq, "Upgrade", "websocket");
    const bool spdy = header_has(rq, "Upgrade", "SPDY/3.1");
    std::vector<uint16_t> channel_ports;  // set: the channel protocol
    if ((rq.method != "GET" && rq.method != "POST") || (!websocket && !spdy) || !header_has(rq, "Connection", "Upgrade")) {
      send_error(w, bad_request("Upgrade request required: pods/portforward speaks SPDY/3.1 (Upgrade: SPDY/3.1) or a "
                                "WebSocket carrying it (subprotocol " +
                                std::string(kTunnelProtocol) + ")"));
      return true;
    }
    if (websocket) {
      const std::string* key = rq.header("Sec-WebSocket-Key");
      std::string raw;
      if (rq.method != "GET" || !key || !base64_decode(text::trim(*key), &raw) || raw.size() != 16 ||
          !header_has(rq, "Sec-WebSocket-Version", "13")) {
        send_error(w, bad_request("a WebSocket upgrade needs GET, a 16-byte Sec-WebSocket-Key and Sec-WebSocket-Version 13"));
        return true;
      }
      if (header_has(rq, "Sec-WebSocket-Protocol", kTunnelProtocol)) {
        // kubectl's SPDY tunnel.
      } else if (header_has(rq, "Sec-WebSocket-Protocol", kChannelProtocol)) {
        std::string perr;
        if (!parse_ports(rq, &channel_ports, &perr)) {
          send_error(w, bad_request(perr));
          return true;
        }
      } else {
        send_error(w, bad_request(std::string("no WebSocket subprotocol offered that this server speaks: it speaks ") +
                                  kTunnelProtocol + " and " + kChannelProtocol));
        return true;
      }
    } else if (!header_has(rq, "X-Stream-Protocol-Version", kProtocol)) {
      send_error(w, bad_request(std::string("no stream protocol offered that this server speaks: it speaks ") + kProtocol));
      return true;
    }
    json::Value pod;
    if (!st->get("pods", ns, name, &pod)) {
      send_error(w, not_found("", "pods", name));
      return true;
    }
    if (pod["status"]["phase"].as_string() != "Running") {
      send_error(w, bad_request("pod " + name + " is not running (phase " + pod["status"]["phase"].as_string("Pending") + ")"));
      return true;
    }
    http::Endpoint ep;
    if (!podserver::pod_server_address(st, pod["spec"]["nodeName"].as_string(), &ep)) {
      send_error(w, internal("node " + pod["spec"]["nodeName"].as_string() + " has no InternalIP / kubelet port"));
      return true;
    }
    if (g_sessions.fetch_add(1) >= K32_PORTFORWARD_SESSIONS_MAX) {
      g_sessions.fetch_sub(1);
      ApiError e{429, "TooManyRequests",
                 "the API server holds " + text::to_string(static_cast<int64_t>(K32_PORTFORWARD_SESSIONS_MAX)) +
                     " port-forward sessions at once; try again when one ends",
                 json::Value()};
      send_error(w, e);
      return true;
    }
    PortForwardTarget target;
    target.pod = ns + "/" + name;
    for (const auto& c : pod["spec"]["containers"].items())
      for (const auto& p : c["ports"].items()) {
        const int64_t n = p["containerPort"].as_int(0);
        if (n > 0 && n <= 65535) target.ports.push_back(static_cast<uint16_t>(n));
      }
    const std::string key = target.pod;
    target.call = [ep, key, token](const http::Request& r) { return call_pod(ep, key, token ? token() : std::string(), r); };
    std::vector<http::Header> hs = {{"Connection", "Upgrade"}};
    if (websocket) {
      hs.push_back({"Upgrade", "websocket"});
      hs.push_back({"Sec-WebSocket-Accept", http::ws::accept_key(text::trim(*rq.header("Sec-WebSocket-Key")))});
      hs.push_back({"Sec-WebSocket-Protocol", channel_ports.empty() ? kTunnelProtocol : kChannelProtocol});
    } else {
      hs.push_back({"Upgrade", "SPDY/3.1"});
      hs.push_back({"X-Stream-Protocol-Version", kProtocol});
    }
    if (w.switch_protocols(hs)) {
      logf("[PORTFORWARD] %s: session opened (%s)", target.pod.c_str(),
           !channel_ports.empty() ? kChannelProtocol
           : websocket            ? kTunnelProtocol
                                  : "SPDY/3.1");
      if (!channel_ports.empty()) run_channel_port_forward(w.conn(), channel_ports, target);
      else run_port_forward(w.conn(), websocket ? TunnelKind::WebSocket : TunnelKind::Spdy, target);
      logf("[PORTFORWARD] %s: session closed", target.pod.c_str());
    }
    g_sessions.fetch_sub(1);
    return true;
  };
}

}  // namespace api
}  // namespace k32
