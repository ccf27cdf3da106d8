#include "core/api/tables.h"

#include <functional>

#include "core/api/selectors.h"
#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

struct Column {
  const char* name;
  const char* type;
  const char* format;
  int priority;
  std::function<json::Value(const json::Value&, int64_t)> cell;
};

std::string age(const json::Value& o, int64_t now) {
  int64_t t = text::parse_rfc3339(o.path_str({"metadata", "creationTimestamp"}));
  return t < 0 ? "<unknown>" : text::human_duration(now - t);
}

Column name_col() {
  return {"Name", "string", "name", 0, [](const json::Value& o, int64_t) { return json::Value(o.path_str({"metadata", "name"})); }};
}
Column age_col() {
  return {"Age", "string", "", 0, [](const json::Value& o, int64_t now) { return json::Value(age(o, now)); }};
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::string node_status(const json::Value& n) {
  std::string s = "Unknown";
  for (const auto& c : n["status"]["conditions"].items())
    if (c["type"].str() == "Ready") s = c["status"].str() == "True" ? "Ready" : "NotReady";
  if (n["spec"]["unschedulable"].as_bool()) s += ",SchedulingDisabled";
  return s;
}

std::string node_roles(const json::Value& n) {
  std::vector<std::string> roles;
  for (const auto& l : n["metadata"]["labels"].members())
    if (text::starts_with(l.first, "node-role.kubernetes.io/")) roles.push_back(l.first.substr(24));
  return roles.empty() ? "<none>" : join(roles, ",");
}

std::string node_address(const json::Value& n, const char* type) {
  for (const auto& a : n["status"]["addresses"].items())
    if (a["type"].str() == type) return a["address"].str();
  return "<none>";
}

std::string pod_status(const json::Value& p) {
  if (!p["metadata"]["deletionTimestamp"].is_null()) return "Terminating";
  std::string reason = p["status"]["reason"].as_string();
  std::string phase = p["status"]["phase"].as_string("Pending");
  std::string out = reason.empty() ? phase : reason;
  for (const auto& cs : p["status"]["containerStatuses"].items()) {
    const json::Value& st = cs["state"];
    if (!st["waiting"].is_null() && !st["waiting"]["reason"].as_string().empty()) out = st["waiting"]["reason"].str();
    else if (!st["terminated"].is_null()) {
      std::string r = st["terminated"]["reason"].as_string();
      out = r.empty() ? "Error" : r;
    }
  }
  return out;
}

std::string pod_ready(const json::Value& p) {
  size_t total = p["spec"]["containers"].items().size(), ready = 0;
  for (const auto& cs : p["status"]["containerStatuses"].items())
    if (cs["ready"].as_bool()) ++ready;
  return text::to_string(static_cast<int64_t>(ready)) + "/" + text::to_string(static_cast<int64_t>(total));
}

json::Value pod_restarts(const json::Value& p) {
  int64_t n = 0;
  for (const auto& cs : p["status"]["containerStatuses"].items()) n += cs["restartCount"].as_int();
  return json::Value(n);
}

std::string svc_ports(const json::Value& s) {
  std::vector<std::string> out;
  for (const auto& p : s["spec"]["ports"].items()) {
    std::string e = json::dump(p["port"]);
    if (!p["nodePort"].is_null()) e += ":" + json::dump(p["nodePort"]);
    out.push_back(e + "/" + p["protocol"].as_string("TCP"));
  }
  return out.empty() ? "<none>" : join(out, ",");
}

std::string map_selector(const json::Value& sel) {
  std::vector<std::string> out;
  for (const auto& m : sel.members()) out.push_back(m.first + "=" + m.second.as_string());
  return out.empty() ? "<none>" : join(out, ",");
}

std::string endpoints_summary(const json::Value& e) {
  std::vector<std::string> out;
  size_t total = 0;
  for (const auto& ss : e["subsets"].items()) {
    for (const auto& a : ss["addresses"].items()) {
      for (const auto& p : ss["ports"].items()) {
        ++total;
        if (out.size() < 3) out.push_back(a["ip"].str() + ":" + json::dump(p["port"]));
      }
      if (ss["ports"].items().empty()) {
        ++total;
        if (out.size() < 3) out.push_back(a["ip"].str());
      }
    }
  }
  if (out.empty()) return "<none>";
  std::string s = join(out, ",");
  if (total > out.size()) s += " + " + text::to_string(static_cast<int64_t>(total - out.size())) + " more...";
  return s;
}

std::string ingress_hosts(const json::Value& i) {
  std::vector<std::string> hosts;
  for (const auto& r : i["spec"]["rules"].items()) hosts.push_back(r["host"].as_string().empty() ? "*" : r["host"].str());
  if (hosts.empty()) return "*";
  return join(hosts, ",");
}

std::string ingress_address(const json::Value& i) {
  std::vector<std::string> out;
  for (const auto& l : i["status"]["loadBalancer"]["ingress"].items())
    out.push_back(l["ip"].as_string().empty() ? l["hostname"].as_string() : l["ip"].str());
  return join(out, ",");
}

std::vector<Column> columns_for(const std::string& kind) {
  std::vector<Column> c;
  if (kind == "Pod") {
    c = {name_col(),
         {"Ready", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(pod_ready(o)); }},
         {"Status", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(pod_status(o)); }},
         {"Restarts", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(json::dump(pod_restarts(o))); }},
         age_col(),
         {"IP", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(o["status"]["podIP"].as_string("<none>")); }},
         {"Node", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(o["spec"]["nodeName"].as_string("<none>")); }},
         {"Nominated Node", "string", "", 1, [](const json::Value&, int64_t) { return json::Value("<none>"); }},
         {"Readiness Gates", "string", "", 1, [](const json::Value&, int64_t) { return json::Value("<none>"); }}};
  } else if (kind == "Node") {
    c = {name_col(),
         {"Status", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(node_status(o)); }},
         {"Roles", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(node_roles(o)); }},
         age_col(),
         {"Version", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["status"]["nodeInfo"]["kubeletVersion"].as_string()); }},
         {"Internal-IP", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(node_address(o, "InternalIP")); }},
         {"External-IP", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(node_address(o, "ExternalIP")); }},
         {"OS-Image", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(o["status"]["nodeInfo"]["osImage"].as_string("<unknown>")); }},
         {"Kernel-Version", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(o["status"]["nodeInfo"]["kernelVersion"].as_string("<unknown>")); }},
         {"Container-Runtime", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(o["status"]["nodeInfo"]["containerRuntimeVersion"].as_string("<unknown>")); }}};
  } else if (kind == "Namespace") {
    c = {name_col(),
         {"Status", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["status"]["phase"].as_string()); }},
         age_col()};
  } else if (kind == "Service") {
    c = {name_col(),
         {"Type", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["spec"]["type"].as_string("ClusterIP")); }},
         {"Cluster-IP", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["spec"]["clusterIP"].as_string("<none>")); }},
         {"External-IP", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value("<none>"); }},
         {"Port(s)", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(svc_ports(o)); }},
         age_col(),
         {"Selector", "string", "", 1, [](const json::Value& o, int64_t) { return json::Value(map_selector(o["spec"]["selector"])); }}};
  } else if (kind == "ConfigMap") {
    c = {name_col(),
         {"Data", "integer", "", 0, [](const json::Value& o, int64_t) { return json::Value(static_cast<int64_t>(o["data"].size() + o["binaryData"].size())); }},
         age_col()};
  } else if (kind == "Secret") {
    c = {name_col(),
         {"Type", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["type"].as_string("Opaque")); }},
         {"Data", "integer", "", 0, [](const json::Value& o, int64_t) { return json::Value(static_cast<int64_t>(o["data"].size())); }},
         age_col()};
  } else if (kind == "Endpoints") {
    c = {name_col(),
         {"Endpoints", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(endpoints_summary(o)); }},
         age_col()};
  } else if (kind == "EndpointSlice") {
    c = {name_col(),
         {"AddressType", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["addressType"].as_string()); }},
         {"Ports", "string", "", 0, [](const json::Value& o, int64_t) {
            std::vector<std::string> ps;
            for (const auto& p : o["ports"].items()) ps.push_back(json::dump(p["port"]));
            return json::Value(ps.empty() ? std::string("<unset>") : join(ps, ","));
          }},
         {"Endpoints", "string", "", 0, [](const json::Value& o, int64_t) {
            std::vector<std::string> as;
            for (const auto& e : o["endpoints"].items())
              for (const auto& a : e["addresses"].items()) as.push_back(a.as_string());
            return json::Value(as.empty() ? std::string("<unset>") : join(as, ","));
          }},
         age_col()};
  } else if (kind == "Event") {
    c = {{"Last Seen", "string", "", 0, [](const json::Value& o, int64_t now) {
            int64_t t = text::parse_rfc3339(o["lastTimestamp"].as_string(o["eventTime"].as_string()));
            return json::Value(t < 0 ? std::string("<unknown>") : text::human_duration(now - t));
          }},
         {"Type", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["type"].as_string()); }},
         {"Reason", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["reason"].as_string()); }},
         {"Object", "string", "", 0, [](const json::Value& o, int64_t) {
            return json::Value(text::lower(o["involvedObject"]["kind"].as_string()) + "/" + o["involvedObject"]["name"].as_string());
          }},
         {"Message", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["message"].as_string()); }}};
  } else if (kind == "Lease") {
    c = {name_col(),
         {"Holder", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["spec"]["holderIdentity"].as_string()); }},
         age_col()};
  } else if (kind == "Ingress") {
    c = {name_col(),
         {"Class", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["spec"]["ingressClassName"].as_string("<none>")); }},
         {"Hosts", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(ingress_hosts(o)); }},
         {"Address", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(ingress_address(o)); }},
         {"Ports", "string", "", 0, [](const json::Value& o, int64_t) { return json::Value(o["spec"]["tls"].items().empty() ? "80" : "80, 443"); }},
         age_col()};
  } else if (kind == "NetworkPolicy") {
    c = {name_col(),
         {"Pod-Selector", "string", "", 0, [](const json::Value& o, int64_t) {
            std::string s = format_label_selector(o["spec"]["podSelector"]);
            return json::Value(s == "<none>" ? std::string("<none>") : s);
          }},
         age_col()};
  } else {
    c = {name_col(), age_col()};
  }
  return c;
}

