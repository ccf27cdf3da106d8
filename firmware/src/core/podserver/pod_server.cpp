#include "core/podserver/pod_server.h"

#include <cctype>

#include "core/http/internal_headers.h"
#include "core/util/text.h"
#include "k32_abi_table.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace podserver {

namespace {

// "Content-Type" in any letter case, compared in place (each response header passes here).
bool is_content_type(const std::string& name) {
  static const char kName[] = "content-type";
  if (name.size() != sizeof kName - 1) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != kName[i]) return false;
  return true;
}

void node_error(http::ResponseWriter& w, int status, int32_t code, const std::string& message) {
  json::Value e = json::Value::object();
  e.set("error", message);
  e.set("code", static_cast<int64_t>(code));
  w.add_header(kResultHeader, text::to_string(code));
  w.send(status, "application/json", json::dump(e));
}

bool flag(const std::string& v) { return v == "true" || v == "1"; }

}  // namespace

bool parse_log_query(const http::Request& rq, LogQuery* q, std::string* err) {
  q->container = rq.query_param("container");
  q->previous = flag(rq.query_param("previous"));
  q->follow = flag(rq.query_param("follow"));
  q->timestamps = flag(rq.query_param("timestamps"));
  bool present = false;
  std::string tail = rq.query_param("tailLines", &present);
  if (!present) tail = rq.query_param("tail", &present);
  uint64_t n = 0;
  if (present && !tail.empty()) {
    if (tail == "-1") {
      q->tail = -1;
    } else if (!text::parse_uint(tail, 1u << 30, &n)) {
      *err = "tailLines must be a non-negative integer (got \"" + tail + "\")";
      return false;
    } else {
      q->tail = static_cast<int64_t>(n);
    }
  }
  std::string from = rq.query_param("from", &present);
  if (present) {
    if (!text::parse_uint(from, UINT64_MAX >> 1, &n)) {
      *err = "from must be a byte offset (got \"" + from + "\")";
      return false;
    }
    q->from = static_cast<int64_t>(n);
  }
  std::string wait = rq.query_param("waitMs", &present);
  if (present) {
    if (!text::parse_uint(wait, 10000, &n)) {
      *err = "waitMs must be 0..10000 (got \"" + wait + "\")";
      return false;
    }
    q->wait_ms = static_cast<uint32_t>(n);
  }
  return true;
}

void serve_local_log(kubelet::Kubelet* k, const std::string& key, const LogQuery& q, http::ResponseWriter& w) {
  std::string err;
  std::shared_ptr<kubelet::Pod> keep;
  kubelet::LogRing* ring = k->log_of(key, q.container, q.previous, &err, &keep);
  if (!ring) {
    node_error(w, 404, abi::kErrNoent, err);
    return;
  }
  if (q.from >= 0) {
    if (q.wait_ms) ring->wait_beyond(static_cast<uint64_t>(q.from), q.wait_ms);
    uint64_t next = 0;
    std::string data = ring->read_from(static_cast<uint64_t>(q.from), &next, q.timestamps);
    w.add_header(kLogOffsetHeader, text::to_string(static_cast<int64_t>(next)));
    w.send(200, "text/plain", data);
    return;
  }
  uint64_t end = ring->end();
  std::string first = ring->tail(q.tail, q.timestamps);
  if (!q.follow || q.previous) {
    w.add_header(kLogOffsetHeader, text::to_string(static_cast<int64_t>(end)));
    w.send(200, "text/plain", first);
    return;
  }
  if (!w.begin_stream(200, "text/plain")) return;
  if (!first.empty() && !w.write_chunk(first)) return;
  uint64_t off = end;
  while (!keep->stopping && !port::tcp_peer_closed(w.socket())) {
    if (!ring->wait_beyond(off, 1000)) continue;
    std::string data = ring->read_from(off, &off, q.timestamps);
    if (!data.empty() && !w.write_chunk(data)) return;
  }
  w.end_stream();
}

void PodServer::handle(http::Request& rq, http::ResponseWriter& w) {
  if (auth_) {
    std::string why;
    int status = auth_->check(rq, port::monotonic_ms(), &why);
    if (status) {
      node_error(w, status, abi::kErrPerm, why);
      return;
    }
  }
  // The token authenticated the node; the pod behind it must never see it.
  for (auto it = rq.headers.begin(); it != rq.headers.end();)
    it = http::is_internal_header(it->name) && text::iequals(it->name, kTokenHeader) ? rq.headers.erase(it) : it + 1;
  serve(rq, w);
}

void PodServer::serve(http::Request& rq, http::ResponseWriter& w) {
  if (rq.path == kLogsPath) {
    LogQuery q;
    std::string err;
    if (rq.method != "GET") {
      node_error(w, 405, abi::kErrInval, "logs are read with GET");
    } else if (!parse_log_query(rq, &q, &err)) {
      node_error(w, 400, abi::kErrInval, err);
    } else {
      serve_local_log(k_, rq.query_param("pod"), q, w);
    }
    return;
  }
  const std::string* pod = rq.header(kPodHeader);
  if (!pod) {
    node_error(w, 400, abi::kErrInval, std::string("missing ") + kPodHeader + " header (<namespace>/<name>)");
    return;
  }
  kubelet::PodResponse resp;
  int32_t rc = k_->call_pod(*pod, rq, &resp);
  if (rc == abi::kErrNoent) {
    node_error(w, 404, rc, "pod " + *pod + " does not run on this node (or serves no requests)");
    return;
  }
  if (rc == abi::kErrNomem) {
    node_error(w, 503, rc, "not enough native stack for an in-process call");
    return;
  }
  if (rc == abi::kErrBusy) {
    // The pod's own cap, so that one pod cannot hold every connection of the node.
    w.add_header("Retry-After", "1");
    node_error(w, 503, rc,
               "pod " + *pod + " has " + text::to_string(static_cast<int64_t>(K32_POD_CALLS_MAX)) +
                   " requests in progress already; retry later");
    return;
  }
  if (rc == abi::kErrTimeout) {
    node_error(
        w, 504, rc,
        "pod " + *pod + " did not answer within " + text::to_string(static_cast<int64_t>(K32_POD_CALL_DEADLINE_MS)) + " ms");
    return;
  }
  // The pod's headers are moved, not copied, into the response.
  const std::string* ctype = nullptr;
  for (auto& h : resp.headers) {
    if (is_content_type(h.name)) ctype = &h.value;
    else w.add_header(std::move(h.name), std::move(h.value));
  }
  w.send(resp.status, ctype ? ctype->c_str() : "application/octet-stream", resp.body.data(), resp.body.size());
}

}  // namespace podserver
}  // namespace k32
