#include "core/api/metrics_api.h"

#include <vector>

#include "core/api/selectors.h"
#include "core/kubelet/usage_report.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

const std::string kGroupVersion = std::string(kMetricsGroup) + "/" + kMetricsVersion;

}  // namespace

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

// What NodeMetrics and PodMetrics both start with: the object they measure, and when and
// over how long the usage was sampled.
json::Value metrics_object(const char* kind, const json::Value& obj, int64_t wall_s, uint64_t window_ms) {
  json::Value m = json::Value::object();
  m.set("kind", kind);
  m.set("apiVersion", kGroupVersion);
  m.set("metadata", metadata_of(obj));
  m.set("timestamp", text::rfc3339(wall_s));
  m.set("window", window(window_ms));
  return m;
}

json::Value node_metrics(const json::Value& node, const MetricsStore::NodeUsage& u) {
  json::Value m = metrics_object("NodeMetrics", node, u.wall_s, u.window_ms);
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
  json::Value m = metrics_object("PodMetrics", pod, u.wall_s, u.window_ms);
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
  st->add_listener([metrics](const store::Event& ev) {
    if (ev.type == store::EventType::Deleted && ev.resource == "nodes") metrics->forget_node(ev.name);
  });
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
