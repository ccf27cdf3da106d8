#include "core/kubelet/module_cache.h"

#include <vector>

#include "port.h"

namespace k32 {
namespace kubelet {

namespace {

struct HostFunc {
  std::string module, name;
  wasm::Func* func;
};

struct Entry {
  std::string id;
  wasm::Module* module;
  uint32_t holders;
  wasm::Allocator alloc;
  std::vector<HostFunc> host;  // the imports instances resolved so far (a few: a pod imports a handful)
};

// A handful of images at most: a vector searched linearly is smaller than a map.
struct Cache {
  port::Mutex mu;
  std::vector<Entry> entries;
};

Cache& cache() {
  static Cache* c = new Cache();  // never destroyed: runner threads may outlive static destructors
  return *c;
}

}  // namespace

wasm::Module* module_acquire(const std::string& id, const uint8_t* bytes, size_t len, const wasm::Allocator& a,
                             wasm::Error* err) {
  Cache& c = cache();
  // Loading under the lock keeps two first starts of one image from compiling it twice.
  port::LockGuard<port::Mutex> lock(c.mu);
  for (Entry& e : c.entries)
    if (e.id == id) {
      e.holders++;
      return e.module;
    }
  wasm::Module* m = wasm::module_load(bytes, len, a, err);
  if (!m) return nullptr;
  c.entries.push_back(Entry{id, m, 1, a, {}});
  return m;
}

void module_release(wasm::Module* m) {
  if (!m) return;
  Cache& c = cache();
  port::LockGuard<port::Mutex> lock(c.mu);
  for (size_t i = 0; i < c.entries.size(); ++i)
    if (c.entries[i].module == m) {
      if (--c.entries[i].holders == 0) {
        for (HostFunc& h : c.entries[i].host) wasm::host_func_free(c.entries[i].alloc, h.func);
        wasm::module_free(m);
        c.entries.erase(c.entries.begin() + static_cast<long>(i));
        if (c.entries.empty()) std::vector<Entry>().swap(c.entries);
      }
      return;
    }
}

wasm::Func* module_host_func(wasm::Module* m, const char* module, const char* name,
                             wasm::Func* (*make)(const wasm::Allocator& a, const char* module, const char* name)) {
  Cache& c = cache();
  port::LockGuard<port::Mutex> lock(c.mu);
  for (Entry& e : c.entries) {
    if (e.module != m) continue;
    for (const HostFunc& h : e.host)
      if (h.module == module && h.name == name) return h.func;
    wasm::Func* f = make(e.alloc, module, name);
    if (f) e.host.push_back(HostFunc{module, name, f});
    return f;
  }
  return nullptr;
}

size_t modules_cached() {
  Cache& c = cache();
  port::LockGuard<port::Mutex> lock(c.mu);
  return c.entries.size();
}

}  // namespace kubelet
}  // namespace k32
