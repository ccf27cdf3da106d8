#include "core/kubelet/module_cache.h"

#include <atomic>
#include <utility>
#include <vector>

#include "port.h"

namespace k32 {
namespace kubelet {

namespace {

struct HostFunc {
  std::string module, name;
  wasm::Func* func;
};

// Counts the heap a module keeps. The module's allocator is this wrapper around the one
// module_acquire was given: while a load (or a host function's making) runs it notes each
// block taken and not given back (a loader's growing arrays free their old blocks), and the
// blocks left when it ends are what the module keeps. Outside those moments it only passes
// calls through (the module's frees when it goes), so it costs nothing while pods run.
struct Meter {
  wasm::Allocator base;
  bool counting = false;
  std::vector<std::pair<void*, size_t>> blocks;  // while counting: blocks taken, not yet freed

  void begin() {
    counting = true;
    blocks.clear();
  }
  // The bytes of the blocks still held since begin().
  uint64_t end() {
    uint64_t sum = 0;
    for (const auto& b : blocks) sum += b.second;
    counting = false;
    std::vector<std::pair<void*, size_t>>().swap(blocks);
    return sum;
  }
  void* note(void* p, size_t bytes) {
    if (p && counting) blocks.emplace_back(p, bytes);
    return p;
  }
};

void* metered_alloc(void* ctx, size_t bytes) {
  Meter* m = static_cast<Meter*>(ctx);
  return m->note(m->base.alloc(m->base.ctx, bytes), bytes);
}
void* metered_alloc_bulk(void* ctx, size_t bytes) {
  Meter* m = static_cast<Meter*>(ctx);
  return m->note(m->base.alloc_bulk ? m->base.alloc_bulk(m->base.ctx, bytes) : m->base.alloc(m->base.ctx, bytes), bytes);
}
void metered_free(void* ctx, void* p) {
  Meter* m = static_cast<Meter*>(ctx);
  if (m->counting)
    for (size_t i = m->blocks.size(); i-- > 0;)  // the newest first: a grown array frees its last block
      if (m->blocks[i].first == p) {
        m->blocks.erase(m->blocks.begin() + static_cast<long>(i));
        break;
      }
  m->base.free(m->base.ctx, p);
}

struct Entry {
  std::string id;
  wasm::Module* module;
  uint32_t holders;
  Meter* meter;                // the module's allocator's state: lives until the module is freed
  uint64_t bytes;              // heap the module keeps, its host functions included
  std::vector<HostFunc> host;  // the imports instances resolved so far (a few: a pod imports a handful)
  wasm::Allocator alloc() const { return wasm::Allocator{&metered_alloc, &metered_free, meter, &metered_alloc_bulk}; }
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

// set_modules_changed's: the function published after its argument (the API server may
// compile a built-in image on another thread as the node starts).
std::atomic<void (*)(void*)> changed_fn{nullptr};
std::atomic<void*> changed_ctx{nullptr};

void modules_changed() {
  void (*f)(void*) = changed_fn.load();
  if (f) f(changed_ctx.load());
}

}  // namespace

wasm::Module* module_acquire(const std::string& id, const uint8_t* bytes, size_t len, const wasm::Allocator& a,
                             wasm::Error* err) {
  Cache& c = cache();
  wasm::Module* m = nullptr;
  {
    // Loading under the lock keeps two first starts of one image from compiling it twice.
    port::LockGuard<port::Mutex> lock(c.mu);
    for (Entry& e : c.entries)
      if (e.id == id) {
        e.holders++;
        return e.module;
      }
    Meter* meter = new Meter();
    meter->base = a;
    Entry e{id, nullptr, 1, meter, 0, {}};
    meter->begin();
    m = wasm::module_load(bytes, len, e.alloc(), err);
    e.bytes = meter->end();
    if (!m) {
      delete meter;
      return nullptr;
    }
    e.module = m;
    c.entries.push_back(std::move(e));
  }
  modules_changed();
  return m;
}

void module_release(wasm::Module* m) {
  if (!m) return;
  Cache& c = cache();
  bool dropped = false;
  {
    port::LockGuard<port::Mutex> lock(c.mu);
    for (size_t i = 0; i < c.entries.size(); ++i)
      if (c.entries[i].module == m) {
        if (--c.entries[i].holders == 0) {
          Entry& e = c.entries[i];
          for (HostFunc& h : e.host) wasm::host_func_free(e.alloc(), h.func);
          wasm::module_free(m);
          delete e.meter;
          c.entries.erase(c.entries.begin() + static_cast<long>(i));
          if (c.entries.empty()) std::vector<Entry>().swap(c.entries);
          dropped = true;
        }
        break;
      }
  }
  if (dropped) modules_changed();
}

void set_modules_changed(void (*f)(void* ctx), void* ctx) {
  changed_ctx.store(ctx);
  changed_fn.store(f);
}

wasm::Func* module_host_func(wasm::Module* m, const char* module, const char* name,
                             wasm::Func* (*make)(const wasm::Allocator& a, const char* module, const char* name)) {
  Cache& c = cache();
  port::LockGuard<port::Mutex> lock(c.mu);
  for (Entry& e : c.entries) {
    if (e.module != m) continue;
    for (const HostFunc& h : e.host)
      if (h.module == module && h.name == name) return h.func;
    e.meter->begin();
    wasm::Func* f = make(e.alloc(), module, name);
    e.bytes += e.meter->end();
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

uint64_t module_heap_bytes(const wasm::Module* m) {
  Cache& c = cache();
  port::LockGuard<port::Mutex> lock(c.mu);
  for (const Entry& e : c.entries)
    if (e.module == m) return e.bytes;
  return 0;
}

std::vector<HeldImage> modules_held() {
  Cache& c = cache();
  port::LockGuard<port::Mutex> lock(c.mu);
  std::vector<HeldImage> out;
  out.reserve(c.entries.size());
  for (const Entry& e : c.entries) out.push_back(HeldImage{e.id, e.bytes});
  return out;
}

}  // namespace kubelet
}  // namespace k32
