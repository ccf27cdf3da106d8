#include "core/api/endpoints_view.h"

#include <cstdlib>
#include <map>

#include "core/api/selectors.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace api {

bool pod_ready(const json::Value& pod) {
  for (const auto& c : pod["status"]["conditions"].items())
    if (c["type"].str() == "Ready") return c["status"].str() == "True";
  return false;
}

// Kept a function of its own (not inlined into a walker's callback): the stack check lists
// the store walk's callback per calling function.
__attribute__((noinline)) std::vector<json::Value> selected_pods(store::ObjectStore* st, const json::Value& service) {
  std::vector<json::Value> out;
  const json::Value& sel = service["spec"]["selector"];
  if (!sel.is_object() || sel.members().empty()) return out;
  LabelSelector ls;
  for (const auto& m : sel.members()) ls.reqs.push_back({Requirement::Eq, m.first, {m.second.as_string()}});
  // One pod parsed at a time: only the selected ones are kept, and of each only what a
  // Service's readers use (its identity and labels, node, container ports, IP and
  // conditions): whole pods were KiBs of internal RAM each while every starting pod's
  // kubelet read its namespace's Endpoints.
  st->for_each("pods", service.path_str({"metadata", "namespace"}), nullptr, [&](json::Value& pod) {
    if (pod["status"]["phase"].str() == "Running" && pod["metadata"]["deletionTimestamp"].is_null() &&
        ls.matches(pod["metadata"]["labels"])) {
      json::keep_only(&pod, {"metadata", "spec", "status"});
      json::keep_only(&pod.at_or_insert("metadata"), {"name", "namespace", "uid", "labels", "deletionTimestamp"});
      json::Value& spec = pod.at_or_insert("spec");
      json::keep_only(&spec, {"nodeName", "containers"});
      for (auto& c : spec.at_or_insert("containers").items()) json::keep_only(&c, {"name", "ports"});
      json::keep_only(&pod.at_or_insert("status"), {"phase", "podIP", "conditions"});
      out.push_back(std::move(pod));
    }
    return true;
  });
  return out;
}

int32_t resolve_target_port(const json::Value& sp, const json::Value& pod) {
  const json::Value& tp = sp.find("targetPort") ? sp["targetPort"] : sp["port"];
  if (tp.is_int()) return static_cast<int32_t>(tp.as_int());
  if (tp.is_string()) {
    uint64_t n;
    if (text::parse_uint(tp.str(), 65535, &n)) return static_cast<int32_t>(n);
    for (const auto& c : pod["spec"]["containers"].items())
      for (const auto& p : c["ports"].items())
        if (p["name"].str() == tp.str()) return static_cast<int32_t>(p["containerPort"].as_int());
  }
  return 0;
}

namespace {

// The targetRef an address or endpoint names its pod by.
json::Value pod_ref(const json::Value& pod) {
  json::Value ref = json::Value::object();
  ref.set("kind", "Pod");
  ref.set("namespace", pod.path_str({"metadata", "namespace"}));
  ref.set("name", pod.path_str({"metadata", "name"}));
  ref.set("uid", pod.path_str({"metadata", "uid"}));
  return ref;
}

json::Value address_of(const json::Value& pod) {
  json::Value a = json::Value::object();
  a.set("ip", pod["status"]["podIP"].as_string());
  if (!pod["spec"]["nodeName"].is_null()) a.set("nodeName", pod["spec"]["nodeName"]);
  a.set("targetRef", pod_ref(pod));
  return a;
}

bool wants_endpoints(const json::Value& svc) {
  if (svc["spec"]["type"].str() == "ExternalName") return false;
  return svc["spec"]["selector"].is_object() && !svc["spec"]["selector"].members().empty();
}

// The ports one pod serves for a Service: each service port resolved against the pod (a
// named targetPort the pod lacks leaves that port out, as the EndpointSlice controller does).
json::Value resolved_ports(const json::Value& svc, const json::Value& pod) {
  json::Value ports = json::Value::array();
  for (const auto& sp : svc["spec"]["ports"].items()) {
    int32_t port = resolve_target_port(sp, pod);
    if (port == 0) continue;
    json::Value p = json::Value::object();
    if (!sp["name"].is_null()) p.set("name", sp["name"]);
    p.set("port", static_cast<int64_t>(port));
    p.set("protocol", sp["protocol"].as_string("TCP"));
    ports.push(std::move(p));
  }
  return ports;
}

// The pods a Service selects that serve the same resolved ports, in the order first seen;
// `sig` is the port set written out, which names the group.
struct PortGroup {
  std::string sig;
  json::Value ports;
  std::vector<json::Value> pods;
};
std::vector<PortGroup> pods_by_ports(store::ObjectStore* st, const json::Value& svc) {
  std::vector<PortGroup> groups;
  std::map<std::string, size_t> index;  // sig -> position in groups
  for (auto& pod : selected_pods(st, svc)) {
    json::Value ports = resolved_ports(svc, pod);
    std::string sig = json::dump(ports);
    auto it = index.find(sig);
    if (it == index.end()) {
      it = index.emplace(sig, groups.size()).first;
      groups.push_back(PortGroup{std::move(sig), std::move(ports), {}});
    }
    groups[it->second].pods.push_back(std::move(pod));
  }
  return groups;
}

json::Value base_object(const char* api_version, const char* kind, const json::Value& svc, const std::string& name) {
  json::Value o = json::Value::object();
  o.set("kind", kind);
  o.set("apiVersion", api_version);
  json::Value md = json::Value::object();
  md.set("name", name);
  md.set("namespace", svc.path_str({"metadata", "namespace"}));
  md.set("uid", svc.path_str({"metadata", "uid"}));  // stable for the view's lifetime
  md.set("resourceVersion", svc.path_str({"metadata", "resourceVersion"}));
  md.set("creationTimestamp", svc.path_str({"metadata", "creationTimestamp"}));
  o.set("metadata", md);
  return o;
}

}  // namespace

