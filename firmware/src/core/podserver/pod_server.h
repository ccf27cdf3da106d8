// The pod HTTP server's handler (port 7000 on boards): a request with
// X-Kube32-Pod: <namespace>/<name> goes to that pod's k32_handle on this node;
// GET /kube32/logs?pod=<ns>/<name>[&container=&previous=&tail=&follow=&timestamps=&from=] serves a
// container's log (the control plane proxies kubectl logs here for worker pods).
// Only nodes of the cluster may call it (peer_auth.h).
#pragma once
#include "core/http/http_message.h"
#include "core/kubelet/kubelet.h"
#include "core/podserver/peer_auth.h"

namespace k32 {
namespace podserver {

constexpr const char* kPodHeader = "X-Kube32-Pod";
constexpr const char* kLogsPath = "/kube32/logs";
constexpr const char* kLogOffsetHeader = "X-Kube32-Log-Offset";
// Set on answers the node (not the pod) gave: the K32_ERR_* code of the failed delivery.
constexpr const char* kResultHeader = "X-Kube32-Result";

struct LogQuery {
  std::string container;
  bool previous = false;
  bool follow = false;
  bool timestamps = false;  // prefix each line with the time it was logged (RFC3339, ns)
  int64_t tail = -1;        // lines; -1 = everything held
  int64_t from = -1;        // absolute byte offset to resume at; -1 = use tail
  uint32_t wait_ms = 0;     // with `from`: wait this long for new bytes
};
// Reads container/previous/follow/timestamps/tailLines|tail/from/waitMs; false with *err.
bool parse_log_query(const http::Request& rq, LogQuery* q, std::string* err);

// Serves one container's log from this node's kubelet.
void serve_local_log(kubelet::Kubelet* k, const std::string& key, const LogQuery& q, http::ResponseWriter& w);

class PodServer {
 public:
  // auth == nullptr serves everyone (unit tests only; a node always passes one).
  PodServer(kubelet::Kubelet* k, PeerAuth* auth) : k_(k), auth_(auth) {}
  // A request from the network: refused unless a node of the cluster sent it.
  void handle(http::Request& rq, http::ResponseWriter& w);
  // A request this node's own ingress routes in-process: the ingress has removed the
  // client's X-Kube32-* headers and set X-Kube32-Pod itself.
  void serve(http::Request& rq, http::ResponseWriter& w);

 private:
  kubelet::Kubelet* k_;
  PeerAuth* auth_;
};

}  // namespace podserver
}  // namespace k32
