#include "core/api/metrics_api.h"

#include <cstring>
#include <vector>

#include "core/api/selectors.h"
#include "core/kubelet/usage_report.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

const std::string kGroupVersion = std::string(kMetricsGroup) + "/" + kMetricsVersion;

// Reads a non-negative integer member; false when absent or of another type.
bool get_count(const json::Value& v, const char* key, uint64_t* out) {
  const json::Value* m = v.find(key);
  if (!m || !m->is_number()) return false;
  int64_t n = m->as_int(-1);
  if (n < 0) return false;
  *out = static_cast<uint64_t>(n);
  return true;
}

uint64_t nanocores(const MetricsStore::Sample& cur, const MetricsStore::Sample& prev) {
  if (cur.t_us <= prev.t_us || cur.cpu_us < prev.cpu_us) return 0;
  // (cpu time / window) in cores, times 1e9; microseconds on both sides.
  const uint64_t dcpu = cur.cpu_us - prev.cpu_us, dt = cur.t_us - prev.t_us;
  return dcpu > UINT64_MAX / 1000000000u ? UINT64_MAX / dt : dcpu * 1000000000u / dt;
}

bool fresh(uint64_t received_ms) {
  // A node silent this long is NotReady: its last figures no longer describe it.
  return received_ms && port::monotonic_ms() - received_ms < K32_NODE_NOT_READY_MS;
}

}  // namespace

bool MetricsStore::take_report(const std::string& node, const json::Value& r, std::string* err) {
  if (node.empty() || node.size() > kNameMax) {
    *err = "node name must be 1 to 253 bytes";
    return false;
  }
  Sample ns;
  uint64_t hi = 0, hp = 0;
  if (!r.is_object() || !get_count(r, "timeUs", &ns.t_us) || !get_count(r, "cpuUs", &ns.cpu_us) ||
      !get_count(r, "heapInternal", &hi) || !get_count(r, "heapPsram", &hp)) {
    *err = "a usage report needs non-negative integers timeUs, cpuUs, heapInternal and heapPsram";
    return false;
  }
  const json::Value* pods = r.find("pods");
  if (!pods || !pods->is_array()) {
    *err = "a usage report needs a pods array";
    return false;
  }
  if (pods->items().size() > K32_METRICS_PODS_MAX) {
    *err = "a usage report lists more than " + text::to_string(static_cast<int64_t>(K32_METRICS_PODS_MAX)) + " pods";
    return false;
  }
  // Validate everything before anything is kept: a bad report changes nothing.
  for (const auto& p : pods->items()) {
    const json::Value* uid = p.find("uid");
    const json::Value* cs = p.find("containers");
    if (!uid || !uid->is_string() || uid->str().empty() || uid->str().size() > kUidMax || !cs || !cs->is_array()) {
      *err = "each pod of a usage report needs a uid (at most 36 bytes) and a containers array";
      return false;
    }
    if (cs->items().size() > K32_METRICS_CONTAINERS_MAX) {
      *err = "pod " + uid->str() + " reports more than " + text::to_string(static_cast<int64_t>(K32_METRICS_CONTAINERS_MAX)) +
             " containers";
      return false;
    }
    for (const auto& c : cs->items()) {
      uint64_t x;
      if (!c.is_object() || !get_count(c, "cpuUs", &x) || !get_count(c, "memory", &x) || !get_count(c, "startedUs", &x)) {
        *err = "each container of a usage report needs non-negative integers cpuUs, memory and startedUs";
        return false;
      }
    }
  }
  port::LockGuard<port::Mutex> lock(mu_);
  int slot = -1, free_slot = -1;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].used && node == nodes_[i].name) slot = static_cast<int>(i);
    if (!nodes_[i].used && free_slot < 0) free_slot = static_cast<int>(i);
  }
  if (slot < 0) {
    if (free_slot < 0 && nodes_.size() < K32_METRICS_NODES_MAX) {
      free_slot = static_cast<int>(nodes_.size());
      nodes_.emplace_back();
    }
    if (free_slot < 0) {
      *err = "the metrics API keeps " + text::to_string(static_cast<int64_t>(K32_METRICS_NODES_MAX)) +
             " nodes and has no room for " + node;
      return false;
    }
    slot = free_slot;
    nodes_[slot] = NodeRecord();
    nodes_[slot].used = true;
    nodes_[slot].name = node;
  }
  NodeRecord& n = nodes_[slot];
  // A node that restarted reports a smaller clock: its old readings say nothing about now.
  n.has_prev = n.cur.t_us && ns.t_us > n.cur.t_us && ns.cpu_us >= n.cur.cpu_us;
  n.prev = n.cur;
  n.cur = ns;
  n.heap_internal = hi;
  n.heap_psram = hp;
  n.wall_s = port::wall_time_s();
  n.received_ms = port::monotonic_ms();

  // The node's pods: those in the report replace whatever this node reported before.
  std::vector<bool> seen(pods_.size(), false);
  for (const auto& p : pods->items()) {
    const std::string& uid = p["uid"].str();
    int ps = -1, pfree = -1;
    for (size_t i = 0; i < pods_.size(); ++i) {
      if (pods_[i].used && pods_[i].node == slot && uid == pods_[i].uid) ps = static_cast<int>(i);
      if (!pods_[i].used && pfree < 0) pfree = static_cast<int>(i);
    }
    if (ps < 0 && pfree < 0 && pods_.size() < K32_METRICS_PODS_MAX) {
      pfree = static_cast<int>(pods_.size());
      pods_.emplace_back();
      seen.push_back(false);
    }
    if (ps < 0) {
      if (pfree < 0) continue;  // full: this pod has no metrics until room frees up
      ps = pfree;
      pods_[ps] = PodRecord();
      pods_[ps].used = true;
      pods_[ps].node = static_cast<uint16_t>(slot);
      std::memcpy(pods_[ps].uid, uid.data(), uid.size());
    }
    PodRecord& rec = pods_[ps];
    seen[static_cast<size_t>(ps)] = true;
    const auto& cs = p["containers"].items();
    const bool same_shape = rec.containers == cs.size();
    rec.containers = static_cast<uint8_t>(cs.size());
    for (size_t i = 0; i < cs.size(); ++i) {
      ContainerRecord& c = rec.c[i];
      Sample s{ns.t_us, 0};
      uint64_t started = 0;
      get_count(cs[i], "cpuUs", &s.cpu_us);
      get_count(cs[i], "memory", &c.memory);
      get_count(cs[i], "startedUs", &started);
      // First reading (or a restart): the window starts when the pod started, as
      // metrics-server does for a container with one sample.
      const bool continues = same_shape && c.cur.t_us && s.t_us > c.cur.t_us && s.cpu_us >= c.cur.cpu_us;
      c.prev = continues ? c.cur : Sample{started, 0};
      c.cur = s;
    }
  }
  for (size_t i = 0; i < pods_.size(); ++i)
    if (pods_[i].used && pods_[i].node == slot && !seen[i]) pods_[i] = PodRecord();
  return true;
}

