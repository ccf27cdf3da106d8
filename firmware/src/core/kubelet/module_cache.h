// One compiled Wasm module per image, shared by every container that runs it: the
// compiled code is read-only once loaded, so two echo pods need it once, not twice.
// A module lives while some container holds it and is freed with its last holder.
// Each module's heap is counted as it is built (the blocks its load and its host functions
// keep), so the node can report what each image it holds costs (Node status.images) and the
// scheduler can charge an image's module once per node.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wasm/wasm.h"

namespace k32 {
namespace kubelet {

// The module of image `id` (its digest-qualified image ID), compiled from `bytes` the first
// time and shared afterwards; nullptr with *err on a load failure (nothing is cached then).
wasm::Module* module_acquire(const std::string& id, const uint8_t* bytes, size_t len, const wasm::Allocator& a, wasm::Error* err);
// Gives a module from module_acquire back; the last holder frees it (with its host functions).
void module_release(wasm::Module* m);
// The host function `m`'s import module.name resolves to, shared by every instance of `m`
// (a pod's store holds none of its own): made by `make` with the module's allocator the
// first time, freed with the module. nullptr when make gives none (unknown, or no memory).
wasm::Func* module_host_func(wasm::Module* m, const char* module, const char* name,
                             wasm::Func* (*make)(const wasm::Allocator& a, const char* module, const char* name));
// Modules held right now (for tests and reports).
size_t modules_cached();
// The heap a cached module holds: the blocks its load kept and its host functions, as the
// node's allocator counts them; 0 for a module not in the cache.
uint64_t module_heap_bytes(const wasm::Module* m);

// Called after a module joins the cache or leaves it (the node's status.images changes with
// it), on the thread that compiled or released it and outside the cache's lock: the node
// wakes its heartbeat to report the list at once, so the scheduler does not count without a
// new module for a heartbeat period. A plain function and its argument (the stack check
// bounds a call through it by its one target). Set before any pod starts.
void set_modules_changed(void (*f)(void* ctx), void* ctx);

// The images whose modules are held now, each with its module's heap (module_heap_bytes).
struct HeldImage {
  std::string id;  // the digest-qualified image ID module_acquire was given
  uint64_t bytes;
};
std::vector<HeldImage> modules_held();

}  // namespace kubelet
}  // namespace k32
