#include "core/api/metrics_store.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "core/util/text.h"

namespace k32 {
namespace api {

namespace {

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

// A UID as the API server gives them (a UUID): letters, digits and dashes. Anything else
// (a NUL above all) could never be looked up again by kubectl top.
bool uid_ok(const std::string& uid) {
  if (uid.empty() || uid.size() > MetricsStore::kUidMax) return false;
  for (char ch : uid)
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-')) return false;
  return true;
}

bool fresh(uint64_t received_ms) {
  // A node silent this long is NotReady: its last figures no longer describe it.
  return received_ms && port::monotonic_ms() - received_ms < K32_NODE_NOT_READY_MS;
}

// Room for one more record when the table is full (a vector's doubling would leave up to half
// of it unused); it grows only when more nodes or pods report than ever before.
template <typename T>
void grow(std::vector<T>* v, size_t most) {
  if (v->size() == v->capacity()) v->reserve(std::min(v->size() + 1, most));
}

// Gives back the records past the last one in use, so a table that once held many nodes or
// pods does not keep their room (a copy, as shrink_to_fit does nothing without exceptions).
template <typename T>
void trim(std::vector<T>* v) {
  size_t n = v->size();
  while (!v->empty() && !v->back().used) v->pop_back();
  if (v->size() != n) std::vector<T>(std::make_move_iterator(v->begin()), std::make_move_iterator(v->end())).swap(*v);
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
    if (!uid || !uid->is_string() || !uid_ok(uid->str()) || !cs || !cs->is_array()) {
      *err = "each pod of a usage report needs a uid (1 to 36 letters, digits and dashes) and a containers array";
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
      grow(&nodes_, K32_METRICS_NODES_MAX);
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
      grow(&pods_, K32_METRICS_PODS_MAX);
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
    if (!same_shape) {
      rec.more.reset(cs.size() > 1 ? new ContainerRecord[cs.size() - 1] : nullptr);
      rec.first = ContainerRecord();
    }
    rec.containers = static_cast<uint8_t>(cs.size());
    for (size_t i = 0; i < cs.size(); ++i) {
      ContainerRecord& c = rec.c(i);
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
  trim(&pods_);
  return true;
}

void MetricsStore::forget_node(const std::string& node) {
  port::LockGuard<port::Mutex> lock(mu_);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i].used || node != nodes_[i].name) continue;
    for (auto& p : pods_)
      if (p.used && p.node == i) p = PodRecord();
    nodes_[i] = NodeRecord();
  }
  trim(&pods_);
  trim(&nodes_);
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
      const ContainerRecord& c = p.c(i);
      out->c[i].memory = c.memory;
      out->c[i].cpu_nanocores = nanocores(c.cur, c.prev);
      const uint64_t w = c.cur.t_us > c.prev.t_us ? (c.cur.t_us - c.prev.t_us) / 1000 : 0;
      if (w > out->window_ms) out->window_ms = w;
    }
    return true;
  }
  return false;
}

}  // namespace api
}  // namespace k32
