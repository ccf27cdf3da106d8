// Discovery (/api, /apis, group versions), /version, health, OpenAPI and /metrics.
#include <map>

#include "core/api/api_server.h"
#include "core/openapi/openapi.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace api {

namespace {

// The Kubernetes release whose API this server follows.
constexpr const char* kMajor = "1";
constexpr const char* kMinor = "34";
constexpr const char* kGitVersion = "v1.34.0-kube32";

json::Value string_array(const std::string& csv) {
  json::Value a = json::Value::array();
  if (csv.empty()) return a;
  for (const auto& s : text::split(csv, ',')) a.push(s);
  return a;
}

json::Value resource_list(const std::string& gv) {
  json::Value list = json::Value::object();
  list.set("kind", "APIResourceList");
  list.set("apiVersion", "v1");
  list.set("groupVersion", gv);
  json::Value& res = list.set("resources", json::Value::array());
  for (const auto& r : all_resources()) {
    if (r.group_version() != gv) continue;
    json::Value e = json::Value::object();
    e.set("name", r.resource);
    e.set("singularName", r.singular);
    e.set("namespaced", r.namespaced);
    e.set("kind", r.kind);
    e.set("verbs",
          r.read_only ? string_array("get,list") : string_array("create,delete,deletecollection,get,list,patch,update,watch"));
    if (r.short_names[0]) e.set("shortNames", string_array(r.short_names));
    if (r.categories[0]) e.set("categories", string_array(r.categories));
    res.push(std::move(e));
    for (const auto& sub : text::split(r.subresources, ',')) {
      if (sub.empty()) continue;
      json::Value s = json::Value::object();
      s.set("name", std::string(r.resource) + "/" + sub);
      s.set("singularName", "");
      s.set("namespaced", r.namespaced);
      if (sub == "binding") {
        s.set("kind", "Binding");
        s.set("verbs", string_array("create"));
      } else if (sub == "scale") {
        s.set("group", "autoscaling");
        s.set("version", "v1");
        s.set("kind", "Scale");
        s.set("verbs", string_array("get,patch,update"));
      } else if (sub == "log") {
        s.set("kind", "Pod");
        s.set("verbs", string_array("get"));
      } else {
        s.set("kind", r.kind);
        s.set("verbs", string_array("get,patch,update"));
      }
      res.push(std::move(s));
    }
  }
  return list;
}

std::vector<std::string> groups() {
  std::vector<std::string> out;
  for (const auto& r : all_resources()) {
    if (!r.group[0]) continue;
    bool seen = false;
    for (const auto& g : out) seen = seen || g == r.group;
    if (!seen) out.push_back(r.group);
  }
  return out;
}

json::Value group_object(const std::string& g) {
  json::Value grp = json::Value::object();
  grp.set("name", g);
  json::Value v = json::Value::object();
  v.set("groupVersion", g + "/v1");
  v.set("version", "v1");
  json::Value vs = json::Value::array();
  vs.push(v);
  grp.set("versions", vs);
  grp.set("preferredVersion", v);
  return grp;
}

}  // namespace

