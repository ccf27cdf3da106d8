// The control plane's Ingress controller: routes HTTP
// requests on the ingress port to Service backends (in-process pods of the control plane,
// worker pods over HTTP/1.1 keep-alive) and StaticBundle resources, serves the event
// stream / telemetry annotations, and writes status.loadBalancer.
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "app/ingress_routes.h"
#include "core/channels/channel_hub.h"
#include "core/http/http_message.h"
#include "core/store/object_store.h"
#include "port.h"

namespace k32 {
namespace podserver {
class PodServer;
}  // namespace podserver
namespace app {

class UpstreamPool;

struct IngressConfig {
  std::string node_name;  // the control plane's Node name (its pods run in-process)
  std::string ip;         // written into status.loadBalancer.ingress[0].ip
  // Calls a control-plane pod's k32_handle in-process (the pod server with X-Kube32-Pod
  // set); null when this node runs no pods. A plain pointer, not a callback: the stack check
  // follows the direct call into the pod.
  podserver::PodServer* local_pods = nullptr;
  // The cluster's bearer token now ("" = none): worker pod servers require it from the
  // ingress in X-Kube32-Token (core/podserver/peer_auth.h).
  std::function<std::string()> token;
};

class IngressController {
 public:
  IngressController(store::ObjectStore* st, channels::Hub* hub, IngressConfig cfg);
  void handle(http::Request& req, http::ResponseWriter& w);
  // Starts the 1 s tick (rebuild, status, stats topics).
  bool start();
  // Cluster telemetry JSON (nodes, pods, heap): the kube32.cluster topic and the annotation.
  std::string telemetry_json();

 private:
  struct Stream {
    std::string ns, ingress, path;
    std::vector<std::string> topics;
  };
  void mark_dirty() { dirty_ = true; }
  void rebuild_if_due(bool from_tick);
  struct StatsTopic {
    std::string id;  // "ns/name" of the Ingress
    std::string topic;
  };
  // streams_, telemetry_paths_, stats_topics_ and status_due_ from the Ingresses (under mu_)
  void clear_annotations();
  void index_annotations(const json::Value& ingress);
  void fit_annotations();
  // Whether the Ingress's status.loadBalancer names this node's address alone.
  static bool status_names(const json::Value& ing, const std::string& ip);
  void tick();
  static void tick_main(void* self);
  void write_status();
  void publish_stats();

  // A Service port's ready backends as the request path needs them: built from the store
  // once, then kept until a Pod, Service or Node changes (the store listener bumps
  // backends_gen_), instead of listing and copying every pod of the namespace per request.
  struct BackendRef {
    std::string pod_key;  // "ns/name"
    std::string pod_ip;
    uint16_t node_port;  // 0: this node's pod, called in-process
  };
  struct Backends {
    int problem = 0;  // 0, or why there are none: kNoService, kNoPort
    std::vector<BackendRef> list;
  };
  static constexpr int kNoService = 1;
  static constexpr int kNoPort = 2;
  Backends resolve_backends(const RouteMatch& m);
  std::shared_ptr<const Backends> backends_for(const RouteMatch& m);

  void serve_service(http::Request& req, http::ResponseWriter& w, const RouteMatch& m);
  void serve_static(http::Request& req, http::ResponseWriter& w, const RouteMatch& m);
  void serve_events(http::Request& req, http::ResponseWriter& w, const Stream& s);
  // Under mu_: the stream or telemetry path a request names, if any.
  const Stream* find_stream_locked(const std::string& path) const;
  bool find_telemetry_locked(const std::string& path) const;
  bool ingress_exists(const std::string& ns, const std::string& name);
  void viewers_changed(const std::string& key, int delta);

  store::ObjectStore* store_;
  channels::Hub* hub_;
  IngressConfig cfg_;
  UpstreamPool* pool_;
  uint64_t started_ms_;
  port::Mutex mu_;
  // Replaced whole by a rebuild, never changed in place: a request keeps the table it
  // matched in and reads its route there without copying it.
  std::shared_ptr<const RouteTable> table_ = std::make_shared<const RouteTable>();
  std::vector<Stream> streams_;               // kube32.io/event-stream paths, in Ingress order
  std::vector<std::string> telemetry_paths_;  // kube32.io/cluster-telemetry paths
  std::vector<StatsTopic> stats_topics_;      // kube32.io/stats-topic of each Ingress naming one
  std::vector<std::string> status_due_;       // "ns/name": served Ingresses whose status lacks this node
  std::atomic<bool> dirty_{true};
  uint64_t last_build_ms_ = 0;
  std::map<std::string, uint32_t> rr_;                               // service key -> next round-robin index
  std::atomic<uint64_t> backends_gen_{1};                            // bumped by every Pod/Service/Node change
  uint64_t backends_built_gen_ = 0;                                  // the generation backends_ holds (under mu_)
  std::map<std::string, std::shared_ptr<const Backends>> backends_;  // "ns/service:port" (under mu_)
  std::map<std::string, int> viewers_;                               // "ns/name path" -> SSE viewers
  std::map<std::string, uint32_t> requests_;                         // "ns/name" -> requests this second
};

}  // namespace app
}  // namespace k32
