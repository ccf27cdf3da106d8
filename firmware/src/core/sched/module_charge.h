// Compiled modules counted once per node: every pod of one image shares its image's module,
// so a node carries each image's module once, whatever number of its pods run there. The
// scheduler (over the Node's status.images and the pods bound there) and the kubelet's
// admission (over its module cache and its own pods) both count with these, so a pod the
// scheduler places is charged the same modules when its node admits it.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/json/json.h"

namespace k32 {
namespace sched {

// image_key -> the heap of that image's module on one node.
using NodeModules = std::map<std::string, int64_t>;

// The distinct image_key names of a pod's containers (a malformed reference is left out).
std::vector<std::string> pod_image_keys(const json::Value& pod);

// The heap of all the modules in `held`.
int64_t modules_bytes(const NodeModules& held);

// Appends "<key>: <n> KiB" to a reason's list of the modules a pod brings.
void name_module(std::string* list, const std::string& key, int64_t bytes);

// Adds to `held` each image of `images` it lacks, its module priced by cost(key) (what the
// node cannot price is 0), and returns what they add. `named`, when given, gets each priced
// one (name_module) for a reason. A template so each caller's pricing is a direct call.
template <class Cost>
int64_t add_modules(NodeModules* held, const std::vector<std::string>& images, Cost cost, std::string* named = nullptr) {
  int64_t added = 0;
  for (const auto& key : images) {
    if (held->count(key)) continue;
    const int64_t bytes = cost(key);
    (*held)[key] = bytes;
    added += bytes;
    if (named && bytes > 0) name_module(named, key, bytes);
  }
  return added;
}

}  // namespace sched
}  // namespace k32
