#include "app/node_app.h"
#include "app/sd_image_route.h"

#include <atomic>
#include <cstdio>
#include <memory>

#include "app/channel_routes.h"
#include "app/http_node_api.h"
#include "app/web_assets.h"
#include "app/ingress_controller.h"
#include "core/calls/node_calls.h"
#include "core/channels/channel_hub.h"
#include "core/api/api_server.h"
#include "core/api/metrics_api.h"
#include "core/api/portforward_route.h"
#include "core/console/console.h"
#include "core/http/http_server.h"
#include "core/kubelet/kubelet.h"
#include "core/kubelet/module_cache.h"
#include "core/kubelet/node_images.h"
#include "core/kubelet/pod_usage.h"
#include "core/kubelet/usage_report.h"
#include "k32_abi_table.h"
#include "k32_board.h"
#include "core/podserver/log_proxy.h"
#include "core/podserver/pod_server.h"
#include "core/controllers/controller_manager.h"
#include "core/controllers/event_budget.h"
#include "core/sched/scheduler.h"
#include "core/node/node_heartbeat.h"
#include "core/node/node_lifecycle.h"
#include "core/node/node_object.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace app {

namespace {

// Node-local settings changed from the console survive restarts in the state dir
// (NVS on boards).
class Settings {
 public:
  explicit Settings(std::string dir) : path_(dir.empty() ? "" : dir + "/settings.json") {
    if (path_.empty()) return;
    char* data = nullptr;
    size_t len = 0;
    if (port::file_read(path_.c_str(), &data, &len)) {
      json::ParseError pe;
      if (!json::parse(data, len, &v_, &pe) || !v_.is_object()) {
        logf("[NODE] ignoring unreadable settings file %s: %s", path_.c_str(), pe.message.c_str());
        v_ = json::Value::object();
      }
      port::mem_free(data);
    }
  }
  std::string get(const std::string& k) {
    port::LockGuard<port::Mutex> lock(mu_);
    return v_[k].as_string();
  }
  bool has(const std::string& k) {
    port::LockGuard<port::Mutex> lock(mu_);
    return v_.find(k) != nullptr;
  }
  bool set(const std::string& k, json::Value value) {
    port::LockGuard<port::Mutex> lock(mu_);
    json::Value next = v_.is_object() ? v_ : json::Value::object();
    next.set(k, std::move(value));
    if (!path_.empty()) {
      std::string bytes = json::dump(next);
      if (!port::file_write_atomic(path_.c_str(), bytes.data(), bytes.size())) return false;
    }
    v_ = std::move(next);
    return true;
  }

 private:
  port::Mutex mu_;
  std::string path_;
  json::Value v_ = json::Value::object();
};

struct Node {
  node::NodeConfig cfg;
  Settings settings;
  store::ObjectStore store;
  api::ApiServer* api = nullptr;
  http::Server api_http;
  http::Server pod_http;
  http::Server ingress_http;
  console::Dispatcher console;
  channels::Hub hub;
  // A worker's channel relay thread is running (channels_main).
  std::atomic<bool> relay_running{false};
  IngressController* ingress = nullptr;
  // The pod server's handler for the network: a request from a node of the cluster with
  // X-Kube32-Pod reaches that pod's k32_handle.
  std::function<void(http::Request&, http::ResponseWriter&)> pod_handler;
  // Publishing on a channel topic from this node (pods with CHANNEL_IPC): the local hub on
  // the control plane, the control plane's hub through the API on workers. Subscribers on
  // any node read from `hub`.
  std::function<bool(const std::string&, const std::string&)> publish;
  ChannelBridge* bridge = nullptr;
  std::unique_ptr<calls::NodeCalls> calls;
  HttpNodeApi* node_api = nullptr;
  node::Heartbeat* heartbeat = nullptr;
  node::NodeLifecycle* lifecycle = nullptr;
  controllers::EventBudget* events = nullptr;
  kubelet::ApiClient* kubelet_api = nullptr;
  kubelet::Kubelet* kubelet = nullptr;
  podserver::PodServer* pod_server = nullptr;
  podserver::PeerAuth* pod_auth = nullptr;
  sched::Scheduler* scheduler = nullptr;
  controllers::ControllerManager* controllers = nullptr;
  port::Mutex token_mu;
  std::string token;
  std::string api_ca_file;  // set when the API port also speaks TLS

