#include "app/ingress_controller.h"

#include "app/upstream_pool.h"
#include "app/web_assets.h"
#include "core/api/endpoints_view.h"
#include "core/http/accept_encoding.h"
#include "core/http/internal_headers.h"
#include "core/http/sse_event.h"
#include "core/podserver/peer_auth.h"
#include "core/podserver/pod_server.h"
#include "core/podserver/pod_server_address.h"
#include "core/util/log.h"
#include "core/util/fit.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace app {

namespace {

void send_json_error(http::ResponseWriter& w, int code, const std::string& reason, const std::string& message) {
  json::Value e = json::Value::object();
  e.set("code", code);
  e.set("reason", reason);
  e.set("message", message);
  w.send(code, "application/json", json::dump(e) + "\n");
}

}  // namespace

IngressController::IngressController(store::ObjectStore* st, channels::Hub* hub, IngressConfig cfg)
    : store_(st), hub_(hub), cfg_(std::move(cfg)), pool_(new UpstreamPool()), started_ms_(port::monotonic_ms()) {
  // An Ingress, Service or Pod change makes the table stale; the rebuild itself happens
  // on the request path (at most every K32_INGRESS_REBUILD_MIN_MS) or on the tick.
  // A Service, Pod or Node change (readiness, the pod server port) makes the cached backends
  // stale at once: the next request resolves them again.
  store_->add_listener([this](const store::Event& ev) {
    if (ev.resource == "networking.k8s.io/ingresses" || ev.resource == "services" || ev.resource == "pods") mark_dirty();
    if (ev.resource == "services" || ev.resource == "pods" || ev.resource == "nodes") backends_gen_.fetch_add(1);
  });
}

bool IngressController::start() {
  return port::thread_start("ingress-tick", K32_INGRESS_TICK_STACK_BYTES,
                            static_cast<port::Region>(K32_INGRESS_TICK_STACK_REGION), &IngressController::tick_main, this);
}

void IngressController::tick_main(void* self) {
  IngressController* c = static_cast<IngressController*>(self);
  for (;;) {
    port::sleep_ms(K32_INGRESS_REBUILD_TICK_MS);
    c->tick();
  }
}

void IngressController::tick() {
  rebuild_if_due(true);
  write_status();
  publish_stats();
}

void IngressController::rebuild_if_due(bool from_tick) {
  if (!dirty_.load()) return;
  uint64_t now = port::monotonic_ms();
  port::LockGuard<port::Mutex> lock(mu_);
  if (!from_tick && now - last_build_ms_ < K32_INGRESS_REBUILD_MIN_MS) return;
  dirty_ = false;
  last_build_ms_ = now;
  // The Ingresses are read one at a time, each dropped once its routes and annotations are
  // taken: every Ingress parsed at once beside the table in use was about 18 KiB for 10
  // apps, held while the pods of those apps started.
  auto table = std::make_shared<RouteTable>();
  clear_annotations();
  store_->for_each("networking.k8s.io/ingresses", "", nullptr, [&](json::Value& ing) {
    table->add(ing);
    index_annotations(ing);
    return true;
  });
  table->finish();
  fit_annotations();
  table_ = std::move(table);
  // Round-robin places of Services no route names any more: without this every Service
  // ever called would keep its entry, and apps created and deleted under new names would
  // grow the map for the node's whole life.
  for (auto it = rr_.begin(); it != rr_.end();) it = table_->names_service(it->first) ? std::next(it) : rr_.erase(it);
}

// The event-stream and telemetry paths, read once per rebuild instead of out of every
// Ingress's annotations on every request; the stats topics and the Ingresses whose status
// does not name this node yet, for the tick.
void IngressController::clear_annotations() {
  streams_.clear();
  telemetry_paths_.clear();
  stats_topics_.clear();
  status_due_.clear();
}

void IngressController::index_annotations(const json::Value& ing) {
  const json::Value& ann = ing["metadata"]["annotations"];
  const std::string id = ing.path_str({"metadata", "namespace"}) + "/" + ing.path_str({"metadata", "name"});
  std::string stats = ann["kube32.io/stats-topic"].as_string();
  if (!stats.empty()) stats_topics_.push_back({id, stats});
  if (!RouteTable::serves(ing)) return;
  if (!status_names(ing, cfg_.ip)) status_due_.push_back(id);
  std::string telemetry = ann["kube32.io/cluster-telemetry"].as_string();
  if (!telemetry.empty()) telemetry_paths_.push_back(telemetry);
  std::string spec = ann["kube32.io/event-stream"].as_string();
  if (spec.empty()) return;
  for (const auto& part : text::split(spec, ';')) {
    size_t eq = part.find('=');
    if (eq == std::string::npos) continue;
    Stream st;
    st.ns = ing.path_str({"metadata", "namespace"});
    st.ingress = ing.path_str({"metadata", "name"});
    st.path = text::trim(part.substr(0, eq));
    for (const auto& t : text::split(part.substr(eq + 1), ',')) {
      std::string topic = text::trim(t);
      if (!topic.empty()) st.topics.push_back(topic);
    }
    streams_.push_back(std::move(st));
  }
}

