#include "core/podserver/log_proxy.h"

#include "core/api/status.h"
#include "core/http/http_client.h"
#include "core/podserver/pod_server.h"
#include "core/podserver/pod_server_address.h"
#include "core/util/text.h"
#include "port.h"
#include "k32_board.h"

namespace k32 {
namespace podserver {

namespace {

void send_status(http::ResponseWriter& w, const api::ApiError& e) {
  w.send(e.code, "application/json", json::dump(api::status_object(e)));
}

std::string url_escape(const std::string& s) {
  static const char* hexd = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hexd[c >> 4]);
      out.push_back(hexd[c & 15]);
    }
  }
  return out;
}

void proxy(const http::Endpoint& ep, const std::string& token, const std::string& key, const LogQuery& q,
           http::ResponseWriter& w) {
  std::vector<http::Header> auth;
  if (!token.empty()) auth.push_back({kTokenHeader, token});
  std::string base = std::string(kLogsPath) + "?pod=" + url_escape(key) + "&container=" + url_escape(q.container) +
                     (q.previous ? "&previous=true" : "") + (q.timestamps ? "&timestamps=true" : "");
  http::ClientResponse r;
  std::string first = base + (q.tail >= 0 ? "&tailLines=" + text::to_string(q.tail) : std::string());
  int rc = http::request(ep, "GET", first, auth, "", 10000, K32_NODE_API_REPLY_MAX, &r);
  if (rc != 0) {
    send_status(w, api::internal("the node of the pod is unreachable (" + ep.host + ":" + text::to_string(ep.port) + ")"));
    return;
  }
  if (r.status != 200) {
    api::ApiError e = api::bad_request(r.body);
    json::Value b;
    json::ParseError pe;
    if (json::parse(r.body, &b, &pe)) e.message = b["error"].as_string(r.body);
    if (r.status == 404) e.code = 404, e.reason = "NotFound";
    send_status(w, e);
    return;
  }
  if (!q.follow || q.previous) {
    w.send(200, "text/plain", r.body);
    return;
  }
  // Follow: resume from the offset the worker reported, a long poll at a time.
  const std::string* off_h = r.header(kLogOffsetHeader);
  uint64_t off = 0;
  if (!off_h || !text::parse_uint(*off_h, UINT64_MAX >> 1, &off)) {
    w.send(200, "text/plain", r.body);
    return;
  }
  if (!w.begin_stream(200, "text/plain")) return;
  if (!r.body.empty() && !w.write_chunk(r.body)) return;
  while (!port::tcp_peer_closed(w.socket())) {
    http::ClientResponse n;
    rc = http::request(ep, "GET", base + "&from=" + text::to_string(static_cast<int64_t>(off)) + "&waitMs=1000", auth, "", 5000,
                       K32_NODE_API_REPLY_MAX, &n);
    if (rc != 0 || n.status != 200) break;  // the pod or its node went away: end the stream
    const std::string* h = n.header(kLogOffsetHeader);
    if (!h || !text::parse_uint(*h, UINT64_MAX >> 1, &off)) break;
    if (!n.body.empty() && !w.write_chunk(n.body)) return;
  }
  w.end_stream();
}

}  // namespace

api::ExtraRoute make_log_route(store::ObjectStore* st, kubelet::Kubelet* local, std::function<std::string()> token) {
  return [st, local, token](http::Request& rq, http::ResponseWriter& w, const api::RequestInfo* info) {
    if (!info || !info->res || std::string(info->res->resource) != "pods" || info->subresource != "log") return false;
    if (rq.method != "GET") {
      send_status(w, api::method_not_allowed("pods/log supports GET only"));
      return true;
    }
    json::Value pod;
    if (!st->get("pods", info->ns, info->name, &pod)) {
      send_status(w, api::not_found("", "pods", info->name));
      return true;
    }
    LogQuery q;
    std::string err;
    if (!parse_log_query(rq, &q, &err)) {
      send_status(w, api::bad_request(err));
      return true;
    }
    const auto& containers = pod["spec"]["containers"].items();
    if (q.container.empty() && containers.size() > 1) {
      send_status(w, api::bad_request("a container name must be specified for pod " + info->name + ", choose one of: [" + [&] {
                    std::string s;
                    for (const auto& c : containers) s += (s.empty() ? "" : " ") + c["name"].as_string();
                    return s;
                  }() + "]"));
      return true;
    }
    std::string node = pod["spec"]["nodeName"].as_string();
    std::string key = info->ns + "/" + info->name;
    if (node.empty()) {
      send_status(w, api::bad_request("pod " + info->name + " is not scheduled to a node yet"));
      return true;
    }
    if (local && node == local->config().node_name) {
      std::shared_ptr<kubelet::Pod> keep;
      if (!local->log_of(key, q.container, q.previous, &err, &keep)) {
        send_status(w, api::bad_request(err));  // kubectl prints the message as is
        return true;
      }
      serve_local_log(local, key, q, w);
      return true;
    }
    http::Endpoint ep;
    if (!podserver::pod_server_address(st, node, &ep)) {
      send_status(w, api::internal("node " + node + " has no InternalIP / kubelet port"));
      return true;
    }
    proxy(ep, token ? token() : std::string(), key, q, w);
    return true;
  };
}

}  // namespace podserver
}  // namespace k32