std::vector<json::Value> compute_endpoints(store::ObjectStore* st, const std::string& ns, uint64_t* rv) {
  std::vector<json::Value> out;
  // One Service parsed at a time: every pod starting reads its namespace's Endpoints, and ten
  // apps' Services listed parsed beside their Endpoints were KiBs of internal RAM each time.
  st->for_each("services", ns, rv, [&](json::Value& svc) {
    if (!wants_endpoints(svc)) return true;
    json::Value ep = base_object("v1", "Endpoints", svc, svc.path_str({"metadata", "name"}));
    if (const json::Value* labels = svc.path({"metadata", "labels"})) ep.at_or_insert("metadata").set("labels", *labels);
    // Subsets group addresses by the tuple of resolved ports.
    json::Value arr = json::Value::array();
    for (auto& g : pods_by_ports(st, svc)) {
      json::Value ready = json::Value::array();
      json::Value not_ready = json::Value::array();
      for (const auto& pod : g.pods) (pod_ready(pod) ? ready : not_ready).push(address_of(pod));
      json::Value ss = json::Value::object();
      if (!ready.items().empty()) ss.set("addresses", std::move(ready));
      if (!not_ready.items().empty()) ss.set("notReadyAddresses", std::move(not_ready));
      ss.set("ports", std::move(g.ports));
      arr.push(std::move(ss));
    }
    if (!arr.items().empty()) ep.set("subsets", arr);
    out.push_back(std::move(ep));
    return true;
  });
  return out;
}

namespace {

json::Value slice_endpoint(const json::Value& pod) {
  json::Value e = json::Value::object();
  json::Value addrs = json::Value::array();
  addrs.push(pod["status"]["podIP"].as_string());
  e.set("addresses", addrs);
  json::Value cond = json::Value::object();
  bool ready = pod_ready(pod);
  cond.set("ready", ready);
  cond.set("serving", ready);
  cond.set("terminating", !pod["metadata"]["deletionTimestamp"].is_null());
  e.set("conditions", cond);
  if (!pod["spec"]["nodeName"].is_null()) e.set("nodeName", pod["spec"]["nodeName"]);
  e.set("targetRef", pod_ref(pod));
  return e;
}

// A slice's identity is derived from its Service and port set, so the computed view keeps
// the same name and uid on every read while that port set has endpoints.
std::string slice_digest(const json::Value& svc, const std::string& port_sig) {
  std::string seed = svc.path_str({"metadata", "uid"}) + "/" + port_sig;
  char hex[2 * port::kSha256Bytes + 1];
  port::sha256_hex(seed.data(), seed.size(), hex);
  return hex;
}

json::Value make_slice(const json::Value& svc, const std::string& digest, json::Value ports, json::Value eps) {
  std::string name = svc.path_str({"metadata", "name"});
  // generateName's 5-character suffix alphabet (no vowels, no digits that read as letters).
  static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string suffix;
  for (size_t i = 0; i < 5; ++i) suffix += kAlphabet[std::strtoul(digest.substr(i * 2, 2).c_str(), nullptr, 16) % 27];
  json::Value sl = base_object("discovery.k8s.io/v1", "EndpointSlice", svc, name + "-" + suffix);
  json::Value& md = sl.at_or_insert("metadata");
  std::string uid = digest.substr(32, 8) + "-" + digest.substr(40, 4) + "-4" + digest.substr(45, 3) + "-8" +
                    digest.substr(49, 3) + "-" + digest.substr(52, 12);
  md.set("uid", uid);
  json::Value labels = json::Value::object();
  labels.set("kubernetes.io/service-name", name);
  labels.set("endpointslice.kubernetes.io/managed-by", "endpointslice-controller.kube32.io");
  md.set("labels", labels);
  md.set("generateName", name + "-");
  json::Value owner = json::Value::object();
  owner.set("apiVersion", "v1");
  owner.set("kind", "Service");
  owner.set("name", name);
  owner.set("uid", svc.path_str({"metadata", "uid"}));
  owner.set("controller", true);
  owner.set("blockOwnerDeletion", true);
  json::Value owners = json::Value::array();
  owners.push(owner);
  md.set("ownerReferences", owners);
  sl.set("addressType", "IPv4");
  sl.set("endpoints", std::move(eps));
  sl.set("ports", std::move(ports));
  return sl;
}

}  // namespace

std::vector<json::Value> compute_endpointslices(store::ObjectStore* st, const std::string& ns, uint64_t* rv) {
  std::vector<json::Value> out;
  st->for_each("services", ns, rv, [&](json::Value& svc) {  // one Service parsed at a time
    if (!wants_endpoints(svc)) return true;
    // One slice per distinct resolved port set, as the EndpointSlice controller groups them.
    std::vector<PortGroup> groups = pods_by_ports(st, svc);
    if (groups.empty()) {  // no endpoints: one empty slice, as for a Service whose pods are gone
      out.push_back(make_slice(svc, slice_digest(svc, ""), json::Value::array(), json::Value::array()));
      return true;
    }
    for (auto& g : groups) {
      json::Value eps = json::Value::array();
      for (const auto& pod : g.pods) eps.push(slice_endpoint(pod));
      out.push_back(make_slice(svc, slice_digest(svc, g.sig), std::move(g.ports), std::move(eps)));
    }
    return true;
  });
  return out;
}

}  // namespace api
}  // namespace k32
