// Turning a container's image into a running Wasm instance, and back.
#pragma once
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
// Capability bits of securityContext.capabilities.add; unknown names go to *unknown.
uint32_t capabilities_of(const json::Value& container, std::string* unknown);

}  // namespace kubelet
}  // namespace k32