  explicit Node(const node::NodeConfig& c) : cfg(c), settings(c.state_dir) {}

  std::string current_token() {
    port::LockGuard<port::Mutex> lock(token_mu);
    return token;
  }
  void set_token(const std::string& t) {
    {
      port::LockGuard<port::Mutex> lock(token_mu);
      token = t;
    }
    if (api) api->set_token(t);
  }
};

void heartbeat_main(void* p) { static_cast<node::Heartbeat*>(p)->run(); }

// A worker's channel relay: brings in the topics its pods subscribed to (their publishes go
// out on the publishing thread). Thread entries are named functions so the stack check can
// find them. It runs only while a pod on the worker wants channel events (its stack is heap
// on a board, 8 KiB an idle worker would hold for nothing): the first subscription starts it,
// and it ends once no topic is wanted. A subscription made just as it decided to end keeps
// it going.
void channels_main(void* p) {
  Node* node = static_cast<Node*>(p);
  for (;;) {
    node->bridge->run([node]() { return node->hub.topics(); });
    node->relay_running = false;
    if (node->hub.topics().empty() || node->relay_running.exchange(true)) return;
  }
}

void start_relay(Node* n) {
  if (n->relay_running.exchange(true)) return;
  if (!port::thread_start("channels", K32_CHANNELS_STACK_BYTES, static_cast<port::Region>(K32_CHANNELS_STACK_REGION),
                          channels_main, n)) {
    // No heap for its stack now: the next subscription tries again (their events wait).
    n->relay_running = false;
    logf("[NODE] channel relay not started: no heap for its stack");
  }
}

// The hub's subscribe hook on a worker, a named type (not a lambda) so the stack check can
// tell it from the other std::function<void()> targets.
struct StartRelay {
  Node* n;
  void operator()() const { start_relay(n); }
};

// Restarts the node a moment after the console's REBOOT answer is on its way.
void reboot_main(void*) {
  port::sleep_ms(200);
  logf("[NODE] rebooting (console request)");
  port::system_restart();
}

// The hooks after each heartbeat and each scheduler pass are named types rather than
// lambdas, so the stack check can tell the two std::function<void()> targets apart.
struct ReportUsage {
  Node* n;
  void operator()() const {
    json::Value report = kubelet::usage_report(n->kubelet);
    int rc = n->kubelet_api->call("POST", kubelet::kUsagePathPrefix + n->cfg.name + "/usage", &report, nullptr);
    if (rc != 204 && rc != 200) logf("[NODE] usage report refused (%d)", rc);
  }
};

struct RunControllers {
  controllers::ControllerManager* cm;
  void operator()() const { cm->pass(); }
};

// The InternalIPs of the cluster's Nodes: from the store on the control plane, through the
// API on workers (node-to-node callers of the pod server must come from one of them).
void node_ips(const json::Value& list, std::vector<std::string>* out) {
  for (const auto& n : list.items())
    for (const auto& a : n["status"]["addresses"].items())
      if (a["type"].str() == "InternalIP" && a["address"].is_string()) out->push_back(a["address"].str());
}

podserver::PeerAuth* make_pod_auth(Node* n, const http::Endpoint& api) {
  podserver::PeerAuth::ListNodeIps list;
  if (n->cfg.role == node::Role::ControlPlane) {
    store::ObjectStore* st = &n->store;
    list = [st](std::vector<std::string>* out) {
      json::Value items = json::Value::array();
      uint64_t rv = 0;
      for (auto& node : st->list("nodes", "", &rv)) items.push(std::move(node));
      node_ips(items, out);
      return true;
    };
  } else {
    list = [n](std::vector<std::string>* out) {
      json::Value nodes;
      if (n->kubelet_api->call("GET", "/api/v1/nodes", nullptr, &nodes) != 200) return false;
      node_ips(nodes["items"], out);
      return true;
    };
  }
  return new podserver::PeerAuth([n]() { return n->current_token(); }, {n->cfg.bind_ip, api.host}, std::move(list),
                                 K32_NODE_ADDR_REFRESH_MS);
}

// The node's kubelet and pod server, talking to the API server at `api` over HTTP.
void make_kubelet(Node* n, const http::Endpoint& api) {
  n->kubelet_api = new kubelet::ApiClient(api, [n]() { return n->current_token(); });
  kubelet::KubeletConfig kc;
  kc.node_name = n->cfg.name;
  kc.node_ip = n->cfg.bind_ip;
  kc.sd_dir = n->cfg.sd_dir;
  kc.api_host = api.host;
  kc.api_port = api.port;
  kc.sync_ms = K32_POD_SYNC_MS;
  kc.runner_stack_bytes = K32_INPROC_CALL_STACK_BYTES;
  kc.inproc_stack_bytes = K32_INPROC_CALL_STACK_BYTES;
  // A control-plane pod's k32_event may start an in-process chain (see the pod server).
  if (n->cfg.role == node::Role::ControlPlane) kc.events_stack_bytes = K32_EVENTS_STACK_BYTES + K32_INPROC_CHAIN_STACK_BYTES;
  node::PodCapacity cap = node::pod_capacity();
  kc.budget.memory = cap.allocatable;
  kc.budget.pods = cap.pods;
  kc.budget.overhead = cap.overhead;
  n->kubelet = new kubelet::Kubelet(kc, n->kubelet_api);
  n->pod_auth = make_pod_auth(n, api);
  n->pod_server = new podserver::PodServer(n->kubelet, n->pod_auth);
  n->kubelet->set_hub(&n->hub);
  n->kubelet->hooks().embedded_asset = [](const std::string& bundle, const std::string& path, const uint8_t** data,
                                          uint32_t* len) {
    const WebAsset* a = web_asset_find(bundle, path);
    if (!a) return false;
    *data = a->data;
    *len = a->len;
    return true;
  };
  n->kubelet->hooks().content_type = [](const std::string& path) { return content_type_for(path); };
  // k32_channel_publish takes the node's publish path (the hub here, the bridge on workers).
  n->kubelet->hooks().publish = [n](kubelet::Container&, const std::string& topic, const std::string& data) {
    return n->publish && n->publish(topic, data) ? 0 : abi::kErrIo;
  };
}

bool ensure_namespace(store::ObjectStore* st, const char* name) {
  json::Value existing;
  if (st->get("namespaces", "", name, &existing)) return true;
  json::Value ns = json::Value::object();
  ns.set("kind", "Namespace");
  ns.set("apiVersion", "v1");
  json::Value md = json::Value::object();
  md.set("name", name);
  md.set("uid", text::uuid4());
  md.set("creationTimestamp", text::rfc3339(port::wall_time_s()));
  json::Value labels = json::Value::object();
  labels.set("kubernetes.io/metadata.name", name);
  md.set("labels", labels);
  ns.set("metadata", md);
  json::Value spec = json::Value::object();
  json::Value fin = json::Value::array();
  fin.push("kubernetes");
  spec.set("finalizers", fin);
  ns.set("spec", spec);
  json::Value st_ = json::Value::object();
  st_.set("phase", "Active");
  ns.set("status", st_);
  json::Value stored;
  return st->create("namespaces", "", name, ns, &stored) == store::Result::Ok;
}

// default/kubernetes: every cluster has it (clients and charts look the API up by it). Its
// port is the API server's; Kube32 has no cluster IPs, so it names the port, not an address.
bool ensure_kubernetes_service(store::ObjectStore* st, int api_port) {
  json::Value existing;
  if (st->get("services", "default", "kubernetes", &existing)) return true;
  json::Value svc = json::Value::object();
  svc.set("kind", "Service");
  svc.set("apiVersion", "v1");
  json::Value md = json::Value::object();
  md.set("name", "kubernetes");
  md.set("namespace", "default");
  md.set("uid", text::uuid4());
  md.set("creationTimestamp", text::rfc3339(port::wall_time_s()));
  json::Value labels = json::Value::object();
  labels.set("component", "apiserver");
  labels.set("provider", "kubernetes");
  md.set("labels", labels);
  svc.set("metadata", md);
  json::Value p = json::Value::object();
  p.set("name", "https");
  p.set("port", 443);
  p.set("protocol", "TCP");
  p.set("targetPort", api_port);
  json::Value ports = json::Value::array();
  ports.push(p);
  json::Value spec = json::Value::object();
  spec.set("ports", ports);
  spec.set("type", "ClusterIP");
  spec.set("sessionAffinity", "None");
  svc.set("spec", spec);
  svc.at_or_insert("status").set("loadBalancer", json::Value::object());
  json::Value stored;
  return st->create("services", "default", "kubernetes", svc, &stored) == store::Result::Ok;
}

// Each kind of thread's peak stack against its budget, for STATUS and `k32 bench memory`.
std::vector<port::StackUse> stack_use() {
  std::vector<port::StackUse> rows(port::stack_report(nullptr, 0));
  size_t n = port::stack_report(rows.data(), rows.size());
  if (n < rows.size()) rows.resize(n);  // a kind started in between shows next time
  return rows;
}

// STATUS, written as it is produced (a tree and its string held up to 8 KiB at once); the
// members and their order are what the host tools and tests read.
void write_status(Node* n, json::Writer& s) {
  s.begin_object();
  s.member("name", n->cfg.name);
  s.member("role", n->cfg.role == node::Role::ControlPlane ? "control-plane" : "worker");
  s.member("ip", n->cfg.bind_ip);
  s.member("apiPort", static_cast<int64_t>(n->cfg.role == node::Role::ControlPlane ? n->cfg.api_port : 0));
  s.member("ingressPort", static_cast<int64_t>(n->cfg.role == node::Role::ControlPlane ? n->cfg.ingress_port : 0));
  s.member("podPort", static_cast<int64_t>(n->cfg.pod_port));
  s.member("bundle", n->cfg.bundle_digest);
  s.member("board", n->cfg.board);
  s.member("token", !n->current_token().empty());
  s.member("wifi", n->settings.has("wifi"));
  port::MemStats m = port::mem_stats();
  s.member("heapBytes", static_cast<int64_t>(m.internal_in_use + m.psram_in_use));
  s.member("heapInternalBytes", static_cast<int64_t>(m.internal_in_use));
  s.member("heapPsramBytes", static_cast<int64_t>(m.psram_in_use));
  // Of those PSRAM bytes, what asked for internal RAM first and found it full.
  s.member("heapSpilledBytes", static_cast<int64_t>(m.internal_spilled));
  // The most the node has held at once (both regions), transient work and thread stacks
  // included: what a budget must leave room for, beside the figures at rest.
  s.member("heapPeakBytes", static_cast<int64_t>(m.peak_in_use));
  // The pods' interpreter memory inside those figures: linear memory, and with it the value
  // stacks (the "bulk" the kubelet asks PSRAM for, internal RAM on a board without it).
  const kubelet::PodHeap ph = kubelet::pod_heap(n->kubelet);
  s.member("podLinearBytes", static_cast<int64_t>(ph.linear_bytes));
  s.member("podBulkBytes", static_cast<int64_t>(ph.bulk_bytes));
  s.member("podBulkRegion", port::has_psram() ? "psram" : "internal");
  s.member("podStoreBytes", static_cast<int64_t>(ph.store_bytes));
  // On the control plane, the two stores held at a byte budget (the watch history's
  // superseded versions, the Events kept), as each counts itself: full, which of their oldest
  // entries is left moves with every write (a heartbeat's), so a reading can leave them out.
  if (n->events) {
    s.member("historyBytes", static_cast<int64_t>(n->store.history_bytes()));
    s.member("historyEvents", static_cast<int64_t>(n->store.history_events()));
    s.member("eventsBytes", static_cast<int64_t>(n->events->bytes()));
  }
  // The answer's only heap: one row per kind of thread (32 bytes each, about 20 kinds). It does
  // not take the own-work gate (util/own_work.h): under 1 KiB beside the piece holding the
  // reserve, and a diagnostic answer must not wait behind an API exchange with a node whose
  // control plane is unreachable.
  const std::vector<port::StackUse> rows = stack_use();
  // The running threads' stacks, inside heapBytes (a task's stack is heap on the board).
  int64_t stack_heap = 0;
  for (const auto& r : rows) stack_heap += static_cast<int64_t>(r.budget) * r.running;
  s.member("heapStackBytes", stack_heap);
  s.key("stacks");
  s.begin_array();
  for (const auto& r : rows) {
    s.begin_object();
    s.member("name", static_cast<const char*>(r.name));
    s.member("budget", static_cast<int64_t>(r.budget));
    s.member("peak", static_cast<int64_t>(r.peak));
    s.member("threads", static_cast<int64_t>(r.threads));
    s.member("running", static_cast<int64_t>(r.running));
    s.end_object();
  }
  s.end_array();
  s.end_object();
}

void add_console_commands(Node* n) {
  n->console.add_streamed("STATUS", [n](const json::Value&, json::Writer& out) { write_status(n, out); });
  // The API's certificate (public), so a client can pin it: read over the console, it needs
  // no trust in the network the API is reached through.
  n->console.add("APICERT", [n](const json::Value&) {
    if (n->api_ca_file.empty()) return console::Reply{false, json::Value(), "the API serves no TLS on this node"};
    char* data = nullptr;
    size_t len = 0;
    if (!port::file_read(n->api_ca_file.c_str(), &data, &len))
      return console::Reply{false, json::Value(), "cannot read the API certificate"};
    std::string pem(data, len);
    port::mem_free(data);
    json::Value r = json::Value::object();
    r.set("pem", pem);
    r.set("ip", n->cfg.bind_ip);
    r.set("apiPort", static_cast<int64_t>(n->cfg.api_port));
    return console::Reply{true, r, ""};
  });
  n->console.add("TOKEN", [n](const json::Value& arg) {
    const json::Value* t = arg.find("token");
    if (!t || !t->is_string()) return console::Reply{false, json::Value(), "TOKEN needs {\"token\":\"<string>\"}"};
    const std::string& tok = t->str();
    if (tok.size() > 512) return console::Reply{false, json::Value(), "token longer than 512 bytes"};
    for (unsigned char c : tok)
      if (c < 0x21 || c > 0x7e)
        return console::Reply{false, json::Value(),
                              "token must be printable ASCII without spaces (it travels in an HTTP header)"};
    if (!n->settings.set("token", tok)) return console::Reply{false, json::Value(), "could not persist the token"};
    n->set_token(tok);
    logf("[NODE] bearer token %s", tok.empty() ? "cleared: the API accepts any client" : "set: the API requires it");
    json::Value d = json::Value::object();
    d.set("auth", !tok.empty());
    return console::Reply{true, d, ""};
  });
  n->console.add("WIFI", [n](const json::Value& arg) {
    const json::Value* ssid = arg.find("ssid");
    const json::Value* pass = arg.find("password");
    if (!ssid || !ssid->is_string() || !pass || !pass->is_string())
      return console::Reply{false, json::Value(), "WIFI needs {\"ssid\":\"<string>\",\"password\":\"<string>\"}"};
    if (ssid->str().empty() || ssid->str().size() > 32) return console::Reply{false, json::Value(), "ssid must be 1 to 32 bytes"};
    if (!pass->str().empty() && (pass->str().size() < 8 || pass->str().size() > 63))
      return console::Reply{false, json::Value(), "WPA2 passwords are 8 to 63 bytes (or empty for an open network)"};
    json::Value w = json::Value::object();
    w.set("ssid", ssid->str());
    w.set("password", pass->str());
    if (!n->settings.set("wifi", w)) return console::Reply{false, json::Value(), "could not persist the credentials"};
    // The simulator's station is the host's own network: credentials are kept for the
    // board profile and reported, never printed.
    logf("[NET] station credentials stored for SSID \"%s\"", ssid->str().c_str());
    json::Value d = json::Value::object();
    d.set("ssid", ssid->str());
    return console::Reply{true, d, ""};
  });
  n->console.add("REBOOT", [](const json::Value&) {
    // Answer first, then restart from another thread once the reply is on its way.
    port::thread_start("reboot", K32_REBOOT_STACK_BYTES, static_cast<port::Region>(K32_REBOOT_STACK_REGION), reboot_main,
                       nullptr);
    return console::Reply{true, json::Value(), ""};
  });
}

std::string ready_line(const Node& n) {
  json::Value r = json::Value::object();
  r.set("name", n.cfg.name);
  r.set("role", n.cfg.role == node::Role::ControlPlane ? "control-plane" : "worker");
  r.set("ip", n.cfg.bind_ip);
  r.set("apiPort", static_cast<int64_t>(n.cfg.role == node::Role::ControlPlane ? n.cfg.api_port : 0));
  r.set("ingressPort", static_cast<int64_t>(n.cfg.role == node::Role::ControlPlane ? n.cfg.ingress_port : 0));
  r.set("podPort", static_cast<int64_t>(n.cfg.pod_port));
  r.set("console", n.cfg.console_port ? n.cfg.bind_ip + ":" + text::to_string(n.cfg.console_port) : std::string("stdio"));
  r.set("bundle", n.cfg.bundle_digest);
  if (!n.api_ca_file.empty()) {
    r.set("apiScheme", "https");
    r.set("caFile", n.api_ca_file);
  } else if (n.cfg.role == node::Role::ControlPlane) {
    r.set("apiScheme", "http");
  }
  return "K32_READY " + json::dump(r);
}

}  // namespace

