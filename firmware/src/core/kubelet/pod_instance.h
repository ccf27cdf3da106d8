// Turning a container's image into a running Wasm instance, and back.
#pragma once
#include <cstdint>
#include <string>

#include "core/kubelet/pod_runtime.h"

namespace k32 {
namespace kubelet {

// Loads the image, makes a store capped at c->max_pages of linear memory, defines WASI
// and the k32 imports (ones needing a capability the container lacks answer
// K32_ERR_PERM) and instantiates. False with a reason word and a one-line message.
bool instantiate_container(Container* c, const std::string& sd_dir, std::string* reason, std::string* message);
// Frees the instance, store and module (caller holds c->call_mu).
void release_container(Container* c);
// The most linear memory a container of `image` can ever hold (wasm::module_memory_reach
// under the limits every container gets, before its limits.memory caps it), when the node
// can tell before running it: images built into the firmware, whose bytes every node has.
// False for other images, ones that may grow without bound, or a module that does not load.
bool image_memory_reach(const std::string& image, uint64_t* bytes);
// A trap's text for the pod's log and status: the interpreter's words, and for "call stack
// exhausted" what the image can need (its static bound, wasm::module_stack_bound) beside what
// the board gives, so a pod says why rather than only that it ran out.
std::string trap_message(const Container* c, const wasm::Trap& trap);
// The heap the compiled module of `image` keeps on a node (module_heap_bytes), when the node
// can tell before any pod runs it: an image built into the firmware, compiled here once to
// learn it (the same firmware compiles it to the same blocks on every node of a pointer size).
bool image_module_bytes(const std::string& image, uint64_t* bytes);
// Capability bits of securityContext.capabilities.add; unknown names go to *unknown.
uint32_t capabilities_of(const json::Value& container, std::string* unknown);

}  // namespace kubelet
}  // namespace k32
