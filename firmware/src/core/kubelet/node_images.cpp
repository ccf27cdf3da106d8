#include "core/kubelet/node_images.h"

#include "core/kubelet/module_cache.h"
#include "core/sched/scheduler.h"

namespace k32 {
namespace kubelet {

json::Value node_images_status() {
  std::vector<HeldImage> held = modules_held();
  if (held.empty()) return json::Value();
  json::Value out = json::Value::array();
  for (const HeldImage& h : held) {
    json::Value names = json::Value::array();
    names.push(h.id);
    std::string key = sched::image_key(h.id);
    if (!key.empty() && key != h.id) names.push(key);
    json::Value img = json::Value::object();
    img.set("names", names);
    img.set("sizeBytes", static_cast<int64_t>(h.bytes));
    out.push(img);
  }
  return out;
}

}  // namespace kubelet
}  // namespace k32
