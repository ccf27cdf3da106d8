#include "core/sched/module_charge.h"

#include <algorithm>

#include "core/sched/scheduler.h"
#include "core/util/text.h"

namespace k32 {
namespace sched {

std::vector<std::string> pod_image_keys(const json::Value& pod) {
  std::vector<std::string> out;
  for (const auto& c : pod["spec"]["containers"].items()) {
    std::string key = image_key(c["image"].as_string());
    if (!key.empty() && std::find(out.begin(), out.end(), key) == out.end()) out.push_back(std::move(key));
  }
  return out;
}

int64_t modules_bytes(const NodeModules& held) {
  int64_t sum = 0;
  for (const auto& h : held) sum += h.second;
  return sum;
}

void name_module(std::string* list, const std::string& key, int64_t bytes) {
  *list += (list->empty() ? "" : ", ") + key + ": " + text::to_string((bytes + 1023) / 1024) + " KiB";
}

}  // namespace sched
}  // namespace k32