bool MetricsStore::node_usage(const std::string& node, NodeUsage* out) {
  port::LockGuard<port::Mutex> lock(mu_);
  for (const auto& n : nodes_) {
    if (!n.used || node != n.name || !fresh(n.received_ms)) continue;
    out->memory = n.heap_internal + n.heap_psram;
    out->heap_internal = n.heap_internal;
    out->heap_psram = n.heap_psram;
    out->wall_s = n.wall_s;
    // One report only: the node's time since boot is the window (its clock starts at boot).
    const Sample prev = n.has_prev ? n.prev : Sample{0, 0};
    out->cpu_nanocores = nanocores(n.cur, prev);
    out->window_ms = (n.cur.t_us - prev.t_us) / 1000;
    return true;
  }
  return false;
}

bool MetricsStore::pod_usage(const std::string& uid, PodUsage* out) {
  port::LockGuard<port::Mutex> lock(mu_);
  for (const auto& p : pods_) {
    if (!p.used || uid != p.uid) continue;
    const NodeRecord& n = nodes_[p.node];
    if (!fresh(n.received_ms)) return false;
    out->wall_s = n.wall_s;
    out->containers = p.containers;
    out->window_ms = 0;
    for (uint8_t i = 0; i < p.containers; ++i) {
      out->c[i].memory = p.c[i].memory;
      out->c[i].cpu_nanocores = nanocores(p.c[i].cur, p.c[i].prev);
      const uint64_t w = p.c[i].cur.t_us > p.c[i].prev.t_us ? (p.c[i].cur.t_us - p.c[i].prev.t_us) / 1000 : 0;
      if (w > out->window_ms) out->window_ms = w;
    }
    return true;
  }
  return false;
}

