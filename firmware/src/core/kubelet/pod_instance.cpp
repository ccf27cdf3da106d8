#include "core/kubelet/pod_instance.h"

#include <cstring>
#include <vector>

#include "core/kubelet/image_source.h"
#include "core/kubelet/kubelet.h"
#include "core/kubelet/module_cache.h"
#include "core/kubelet/pod_usage.h"
#include "core/util/log.h"
#include "core/util/text.h"
#include "k32_abi_table.h"
#include "port.h"

namespace k32 {
namespace kubelet {

namespace {

// Pod memory (compiled modules, stores, linear memory, memory.grow) never takes the heap the
// node keeps for its own work: past that it fails like any allocation the interpreter
// handles (CreateContainerError at start, -1 from memory.grow), and the container notes why.
void* pod_alloc_in(void* ctx, size_t bytes, port::Region region) {
  if (port::mem_available(region) < static_cast<uint64_t>(bytes) + K32_HEAP_RESERVE_BYTES) {
    if (ctx) static_cast<Container*>(ctx)->heap_refused = true;
    return nullptr;
  }
  return port::mem_alloc(bytes, region);
}
// The interpreter's bookkeeping (modules, instances, tables) is internal RAM like the rest of
// the node; linear memory and the value stack are the big blocks the board keeps in PSRAM
// (internal RAM on a board without it, which mem_alloc decides).
void* pod_alloc(void* ctx, size_t bytes) { return pod_alloc_in(ctx, bytes, port::Region::Any); }
void* pod_alloc_bulk(void* ctx, size_t bytes) { return pod_alloc_in(ctx, bytes, port::Region::Psram); }
void pod_free(void*, void* p) { port::mem_free(p); }
const wasm::Allocator kPodAllocator{&pod_alloc, &pod_free, nullptr, &pod_alloc_bulk};

// The interpreter limits every container gets; instantiate_container narrows the memory to
// the container's limits.memory.
wasm::Limits container_limits(uint32_t max_pages) {
  wasm::Limits lim;
  lim.max_memory_pages = max_pages;
  lim.value_stack_slots = kValueStackSlots;
  lim.call_depth = kCallDepth;
  lim.trim_to_heap_base = true;
  return lim;
}

// What the board gives every container's interpreter, in the words of a pod's message.
std::string stack_budget() {
  return text::to_string(static_cast<int64_t>(kValueStackSlots) * 8) + " bytes of value stack and " +
         text::to_string(static_cast<int64_t>(kCallDepth)) + " nested calls";
}

std::string out_of_heap(const std::string& what) {
  return "not enough memory on the node for " + what + " (" +
         text::to_string(static_cast<int64_t>(port::mem_available(port::Region::Internal))) + " bytes of internal RAM, " +
         text::to_string(static_cast<int64_t>(port::mem_available(port::Region::Psram))) + " for pod memory free, " +
         text::to_string(static_cast<int64_t>(K32_HEAP_RESERVE_BYTES)) + " kept for the node itself)";
}

// Imports a container may not use answer K32_ERR_PERM without reaching the host.
wasm::Trap perm_denied(wasm::Caller&, const wasm::Value*, wasm::Value* r, void*) {
  r[0].bits = static_cast<uint32_t>(abi::kErrPerm);
  return wasm::trap_ok();
}

// Every k32 import of every instance goes through here: one host function per image and
// import (module_cache.h), the calling container from its store, its capabilities checked.
wasm::Trap k32_import(wasm::Caller& caller, const wasm::Value* args, wasm::Value* r, void* user) {
  const abi::HostImport* h = static_cast<const abi::HostImport*>(user);
  Container* c = static_cast<Container*>(wasm::store_host_user(caller.store));
  if (h->capability != abi::kCapNone && !(c->caps & h->capability)) return perm_denied(caller, args, r, nullptr);
  return h->fn(caller, args, r, c);
}

// What a pod may import: WASI's functions and the k32 ABI's (through k32_import).
bool host_import(const char* module, const char* name, const char** sig, wasm::HostFn* fn, void** user) {
  *user = nullptr;
  if (std::strcmp(module, "wasi_snapshot_preview1") == 0) return wasm::wasi_function(name, sig, fn);
  if (std::strcmp(module, abi::kImportModule) != 0) return false;
  for (size_t i = 0; i < abi::kHostImportCount; ++i)
    if (std::strcmp(abi::kHostImports[i].name, name) == 0) {
      *sig = abi::kHostImports[i].sig;
      *fn = &k32_import;
      *user = const_cast<abi::HostImport*>(&abi::kHostImports[i]);
      return true;
    }
  return false;
}

wasm::Func* make_host_func(const wasm::Allocator& a, const char* module, const char* name) {
  const char* sig;
  wasm::HostFn fn;
  void* user;
  return host_import(module, name, &sig, &fn, &user) ? wasm::host_func_make(a, sig, fn, user) : nullptr;
}

// Imports resolve to the module's shared host functions; one that exists but cannot be made
// for want of heap is noted, so the failure reads as that and not as an unknown import.
bool resolve_import(void* ctx, const char* module, const char* name, wasm::Extern* out) {
  Container* c = static_cast<Container*>(ctx);
  wasm::Func* f = module_host_func(c->module, module, name, &make_host_func);
  if (!f) {
    const char* sig;
    wasm::HostFn fn;
    void* user;
    if (host_import(module, name, &sig, &fn, &user)) c->import_refused = true;
    return false;
  }
  *out = wasm::Extern{wasm::ExternKind::Func, f};
  return true;
}

bool wasi_write(void* ctx, int, const uint8_t* data, size_t len) {
  static_cast<Container*>(ctx)->log.append(reinterpret_cast<const char*>(data), len);
  return true;
}
uint64_t wasi_clock(void*, uint32_t id) {
  if (id == 0) return static_cast<uint64_t>(port::wall_time_s()) * 1000000000ull;
  return port::monotonic_ms() * 1000000ull;
}
void wasi_random(void*, uint8_t* buf, size_t len) { port::random_fill(buf, len); }

}  // namespace

uint32_t capabilities_of(const json::Value& container, std::string* unknown) {
  uint32_t bits = 0;
  const json::Value* add = container.path({"securityContext", "capabilities", "add"});
  if (!add) return 0;
  for (const auto& v : add->items()) {
    bool known = false;
    for (const auto& cap : abi::kCapabilities)
      if (v.as_string() == cap.name) {
        bits |= cap.bit;
        known = true;
      }
    if (!known && unknown) *unknown += (unknown->empty() ? "" : ", ") + v.as_string();
  }
  return bits;
}

bool instantiate_container(Container* c, const std::string& sd_dir, std::string* reason, std::string* message) {
  ImageRef ref;
  std::string err;
  if (!parse_image_ref(c->image, &ref, &err)) {
    *reason = "InvalidImageName";
    *message = err;
    return false;
  }
  ImageBytes img;
  if (!load_image(ref, sd_dir, &img, reason, message)) return false;
  c->image_id = "wasm://" + ref.source + "/" + ref.name + "@sha256:" + img.sha256;
  wasm::Error werr{};
  c->heap_refused = false;
  const wasm::Allocator alloc{&pod_alloc, &pod_free, c, &pod_alloc_bulk};
  // The module outlives this container when others share it: its allocator names none.
  c->module = module_acquire(c->image_id, img.data, img.len, kPodAllocator, &werr);
  if (!c->module) {
    *reason = "CreateContainerError";
    *message = werr.kind == wasm::Error::OutOfMemory ? out_of_heap("image " + c->image)
                                                     : "image " + c->image + " is not a valid Wasm module: " + werr.message;
    return false;
  }
  // Not refused: the bound covers every path of the image, one it may never take among them;
  // the trap on overflow stays the limit, and its message (trap_message) gives these figures.
  const wasm::StackBound& bound = wasm::module_stack_bound(c->module);
  if (bound.bounded && (bound.slots > kValueStackSlots || bound.frames > kCallDepth))
    logf("[KUBELET] image %s: its deepest call path needs %u bytes of value stack and %u nested calls, this node gives %s",
         c->image.c_str(), static_cast<unsigned>(bound.slots) * 8u, static_cast<unsigned>(bound.frames), stack_budget().c_str());
  c->store = wasm::store_new(alloc, container_limits(c->max_pages));
  if (!c->store) {
    *reason = "CreateContainerError";
    *message = out_of_heap("the container's interpreter stacks");
    release_container(c);
    return false;
  }
  std::vector<const char*>().swap(c->wasi_env);
  size_t vars = 0;
  for (char ch : c->env) vars += ch == '\0';
  c->wasi_env.reserve(vars);
  for (size_t at = 0; at < c->env.size();) {
    c->wasi_env.push_back(c->env.c_str() + at);
    size_t end = c->env.find('\0', at);
    if (end == std::string::npos) break;  // a last entry without its '\0' (c_str ends it)
    at = end + 1;
  }
  c->wasi_argv[0] = c->name.c_str();
  c->wasi = wasm::WasiConfig{
      1, c->wasi_argv, static_cast<int>(c->wasi_env.size()), c->wasi_env.data(), &wasi_write, c, &wasi_clock, &wasi_random, c};
  // The host functions are the image's (shared, resolved at instantiation); what they need
  // of this container they find through its store.
  wasm::wasi_attach(c->store, &c->wasi);
  wasm::store_set_host_user(c->store, c);
  c->import_refused = false;
  wasm::store_set_resolver(c->store, &resolve_import, c);
  wasm::Trap trap = wasm::trap_ok();
  c->memory = nullptr;  // note_memory finds the new instance's
  c->inst = wasm::instantiate(c->store, c->module, &werr, &trap);
  if (!c->inst) {
    *reason = "CreateContainerError";
    if (!trap.ok()) {
      *message = "start function trapped: " + trap_message(c, trap);
    } else if (c->import_refused) {
      *message = out_of_heap("the pod ABI's host functions");
    } else if (c->heap_refused) {
      *message = out_of_heap("the container's linear memory");
    } else if (werr.kind == wasm::Error::OutOfMemory || std::string(werr.message).find("memory") != std::string::npos) {
      *message = "module needs more linear memory than limits.memory allows (" + text::to_string(c->max_pages) +
                 " page(s) of 64Ki): " + werr.message;
    } else {
      *message = werr.message;
    }
    release_container(c);
    return false;
  }
  wasm::Extern e;
  c->handle_fn = wasm::instance_export(c->inst, "k32_handle", &e) && e.kind == wasm::ExternKind::Func
                     ? static_cast<wasm::Func*>(e.ptr)
                     : nullptr;
  c->event_fn = wasm::instance_export(c->inst, "k32_event", &e) && e.kind == wasm::ExternKind::Func
                    ? static_cast<wasm::Func*>(e.ptr)
                    : nullptr;
  c->main_fn = nullptr;
  if (wasm::instance_export(c->inst, "k32_main", &e) && e.kind == wasm::ExternKind::Func) {
    c->main_fn = static_cast<wasm::Func*>(e.ptr);
    c->main_returns = true;
  } else if (wasm::instance_export(c->inst, "_start", &e) && e.kind == wasm::ExternKind::Func) {
    c->main_fn = static_cast<wasm::Func*>(e.ptr);
    c->main_returns = false;
  }
  // Exports must have the ABI's signatures; a mismatch is the pod author's bug, said clearly.
  char sig[32];
  for (wasm::Func* f : {c->handle_fn, c->event_fn}) {
    if (f && (!wasm::func_signature(f, sig, sizeof sig) || std::string(sig) != ":i")) {
      *reason = "CreateContainerError";
      *message = std::string("export k32_handle/k32_event must be () -> i32, found ") + sig;
      release_container(c);
      return false;
    }
  }
  if (c->main_fn && wasm::func_signature(c->main_fn, sig, sizeof sig) && std::string(sig) != (c->main_returns ? ":i" : ":")) {
    *reason = "CreateContainerError";
    *message = std::string(c->main_returns ? "export k32_main must be () -> i32" : "export _start must be () -> ()") +
               ", found " + sig;
    release_container(c);
    return false;
  }
  if (!c->handle_fn && !c->main_fn) {
    *reason = "CreateContainerError";
    *message = "the module exports none of k32_handle, k32_main, _start";
    release_container(c);
    return false;
  }
  note_memory(c);
  return true;
}

namespace {

// What the node learns of an embedded image by compiling it: the most linear memory it can
// reach and the heap its compiled module keeps (module_heap_bytes).
struct KnownImage {
  std::string name;
  uint64_t reach;         // UINT64_MAX: it may grow without bound
  uint64_t module_bytes;  // 0: not known
};

bool known_embedded_image(const std::string& image, KnownImage* out) {
  ImageRef ref;
  std::string err, reason, message;
  if (!parse_image_ref(image, &ref, &err) || ref.source != "embedded") return false;
  // One answer per image name: embedded images do not change while the firmware runs, and
  // the answer costs a module load (shared with running pods of the image through the cache).
  static port::Mutex mu;
  static std::vector<KnownImage>* known = new std::vector<KnownImage>();  // never destroyed, like the module cache
  {
    port::LockGuard<port::Mutex> lock(mu);
    for (const KnownImage& k : *known)
      if (k.name == ref.name) return (*out = k), true;
  }
  ImageBytes img;
  if (!load_image(ref, "", &img, &reason, &message)) return false;
  if (!ref.pin.empty() && ref.pin != img.sha256) return false;
  wasm::Error werr{};
  wasm::Module* m =
      module_acquire("wasm://embedded/" + ref.name + "@sha256:" + img.sha256, img.data, img.len, kPodAllocator, &werr);
  if (!m) return false;  // not cached: a module that failed for want of heap may load later
  // The host functions its pods will share, made as its first instance would make them, so
  // the module's heap counted here is the one a node running it reports.
  const char *imp_module, *imp_name;
  wasm::ExternKind kind;
  for (uint32_t i = 0; wasm::module_import_at(m, i, &imp_module, &imp_name, &kind); ++i)
    if (kind == wasm::ExternKind::Func) module_host_func(m, imp_module, imp_name, &make_host_func);
  KnownImage k{ref.name, wasm::module_memory_reach(m, container_limits(UINT32_MAX)), module_heap_bytes(m)};
  module_release(m);
  port::LockGuard<port::Mutex> lock(mu);
  known->push_back(k);
  *out = k;
  return true;
}

}  // namespace

bool image_memory_reach(const std::string& image, uint64_t* bytes) {
  KnownImage k;
  if (!known_embedded_image(image, &k)) return false;
  return (*bytes = k.reach) != UINT64_MAX;
}

bool image_module_bytes(const std::string& image, uint64_t* bytes) {
  KnownImage k;
  if (!known_embedded_image(image, &k) || k.module_bytes == 0) return false;
  *bytes = k.module_bytes;
  return true;
}

void release_container(Container* c) {
  port::LockGuard<port::Mutex> lock(c->store_mu);
  if (c->store) wasm::store_free(c->store);
  module_release(c->module);
  c->store = nullptr;
  c->module = nullptr;
  c->inst = nullptr;
  c->memory = nullptr;
  c->handle_fn = c->event_fn = c->main_fn = nullptr;
  c->memory_bytes.store(0);  // a container waiting for its restart holds no linear memory
}

std::string trap_message(const Container* c, const wasm::Trap& trap) {
  std::string out = trap.message;
  if (trap.code != wasm::TrapCode::CallStackExhausted || !c->module) return out;
  const wasm::StackBound& b = wasm::module_stack_bound(c->module);
  if (b.bounded)
    return out + " (the image needs up to " + text::to_string(static_cast<int64_t>(b.slots) * 8) + " bytes of value stack and " +
           text::to_string(static_cast<int64_t>(b.frames)) + " nested calls; this node gives " + stack_budget() + ")";
  return out + " (the image has no static bound: " + b.why + "; this node gives " + stack_budget() + ")";
}

}  // namespace kubelet
}  // namespace k32
