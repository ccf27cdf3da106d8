// What compiled modules a pod brings onto this node, counted for the kubelet's admission as
// the scheduler counts them (sched/module_charge.h): each image's module once, the ones the
// module cache holds at their real heap, and the ones of pods admitted here but not compiled
// yet, or of the pod itself, at what the node can know before compiling (module_estimate).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/json/json.h"
#include "core/kubelet/admission.h"

namespace k32 {
namespace kubelet {

// The heap image `key`'s module (sched::image_key form) will keep here, before compiling it:
// a built-in image's as compiling it once told (image_module_bytes); otherwise, or when that
// compile found no heap, its Wasm bytes (built in, or the card's file) priced by
// K32_MODULE_HEAP_BASE_BYTES + K32_MODULE_HEAP_PER_WASM_BYTE each, measured from the
// shipped images to cover every one of them; 0 for an image the node does not have.
int64_t module_estimate(const std::string& key, const std::string& sd_dir);
// The heap a module compiled from `wasm_bytes` of Wasm keeps, at most, as the shipped
// images measure it (K32_MODULE_HEAP_BASE_BYTES + K32_MODULE_HEAP_PER_WASM_BYTE each byte).
int64_t module_heap_from_wasm(int64_t wasm_bytes);

// `pod`'s ModuleLoad on this node; `admitted` the image keys of each pod admitted here.
ModuleLoad module_load(const json::Value& pod, const std::vector<std::vector<std::string>>& admitted, const std::string& sd_dir);

}  // namespace kubelet
}  // namespace k32
