#include "core/kubelet/pod_env.h"

#include <string_view>

#include "core/kubelet/kubelet.h"
#include "core/kubelet/pod_list.h"
#include "core/util/base64.h"
#include "core/util/own_work.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace kubelet {

namespace {

std::string env_name(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back(c == '-' || c == '.' ? '_' : (c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c));
  return out;
}

bool selects(const json::Value& svc, const json::Value& pod) {
  const json::Value& sel = svc["spec"]["selector"];
  if (!sel.is_object() || sel.members().empty()) return false;
  for (const auto& m : sel.members())
    if (pod["metadata"]["labels"][m.first].as_string() != m.second.as_string()) return false;
  return true;
}

// The target port of a Service port: a number, or a named container port of `pod`.
int64_t resolve_target(const json::Value& port, const json::Value& pod) {
  const json::Value& tp = port["targetPort"];
  if (tp.is_int()) return tp.as_int();
  if (tp.is_string()) {
    uint64_t n = 0;
    if (text::parse_uint(tp.str(), 65535, &n)) return static_cast<int64_t>(n);
    for (const auto& c : pod["spec"]["containers"].items())
      for (const auto& cp : c["ports"].items())
        if (cp["name"].as_string() == tp.str()) return cp["containerPort"].as_int();
    return 0;
  }
  return port["port"].as_int();
}

std::string field_value(const json::Value& pod, const std::string& path, bool* ok) {
  *ok = true;
  if (path == "metadata.name") return pod["metadata"]["name"].as_string();
  if (path == "metadata.namespace") return pod["metadata"]["namespace"].as_string();
  if (path == "metadata.uid") return pod["metadata"]["uid"].as_string();
  if (path == "spec.nodeName") return pod["spec"]["nodeName"].as_string();
  if (path == "spec.serviceAccountName") return pod["spec"]["serviceAccountName"].as_string();
  for (const char* pre : {"metadata.labels['", "metadata.annotations['"}) {
    std::string p = pre;
    if (text::starts_with(path, p) && text::ends_with(path, "']")) {
      std::string key = path.substr(p.size(), path.size() - p.size() - 2);
      return pod["metadata"][p == "metadata.labels['" ? "labels" : "annotations"][key].as_string();
    }
  }
  *ok = false;
  return std::string();
}

}  // namespace

void service_env(const json::Value& svc, const json::Value& endpoints, const json::Value& pod, const std::string& node_ip,
                 std::vector<std::pair<std::string, std::string>>* out) {
  const json::Value& spec = svc["spec"];
  if (!spec["selector"].is_object() || spec["selector"].members().empty()) return;
  if (spec["clusterIP"].as_string() == "None" || spec["type"].as_string() == "ExternalName") return;
  bool self = selects(svc, pod);
  std::string host;
  if (self) host = node_ip;
  std::vector<std::pair<std::string, int64_t>> ep_ports;  // name -> resolved port from Endpoints
  for (const auto& ss : endpoints["subsets"].items()) {
    if (host.empty() && !ss["addresses"].items().empty()) host = ss["addresses"].items()[0]["ip"].as_string();
    for (const auto& pp : ss["ports"].items()) ep_ports.push_back({pp["name"].as_string(), pp["port"].as_int()});
  }
  if (host.empty()) return;  // no ready backend: nothing to point at
  std::string svc_name = env_name(svc["metadata"]["name"].as_string());
  bool first = true;
  for (const auto& port : spec["ports"].items()) {
    int64_t target = 0;
    if (self) target = resolve_target(port, pod);
    for (const auto& e : ep_ports)
      if (!target && e.first == port["name"].as_string()) target = e.second;
    if (!target) target = resolve_target(port, pod);
    if (!target) continue;
    std::string t = text::to_string(target);
    std::string proto = port["protocol"].as_string("TCP");
    std::string lproto = text::lower(proto);
    std::string url = lproto + "://" + host + ":" + t;
    if (first) {
      out->push_back({svc_name + "_SERVICE_HOST", host});
      out->push_back({svc_name + "_SERVICE_PORT", t});
      out->push_back({svc_name + "_PORT", url});
      first = false;
    }
    if (!port["name"].as_string().empty()) out->push_back({svc_name + "_SERVICE_PORT_" + env_name(port["name"].str()), t});
    std::string pre = svc_name + "_PORT_" + t + "_" + proto;
    out->push_back({pre, url});
    out->push_back({pre + "_PROTO", lproto});
    out->push_back({pre + "_PORT", t});
    out->push_back({pre + "_ADDR", host});
  }
}

std::string env_block(const std::vector<std::pair<std::string, std::string>>& vars) {
  // Later entries win (explicit env over injected names), as in Kubernetes.
  std::vector<bool> shadowed(vars.size(), false);
  size_t bytes = 0;
  for (size_t i = 0; i < vars.size(); ++i) {
    for (size_t j = i + 1; j < vars.size() && !shadowed[i]; ++j)
      if (vars[j].first == vars[i].first) shadowed[i] = true;
    if (!shadowed[i]) bytes += vars[i].first.size() + vars[i].second.size() + 2;
  }
  // Held for the container's life (WASI reads it at any time): exactly its bytes, not what
  // doubling left over.
  std::string out;
  out.reserve(bytes);
  for (size_t i = 0; i < vars.size(); ++i) {
    if (shadowed[i]) continue;
    out.append(vars[i].first).append(1, '=').append(vars[i].second).append(1, '\0');
  }
  return out;
}

