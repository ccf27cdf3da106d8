#include "core/sched/scheduler.h"

#include <cstdint>
#include <map>

#include "core/kubelet/image_source.h"
#include "core/kubelet/pod_event.h"
#include "core/kubelet/pod_instance.h"
#include "core/sched/module_charge.h"
#include "core/sched/quantity.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "port.h"

namespace k32 {
namespace sched {

namespace {

bool node_ready(const json::Value& node) {
  for (const auto& c : node["status"]["conditions"].items())
    if (c["type"].str() == "Ready") return c["status"].str() == "True";
  return false;
}

// The node's taints, plus the ones the node lifecycle controller would add.
std::vector<json::Value> taints_of(const json::Value& node) {
  std::vector<json::Value> out = node["spec"]["taints"].items();
  auto add = [&](const char* key) {
    json::Value t = json::Value::object();
    t.set("key", key);
    t.set("effect", "NoSchedule");
    out.push_back(t);
  };
  if (!node_ready(node)) add("node.kubernetes.io/not-ready");
  if (node["spec"]["unschedulable"].as_bool()) add("node.kubernetes.io/unschedulable");
  return out;
}

bool tolerates(const json::Value& pod, const json::Value& taint) {
  const std::string& effect = taint["effect"].str();
  if (effect == "PreferNoSchedule") return true;  // a preference, never a filter
  for (const auto& tol : pod["spec"]["tolerations"].items()) {
    if (!tol["effect"].str().empty() && tol["effect"].str() != effect) continue;
    std::string op = tol["operator"].as_string("Equal");
    if (tol["key"].str().empty() && op == "Exists") return true;
    if (tol["key"].str() != taint["key"].str()) continue;
    if (op == "Exists") return true;
    if (op == "Equal" && tol["value"].as_string() == taint["value"].as_string()) return true;
  }
  return false;
}

bool expr_matches(const json::Value& e, const std::string* actual) {
  const std::string& op = e["operator"].str();
  const auto& vals = e["values"].items();
  auto in = [&]() {
    for (const auto& v : vals)
      if (actual && v.str() == *actual) return true;
    return false;
  };
  if (op == "In") return in();
  if (op == "NotIn") return !in();
  if (op == "Exists") return actual != nullptr;
  if (op == "DoesNotExist") return actual == nullptr;
  if ((op == "Gt" || op == "Lt") && actual && vals.size() == 1) {
    uint64_t a = 0, b = 0;
    if (!text::parse_uint(*actual, UINT64_MAX, &a) || !text::parse_uint(vals[0].str(), UINT64_MAX, &b)) return false;
    return op == "Gt" ? a > b : a < b;
  }
  return false;
}

bool term_matches(const json::Value& term, const json::Value& node) {
  const json::Value& labels = node["metadata"]["labels"];
  bool any = false;
  for (const auto& e : term["matchExpressions"].items()) {
    any = true;
    const json::Value* v = labels.find(e["key"].str());
    std::string s = v ? v->as_string() : std::string();
    if (!expr_matches(e, v ? &s : nullptr)) return false;
  }
  for (const auto& e : term["matchFields"].items()) {
    any = true;
    std::string name = node["metadata"]["name"].str();
    if (e["key"].str() != "metadata.name" || !expr_matches(e, &name)) return false;
  }
  return any;  // an empty term matches nothing (Kubernetes semantics)
}

bool affinity_matches(const json::Value& pod, const json::Value& node) {
  const json::Value* req = pod.path({"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  if (!req || req->is_null()) return true;
  for (const auto& t : (*req)["nodeSelectorTerms"].items())
    if (term_matches(t, node)) return true;
  return false;
}

bool selector_matches(const json::Value& pod, const json::Value& node) {
  const json::Value& labels = node["metadata"]["labels"];
  for (const auto& m : pod["spec"]["nodeSelector"].members()) {
    const json::Value* v = labels.find(m.first);
    if (!v || v->as_string() != m.second.as_string()) return false;
  }
  return true;
}

bool terminated(const json::Value& pod) {
  const std::string& p = pod["status"]["phase"].str();
  return p == "Succeeded" || p == "Failed";
}

int64_t allocatable(const json::Value& node, const char* res) {
  int64_t v = 0;
  const json::Value& q = node["status"]["allocatable"][res];
  if (q.is_int()) return q.as_int();
  return parse_quantity(q.as_string(), &v) ? v : 0;
}

// The heap each pod takes on this node beyond its linear memory (the Node's
// kube32.io/pod-overhead annotation, which its kubelet charges too); 0 when absent.
int64_t pod_overhead(const json::Value& node) {
  int64_t v = 0;
  const json::Value& q = node["metadata"]["annotations"][kPodOverheadAnnotation];
  return q.is_string() && parse_quantity(q.str(), &v) && v > 0 ? v : 0;
}

// A reported module larger than this is taken as this: more than any node holds, so the node
// cannot take the pod, while sums of such entries with the pods' requests stay far from
// int64_t's end (a size near it would wrap the sum negative and make any pod fit).
constexpr int64_t kReportedImageBytesMax = int64_t{1} << 40;

// The modules a node reports holding (status.images): image_key -> their heap (sizeBytes).
// An entry without a usable size or name is left out (the node's own pods still count it).
NodeModules reported_images(const json::Value& node) {
  NodeModules out;
  for (const auto& img : node["status"]["images"].items()) {
    const json::Value& size = img["sizeBytes"];
    if (!size.is_int() || size.as_int() <= 0) continue;
    const int64_t bytes = size.as_int() < kReportedImageBytesMax ? size.as_int() : kReportedImageBytesMax;
    for (const auto& n : img["names"].items()) {
      std::string key = image_key(n.as_string());
      if (!key.empty() && bytes > out[key]) out[key] = bytes;
    }
  }
  return out;
}

}  // namespace

std::string image_key(const std::string& image) {
  kubelet::ImageRef ref;
  std::string err;
  if (!kubelet::parse_image_ref(image, &ref, &err)) return "";
  return "wasm://" + ref.source + "/" + ref.name;
}

bool pod_request(const json::Value& pod, const char* resource, int64_t* out, std::string* err) {
  int64_t sum = 0;
  for (const auto& c : pod["spec"]["containers"].items()) {
    const json::Value* q = c.path({"resources", "requests", resource});
    if (!q) q = c.path({"resources", "limits", resource});
    if (!q) continue;
    int64_t v = 0;
    std::string s = q->is_int() ? text::to_string(q->as_int()) : q->as_string();
    if (!parse_quantity(s, &v)) {
      if (err) *err = "container " + c["name"].str() + ": resources " + resource + " \"" + s + "\" is not a quantity";
      return false;
    }
    sum += v;
  }
  *out = sum;
  return true;
}

bool pod_memory_charge(const json::Value& pod, int64_t* out, std::string* err) {
  int64_t sum = 0;
  for (const auto& c : pod["spec"]["containers"].items()) {
    int64_t most = 0;
    for (const char* kind : {"requests", "limits"}) {
      const json::Value* q = c.path({"resources", kind, "memory"});
      if (!q) continue;
      int64_t v = 0;
      std::string s = q->is_int() ? text::to_string(q->as_int()) : q->as_string();
      if (!parse_quantity(s, &v)) {
        if (err) *err = "container " + c["name"].str() + ": resources " + kind + ".memory \"" + s + "\" is not a quantity";
        return false;
      }
      if (kind[0] == 'l') {
        uint64_t reach = 0;
        if (kubelet::image_memory_reach(c["image"].as_string(), &reach) && reach < static_cast<uint64_t>(v))
          v = static_cast<int64_t>(reach);
      }
      if (v > most) most = v;
    }
    if (most > INT64_MAX - sum) most = INT64_MAX - sum;
    sum += most;
  }
  *out = sum;
  return true;
}

// The uid of the pod's managing controller (ownerReferences[].controller), or "".
static std::string controller_uid(const json::Value& pod) {
  for (const auto& o : pod["metadata"]["ownerReferences"].items())
    if (o["controller"].as_bool()) return o["uid"].as_string();
  return "";
}

bool pod_load(const json::Value& pod, PodLoad* out) {
  const std::string& n = pod["spec"]["nodeName"].str();
  if (n.empty() || terminated(pod)) return false;
  out->node = n;
  out->controller = controller_uid(pod);
  out->memory = out->ipc = 0;
  out->images = pod_image_keys(pod);
  pod_memory_charge(pod, &out->memory, nullptr);
  pod_request(pod, kIpcResource, &out->ipc, nullptr);
  return true;
}

Decision schedule(const json::Value& pod, const std::vector<json::Value>& nodes, const std::vector<PodLoad>& loads) {
  Decision d;
  int64_t want_mem = 0, want_ipc = 0;
  std::string err;
  if (!pod_memory_charge(pod, &want_mem, &err) || !pod_request(pod, kIpcResource, &want_ipc, &err)) {
    d.message = err;
    return d;
  }
  // What each node already carries, and how many of the pod's siblings (pods of the same
  // controller, such as one ReplicaSet) each runs: kube-scheduler's default topology spread
  // puts replicas on different nodes before it packs them by free room.
  std::map<std::string, int64_t> used_mem, used_ipc, used_pods, siblings;
  std::map<std::string, std::vector<std::string>> bound_images;  // node -> images of its pods
  std::string owner = controller_uid(pod);
  for (const auto& l : loads) {
    if (!owner.empty() && l.controller == owner) siblings[l.node] += 1;
    used_mem[l.node] += l.memory;
    used_ipc[l.node] += l.ipc;
    used_pods[l.node] += 1;
    for (const auto& key : l.images) bound_images[l.node].push_back(key);
  }
  // What each image's module costs where no node holding it says: the most any node reports,
  // or what compiling it here takes (an embedded image); 0 when neither is known (an image
  // on a node's SD card that no node runs yet: its first pod is charged without it).
  std::vector<NodeModules> reported;
  reported.reserve(nodes.size());
  std::map<std::string, int64_t> known_cost;
  for (const auto& node : nodes) {
    reported.push_back(reported_images(node));
    for (const auto& r : reported.back())
      if (r.second > known_cost[r.first]) known_cost[r.first] = r.second;
  }
  auto module_cost = [&](const std::string& key) -> int64_t {
    int64_t cost = known_cost[key];
    uint64_t here = 0;
    if (kubelet::image_module_bytes(key, &here) && static_cast<int64_t>(here) > cost) cost = static_cast<int64_t>(here);
    return cost;
  };
  const std::vector<std::string> want_images = pod_image_keys(pod);
  // Reasons in kube-scheduler's wording, counted per node.
  std::map<std::string, int> reasons;
  int64_t best_free = -1, best_siblings = 0;
  for (size_t ni = 0; ni < nodes.size(); ++ni) {
    const json::Value& node = nodes[ni];
    const std::string& name = node["metadata"]["name"].str();
    const char* why = nullptr;
    std::string why_text;
    std::string taint_key;
    for (const auto& t : taints_of(node)) {
      if ((t["effect"].str() == "NoSchedule" || t["effect"].str() == "NoExecute") && !tolerates(pod, t)) {
        taint_key = "{" + t["key"].str() + (t["value"].as_string().empty() ? "" : ": " + t["value"].str()) + "}";
        break;
      }
    }
    // Every pod there, and this one, is also charged the node's per-pod overhead.
    const int64_t overhead = pod_overhead(node);
    int64_t free_mem = allocatable(node, "memory") - used_mem[name] - used_pods[name] * overhead;
    // Each module once: the ones the node reports, and its pods' images it does not report yet.
    NodeModules held = reported[ni];
    add_modules(&held, bound_images[name], module_cost);
    free_mem -= modules_bytes(held);
    // The pod's images the node holds in neither way: their modules come with it.
    std::string new_images;
    const int64_t want_modules = add_modules(&held, want_images, module_cost, &new_images);
    if (!taint_key.empty()) {
      reasons["node(s) had untolerated taint " + taint_key]++;
      continue;
    }
    if (!selector_matches(pod, node) || !affinity_matches(pod, node)) why = "node(s) didn't match Pod's node affinity/selector";
    else if (used_pods[name] + 1 > allocatable(node, "pods")) why = "Too many pods";
    else if (want_mem + overhead > free_mem) why = "Insufficient memory";
    else if (want_mem + overhead + want_modules > free_mem)
      why_text = "Insufficient memory (with the compiled module of " + new_images + ")";
    else if (want_ipc > allocatable(node, kIpcResource) - used_ipc[name]) why = "Insufficient hardware.kube32.io/ipc";
    if (why || !why_text.empty()) {
      reasons[why ? std::string(why) : why_text]++;
      continue;
    }
    free_mem -= want_modules;
    int64_t sib = siblings[name];
    if (d.node.empty() || sib < best_siblings ||
        (sib == best_siblings && (free_mem > best_free || (free_mem == best_free && name < d.node)))) {
      best_free = free_mem;
      best_siblings = sib;
      d.node = name;
    }
  }
  if (d.node.empty()) {
    d.message = "0/" + text::to_string(static_cast<int64_t>(nodes.size())) + " nodes are available";
    std::string sep = ": ";
    for (const auto& r : reasons) {
      d.message += sep + text::to_string(r.second) + " " + r.first;
      sep = ", ";
    }
    d.message += ".";
  }
  return d;
}

Decision schedule(const json::Value& pod, const std::vector<json::Value>& nodes, const std::vector<json::Value>& pods) {
  std::vector<PodLoad> loads;
  for (const auto& p : pods) {
    PodLoad l;
    if (pod_load(p, &l)) loads.push_back(std::move(l));
  }
  return schedule(pod, nodes, loads);
}

void Scheduler::bind(json::Value pod, const std::string& node) {
  pod.at_or_insert("spec").set("nodeName", node);
  json::Value& conds = pod.at_or_insert("status").at_or_insert("conditions");
  if (!conds.is_array()) conds = json::Value::array();
  json::Value kept = json::Value::array();
  for (auto& c : conds.items())
    if (c["type"].str() != "PodScheduled") kept.push(c);
  json::Value c = json::Value::object();
  c.set("type", "PodScheduled");
  c.set("status", "True");
  c.set("lastProbeTime", nullptr);
  c.set("lastTransitionTime", text::rfc3339(port::wall_time_s()));
  kept.push(c);
  conds = kept;
  const std::string ns = pod["metadata"]["namespace"].str();  // copies: pod is handed to the store
  const std::string name = pod["metadata"]["name"].str();
  const std::string uid = pod["metadata"]["uid"].as_string();
  uint64_t rv = 0;
  text::parse_uint(pod["metadata"]["resourceVersion"].as_string(), UINT64_MAX, &rv);
  json::Value stored;
  if (st_->update("pods", ns, name, std::move(pod), rv, &stored) != store::Result::Ok) return;
  stored = json::Value();
  logf("[SCHED] %s/%s bound to %s", ns.c_str(), name.c_str(), node.c_str());
  json::Value ev = kubelet::make_pod_event(ns, name, uid, "Normal", "Scheduled",
                                           "Successfully assigned " + ns + "/" + name + " to " + node, "default-scheduler", "");
  st_->create("events", ns, ev["metadata"]["name"].str(), ev, &stored);
}

void Scheduler::mark_unschedulable(json::Value pod, const std::string& message) {
  const std::string ns = pod["metadata"]["namespace"].str();  // copies: pod is edited below
  const std::string name = pod["metadata"]["name"].str();
  json::Value& conds = pod.at_or_insert("status").at_or_insert("conditions");
  if (!conds.is_array()) conds = json::Value::array();
  for (auto& c : conds.items())
    if (c["type"].str() == "PodScheduled" && c["status"].str() == "False" && c["message"].str() == message) return;
  json::Value kept = json::Value::array();
  for (auto& c : conds.items())
    if (c["type"].str() != "PodScheduled") kept.push(c);
  std::string now = text::rfc3339(port::wall_time_s());
  json::Value c = json::Value::object();
  c.set("type", "PodScheduled");
  c.set("status", "False");
  c.set("lastProbeTime", nullptr);
  c.set("lastTransitionTime", now);
  c.set("reason", "Unschedulable");
  c.set("message", message);
  kept.push(c);
  conds = kept;
  const std::string uid = pod["metadata"]["uid"].as_string();
  uint64_t rv = 0;
  text::parse_uint(pod["metadata"]["resourceVersion"].as_string(), UINT64_MAX, &rv);
  json::Value stored;
  if (st_->update("pods", ns, name, std::move(pod), rv, &stored) != store::Result::Ok) return;
  stored = json::Value();
  logf("[SCHED] %s/%s unschedulable: %s", ns.c_str(), name.c_str(), message.c_str());
  json::Value ev = kubelet::make_pod_event(ns, name, uid, "Warning", "FailedScheduling", message, "default-scheduler", "");
  st_->create("events", ns, ev["metadata"]["name"].str(), ev, &stored);
}

int Scheduler::pass() {
  // One pod parsed at a time: the bound ones leave their load, the pending ones their key;
  // each pending pod is read again when its turn comes (a pod of a burst of new ones is
  // then parsed alone, not beside all the others).
  uint64_t rv = 0;
  std::vector<PodLoad> loads;
  std::vector<std::pair<std::string, std::string>> pending;  // namespace, name
  st_->for_each("pods", "", &rv, [&](json::Value& p) {
    PodLoad l;
    if (pod_load(p, &l)) loads.push_back(std::move(l));
    else if (p["spec"]["nodeName"].as_string().empty() && p["metadata"]["deletionTimestamp"].is_null() && !terminated(p))
      pending.emplace_back(p["metadata"]["namespace"].as_string(), p["metadata"]["name"].as_string());
    return true;
  });
  if (pending.empty()) return 0;
  std::vector<json::Value> nodes = st_->list("nodes", "", &rv);
  int bound = 0;
  for (const auto& key : pending) {
    json::Value p;
    if (!st_->get("pods", key.first, key.second, &p)) continue;  // deleted meanwhile
    if (!p["spec"]["nodeName"].as_string().empty() || !p["metadata"]["deletionTimestamp"].is_null() || terminated(p)) continue;
    Decision d = schedule(p, nodes, loads);
    if (d.node.empty()) {
      mark_unschedulable(std::move(p), d.message);
      continue;
    }
    // Later pods of this pass see this one on its node.
    p.at_or_insert("spec").set("nodeName", d.node);
    PodLoad l;
    if (pod_load(p, &l)) loads.push_back(std::move(l));
    bind(std::move(p), d.node);
    ++bound;
  }
  return bound;
}

void Scheduler::run() {
  uint64_t seen = 0;
  for (;;) {
    seen = st_->current_rv();
    pass();
    if (after_pass_) after_pass_();
    st_->wait_newer(seen, 1000);
  }
}

}  // namespace sched
}  // namespace k32