void IngressController::fit_annotations() {
  util::fit_capacity(&stats_topics_);
  util::fit_capacity(&streams_);
  util::fit_capacity(&telemetry_paths_);
  util::fit_capacity(&status_due_);
}

bool IngressController::status_names(const json::Value& ing, const std::string& ip) {
  const json::Value* lb = ing.path({"status", "loadBalancer", "ingress"});
  return lb && lb->items().size() == 1 && lb->items()[0]["ip"].as_string() == ip;
}

void IngressController::write_status() {
  std::vector<std::string> due;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    due = status_due_;
  }
  // Each Ingress is read again here, one at a time: the write changes it, which marks the
  // table dirty, and the next rebuild no longer lists it as due.
  for (const std::string& id : due) {
    size_t slash = id.find('/');
    const std::string ns = id.substr(0, slash), name = id.substr(slash + 1);
    json::Value ing;
    if (!store_->get("networking.k8s.io/ingresses", ns, name, &ing)) continue;
    if (!RouteTable::serves(ing) || status_names(ing, cfg_.ip)) continue;
    json::Value entry = json::Value::object();
    entry.set("ip", cfg_.ip);
    json::Value arr = json::Value::array();
    arr.push(entry);
    ing.at_or_insert("status").at_or_insert("loadBalancer").set("ingress", arr);
    uint64_t rv = 0;
    text::parse_uint(ing.path_str({"metadata", "resourceVersion"}), UINT64_MAX, &rv);
    json::Value stored;
    store_->update("networking.k8s.io/ingresses", ns, name, std::move(ing), rv, &stored);
  }
}

std::string IngressController::telemetry_json() {
  json::Value t = json::Value::object();
  json::Value nodes = json::Value::array();
  // One stored object parsed at a time (ObjectStore::for_each): only the few fields taken
  // from each are kept, never every pod's whole tree at once.
  store_->for_each("nodes", "", nullptr, [&nodes](json::Value& n) {
    json::Value e = json::Value::object();
    e.set("name", n.path_str({"metadata", "name"}));
    bool ready = false;
    for (const auto& c : n["status"]["conditions"].items())
      if (c["type"].str() == "Ready") ready = c["status"].str() == "True";
    e.set("ready", ready);
    e.set("role", n["metadata"]["labels"].find("node-role.kubernetes.io/control-plane") ? "control-plane" : "worker");
    for (const auto& a : n["status"]["addresses"].items())
      if (a["type"].str() == "InternalIP") e.set("ip", a["address"]);
    nodes.push(std::move(e));
    return true;
  });
  t.set("nodes", nodes);
  json::Value pods = json::Value::array();
  store_->for_each("pods", "", nullptr, [&pods](json::Value& p) {
    json::Value e = json::Value::object();
    e.set("namespace", p.path_str({"metadata", "namespace"}));
    e.set("name", p.path_str({"metadata", "name"}));
    e.set("phase", p["status"]["phase"].as_string("Pending"));
    e.set("node", p["spec"]["nodeName"].as_string());
    pods.push(std::move(e));
    return true;
  });
  t.set("pods", pods);
  port::MemStats m = port::mem_stats();
  t.set("heapBytes", static_cast<int64_t>(m.internal_in_use + m.psram_in_use));
  t.set("uptimeMs", static_cast<int64_t>(port::monotonic_ms() - started_ms_));
  t.set("resourceVersion", static_cast<int64_t>(store_->current_rv()));
  return json::dump(t);
}

