#include "core/api/qos_class.h"

namespace k32 {
namespace api {

std::string qos_class(const json::Value& spec) {
  bool any = false, guaranteed = true;
  for (const char* list : {"initContainers", "containers"}) {
    for (const auto& c : spec[list].items()) {
      const json::Value& req = c["resources"]["requests"];
      const json::Value& lim = c["resources"]["limits"];
      for (const char* r : {"cpu", "memory"}) {
        const json::Value& q = req[r];
        const json::Value& l = lim[r];
        if (!q.is_null() || !l.is_null()) any = true;
        // Compared as text: "1" and "1000m" count as different (Burstable), where
        // Kubernetes would compare the amounts.
        if (l.is_null() || (!q.is_null() && json::dump(q) != json::dump(l))) guaranteed = false;
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

}  // namespace api
}  // namespace k32