bool build_env(Pod* p, Container* c, std::string* out, std::string* err) {
  Kubelet* k = p->kubelet;
  // The pod read whole, the namespace's Endpoints and a page of its Services are held together
  // while the environment is made: one piece of the node's own work (util/own_work.h), taking
  // its turn with the sync's pages and the heartbeat. Only API reads wait inside it.
  util::OwnWorkTurn turn;
  // Read now, not kept with the pod: a start is rare, the copy would be held all the time.
  json::Value pod;
  int pst = k->api()->call("GET", "/api/v1/namespaces/" + p->ns + "/pods/" + p->name, nullptr, &pod);
  if (pst != 200) {
    *err = "the pod could not be read from the API server (status " + text::to_string(pst) + ")";
    return false;
  }
  if (pod["metadata"]["uid"].as_string() != p->uid) {
    *err = "the pod was replaced by a new one of the same name";
    return false;
  }
  std::vector<std::pair<std::string, std::string>> vars;
  vars.push_back({"HOSTNAME", p->name});
  if (pod["spec"]["enableServiceLinks"].as_bool(true)) {
    // The namespace's Services, a page at a time, and its Endpoints (a small computed list)
    // stay raw bodies walked one item at a time (pod_list.h): parsed whole, the two lists of
    // four apps took more heap than a classic ESP32 worker has spare beside three running
    // pods; read whole, ten apps' Services were tens of KiB of the S3's internal RAM for
    // every pod starting at the same moment.
    std::string eps;
    std::string base = "/api/v1/namespaces/" + p->ns;
    bool malformed = false;
    if (k->api()->get_raw(base + "/endpoints", &eps) == 200) {
      k->api()->for_each_item(
          base + "/services",
          [&](const char* data, size_t len) {
            json::Value svc;
            json::ParseError pe;
            if (!json::parse_dropping(std::string(data, len), "managedFields", &svc, &pe)) return true;
            const std::string name = svc["metadata"]["name"].as_string();
            const std::string quoted = "\"" + name + "\"";
            json::Value ep;
            for_each_list_item(eps, [&](const char* edata, size_t elen) {
              // Only an item holding the name as a string can be this Service's Endpoints.
              if (std::string_view(edata, elen).find(quoted) == std::string_view::npos) return true;
              json::Value e;
              if (!json::parse_dropping(std::string(edata, elen), "managedFields", &e, &pe)) return true;
              if (e["metadata"]["name"].as_string() != name) return true;
              ep = std::move(e);
              return false;
            });
            service_env(svc, ep, pod, k->config().node_ip, &vars);
            return true;
          },
          &malformed);
    }
  }
  vars.push_back({"KUBERNETES_SERVICE_HOST", k->config().api_host});
  vars.push_back({"KUBERNETES_SERVICE_PORT", text::to_string(k->config().api_port)});
  const json::Value* spec = nullptr;
  for (const auto& ct : pod["spec"]["containers"].items())
    if (ct["name"].as_string() == c->name) spec = &ct;
  if (spec) {
    for (const auto& e : (*spec)["env"].items()) {
      std::string name = e["name"].as_string();
      std::string value;
      const json::Value* from = e.find("valueFrom");
      if (!from) {
        value = e["value"].as_string();
      } else if (const json::Value* cm = from->find("configMapKeyRef")) {
        json::Value obj;
        std::string key = (*cm)["key"].as_string();
        int st = k->api()->call("GET", "/api/v1/namespaces/" + p->ns + "/configmaps/" + (*cm)["name"].as_string(), nullptr, &obj);
        const json::Value* v = st == 200 ? obj["data"].find(key) : nullptr;
        if (!v) {
          if ((*cm)["optional"].as_bool()) continue;
          *err = "env " + name + ": configmap \"" + (*cm)["name"].as_string() + "\" " +
                 (st == 200 ? "has no key \"" + key + "\"" : "not found");
          return false;
        }
        value = v->as_string();
      } else if (const json::Value* sk = from->find("secretKeyRef")) {
        json::Value obj;
        std::string key = (*sk)["key"].as_string();
        int st = k->api()->call("GET", "/api/v1/namespaces/" + p->ns + "/secrets/" + (*sk)["name"].as_string(), nullptr, &obj);
        const json::Value* v = st == 200 ? obj["data"].find(key) : nullptr;
        if (!v || !base64_decode(v->as_string(), &value)) {
          if ((*sk)["optional"].as_bool()) continue;
          *err = "env " + name + ": secret \"" + (*sk)["name"].as_string() + "\" " +
                 (st == 200 ? "has no key \"" + key + "\"" : "not found");
          return false;
        }
      } else if (const json::Value* fr = from->find("fieldRef")) {
        std::string path = (*fr)["fieldPath"].as_string();
        bool ok = true;
        if (path == "status.podIP" || path == "status.hostIP") value = k->config().node_ip;
        else value = field_value(pod, path, &ok);
        if (!ok) {
          *err = "env " + name + ": unsupported fieldRef.fieldPath \"" + path + "\"";
          return false;
        }
      } else {
        *err = "env " + name + ": valueFrom must name configMapKeyRef, secretKeyRef or fieldRef";
        return false;
      }
      vars.push_back({name, value});
    }
  }
  *out = env_block(vars);
  return true;
}

}  // namespace kubelet
}  // namespace k32