void IngressController::publish_stats() {
  std::vector<StatsTopic> topics;
  std::map<std::string, uint32_t> reqs;
  std::map<std::string, int> viewers;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    if (stats_topics_.empty()) {
      requests_.clear();
      return;
    }
    topics = stats_topics_;
    reqs.swap(requests_);
    viewers = viewers_;
  }
  for (const auto& st : topics) {
    const std::string& id = st.id;
    int v = 0;
    for (const auto& kv : viewers)
      if (text::starts_with(kv.first, id + " ")) v += kv.second;
    json::Value s = json::Value::object();
    s.set("t", "stats");
    s.set("ingress", id);
    s.set("rps", static_cast<int64_t>(reqs[id]));
    s.set("viewers", static_cast<int64_t>(v));
    hub_->publish(st.topic, json::dump(s));
  }
}

bool IngressController::ingress_exists(const std::string& ns, const std::string& name) {
  json::Value ing;
  return store_->get("networking.k8s.io/ingresses", ns, name, &ing) && ing["metadata"]["deletionTimestamp"].is_null();
}

const IngressController::Stream* IngressController::find_stream_locked(const std::string& path) const {
  // The first Ingress (and the first entry of its annotation) naming the path wins.
  for (const auto& st : streams_)
    if (st.path == path) return &st;
  return nullptr;
}

bool IngressController::find_telemetry_locked(const std::string& path) const {
  for (const auto& p : telemetry_paths_)
    if (p == path) return true;
  return false;
}

void IngressController::handle(http::Request& req, http::ResponseWriter& w) {
  // X-Kube32-* headers route and authenticate between nodes; a client of the ingress is
  // not a node, so whatever it sent under that prefix is dropped before routing (else it
  // could pick any pod with X-Kube32-Pod or fake a call chain).
  http::strip_internal_headers(&req.headers);
  if (const std::string* limit = req.header("X-K32-Body-Too-Large")) {
    send_json_error(w, 413, "RequestEntityTooLarge", "request bodies through the ingress are limited to " + *limit + " bytes");
    return;
  }
  rebuild_if_due(false);
  const bool get = req.method == "GET";
  const std::string* host = req.header("Host");
  // One look under the lock: an event stream, the telemetry, or a route (found in the
  // table this request then keeps, so the route is read in place, not copied).
  Stream stream;
  bool is_stream = false, telemetry = false;
  std::shared_ptr<const RouteTable> table;
  const RouteMatch* m = nullptr;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    const Stream* st = get ? find_stream_locked(req.path) : nullptr;
    if (st) {
      stream = *st;
      is_stream = true;
    } else if ((get || req.method == "HEAD") && find_telemetry_locked(req.path)) {
      telemetry = true;
    } else {
      table = table_;
      m = table->find(host ? *host : "", req.path);
      if (m) ++requests_[m->id];
    }
  }
  if (is_stream) {
    serve_events(req, w, stream);
    return;
  }
  if (telemetry) {
    w.add_header("Cache-Control", "no-cache");
    w.send(200, "application/json", telemetry_json());
    return;
  }
  if (!m) {
    send_json_error(w, 404, "NotFound", "no Ingress rule matches " + req.path);
    return;
  }
  if (m->backend.is_resource) serve_static(req, w, *m);
  else serve_service(req, w, *m);
}

IngressController::Backends IngressController::resolve_backends(const RouteMatch& m) {
  Backends out;
  json::Value svc;
  if (!store_->get("services", m.ns, m.backend.service, &svc)) {
    out.problem = kNoService;
    return out;
  }
  const json::Value* port = nullptr;
  for (const auto& p : svc["spec"]["ports"].items()) {
    if ((m.backend.port_number && p["port"].as_int() == m.backend.port_number) ||
        (!m.backend.port_name.empty() && p["name"].as_string() == m.backend.port_name))
      port = &p;
  }
  if (!port) {
    out.problem = kNoPort;
    return out;
  }
  // The Service's ready pods take turns, as kube-proxy spreads connections over its
  // endpoints: a pod on this node (the control plane) is one of them and is called
  // in-process on its turn; worker pods are relayed to on nodes that are Ready, at the pod
  // server port their node reports (7000 on every board; distinct ports for simulated
  // workers sharing one host).
  for (const auto& pod : api::selected_pods(store_, svc)) {
    if (!api::pod_ready(pod) || api::resolve_target_port(*port, pod) <= 0) continue;
    std::string key = pod.path_str({"metadata", "namespace"}) + "/" + pod.path_str({"metadata", "name"});
    std::string node_name = pod["spec"]["nodeName"].as_string();
    if (node_name == cfg_.node_name) {
      if (cfg_.local_pods) out.list.push_back(BackendRef{key, std::string(), 0});
      continue;
    }
    std::string ip = pod["status"]["podIP"].as_string();
    if (ip.empty()) continue;
    json::Value node;
    if (!store_->get("nodes", "", node_name, &node)) continue;
    bool ready = false;
    for (const auto& c : node["status"]["conditions"].items())
      if (c["type"].str() == "Ready") ready = c["status"].str() == "True";
    uint16_t np = 0;
    if (ready && podserver::pod_server_port(node, &np)) out.list.push_back(BackendRef{key, ip, np});
  }
  return out;
}