void ApiServer::serve_discovery(http::Request& req, http::ResponseWriter& w, bool* handled) {
  *handled = true;
  const std::string& p = req.path;
  if (req.method != "GET" && req.method != "HEAD") {
    *handled = false;
    return;
  }
  if (p == "/healthz" || p == "/livez" || p == "/readyz") {
    w.send(200, "text/plain; charset=utf-8", "ok");
    return;
  }
  if (p == "/version") {
    json::Value v = json::Value::object();
    v.set("major", kMajor);
    v.set("minor", kMinor);
    v.set("gitVersion", kGitVersion);
    v.set("gitCommit", "kube32");
    v.set("gitTreeState", "clean");
    v.set("buildDate", "2026-11-30T00:00:00Z");
    v.set("goVersion", "none (C++17)");
    v.set("compiler", "kube32");
    v.set("platform", "kube32/esp32");
    send_json(w, 200, v);
    return;
  }
  if (p == "/metrics") {
    port::MemStats m = port::mem_stats();
    std::string body = "# HELP k32_heap_bytes_in_use Heap bytes in use, as counted by the firmware allocator.\n"
                       "# TYPE k32_heap_bytes_in_use gauge\n"
                       "k32_heap_bytes_in_use " +
                       text::to_string(static_cast<int64_t>(m.internal_in_use + m.psram_in_use)) + "\n" + "k32_heap_bytes_peak " +
                       text::to_string(static_cast<int64_t>(m.peak_in_use)) + "\n" + "k32_heap_allocations_total " +
                       text::to_string(static_cast<int64_t>(m.alloc_count)) + "\n" + "k32_store_resource_version " +
                       text::to_string(static_cast<int64_t>(store_->current_rv())) + "\n" + "k32_store_bytes " +
                       text::to_string(static_cast<int64_t>(store_->used_bytes())) + "\n" + "k32_watch_history_events " +
                       text::to_string(static_cast<int64_t>(store_->history_events())) + "\n" + "k32_watch_history_bytes " +
                       text::to_string(static_cast<int64_t>(store_->history_bytes())) + "\n";
    w.send(200, "text/plain; version=0.0.4", body);
    return;
  }
  if (text::starts_with(p, "/openapi/")) {
    const std::string* accept = req.header("Accept");
    bool want_pb = accept && accept->find("protobuf") != std::string::npos;
    openapi::Document doc;
    if (openapi::find(p.c_str(), want_pb, &doc)) {
      if (doc.etag && doc.etag[0]) {
        const std::string* inm = req.header("If-None-Match");
        std::string tag = doc.etag[0] == '"' ? std::string(doc.etag) : std::string("\"") + doc.etag + "\"";
        w.add_header("ETag", tag);
        if (inm && *inm == tag) {
          w.send(304, "", "");
          return;
        }
      }
      // Only the hash-addressed v3 documents never change; the rest may with a firmware update.
      w.add_header("Cache-Control", req.query_param("hash").empty() ? "no-cache" : "public, immutable");
      // Sent from flash as it is: a copy would take a quarter of a board's internal RAM.
      w.send(200, doc.content_type, reinterpret_cast<const char*>(doc.data), doc.len);
    } else {
      send_error(w, {404, "NotFound", "the server could not find the requested resource", json::Value()});
    }
    return;
  }
  if (p == "/api" || p == "/api/") {
    json::Value v = json::Value::object();
    v.set("kind", "APIVersions");
    json::Value vs = json::Value::array();
    vs.push("v1");
    v.set("versions", vs);
    json::Value addr = json::Value::object();
    addr.set("clientCIDR", "0.0.0.0/0");
    addr.set("serverAddress", cfg_.advertise_ip + ":" + text::to_string(cfg_.api_port));
    json::Value addrs = json::Value::array();
    addrs.push(addr);
    v.set("serverAddressByClientCIDRs", addrs);
    send_json(w, 200, v);
    return;
  }
  if (p == "/api/v1" || p == "/api/v1/") {
    send_json(w, 200, resource_list("v1"));
    return;
  }
  if (p == "/apis" || p == "/apis/") {
    json::Value list = json::Value::object();
    list.set("kind", "APIGroupList");
    list.set("apiVersion", "v1");
    json::Value& gs = list.set("groups", json::Value::array());
    for (const auto& g : groups()) gs.push(group_object(g));
    for (const auto& g : extra_groups_) gs.push(g);
    send_json(w, 200, list);
    return;
  }
  if (text::starts_with(p, "/apis/")) {
    auto parts = text::split(p.substr(6), '/');
    if (!parts.empty() && parts.back().empty()) parts.pop_back();
    for (const auto& g : groups()) {
      if (parts.size() == 1 && parts[0] == g) {
        json::Value grp = group_object(g);
        grp.set("kind", "APIGroup");
        grp.set("apiVersion", "v1");
        send_json(w, 200, grp);
        return;
      }
      if (parts.size() == 2 && parts[0] == g && parts[1] == "v1") {
        send_json(w, 200, resource_list(g + "/v1"));
        return;
      }
    }
  }
  *handled = false;
}

}  // namespace api
}  // namespace k32