json::Value partial_metadata(const json::Value& o) {
  json::Value p = json::Value::object();
  p.set("kind", "PartialObjectMetadata");
  p.set("apiVersion", "meta.k8s.io/v1");
  p.set("metadata", o["metadata"]);
  return p;
}

}  // namespace

json::Value make_table(const ResourceInfo& r, const std::vector<json::Value>& objs, IncludeObject include,
                       int64_t now_s, const std::string& resource_version, bool with_columns) {
  std::vector<Column> cols = columns_for(r.kind);
  json::Value t = json::Value::object();
  t.set("kind", "Table");
  t.set("apiVersion", "meta.k8s.io/v1");
  json::Value md = json::Value::object();
  if (!resource_version.empty()) md.set("resourceVersion", resource_version);
  t.set("metadata", md);
  json::Value defs = json::Value::array();
  if (with_columns) {
    for (const auto& c : cols) {
      json::Value d = json::Value::object();
      d.set("name", c.name);
      d.set("type", c.type);
      d.set("format", c.format);
      d.set("description", "");
      d.set("priority", c.priority);
      defs.push(std::move(d));
    }
  }
  t.set("columnDefinitions", defs);
  json::Value rows = json::Value::array();
  for (const auto& o : objs) {
    json::Value row = json::Value::object();
    json::Value cells = json::Value::array();
    for (const auto& c : cols) cells.push(c.cell(o, now_s));
    row.set("cells", cells);
    if (include == IncludeObject::Metadata) row.set("object", partial_metadata(o));
    else if (include == IncludeObject::Object) row.set("object", o);
    rows.push(std::move(row));
  }
  t.set("rows", rows);
  return t;
}

}  // namespace api
}  // namespace k32