std::shared_ptr<const IngressController::Backends> IngressController::backends_for(const RouteMatch& m) {
  const std::string& key = m.backend.port_key;
  // Read the generation before the store: a change while resolving leaves an entry marked
  // with the older generation, resolved again by the next request.
  const uint64_t gen = backends_gen_.load();
  {
    port::LockGuard<port::Mutex> lock(mu_);
    if (backends_built_gen_ == gen) {
      auto it = backends_.find(key);
      if (it != backends_.end()) return it->second;
    }
  }
  auto fresh = std::make_shared<const Backends>(resolve_backends(m));
  port::LockGuard<port::Mutex> lock(mu_);
  if (backends_built_gen_ != gen) {
    // A new generation replaces every entry, so services no route asks for any more go too.
    if (gen < backends_built_gen_) return fresh;  // a newer one is already in place
    backends_.clear();
    backends_built_gen_ = gen;
  }
  backends_[key] = fresh;
  return fresh;
}

void IngressController::serve_service(http::Request& req, http::ResponseWriter& w, const RouteMatch& m) {
  std::shared_ptr<const Backends> b = backends_for(m);
  const std::string& key = m.backend.service_key;
  if (b->problem == kNoService || b->problem == kNoPort || b->list.empty()) {
    w.add_header("Retry-After", "2");
    std::string why = b->problem == kNoService ? "does not exist"
                      : b->problem == kNoPort
                          ? "has no port " +
                                (m.backend.port_name.empty() ? text::to_string(m.backend.port_number) : m.backend.port_name)
                          : "selects no running pod";
    send_json_error(w, 503, "ServiceUnavailable", "service " + key + " " + why);
    return;
  }
  uint32_t idx;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    idx = rr_[key]++;
  }
  // A relay that fails moves on to the next pod.
  std::string token;
  bool token_read = false;
  for (size_t tried = 0; tried < b->list.size(); ++tried) {
    const BackendRef& c = b->list[(idx + tried) % b->list.size()];
    if (c.node_port == 0) {
      req.headers.push_back({"X-Kube32-Pod", c.pod_key});
      cfg_.local_pods->serve(req, w);
      return;
    }
    if (!token_read) {
      token = cfg_.token ? cfg_.token() : std::string();
      token_read = true;
    }
    std::vector<http::Header> extra{{"X-Kube32-Pod", c.pod_key}, {"X-Forwarded-For", req.peer_ip}};
    if (!token.empty()) extra.push_back({podserver::kTokenHeader, token});
    if (pool_->relay(c.pod_ip, c.node_port, req, extra, w)) return;
  }
  w.add_header("Retry-After", "2");
  send_json_error(w, 503, "ServiceUnavailable", "no pod of service " + key + " answered");
}

