#include "core/kubelet/pod_usage.h"

#include <atomic>

#include "core/kubelet/kubelet.h"
#include "port.h"

namespace k32 {
namespace kubelet {

namespace {
constexpr uint64_t kWasmPageBytes = 65536;  // the Wasm page: a unit, not a budget
// Interpreter time of every call that returned on this node (one kubelet per node).
std::atomic<uint64_t> g_returned_us{0};
}  // namespace

CpuClock::CpuClock(Container* c) : c_(c) { c_->call_started_us.store(port::monotonic_us()); }

CpuClock::~CpuClock() {
  const uint64_t start = c_->call_started_us.exchange(0);
  const uint64_t now = port::monotonic_us();
  if (start && now > start) {
    c_->cpu_us.fetch_add(now - start);
    g_returned_us.fetch_add(now - start);
  }
  note_memory(c_);  // memory.grow during the call shows at once
}

void note_memory(Container* c) {
  port::LockGuard<port::Mutex> lock(c->store_mu);
  if (c->inst && !c->memory) {
    // Found once per instance (every call notes its memory): the export "memory", or, as
    // toolchains may name it otherwise, the first memory export.
    wasm::Extern e;
    if (wasm::instance_export(c->inst, "memory", &e) && e.kind == wasm::ExternKind::Memory) {
      c->memory = static_cast<const wasm::Memory*>(e.ptr);
    } else {
      const char* name = nullptr;
      for (uint32_t i = 0; wasm::instance_export_at(c->inst, i, &name, &e); ++i) {
        if (e.kind != wasm::ExternKind::Memory) continue;
        c->memory = static_cast<const wasm::Memory*>(e.ptr);
        break;
      }
    }
  }
  const bool mem = c->inst && c->memory;
  c->memory_bytes.store(mem ? static_cast<uint64_t>(wasm::memory_pages(c->memory)) * kWasmPageBytes : 0);
}

std::vector<std::shared_ptr<Pod>> Kubelet::running() {
  port::LockGuard<port::Mutex> lock(mu_);
  std::vector<std::shared_ptr<Pod>> out;
  out.reserve(pods_.size());
  for (const auto& kv : pods_) out.push_back(kv.second);
  return out;
}

PodHeap pod_heap(Kubelet* k) {
  PodHeap h;
  if (!k) return h;
  for (const auto& p : k->running())
    for (const auto& c : p->containers) {
      port::LockGuard<port::Mutex> lock(c->store_mu);
      if (!c->store) continue;
      h.linear_bytes += wasm::store_linear_bytes(c->store);
      h.bulk_bytes += wasm::store_bulk_bytes(c->store);
      h.store_bytes += wasm::store_bytes_in_use(c->store);
      ++h.containers;
    }
  return h;
}

void read_usage(Kubelet* k, std::vector<PodUsage>* out) {
  out->clear();
  for (const auto& p : k->running()) {
    PodUsage u;
    u.ns = p->ns;
    u.name = p->name;
    u.uid = p->uid;
    for (const auto& c : p->containers) {
      ContainerUsage cu;
      cu.name = c->name;
      const uint64_t start = c->call_started_us.load();
      const uint64_t now = port::monotonic_us();
      cu.running_us = start && now > start ? now - start : 0;
      cu.cpu_us = c->cpu_us.load() + cu.running_us;
      cu.memory_bytes = c->memory_bytes.load();
      cu.started_us = p->started_us;
      u.containers.push_back(std::move(cu));
    }
    out->push_back(std::move(u));
  }
}

uint64_t node_cpu_us(const std::vector<PodUsage>& now) {
  uint64_t total = g_returned_us.load();
  for (const auto& p : now)
    for (const auto& c : p.containers) total += c.running_us;
  return total;
}

}  // namespace kubelet
}  // namespace k32
