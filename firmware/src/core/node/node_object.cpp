#include "core/node/node_object.h"

#include "core/sched/scheduler.h"
#include "core/util/text.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace node {

namespace {
json::Value condition(const char* type, const char* status, const char* reason, const char* message, const std::string& now) {
  json::Value c = json::Value::object();
  c.set("type", type);
  c.set("status", status);
  c.set("lastHeartbeatTime", now);
  c.set("lastTransitionTime", now);
  c.set("reason", reason);
  c.set("message", message);
  return c;
}
}  // namespace

// Pods' memory is charged where their big blocks go: linear memory and value stacks ask for
// PSRAM (internal RAM on a board without it). The rest of a pod (its instance, the kubelet's
// records) is internal RAM, which the kubelet checks as it starts the container
// (CreateContainerError when internal RAM is short), as API writes check it before they run.
int64_t pod_allocatable_memory() {
  static const int64_t kAllocatable = [] {
    const uint64_t avail = port::mem_available(port::Region::Psram);
    const uint64_t left = avail > K32_HEAP_RESERVE_BYTES ? avail - K32_HEAP_RESERVE_BYTES : 0;
    const int64_t whole_ki = static_cast<int64_t>(left & ~uint64_t(1023));  // quantities in Ki
    return whole_ki < static_cast<int64_t>(K32_POD_MEMORY_BYTES) ? whole_ki : static_cast<int64_t>(K32_POD_MEMORY_BYTES);
  }();
  return kAllocatable;
}

// What this build's board profile offers pods (a node runs the profile it was built with).
PodCapacity pod_capacity() {
  return PodCapacity{K32_POD_MEMORY_BYTES, K32_PODS_MAX, K32_POD_OVERHEAD_BYTES, pod_allocatable_memory()};
}

std::string memory_quantity(int64_t bytes) {
  // Binary units as Kubernetes quantities print them (a unit, not a budget).
  constexpr int64_t kKi = int64_t{1} << 10, kMi = int64_t{1} << 20;
  if (bytes > 0 && bytes % kMi == 0) return text::to_string(bytes / kMi) + "Mi";
  if (bytes > 0 && bytes % kKi == 0) return text::to_string(bytes / kKi) + "Ki";
  return text::to_string(bytes);
}

json::Value node_conditions() {
  std::string now = text::rfc3339(port::wall_time_s());
  json::Value conds = json::Value::array();
  conds.push(condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available", now));
  conds.push(condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", now));
  conds.push(condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available", now));
  conds.push(condition("Ready", "True", "KubeletReady", "kubelet is posting ready status", now));
  return conds;
}

json::Value make_node(const NodeConfig& cfg) {
  json::Value n = json::Value::object();
  n.set("kind", "Node");
  n.set("apiVersion", "v1");
  json::Value md = json::Value::object();
  md.set("name", cfg.name);
  json::Value labels = json::Value::object();
  labels.set("kubernetes.io/hostname", cfg.name);
  labels.set("kubernetes.io/os", "kube32");
  labels.set("kubernetes.io/arch", cfg.board == "sim" ? "sim" : "xtensa");
  labels.set("kube32.io/board", cfg.board);
  if (cfg.role == Role::ControlPlane) labels.set("node-role.kubernetes.io/control-plane", "");
  else labels.set("node-role.kubernetes.io/worker", "");
  md.set("labels", labels);
  json::Value notes = json::Value::object();
  notes.set(sched::kPodOverheadAnnotation, memory_quantity(pod_capacity().overhead));
  md.set("annotations", notes);
  n.set("metadata", md);
  n.set("spec", json::Value::object());
  json::Value st = json::Value::object();
  json::Value cap = json::Value::object();
  // Capacity: what the board offers pods (linear memory and channel slots); allocatable:
  // as much of it as the heap really holds beside the node's own use and its reserve.
  PodCapacity pc = pod_capacity();
  cap.set("memory", memory_quantity(pc.memory));
  cap.set("pods", text::to_string(pc.pods));
  cap.set("hardware.kube32.io/ipc", "8");
  cap.set("cpu", "2");
  json::Value alloc = cap;
  alloc.set("memory", memory_quantity(pc.allocatable));
  st.set("capacity", cap);
  st.set("allocatable", alloc);
  st.set("conditions", node_conditions());
  json::Value addrs = json::Value::array();
  json::Value ip = json::Value::object();
  ip.set("type", "InternalIP");
  ip.set("address", cfg.bind_ip);
  addrs.push(ip);
  json::Value host = json::Value::object();
  host.set("type", "Hostname");
  host.set("address", cfg.name);
  addrs.push(host);
  st.set("addresses", addrs);
  json::Value de = json::Value::object();
  json::Value ke = json::Value::object();
  ke.set("Port", static_cast<int64_t>(cfg.pod_port));
  de.set("kubeletEndpoint", ke);
  st.set("daemonEndpoints", de);
  json::Value info = json::Value::object();
  info.set("machineID", cfg.name);
  info.set("systemUUID", cfg.name);
  info.set("bootID", text::uuid4());
  info.set("kernelVersion", cfg.board == "sim" ? "host-simulator" : "esp-idf");
  info.set("osImage", cfg.board == "sim" ? "Kube32 simulator" : "Kube32 firmware");
  info.set("containerRuntimeVersion", "kube32-wasm://0.1.0");
  info.set("kubeletVersion", "v1.34.0-kube32");
  info.set("kubeProxyVersion", "");
  info.set("operatingSystem", "kube32");
  info.set("architecture", cfg.board == "sim" ? "sim" : "xtensa");
  st.set("nodeInfo", info);
  n.set("status", st);
  return n;
}

void set_ready(json::Value* node, const char* status, const char* reason, const char* message, bool heartbeat) {
  std::string now = text::rfc3339(port::wall_time_s());
  json::Value& conds = node->at_or_insert("status").at_or_insert("conditions");
  for (auto& c : conds.items()) {
    bool is_ready = c["type"].str() == "Ready";
    if (!is_ready && std::string(status) == "True") continue;
    const char* s = is_ready ? status : (std::string(status) == "True" ? "False" : "Unknown");
    if (c["status"].str() != s) {
      c.set("lastTransitionTime", now);
      c.set("status", s);
    }
    if (is_ready) {
      c.set("reason", reason);
      c.set("message", message);
    } else if (std::string(status) != "True") {
      c.set("reason", "NodeStatusUnknown");
      c.set("message", "Kubelet stopped posting node status.");
    }
    if (heartbeat) c.set("lastHeartbeatTime", now);
  }
}

json::Value make_lease(const std::string& node_name, const std::string& node_uid) {
  json::Value l = json::Value::object();
  l.set("kind", "Lease");
  l.set("apiVersion", "coordination.k8s.io/v1");
  json::Value md = json::Value::object();
  md.set("name", node_name);
  md.set("namespace", "kube-node-lease");
  if (!node_uid.empty()) {
    json::Value owner = json::Value::object();
    owner.set("apiVersion", "v1");
    owner.set("kind", "Node");
    owner.set("name", node_name);
    owner.set("uid", node_uid);
    json::Value owners = json::Value::array();
    owners.push(owner);
    md.set("ownerReferences", owners);
  }
  l.set("metadata", md);
  json::Value spec = json::Value::object();
  spec.set("holderIdentity", node_name);
  spec.set("leaseDurationSeconds", static_cast<int64_t>(kLeaseDurationS));  // int32_t is long on newlib targets
  spec.set("renewTime", text::rfc3339_micro(port::wall_time_s() * 1000));
  l.set("spec", spec);
  return l;
}

}  // namespace node
}  // namespace k32