void IngressController::serve_static(http::Request& req, http::ResponseWriter& w, const RouteMatch& m) {
  const Backend& b = m.backend;
  if (b.resource_kind != "StaticBundle" || (!b.resource_group.empty() && b.resource_group != "kube32.io")) {
    send_json_error(w, 404, "NotFound", "unsupported resource backend " + b.resource_group + "/" + b.resource_kind);
    return;
  }
  if (!web_bundle_exists(b.resource_name)) {
    send_json_error(w, 404, "NotFound", "static bundle \"" + b.resource_name + "\" is not in this firmware");
    return;
  }
  if (req.method != "GET" && req.method != "HEAD") {
    w.add_header("Allow", "GET, HEAD");
    send_json_error(w, 405, "MethodNotAllowed", "static bundles answer GET and HEAD");
    return;
  }
  // Under a Prefix sub-path the matched prefix is stripped before the file lookup.
  // The file's name is cut out of the request path in one copy.
  size_t from = 0;
  if (m.type != "Exact" && !m.matched_path.empty() && m.matched_path != "/") from = m.matched_path.size();
  while (from < req.path.size() && req.path[from] == '/') ++from;
  std::string rel = from < req.path.size() ? req.path.substr(from) : std::string("index.html");
  const std::string* ae = req.header("Accept-Encoding");
  bool gzip_ok = http::accepts_encoding(ae, "gzip");
  auto lookup = [&](const std::string& p, bool* gz, bool* gz_only) -> const WebAsset* {
    const WebAsset* plain = web_asset_find(b.resource_name, p);
    const WebAsset* zipped = web_asset_find(b.resource_name, p, ".gz");
    *gz = false;
    *gz_only = !plain && zipped;
    if (zipped && gzip_ok) {
      *gz = true;
      return zipped;
    }
    return plain;
  };
  bool gz = false, gz_only = false;
  const WebAsset* a = lookup(rel, &gz, &gz_only);
  if (!a && gz_only) {
    send_json_error(w, 406, "NotAcceptable", rel + " is stored only gzip-compressed and the client does not accept gzip");
    return;
  }
  if (!a) {
    // Single-page apps: "/" and extension-less paths fall back to /index.html.
    std::string last = rel.substr(rel.rfind('/') == std::string::npos ? 0 : rel.rfind('/') + 1);
    if (last.find('.') == std::string::npos) {
      rel = "index.html";
      a = lookup(rel, &gz, &gz_only);
      if (!a && gz_only) {
        send_json_error(w, 406, "NotAcceptable", "index.html is stored only gzip-compressed and the client does not accept gzip");
        return;
      }
    }
  }
  if (!a) {
    send_json_error(w, 404, "NotFound", "no file " + rel + " in static bundle " + b.resource_name);
    return;
  }
  w.add_header("Cache-Control", rel == "index.html" ? "no-cache" : "public, max-age=3600");
  w.add_header("ETag", a->etag);
  w.add_header("Vary", "Accept-Encoding");
  if (gz) w.add_header("Content-Encoding", "gzip");
  const std::string* inm = req.header("If-None-Match");
  if (inm && *inm == a->etag) {
    w.send(304, "", "");
    return;
  }
  w.send(200, content_type_for(rel), reinterpret_cast<const char*>(a->data), a->len);
}

void IngressController::viewers_changed(const std::string& key, int delta) {
  int now;
  {
    port::LockGuard<port::Mutex> lock(mu_);
    now = (viewers_[key] += delta);
    if (now <= 0) viewers_.erase(key);
  }
  json::Value p = json::Value::object();
  p.set("viewers", static_cast<int64_t>(now < 0 ? 0 : now));
  hub_->publish("kube32.presence " + key, json::dump(p));
}

void IngressController::serve_events(http::Request& req, http::ResponseWriter& w, const Stream& s) {
  std::string key = s.ns + "/" + s.ingress + " " + s.path;
  bool presence = false, cluster = false;
  std::vector<std::string> topics;
  for (const auto& t : s.topics) {
    if (t == "kube32.presence") presence = true;
    else if (t == "kube32.cluster") cluster = true;
    else topics.push_back(t);
  }
  if (presence) topics.push_back("kube32.presence " + key);
  auto sub = hub_->subscribe(topics);
  w.add_header("Cache-Control", "no-cache");
  w.add_header("X-Accel-Buffering", "no");
  bool ok = w.begin_stream(200, "text/event-stream");
  ok = ok && w.write_chunk(": kube32 event stream\n\n");
  viewers_changed(key, +1);
  uint64_t next_cluster = 0;
  uint64_t next_check = port::monotonic_ms() + 1000;
  while (ok) {
    uint64_t now = port::monotonic_ms();
    if (cluster && now >= next_cluster) {
      next_cluster = now + K32_CLUSTER_SSE_PERIOD_MS;
      ok = w.write_chunk(http::sse_event("cluster", telemetry_json()));
      if (!ok) break;
    }
    if (now >= next_check) {
      next_check = now + 1000;
      // Deleting the Ingress closes its streams; a vanished client frees the thread.
      if (!ingress_exists(s.ns, s.ingress) || port::tcp_peer_closed(w.socket())) break;
    }
    channels::Message msg;
    if (!sub->next(&msg, 250)) continue;
    std::string event = "message";
    json::Value payload;
    json::ParseError pe;
    if (json::parse(msg.payload, &payload, &pe)) {
      if (payload["type"].is_string()) event = payload["type"].str();
      else if (payload["t"].is_string()) event = payload["t"].str();
    }
    if (text::starts_with(msg.topic, "kube32.presence ")) event = "presence";
    ok = w.write_chunk(http::sse_event(event, msg.payload));
  }
  hub_->unsubscribe(sub);
  viewers_changed(key, -1);
  w.end_stream();
  w.close_after();
}

}  // namespace app
}  // namespace k32
