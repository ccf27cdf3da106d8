#include "core/kubelet/module_load.h"

#include "core/kubelet/image_source.h"
#include "core/kubelet/module_cache.h"
#include "core/kubelet/pod_instance.h"
#include "core/sched/module_charge.h"
#include "core/sched/scheduler.h"
#include "k32_board.h"
#include "port.h"

namespace k32 {
namespace kubelet {

int64_t module_estimate(const std::string& key, const std::string& sd_dir) {
  uint64_t compiled = 0;
  if (image_module_bytes(key, &compiled)) return static_cast<int64_t>(compiled);
  ImageRef ref;
  std::string err;
  if (!parse_image_ref(key, &ref, &err)) return 0;
  int64_t wasm_bytes = 0;
  if (ref.source == "embedded") {
    ImageBytes img;
    std::string reason, message;
    if (load_image(ref, "", &img, &reason, &message)) wasm_bytes = static_cast<int64_t>(img.len);  // no copy: in flash
  } else if (!sd_dir.empty()) {
    // The file's size, not its bytes: the card's image is read (onto the heap) only to start it.
    wasm_bytes = port::file_size((sd_dir + "/kube32/images/" + ref.name + "/" + ref.name + ".wasm").c_str());
  }
  return module_heap_from_wasm(wasm_bytes);
}

int64_t module_heap_from_wasm(int64_t wasm_bytes) {
  // A card holds no image near this size (a board's heap is a few hundred KiB): the product
  // stays far from int64_t's end.
  constexpr int64_t kWasmBytesMax = int64_t{1} << 32;
  if (wasm_bytes <= 0) return 0;
  if (wasm_bytes > kWasmBytesMax) wasm_bytes = kWasmBytesMax;
  return int64_t{K32_MODULE_HEAP_BASE_BYTES} + wasm_bytes * int64_t{K32_MODULE_HEAP_PER_WASM_BYTE};
}

ModuleLoad module_load(const json::Value& pod, const std::vector<std::vector<std::string>>& admitted, const std::string& sd_dir) {
  sched::NodeModules held;
  for (const HeldImage& h : modules_held()) {
    const std::string key = sched::image_key(h.id);
    const int64_t bytes = static_cast<int64_t>(h.bytes);
    if (!key.empty() && bytes > held[key]) held[key] = bytes;
  }
  auto estimate = [&sd_dir](const std::string& key) { return module_estimate(key, sd_dir); };
  for (const auto& images : admitted) sched::add_modules(&held, images, estimate);
  ModuleLoad out;
  out.held = sched::modules_bytes(held);
  out.added = sched::add_modules(&held, sched::pod_image_keys(pod), estimate, &out.named);
  return out;
}

}  // namespace kubelet
}  // namespace k32