namespace {

void send_json(http::ResponseWriter& w, int code, const json::Value& v) { w.send(code, "application/json", json::dump(v)); }
void send_error(http::ResponseWriter& w, const ApiError& e) { send_json(w, e.code, status_object(e)); }

json::Value group_object() {
  json::Value v = json::Value::object();
  v.set("groupVersion", kGroupVersion);
  v.set("version", kMetricsVersion);
  json::Value g = json::Value::object();
  g.set("name", kMetricsGroup);
  json::Value vs = json::Value::array();
  vs.push(v);
  g.set("versions", vs);
  g.set("preferredVersion", v);
  return g;
}

json::Value resource_list() {
  json::Value list = json::Value::object();
  list.set("kind", "APIResourceList");
  list.set("apiVersion", "v1");
  list.set("groupVersion", kGroupVersion);
  json::Value& res = list.set("resources", json::Value::array());
  for (int i = 0; i < 2; ++i) {
    json::Value e = json::Value::object();
    e.set("name", i == 0 ? "nodes" : "pods");
    e.set("singularName", "");
    e.set("namespaced", i == 1);
    e.set("kind", i == 0 ? "NodeMetrics" : "PodMetrics");
    json::Value verbs = json::Value::array();
    verbs.push("get");
    verbs.push("list");
    e.set("verbs", verbs);
    res.push(std::move(e));
  }
  return list;
}

// "12345n" / "4096": quantities as metrics-server writes them.
std::string cpu_quantity(uint64_t nanocores) { return text::to_string(static_cast<int64_t>(nanocores)) + "n"; }
std::string bytes_quantity(uint64_t bytes) { return text::to_string(static_cast<int64_t>(bytes)); }
std::string window(uint64_t ms) { return text::to_string(static_cast<int64_t>(ms)) + "ms"; }

json::Value metadata_of(const json::Value& obj) {
  json::Value md = json::Value::object();
  md.set("name", obj["metadata"]["name"]);
  if (obj["metadata"].find("namespace")) md.set("namespace", obj["metadata"]["namespace"]);
  md.set("creationTimestamp", text::rfc3339(port::wall_time_s()));
  if (obj["metadata"].find("labels")) md.set("labels", obj["metadata"]["labels"]);
  return md;
}

json::Value node_metrics(const json::Value& node, const MetricsStore::NodeUsage& u) {
  json::Value m = json::Value::object();
  m.set("kind", "NodeMetrics");
  m.set("apiVersion", kGroupVersion);
  m.set("metadata", metadata_of(node));
  m.set("timestamp", text::rfc3339(u.wall_s));
  m.set("window", window(u.window_ms));
  json::Value usage = json::Value::object();
  usage.set("cpu", cpu_quantity(u.cpu_nanocores));
  usage.set("memory", bytes_quantity(u.memory));
  // The heap per region, beside the total kubectl top prints.
  usage.set("kube32.io/heap-internal", bytes_quantity(u.heap_internal));
  usage.set("kube32.io/heap-psram", bytes_quantity(u.heap_psram));
  m.set("usage", usage);
  return m;
}

json::Value pod_metrics(const json::Value& pod, const MetricsStore::PodUsage& u) {
  json::Value m = json::Value::object();
  m.set("kind", "PodMetrics");
  m.set("apiVersion", kGroupVersion);
  m.set("metadata", metadata_of(pod));
  m.set("timestamp", text::rfc3339(u.wall_s));
  m.set("window", window(u.window_ms));
  json::Value& cs = m.set("containers", json::Value::array());
  const auto& spec = pod["spec"]["containers"].items();
  // The kubelet runs the containers in the order of the spec and reports them so.
  for (uint8_t i = 0; i < u.containers && i < spec.size(); ++i) {
    json::Value c = json::Value::object();
    c.set("name", spec[i]["name"]);
    json::Value usage = json::Value::object();
    usage.set("cpu", cpu_quantity(u.c[i].cpu_nanocores));
    usage.set("memory", bytes_quantity(u.c[i].memory));
    c.set("usage", usage);
    cs.push(std::move(c));
  }
  return m;
}

json::Value list_of(const char* kind) {
  json::Value l = json::Value::object();
  l.set("kind", kind);
  l.set("apiVersion", kGroupVersion);
  l.set("metadata", json::Value::object());
  l.set("items", json::Value::array());
  return l;
}

// GET /apis/metrics.k8s.io/v1beta1/{nodes[/n] | pods | namespaces/<ns>/pods[/p]}.
void serve_metrics(http::Request& req, http::ResponseWriter& w, const std::vector<std::string>& rest, store::ObjectStore* st,
                   MetricsStore* metrics) {
  std::string ns, resource, name;
  if (!rest.empty() && rest[0] == "namespaces" && rest.size() >= 3) {
    ns = rest[1];
    resource = rest[2];
    if (rest.size() == 4) name = rest[3];
    if (resource != "pods" || rest.size() > 4) resource.clear();
  } else if (!rest.empty() && rest.size() <= 2) {
    resource = rest[0];
    if (rest.size() == 2) name = rest[1];
    if (resource == "pods" && !name.empty()) resource.clear();  // pods are namespaced
  }
  if (resource != "nodes" && resource != "pods") {
    send_error(w, {404, "NotFound", "the server could not find the requested resource", json::Value()});
    return;
  }
  if (req.method != "GET" && req.method != "HEAD") {
    send_error(w, method_not_allowed("the metrics API is read-only (get, list)"));
    return;
  }
  LabelSelector sel;
  std::string serr;
  if (!parse_label_selector(req.query_param("labelSelector"), &sel, &serr)) {
    send_error(w, bad_request("labelSelector: " + serr));
    return;
  }
  const bool nodes = resource == "nodes";
  const char* store_res = nodes ? "nodes" : "pods";
  if (!name.empty()) {
    json::Value obj;
    MetricsStore::NodeUsage nu;
    MetricsStore::PodUsage pu;
    bool have = st->get(store_res, ns, name, &obj) &&
                (nodes ? metrics->node_usage(name, &nu) : metrics->pod_usage(obj["metadata"]["uid"].as_string(), &pu));
    if (!have) {
      send_error(w, not_found(kMetricsGroup, nodes ? "nodemetrics" : "podmetrics", name));
      return;
    }
    send_json(w, 200, nodes ? node_metrics(obj, nu) : pod_metrics(obj, pu));
    return;
  }
  json::Value list = list_of(nodes ? "NodeMetricsList" : "PodMetricsList");
  json::Value& items = list.at_or_insert("items");
  uint64_t rv = 0;
  for (const auto& obj : st->list(store_res, ns, &rv)) {
    if (!sel.matches(obj["metadata"]["labels"])) continue;
    if (nodes) {
      MetricsStore::NodeUsage nu;
      if (metrics->node_usage(obj["metadata"]["name"].as_string(), &nu)) items.push(node_metrics(obj, nu));
    } else {
      MetricsStore::PodUsage pu;
      if (metrics->pod_usage(obj["metadata"]["uid"].as_string(), &pu)) items.push(pod_metrics(obj, pu));
    }
  }
  send_json(w, 200, list);
}

}  // namespace

