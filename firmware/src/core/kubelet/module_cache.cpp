#include "core/kubelet/module_cache.h"

#include <vector>

#include "port.h"

namespace k32 {
namespace kubelet {

namespace {

struct Entry {
  std::string id;
  wasm::Module* module;
  uint32_t holders;
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
  c.entries.push_back(Entry{id, m, 1});
  return m;
}

void module_release(wasm::Module* m) {
  if (!m) return;
  Cache& c = cache();
  port::LockGuard<port::Mutex> lock(c.mu);
  for (size_t i = 0; i < c.entries.size(); ++i)
    if (c.entries[i].module == m) {
      if (--c.entries[i].holders == 0) {
        wasm::module_free(m);
        c.entries.erase(c.entries.begin() + static_cast<long>(i));
        if (c.entries.empty()) std::vector<Entry>().swap(c.entries);
      }
      return;
    }
}

size_t modules_cached() {
  Cache& c = cache();
  port::LockGuard<port::Mutex> lock(c.mu);
  return c.entries.size();
}

}  // namespace kubelet
}  // namespace k32