int run_node(const node::NodeConfig& cfg_in) {
  Node* n = new Node(cfg_in);
  node::NodeConfig& cfg = n->cfg;
  std::string err;
  // A worker-only board's budgets hold no API server, scheduler or Ingress: refuse at once
  // rather than overflow a stack or the heap later.
  if (cfg.role == node::Role::ControlPlane && !K32_BOARD_CONTROL_PLANE) {
    logf("[NODE] board %s is a worker board: it cannot run as the control plane", K32_BOARD_NAME);
    return 2;
  }
  if (!cfg.state_dir.empty() && !port::dir_ensure(cfg.state_dir.c_str())) {
    logf("[NODE] cannot create state dir %s", cfg.state_dir.c_str());
    return 2;
  }
  // A token set on the console wins over the start-up flag: it is the newer decision.
  n->token = n->settings.has("token") ? n->settings.get("token") : cfg.token;
  logf("[NODE] %s starting as %s on %s (board %s, bundle %s)", cfg.name.c_str(),
       cfg.role == node::Role::ControlPlane ? "control plane" : "worker", cfg.bind_ip.c_str(), cfg.board.c_str(),
       cfg.bundle_digest.empty() ? "none" : cfg.bundle_digest.c_str());

  http::Endpoint api_ep;
  if (cfg.role == node::Role::ControlPlane) {
    if (!n->store.open(cfg.state_dir.empty() ? "" : cfg.state_dir + "/store", &err)) {
      logf("[NODE] %s", err.c_str());
      return 2;
    }
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) ensure_namespace(&n->store, ns);
    ensure_kubernetes_service(&n->store, cfg.api_port);
    // Events within the board's events_kept, whoever writes them (API, scheduler, controllers):
    // the write that takes them past it deletes the surplus before it returns.
    n->events = new controllers::EventBudget(&n->store, K32_EVENTS_KEPT_BYTES);
    n->events->install();
    api::ApiConfig ac;
    ac.advertise_ip = cfg.bind_ip;
    ac.api_port = cfg.api_port;
    n->api = new api::ApiServer(&n->store, ac);
    n->api->set_token(n->token);
    mount_channel_routes(n->api, &n->hub);
    n->publish = [n](const std::string& topic, const std::string& payload) {
      n->hub.publish(topic, payload);
      return true;
    };
    make_kubelet(n, http::Endpoint{cfg.bind_ip, cfg.api_port});
    // k32_http_call: services and policies from the store, https:// on this node's TLS
    // sessions (OS roots + --egress-ca), and the egress gateway for the workers' pods.
    char terr[256] = {0};
    if (!port::tls_client_trust(cfg.egress_ca.empty() ? nullptr : cfg.egress_ca.c_str(), terr, sizeof terr))
      logf("[EGRESS] %s", terr);
    n->calls = calls::install_control_plane_calls(n->kubelet, &n->store, n->api, [n]() { return n->current_token(); });
    n->api->add_route(podserver::make_log_route(&n->store, n->kubelet, [n]() { return n->current_token(); }));
    // kubectl top: the metrics API, fed by every node's usage report.
    api::mount_metrics_api(n->api, &n->store, new api::MetricsStore());
    // kubectl port-forward: a pod's k32_handle through the API's pods/portforward.
    n->api->add_route(api::make_portforward_route(&n->store, [n]() { return n->current_token(); }));
    // `k32 image push`: a module into this node's wasm://sd/ store, behind the API's token.
    n->api->add_route(make_sd_image_route(cfg.sd_dir));
    // Pods bound to this node start at once instead of at the next sync period.
    kubelet::Kubelet* kl = n->kubelet;
    n->store.add_listener([kl](const store::Event& ev) {
      if (ev.resource == "pods" && ev.object["spec"]["nodeName"].as_string() == kl->config().node_name) kl->poke();
    });
    http::ServerConfig sc;
    sc.name = "api";
    sc.bind_ip = cfg.bind_ip;
    sc.port = cfg.api_port;
    sc.conn_stack_bytes = K32_API_CONN_STACK_BYTES;
    sc.stack_region = static_cast<port::Region>(K32_API_CONN_STACK_REGION);
    sc.max_connections = K32_API_CONNECTIONS;
    sc.max_body_bytes = ac.max_body_bytes;
    // kubectl sends a bearer token only over TLS, so the API port speaks TLS too, with a
    // self-signed identity made on first boot; kubelets keep plain HTTP on the same port.
    char cert_path[512];
    char tls_err[200];
    std::string tls_dir = (cfg.state_dir.empty() ? std::string(".") : cfg.state_dir) + "/tls";
    if (port::tls_identity_ensure(tls_dir.c_str(), cfg.bind_ip.c_str(), cert_path, sizeof cert_path, tls_err, sizeof tls_err) &&
        (sc.tls = port::tls_server_new(tls_dir.c_str(), tls_err, sizeof tls_err)) != nullptr) {
      n->api_ca_file = cert_path;
    } else {
      logf("[NODE] the API serves plain HTTP only: %s", tls_err);
    }
    api::ApiServer* api = n->api;
    if (!n->api_http.start(
            sc, [api](http::Request& rq, http::ResponseWriter& w) { api->handle(rq, w); }, &err)) {
      logf("[NODE] %s", err.c_str());
      return 2;
    }
    n->lifecycle = new node::NodeLifecycle(&n->store);
    port::thread_start("node-lifecycle", K32_NODE_LIFECYCLE_STACK_BYTES,
                       static_cast<port::Region>(K32_NODE_LIFECYCLE_STACK_REGION), &node::NodeLifecycle::run, n->lifecycle);
    api_ep.host = cfg.bind_ip;
    api_ep.port = cfg.api_port;

    IngressConfig icfg;
    icfg.node_name = cfg.name;
    icfg.ip = cfg.bind_ip;
    // In-process: the ingress is this node, and it has replaced the client's X-Kube32-*.
    icfg.local_pods = n->pod_server;
    icfg.token = [n]() { return n->current_token(); };
    n->ingress = new IngressController(&n->store, &n->hub, icfg);
    n->ingress->start();
    http::ServerConfig ic;
    ic.name = "ingress";
    ic.bind_ip = cfg.bind_ip;
    ic.port = cfg.ingress_port;
    ic.max_connections = K32_INGRESS_CONNECTIONS;
    // The ingress worker's own budget plus an in-process chain's: a control-plane pod's calls
    // to other control-plane pods run on this thread, hop after hop, up to the chain limit.
    ic.conn_stack_bytes = K32_INGRESS_STACK_BYTES + K32_INPROC_CHAIN_STACK_BYTES;
    ic.stack_region = static_cast<port::Region>(K32_INGRESS_STACK_REGION);
    // Request bodies are held only up to this budget; responses stream as they arrive.
    ic.max_body_bytes = K32_INGRESS_BODY_MAX;
    IngressController* ingress = n->ingress;
    if (!n->ingress_http.start(
            ic, [ingress](http::Request& rq, http::ResponseWriter& w) { ingress->handle(rq, w); }, &err)) {
      logf("[NODE] %s", err.c_str());
      return 2;
    }
  } else if (!http::parse_base_url(cfg.control_plane_url, &api_ep)) {
    logf("[NODE] --control-plane must be http://IP:PORT (got \"%s\")", cfg.control_plane_url.c_str());
    return 2;
  } else {
    make_kubelet(n, api_ep);
    // Services and policies through the API, https:// through the control plane's gateway.
    n->calls = calls::install_worker_calls(n->kubelet, [n]() { return n->current_token(); });
  }

  podserver::PodServer* pods = n->pod_server;
  n->pod_handler = [pods](http::Request& rq, http::ResponseWriter& w) { pods->handle(rq, w); };
  http::ServerConfig pc;
  pc.name = "pods";
  pc.bind_ip = cfg.bind_ip;
  pc.port = cfg.pod_port;
  // In-process k32_handle calls need K32_INPROC_CALL_STACK_BYTES free (a pod's handler runs
  // on the caller's native stack; the caller checks that room first and answers
  // K32_ERR_NOMEM without it), on top
  // of what the server itself uses. On the control plane a pod's calls to other pods run
  // in-process on this thread too, so it carries a whole chain (K32_INPROC_CHAIN_STACK_BYTES);
  // A worker's threads keep one call's room: a worker board has no PSRAM for eight of them.
  pc.conn_stack_bytes = K32_POD_CONN_STACK_BYTES +
                        (cfg.role == node::Role::ControlPlane ? K32_INPROC_CHAIN_STACK_BYTES : K32_INPROC_CALL_STACK_BYTES);
  pc.stack_region = static_cast<port::Region>(K32_POD_CONN_STACK_REGION);
  // A kept-alive pod-server connection holds that stack while it waits: it gets a short idle
  // deadline, not the API's (its callers, the ingress and Service calls, reconnect cheaply).
  pc.idle_timeout_ms = K32_POD_KEEPALIVE_IDLE_MS;
  if (!n->pod_http.start(pc, n->pod_handler, &err)) {
    logf("[NODE] %s", err.c_str());
    return 2;
  }

  add_console_commands(n);
  if (!console::serve(&n->console, cfg.bind_ip, cfg.console_port, K32_CONSOLE_CONN_MAX, &err)) {
    logf("[NODE] %s", err.c_str());
    return 2;
  }

  if (cfg.role == node::Role::Worker) {
    n->bridge = new ChannelBridge(
        api_ep, [n]() { return n->current_token(); }, &n->hub);
    n->publish = [n](const std::string& topic, const std::string& payload) { return n->bridge->publish(topic, payload); };
    n->hub.on_subscribe(StartRelay{n});
  }
  n->node_api = new HttpNodeApi(api_ep, [n]() { return n->current_token(); });
  n->heartbeat = new node::Heartbeat(cfg, n->node_api);
  n->heartbeat->set_after_beat(ReportUsage{n});
  n->heartbeat->set_images(&kubelet::node_images_status);
  kubelet::set_modules_changed(&node::Heartbeat::images_changed, n->heartbeat);
  if (cfg.role == node::Role::ControlPlane) n->heartbeat->register_node();
  port::thread_start("heartbeat", K32_HEARTBEAT_STACK_BYTES, static_cast<port::Region>(K32_HEARTBEAT_STACK_REGION),
                     heartbeat_main, n->heartbeat);
  if (cfg.role == node::Role::ControlPlane) {
    n->scheduler = new sched::Scheduler(&n->store);
    n->controllers = new controllers::ControllerManager(n->api);
    n->controllers->attach();
    n->scheduler->set_after_pass(RunControllers{n->controllers});
    port::thread_start("scheduler", K32_SCHEDULER_STACK_BYTES, static_cast<port::Region>(K32_SCHEDULER_STACK_REGION),
                       &sched::Scheduler::thread_main, n->scheduler);
  }
  port::thread_start("kubelet", K32_KUBELET_SYNC_STACK_BYTES, static_cast<port::Region>(K32_KUBELET_SYNC_STACK_REGION),
                     &kubelet::Kubelet::thread_main, n->kubelet);

  std::printf("%s\n", ready_line(*n).c_str());
  std::fflush(stdout);
  // The start-up task (ESP-IDF's main task on a board) lives as long as the node: it runs
  // the kubelet's call watch rather than a thread of its own holding another stack.
  for (;;) {
    port::sleep_ms(K32_POD_CALL_WATCH_MS);
    n->kubelet->watch_tick();
  }
}

}  // namespace app
}  // namespace k32