void mount_metrics_api(ApiServer* api, store::ObjectStore* st, MetricsStore* metrics) {
  api->add_group(group_object());
  api->add_route([st, metrics](http::Request& req, http::ResponseWriter& w, const RequestInfo*) {
    const std::string& p = req.path;
    // A node's report: POST /apis/kube32.io/v1/nodes/<node>/usage
    const std::string prefix = kubelet::kUsagePathPrefix;
    if (text::starts_with(p, prefix) && p.size() > prefix.size() + 6 && text::ends_with(p, "/usage")) {
      const std::string node = p.substr(prefix.size(), p.size() - prefix.size() - 6);
      if (req.method != "POST") {
        send_error(w, method_not_allowed("a usage report is POSTed"));
        return true;
      }
      json::Value existing;
      if (!st->get("nodes", "", node, &existing)) {
        send_error(w, not_found("", "nodes", node));
        return true;
      }
      if (req.body.size() > K32_METRICS_REPORT_MAX) {
        send_error(w, too_large(K32_METRICS_REPORT_MAX));
        return true;
      }
      json::Value report;
      ApiError e = decode_body(req, &report);
      std::string err;
      if (!e.ok() || !metrics->take_report(node, report, &err)) {
        send_error(w, e.ok() ? bad_request(err) : e);
        return true;
      }
      w.send(204, "", "");
      return true;
    }
    const std::string base = std::string("/apis/") + kMetricsGroup;
    if (p != base && p != base + "/" && !text::starts_with(p, base + "/")) return false;
    auto parts = text::split(p.substr(base.size()), '/');
    if (!parts.empty() && parts.front().empty()) parts.erase(parts.begin());
    if (!parts.empty() && parts.back().empty()) parts.pop_back();
    if (parts.empty()) {
      json::Value g = group_object();
      g.set("kind", "APIGroup");
      g.set("apiVersion", "v1");
      send_json(w, 200, g);
      return true;
    }
    if (parts[0] != kMetricsVersion) {
      send_error(w, {404, "NotFound", "the server could not find the requested resource", json::Value()});
      return true;
    }
    if (parts.size() == 1) {
      send_json(w, 200, resource_list());
      return true;
    }
    for (const auto& seg : parts)
      if (seg.empty()) {
        send_error(w, bad_request("empty path segment in " + p));
        return true;
      }
    serve_metrics(req, w, std::vector<std::string>(parts.begin() + 1, parts.end()), st, metrics);
    return true;
  });
}

}  // namespace api
}  // namespace k32
